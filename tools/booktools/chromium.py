"""Debian's Chromium, driven by Playwright, as every browser test and
benchmark starts it (never Playwright's own browser download).

Public names:

- ``CHROMIUM``: the browser a reader runs (``$CHROMIUM``, by default
  ``/usr/bin/chromium``), for what a reader waits for and sees: the
  benchmarks of latency and page speed, and the screenshots (the benchmark
  of the browser tests' own time runs in the shell, as they do).
- ``HEADLESS_SHELL``: the same Chromium built as a headless program alone
  (``$CHROMIUM_HEADLESS_SHELL``, by default Debian's
  ``/usr/bin/chromium-headless-shell``), for the browser tests: the same
  engine (Blink and V8 of the same release) without the browser's own
  window and its user interface, which cost the full browser CPU time for
  every page a test opens. Where it is not installed, the tests use
  ``CHROMIUM``.
- ``CHROMIUM_ARGS``: headless as root, reaching nothing but this machine;
  :func:`launch`.
"""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
HEADLESS_SHELL = os.environ.get(
    "CHROMIUM_HEADLESS_SHELL", "/usr/bin/chromium-headless-shell"
)
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",  # no calls home on a closed network
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Nothing but this machine: every request to another host goes to a proxy
    # that is not there, and fails (Chromium sends loopback requests, such as
    # the tests' server's, past any proxy). A test logs such requests itself,
    # without intercepting every request (which costs the page its cache
    # and the test CPU time for every page).
    "--proxy-server=127.0.0.1:9",
]


def executable(shell: bool = False) -> str:
    """The path of the browser :func:`launch` starts: with ``shell``, the
    headless shell if it is installed, else (and without ``shell``) the
    browser. Raises ``FileNotFoundError`` if that is not installed."""
    if shell and Path(HEADLESS_SHELL).exists():
        return HEADLESS_SHELL
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(
            f"{CHROMIUM} not found: install Debian's chromium (apt-get install "
            "chromium chromium-headless-shell) or set CHROMIUM=/path/to/chromium "
            "(and CHROMIUM_HEADLESS_SHELL=/path/to/its/headless-shell)"
        )
    return CHROMIUM


def launch(playwright, shell: bool = False, **options):
    """A headless Chromium from ``playwright`` (``sync_playwright()``'s), with
    ``options`` passed on to ``playwright.chromium.launch``; ``shell``: the
    headless shell where it is installed (the tests: see the module's
    description)."""
    return playwright.chromium.launch(
        executable_path=executable(shell), args=CHROMIUM_ARGS, **options
    )


if __name__ == "__main__":  # (`make browser`: stops early, saying what to install)
    try:
        print(executable(shell=True))
    except FileNotFoundError as error:
        raise SystemExit(str(error)) from None
