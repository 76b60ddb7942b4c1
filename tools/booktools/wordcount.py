"""How many words of prose each page of the built site holds, by part.

    python -m booktools.wordcount            # a table, after `make book`

Counted is the prose written for the book, as a reader meets it on the page:
the text of the article, with its headings, captions, admonitions,
exercises, solutions and tables (those a cell prints included), but not
code, printed output, formulas or controls. What Sphinx generates from
other sources is reported apart, not counted: the API page's entries (the
package's docstrings, which ``help()`` shows too) and the bibliography's
entries (from ``references.bib``). The limits the book keeps are in
:data:`LIMITS` and are checked by a test.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

from booktools.book import SITE, TOC, parts

HTML = SITE
# Part captions of _toc.yml -> the most words that part may hold; "book" is all
# pages together, the intro and the reference pages included.
LIMITS = {"The core path": 8_000, "book": 20_000}
# What a reader does not read as prose: code and what it prints, formulas,
# the explorers' controls, the links Sphinx adds to headings.
NOT_PROSE = (
    "pre, div.highlight, math, script, style, button, form, select, "
    ".headerlink, .mha-explorer, .cell_input"
)
# Generated from other sources: the docstrings' entries, the bibliography's.
GENERATED = "dl.py, div.citation"
WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def words(html: str, generated: bool = False) -> int:
    """The words of prose in the article of one built page (with
    ``generated``, the words of its generated entries instead)."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article.bd-article")
    if article is None:
        raise ValueError("no <article class='bd-article'> in the page")
    for node in article.select(NOT_PROSE):
        node.decompose()
    entries = article.select(GENERATED)
    if generated:
        return sum(len(WORD.findall(node.get_text(" "))) for node in entries)
    for node in entries:
        node.decompose()
    return len(WORD.findall(article.get_text(" ")))


def counts(html_dir: Path = HTML, toc: Path = TOC) -> dict[str, dict[str, int]]:
    """Words per page, grouped by part (a page that was not built is left out)."""
    return {
        part: {
            page: words((html_dir / f"{page}.html").read_text(encoding="utf-8"))
            for page in pages
            if (html_dir / f"{page}.html").exists()
        }
        for part, pages in parts(toc).items()
    }


def main() -> None:
    if not (HTML / "index.html").exists():
        sys.exit("no built site: run `make book` first")
    total = 0
    for part, pages in counts().items():
        subtotal = sum(pages.values())
        total += subtotal
        limit = f" (at most {LIMITS[part]:,})" if part in LIMITS else ""
        print(f"{part}: {subtotal:,} words{limit}")
        for page, n in pages.items():
            print(f"  {n:6,}  {page}")
    print(f"the whole book: {total:,} words (at most {LIMITS['book']:,})")
    for page in ("book/api", "book/references"):
        path = HTML / f"{page}.html"
        if path.exists():
            n = words(path.read_text(encoding="utf-8"), generated=True)
            print(f"not counted: {n:,} words generated in {page}")


if __name__ == "__main__":
    main()
