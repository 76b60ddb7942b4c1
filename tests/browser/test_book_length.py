"""The reader's time: the book's prose stays within the words it may take
(booktools.wordcount counts them on the built pages; its LIMITS say how many)."""

from __future__ import annotations

import pytest

from booktools import wordcount
from booktools.book import SITE, TOC

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def counts() -> dict[str, dict[str, int]]:
    return wordcount.counts(SITE, TOC)


def test_every_page_is_counted(counts):
    counted = {page for pages in counts.values() for page in pages}
    assert counted == {
        page for pages in wordcount.parts(TOC).values() for page in pages
    }


@pytest.mark.parametrize("part", [part for part in wordcount.LIMITS if part != "book"])
def test_each_part_keeps_to_its_length(counts, part):
    assert part in counts, f"no part {part!r} in the table of contents"
    total = sum(counts[part].values())
    assert total <= wordcount.LIMITS[part], f"{part}: {total:,} words"


def test_the_whole_book_keeps_to_its_length(counts):
    total = sum(n for pages in counts.values() for n in pages.values())
    assert total <= wordcount.LIMITS["book"], f"the whole book: {total:,} words"


def test_the_count_is_of_prose_only():
    """Code, printed output, formulas and generated entries are not counted;
    headings, captions, admonitions and tables are."""
    page = """<article class="bd-article"><h1>Two words</h1>
    <div class="cell_input"><pre>print("not counted")</pre></div>
    <div class="cell_output"><pre>not counted either</pre></div>
    <p>One <math><mi>x</mi></math> sentence here.</p>
    <figure><figcaption>A caption</figcaption></figure>
    <dl class="py function"><dt>generated</dt><dd>docstring words</dd></dl>
    <table><tr><td>cell</td></tr></table></article>"""
    assert wordcount.words(page) == 2 + 3 + 2 + 1
    assert wordcount.words(page, generated=True) == 3
