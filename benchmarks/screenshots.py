"""Full-page screenshots of every page of the built site, on a phone and on a
desktop, in light and in dark mode, for a person to look at.

    python benchmarks/screenshots.py [PAGE ...]     # or: make screenshots

Writes `_build/screenshots/all/<page>-<width>-<mode>.jpg` (390 px is a common
phone, 1280 px a laptop). Every explorer's picture and every formula is drawn
first, so the pictures show what a reader sees once the page has settled.
"""

from __future__ import annotations

import sys
from pathlib import Path

from booktools.book import ROOT, SITE, html_pages
from booktools.chromium import launch
from booktools.pages import COMMON_PHONE, DESKTOP, load_images, settle
from booktools.server import serve

WIDTHS = (COMMON_PHONE, DESKTOP)
MODES = ("light", "dark")
OUT = SITE.parent / "screenshots" / "all"
JPEG_LIMIT = 30_000  # px; a JPEG is at most 65,535 px on a side


def _screenshots(page, stem: Path) -> list[Path]:
    """``stem.jpg``, or ``stem-1.jpg``, ``stem-2.jpg``, ... for a page taller than
    a JPEG can be (Chromium then writes an empty file)."""
    height = page.evaluate("document.documentElement.scrollHeight")
    width = page.viewport_size["width"]
    parts = range(0, height, JPEG_LIMIT)
    targets = []
    for number, top in enumerate(parts, start=1):
        suffix = f"-{number}" if len(parts) > 1 else ""
        target = stem.with_name(f"{stem.name}{suffix}.jpg")
        clip = {
            "x": 0,
            "y": top,
            "width": width,
            "height": min(JPEG_LIMIT, height - top),
        }
        page.screenshot(path=target, full_page=True, clip=clip, type="jpeg", quality=70)
        if target.stat().st_size == 0:
            raise RuntimeError(f"{target} is empty: the page is {height} px tall")
        targets.append(target)
    return targets


def main(pages: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with serve(SITE) as url, sync_playwright() as playwright:
        browser = launch(playwright)
        for width in WIDTHS:
            for mode in MODES:
                context = browser.new_context(
                    viewport={"width": width, "height": 900}, color_scheme=mode
                )
                for path in pages:
                    page = context.new_page()
                    page.goto(url + path, wait_until="networkidle")
                    settle(page)
                    load_images(page)
                    name = path.replace("/", "_").replace(".html", "")
                    for target in _screenshots(page, OUT / f"{name}-{width}-{mode}"):
                        print(target.relative_to(ROOT), flush=True)
                    page.close()
                context.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:] or html_pages())
