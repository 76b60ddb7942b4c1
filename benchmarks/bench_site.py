"""The built site's size: in all, the vendored font, the explorers' front
end, and each page's weight (its HTML and the images it names).

    python benchmarks/bench_site.py
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from booktools import book


def measure(site: Path = book.SITE) -> dict:
    """``{"total", "vendored": bytes, "front_end": (bytes, gzipped bytes),
    "pages": [(page, html bytes, image bytes), ...]}`` of the built site
    (the front end: the explorers' script and style sheet)."""
    total = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    fonts = site / "_static" / "fonts"
    vendored = sum(f.stat().st_size for f in fonts.rglob("*") if f.is_file())
    front_end = [site / "_static" / name for name in ("explorer.js", "explorer.css")]
    pages = []
    for path in book.html_pages():
        page = site / path
        if not page.exists():
            continue
        images = {
            m
            for m in re.findall(r'<img[^>]+src="([^"]+)"', page.read_text())
            if not m.startswith("data:")
        }
        image_bytes = sum(
            (page.parent / m).stat().st_size
            for m in images
            if (page.parent / m).exists()
        )
        pages.append((path, page.stat().st_size, image_bytes))
    return {
        "total": total,
        "vendored": vendored,
        "front_end": (
            sum(f.stat().st_size for f in front_end),
            sum(len(gzip.compress(f.read_bytes())) for f in front_end),
        ),
        "pages": pages,
    }


if __name__ == "__main__":
    print(measure())
