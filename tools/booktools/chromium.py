"""Debian's Chromium, driven by Playwright, as every browser test and
benchmark starts it (never Playwright's own browser download).

Public names: ``CHROMIUM`` (its path: ``$CHROMIUM``, by default
``/usr/bin/chromium``), ``CHROMIUM_ARGS`` (headless as root on a closed
network) and :func:`launch`.
"""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",  # no calls home on a closed network
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch(playwright, **options):
    """A headless Chromium from ``playwright`` (``sync_playwright()``'s), with
    ``options`` passed on to ``playwright.chromium.launch``."""
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(
            f"{CHROMIUM} not found: install Debian's chromium "
            "(apt-get install chromium) or set CHROMIUM=/path/to/chromium"
        )
    return playwright.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, **options
    )
