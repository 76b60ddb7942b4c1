"""How many words of prose each page of the built site holds, by part, and
how long the core path takes to read.

    python -m booktools.wordcount            # two tables, after `make book`

Counted is the prose written for the book, as a reader meets it on the page:
the text of the article, with its headings, captions, admonitions,
exercises, solutions and tables (those a cell prints included), but not
code, printed output, formulas or controls. What Sphinx generates from
other sources is reported apart, not counted: the API page's entries (the
package's docstrings, which ``help()`` shows too) and the bibliography's
entries (from ``references.bib``). The limits the book keeps are in
:data:`LIMITS` and are checked by a test.

The reading time of a page follows a fixed model of the reader
(:data:`READING`): the words of prose it shows unfolded (counted as above,
but not a folded solution or optional box: the one exercise a reader does
is timed on its own) at 200 a minute, the non-blank lines of the code it shows at 5 a
minute, 1.5 minutes a figure, 3 an explorer, and 3 for one exercise when the
page has any. Shown code is what a reader sees without unfolding anything:
the input of code cells, code blocks of the text, a function's source a
cell shows; not a removed cell, a hidden input, a folded solution or box,
nor what a cell prints. A figure is a figure of the text or an image a cell
draws; an explorer is an ``.mha-explorer`` element. :data:`BUDGET` holds the minutes the core path
(the intro and Part 1) may take; a test checks it.
"""

from __future__ import annotations

import copy
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

# The fixed model of a reader: prose words and code lines a minute, and the
# minutes a figure, an explorer and one exercise take.
READING = {"words": 200, "code lines": 5, "figure": 1.5, "explorer": 3, "exercise": 3}
# The parts whose pages make the core path, and the minutes it may take.
CORE_PATH = ("intro", "The core path")
BUDGET = 135
# What a reader sees only after unfolding it: a folded solution or box
# (sphinx-togglebutton's dropdowns, <details>), a cell's hidden input.
FOLDED = "details, .dropdown, .toggle-hidden, .tag_hide-input .cell_input"
# What a cell prints (text, numbers): read, but not as code. Code is every
# other highlighted block: a cell's input, a code block of the text, the
# source of a function a cell shows.
PRINTED = ".cell_output .output"


def words(html: str, generated: bool = False) -> int:
    """The words of prose in the article of one built page (with
    ``generated``, the words of its generated entries instead)."""
    return _words(_article(html), generated)


def _words(article, generated: bool = False) -> int:
    for node in article.select(NOT_PROSE):
        node.decompose()
    entries = article.select(GENERATED)
    if generated:
        return sum(len(WORD.findall(node.get_text(" "))) for node in entries)
    for node in entries:
        node.decompose()
    return len(WORD.findall(article.get_text(" ")))


def _article(html: str):
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article.bd-article")
    if article is None:
        raise ValueError("no <article class='bd-article'> in the page")
    return article


def reading(html: str) -> dict[str, int]:
    """What one built page asks of a reader: its ``words`` of prose, the
    non-blank ``code lines`` it shows, its ``figures``, ``explorers`` and
    ``exercises``."""
    article = _article(html)
    for node in article.select(FOLDED):
        node.decompose()
    images = article.select(".cell_output img")
    seen = {
        "words": _words(copy.copy(article)),  # _words takes its code out
        "figures": len(article.select("figure"))
        + sum(1 for img in images if img.find_parent("figure") is None),
        "explorers": sum(
            1
            for node in article.select(".mha-explorer")
            if node.find_parent(class_="mha-explorer") is None
        ),
        "exercises": len(article.select("div.exercise")),
    }
    for node in article.select(PRINTED):
        node.decompose()
    seen["code lines"] = sum(
        1
        for pre in article.select("div.highlight pre")
        for line in pre.get_text().splitlines()
        if line.strip()
    )
    return seen


def minutes(page: dict[str, int]) -> float:
    """The reading time of a page, from :func:`reading`, by the model :data:`READING`."""
    return (
        page["words"] / READING["words"]
        + page["code lines"] / READING["code lines"]
        + page["figures"] * READING["figure"]
        + page["explorers"] * READING["explorer"]
        + (READING["exercise"] if page["exercises"] else 0)
    )


def core_path(html_dir: Path = HTML, toc: Path = TOC) -> dict[str, dict[str, int]]:
    """:func:`reading` for every built page of the core path, in order."""
    found = parts(toc)
    return {
        page: reading((html_dir / f"{page}.html").read_text(encoding="utf-8"))
        for part in CORE_PATH
        for page in found.get(part, [])
        if (html_dir / f"{page}.html").exists()
    }


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
    print()
    print_reading()


def print_reading() -> None:
    """The core path's reading time, page by page, by the model :data:`READING`."""
    header = ("minutes", "words", "code", "figures", "explorers", "exercise")
    print(f"Reading time of the core path (at most {BUDGET} minutes):")
    print("  " + "  ".join(f"{h:>9}" for h in header) + "  page")
    total = 0.0
    totals = dict.fromkeys(("words", "code lines", "figures", "explorers"), 0)
    for page, seen in core_path().items():
        total += minutes(seen)
        for key in totals:
            totals[key] += seen[key]
        row = (
            f"{minutes(seen):.1f}",
            f"{seen['words']:,}",
            seen["code lines"],
            seen["figures"],
            seen["explorers"],
            "yes" if seen["exercises"] else "",
        )
        print("  " + "  ".join(f"{x:>9}" for x in row) + f"  {page}")
    row = (f"{total:.1f}", f"{totals['words']:,}", *list(totals.values())[1:], "")
    print("  " + "  ".join(f"{x:>9}" for x in row) + "  the core path")


if __name__ == "__main__":
    main()
