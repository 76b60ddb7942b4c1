"""Links inside the built site: every local link and asset resolves, with its
anchor. (Sphinx's -n already checks cross-references; this checks the HTML the
reader gets, links to other hosts excluded: the site must work offline.)"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.browser


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])


def parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(errors="replace"))
    return parser


def test_every_local_link_resolves(site_dir):
    pages = [p for p in site_dir.rglob("*.html") if "_static" not in p.parts]
    assert len(pages) > 10
    parsed = {page: parse(page) for page in pages}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(
                ("//", "data:", "mailto:", "javascript:")
            ):
                continue
            target = (
                (page.parent / unquote(parts.path)).resolve() if parts.path else page
            )
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site_dir)}: {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(
                        f"{page.relative_to(site_dir)}: {link} (no such anchor)"
                    )
    assert broken == [], "\n".join(broken)


def test_no_page_refers_to_another_host_for_assets(site_dir):
    """Scripts, styles, images and fonts all come from the site itself."""
    offenders = []
    for page in site_dir.rglob("*.html"):
        text = page.read_text(errors="replace")
        for match in re.finditer(
            r'<(script|link|img)[^>]+(src|href)="(https?:)?//[^"]+"', text
        ):
            tag = match.group(0)
            if (
                match.group(1) == "link"
                and 'rel="stylesheet"' not in tag
                and "preload" not in tag
            ):
                continue  # a plain hyperlink-like <link> (e.g. canonical), not an asset
            offenders.append(f"{page.relative_to(site_dir)}: {tag[:120]}")
    assert offenders == [], "\n".join(offenders)
