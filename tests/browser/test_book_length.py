"""The reader's time: the book's prose stays within the words it may take
(booktools.wordcount counts them on the built pages; its LIMITS say how many)."""

from __future__ import annotations

import re

import pytest

from booktools import wordcount
from booktools.book import ROOT, SITE, TOC

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def counts() -> dict[str, dict[str, int]]:
    return wordcount.counts(SITE, TOC)


@pytest.fixture(scope="module")
def core_path() -> dict[str, dict[str, int]]:
    """What a reader of the core path sees, page by page (read once for the
    module's tests)."""
    return wordcount.core_path(SITE, TOC)


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


def test_the_core_path_keeps_to_its_reading_time(core_path):
    """The intro and Part 1 within wordcount.BUDGET minutes, by the fixed
    model of a reader (wordcount.READING)."""
    pages = core_path
    assert "book/intro" in pages and len(pages) > 1, "the core path was not built"
    per_page = {page: round(wordcount.minutes(seen), 1) for page, seen in pages.items()}
    total = sum(wordcount.minutes(seen) for seen in pages.values())
    assert total <= wordcount.BUDGET, f"{total:.1f} minutes: {per_page}"


READ_PAGE = "".join(
    [
        '<article class="bd-article"><h1>Prose counted as the word count counts</h1>',
        # a cell: 2 lines of code (a blank one is not counted), printed output
        '<div class="cell"><div class="cell_input"><div class="highlight">',
        "<pre>x = 1\n\nprint(x)\n</pre></div></div>",
        '<div class="cell_output"><div class="output stream highlight-myst-ansi">',
        '<div class="highlight"><pre>1\nprinted, not code</pre></div></div></div></div>',
        # a hidden input (not counted) that draws an image (a figure)
        '<div class="cell tag_hide-input"><div class="cell_input">',
        '<div class="highlight"><pre>hidden = 1</pre></div></div>',
        '<div class="cell_output"><img src="a.png"></div></div>',
        # 1 line that shows a function's source, 2 lines
        '<div class="cell"><div class="cell_input"><div class="highlight">',
        "<pre>mha.show_source(f)</pre></div></div>",
        '<div class="cell_output"><div class="highlight-python"><div class="highlight">',
        "<pre>def f():\n    return 1</pre></div></div></div></div>",
        # a figure of the text, a figure a cell glues (each once)
        '<figure><img src="b.png"><figcaption>caption</figcaption></figure>',
        '<div class="cell"><div class="cell_output"><figure><img src="c.png">',
        "</figure></div></div>",
        # one explorer, however its elements nest
        '<div class="mha-explorer-output"><div class="mha-explorer">',
        '<div class="mha-explorer">x</div></div></div>',
        # an exercise, and its folded solution (code and image not counted)
        '<div class="exercise admonition"><p>Do it.</p></div>',
        '<div class="solution dropdown admonition"><p>Folded words.</p><div class="cell">',
        '<div class="cell_input"><div class="highlight"><pre>folded = 1</pre></div></div>',
        '<div class="cell_output"><img src="d.png"></div></div></div>',
        "</article>",
    ]
)


def test_the_reading_time_counts_what_a_reader_sees():
    """Shown prose and code (a cell's input, a function's source a cell
    shows), not what a cell prints, a hidden input or a folded solution (its
    words are in the book's word count, not in the reading time); figures of
    the text and images a cell draws, once each; explorers; whether there is
    an exercise."""
    seen = wordcount.reading(READ_PAGE)
    assert seen == {
        "words": wordcount.words(READ_PAGE) - 2,  # not "Folded words."
        "code lines": 2 + 1 + 2,
        "figures": 3,
        "explorers": 1,
        "exercises": 1,
    }
    expected = seen["words"] / 200 + 5 / 5 + 3 * 1.5 + 3 + 3
    assert abs(wordcount.minutes(seen) - expected) < 1e-9
    no_exercise = dict(seen, exercises=0)
    assert abs(wordcount.minutes(no_exercise) - (expected - 3)) < 1e-9


def test_the_intro_promises_the_measured_reading_time(core_path):
    """The intro states the core path's minutes; they are the measured ones,
    to the nearest five (the figure a reader is told is the one computed)."""
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    found = re.search(r"take about (\d+) minutes", intro)
    assert found, "the intro no longer says how long the core path takes"
    total = sum(wordcount.minutes(seen) for seen in core_path.values())
    assert int(found.group(1)) == 5 * round(total / 5), f"measured {total:.1f}"
