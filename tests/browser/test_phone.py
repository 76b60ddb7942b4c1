"""The book on a phone (390 px, a common phone; 360 px, the narrowest):
figures in their phone layout, code that scrolls saying so, and touch
targets a finger can hit. (Every number the prose quotes in view, on every
page: test_pages.py, which opens each page once for all its checks.)

(Each check is a JavaScript function run in the page, kept in this module's
constants, so that it can move into the tooling package with its test.)"""

from __future__ import annotations

import pytest

from booktools import book
from booktools.book import PAGES
from booktools.pages import COMMON_PHONE, DESKTOP, PHONE, load_images

pytestmark = pytest.mark.browser

TOUCH = 44  # CSS px: the usual smallest touch target


# Every figure of the page with a phone layout: the picture shown (its
# currentSrc), its shape and the phone source's, its shown width.
PICTURES = """() => [...document.querySelectorAll('.bd-article picture')].map(p => {
    const img = p.querySelector('img'), source = p.querySelector('source');
    return {shown: img.currentSrc, phone: new URL(source.srcset, document.baseURI).href,
            desk: img.src, ratio: img.getBoundingClientRect().width
                                  / img.getBoundingClientRect().height,
            phoneRatio: source.width / source.height, deskRatio: img.width / img.height,
            width: img.getBoundingClientRect().width};
})"""


def pages_with_phone_layouts() -> list[str]:
    return [
        p
        for p in book.html_pages()
        if "<picture><source" in (book.SITE / p).read_text()
    ]


def test_a_phone_shows_the_phone_layout_and_a_desk_the_desks(browser, site_url):
    pages = pages_with_phone_layouts()
    assert pages, "no page has a figure with a phone layout"
    for width, which in ((PHONE, "phone"), (COMMON_PHONE, "phone"), (DESKTOP, "desk")):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.goto(site_url + pages[0], wait_until="networkidle")
        load_images(page)
        pictures = page.evaluate(PICTURES)
        context.close()
        assert pictures
        for picture in pictures:
            assert picture["shown"] == picture[which], (width, picture)
            ratio = picture["phoneRatio" if which == "phone" else "deskRatio"]
            squeezed = abs(picture["ratio"] - ratio) >= 0.02
            assert not squeezed, (width, picture)
            if which == "phone":
                assert picture["width"] <= width - 30, picture  # in the column


# A code or output box that scrolls sideways: whether the page shows a shadow
# at the side where code is hidden. Its background is drawn in a canvas-free
# way: the box's own background layers must include the shadows that stay put
# while the text scrolls ("scroll"), and the covers that scroll with it ("local").
SCROLL_CUE = """() => [...document.querySelectorAll('.bd-article div.highlight pre')]
    .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
    .map(pre => {
        const style = getComputedStyle(pre);
        return [style.backgroundImage.includes('radial-gradient'),
                style.backgroundAttachment.includes('local'),
                style.backgroundAttachment.includes('scroll'),
                pre.textContent.trim().slice(0, 40)];
    })"""


def test_code_that_scrolls_shows_that_it_does(open_page):
    page, _ = open_page(PAGES["wide code"], width=COMMON_PHONE)
    boxes = page.evaluate(SCROLL_CUE)
    assert boxes, f"no code scrolls on this page at {COMMON_PHONE} px: pick another"
    assert all(box[:3] == [True, True, True] for box in boxes), boxes


# The code listings cells show (mha.show_source): how each one's lines are
# laid out (CSS white-space), and its first line.
LISTINGS = """() => [...document.querySelectorAll(
        '.bd-article div.cell_output > div[class*="highlight-python"] pre')]
    .map(pre => [getComputedStyle(pre).whiteSpace, pre.textContent.split('\\n')[0]])"""


def test_code_a_cell_shows_keeps_its_lines_on_a_phone(open_page):
    """A listing of the package's code in a cell's output is code: on a phone
    it scrolls as code does (a printed output's lines wrap instead)."""
    page, _ = open_page(PAGES["code listing"], width=COMMON_PHONE)
    listings = page.evaluate(LISTINGS)
    assert listings, "no listing on this page: pick another"
    wrapped = [first for space, first in listings if space != "pre"]
    assert wrapped == [], f"listings whose lines wrap: {wrapped}"


# The header's buttons and the previous/next links: their size, and how many
# lines the link's title takes.
TARGETS = """() => {
    const controls = [...document.querySelectorAll(
        '.bd-header-article :is(button, a.btn), .prev-next-area a')]
        .filter(el => el.getClientRects().length && el.offsetParent !== null);
    return controls.map(el => {
        const r = el.getBoundingClientRect();
        const title = el.querySelector('.prev-next-title');
        const lines = title ? Math.round(title.getBoundingClientRect().height
                                         / parseFloat(getComputedStyle(title).lineHeight)) : 0;
        return [el.getAttribute('aria-label') || el.title || el.textContent.trim().slice(0, 40),
                Math.round(r.width), Math.round(r.height), lines];
    });
}"""


@pytest.mark.parametrize("width", [PHONE, COMMON_PHONE])
def test_touch_targets_are_big_enough_and_titles_short(open_page, width):
    """On a phone every button of the header and the previous/next links are
    at least 44 px tall (and the buttons as wide), and a link's chapter title
    takes two lines at most. (Chapter 9's previous link is chapter 8, the
    longest title of the book.)"""
    page, _ = open_page(PAGES["after the longest title"], width=width)
    targets = page.evaluate(TARGETS)
    assert len(targets) >= 6
    small = [t for t in targets if t[2] < TOUCH or (t[3] == 0 and t[1] < TOUCH)]
    assert small == [], f"smaller than {TOUCH} px (name, width, height): {small}"
    long = [t for t in targets if t[3] > 2]
    assert long == [], f"titles on more than two lines: {long}"


# Headings holding code followed by punctuation: the line of the code's end
# and the punctuation's (top and bottom of each: the code is set smaller, on
# the same baseline), and the heading's text.
CODE_IN_HEADINGS = """() => [...document.querySelectorAll(
        '.bd-article :is(h1, h2, h3) code.literal')]
    .filter(code => code.nextSibling && code.nextSibling.nodeType === Node.TEXT_NODE
                    && /^[:,.;)]/.test(code.nextSibling.data))
    .map(code => {
        const range = document.createRange();
        range.setStart(code.nextSibling, 0);
        range.setEnd(code.nextSibling, 1);
        const rects = code.getClientRects();
        const mark = range.getBoundingClientRect(), end = rects[rects.length - 1];
        return [[Math.round(end.top), Math.round(end.bottom)],
                [Math.round(mark.top), Math.round(mark.bottom)],
                code.parentElement.textContent.trim().slice(0, 60)];
    })"""


@pytest.mark.parametrize("width", [PHONE, COMMON_PHONE])
def test_punctuation_after_code_in_a_heading_stays_on_its_line(open_page, width):
    """Chapter 8's headings name PyTorch's functions: on a phone the name
    breaks after a dot where it must, and the colon after it stays with it."""
    page, _ = open_page(PAGES["code headings"], width=width)
    found = page.evaluate(CODE_IN_HEADINGS)
    assert found, "no heading with code and punctuation after it: pick another page"
    apart = [  # on one line: the two boxes overlap in height
        text for (top, bottom), (m_top, m_bottom), text in found
        if m_top >= bottom or m_bottom <= top
    ]  # fmt: skip
    assert apart == [], f"punctuation on a line of its own: {apart}"


# Every parameter name of the API page's signatures that a line break cuts
# where it has no break point (a piece of its text drawn on two lines; a name
# of 16 characters or more may break after its underscores: _ext/book_code.py).
CUT_PARAMETERS = """() => [...document.querySelectorAll('dl.py > dt.sig .sig-param .n')]
    .filter(name => {
        const walker = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        for (let text = walker.nextNode(); text; text = walker.nextNode()) {
            range.selectNodeContents(text);
            if (range.getClientRects().length > 1) return true;
        }
        return false;
    })
    .map(name => name.closest('dt').id + ': ' + name.textContent)"""


@pytest.mark.parametrize("width", [PHONE, COMMON_PHONE])
def test_no_signature_cuts_a_parameter_s_name(open_page, width):
    """On a phone the API page's signatures wrap between their parameters
    (also after the opening bracket), never inside a name but at a long
    name's break points: the class MultiHeadAttention's signature broke as
    "(d_" / "model=512" (book.css)."""
    page, _ = open_page(PAGES["api"], width=width)
    assert page.locator("dl.py > dt.sig .sig-param").count() > 100
    assert page.evaluate(CUT_PARAMETERS) == []


# Every table of the page, as a reader of a phone sees it: its width and its
# box's, its height, its rows, how many of them are not drawn as one row (their
# cells starting at different heights: stacked, as cards were), how it is
# displayed, and whether its first column stays put when its box scrolls.
TABLES = """() => [...document.querySelectorAll('.bd-article table')].map(table => {
    let box = table.parentElement;
    while (getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    const rows = [...table.querySelectorAll('tbody > tr')];
    const stacked = rows.filter(row => new Set([...row.children].map(
        cell => Math.round(cell.getBoundingClientRect().top))).size > 1).length;
    const first = table.querySelector('tbody > tr > :first-child');
    return {text: table.textContent.trim().replace(/\\s+/g, ' ').slice(0, 50),
            width: Math.round(table.getBoundingClientRect().width), room: box.clientWidth,
            height: Math.round(table.getBoundingClientRect().height),
            rows: rows.length, stacked, display: getComputedStyle(table).display,
            fixed: first ? getComputedStyle(first).position : null};
})"""

# The pages with tables of three columns or more (_ext/book_phone.py).
WIDE_TABLES = (
    "book/08_pytorch.html",
    "book/09_block.html",
    "book/10_costs.html",
    PAGES["tables"],
)


@pytest.mark.parametrize("width", [PHONE, COMMON_PHONE])
def test_a_table_keeps_its_rows_on_a_phone(open_page, width):
    """A table stays a table on a phone, the same on every page: each row one
    row, its values side by side to compare with the next row's (they were
    cards of 850-1,650 px, one cell under another); at 390 px each fits its
    column, and one that does not at 360 px scrolls in its box with its
    first column fixed."""
    for path in WIDE_TABLES:
        page, _ = open_page(path, width=width)
        tables = page.evaluate(TABLES)
        assert tables, f"{path}: no table: pick another page"
        for table in tables:
            assert table["display"] == "table", (path, table)
            assert table["stacked"] == 0, (path, table)
            if width == COMMON_PHONE:
                assert table["width"] <= table["room"] + 1, (path, table)
            if table["width"] > table["room"] + 1:
                assert table["fixed"] == "sticky", (path, table)


# Each row of a wide table: the colour its first cell shows and the colour its
# second shows (a cell's own background, else its row's, and so on up).
ROW_COLOURS = """() => {
    const shown = el => {
        for (; el; el = el.parentElement) {
            const colour = getComputedStyle(el).backgroundColor;
            if (!/rgba\\(.*, 0\\)$|transparent/.test(colour)) return colour;
        }
        return null;
    };
    return [...document.querySelectorAll('.bd-article table.mha-wide tr')]
        .filter(row => row.children.length > 1)
        .map(row => [row.textContent.trim().slice(0, 30),
                     shown(row.children[0]), shown(row.children[1])]);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_table_s_fixed_first_column_keeps_its_rows_colours(open_page, scheme):
    """On a phone a wide table's first column stays in place as the rest
    scrolls (test_a_table_keeps_its_rows_on_a_phone); each of its cells
    shows its row's stripe or the heading's colour, not the page's (in dark
    mode the column was a black band beside grey rows)."""
    page, _ = open_page(PAGES["tables"], width=COMMON_PHONE, color_scheme=scheme)
    rows = page.evaluate(ROW_COLOURS)
    assert len(rows) > 5
    for text, first, second in rows:
        assert first == second, (scheme, text, first, second)


# Each name of code in a heading, on how many lines it is drawn, and whether
# its heading is wider than the column.
HEADING_NAMES = """() => [...document.querySelectorAll(
        '.bd-article :is(h1, h2, h3, h4) > code.literal')].map(code => [
    code.textContent, code.getClientRects().length,
    code.parentElement.scrollWidth > code.parentElement.clientWidth + 1])"""


@pytest.mark.parametrize("width", [PHONE, COMMON_PHONE])
def test_a_heading_breaks_between_words_never_inside_a_name(open_page, width):
    """On a phone a heading's name of code stays whole on one line
    ("9.2. nn." then "MultiheadAttention", "F.multi_head_" then
    "attention_forward" were the breaks), and fits the column."""
    page, _ = open_page(PAGES["code headings"], width=width)
    names = page.evaluate(HEADING_NAMES)
    assert len(names) >= 3, "too few headings with code: pick another page"
    broken = [(name, lines) for name, lines, _ in names if lines > 1]
    assert broken == [], f"names of code broken across lines: {broken}"
    assert not any(wide for *_, wide in names), names


# Code in a table's cells cut inside a name: a line that starts right after a
# letter or a digit of the same piece of code ("to_sd" / "pa_mask", "batc" /
# "h", "(32, 1" / "0)"), where a break may come only at a space or after a dot
# or an underscore (_ext/book_code.py's break points). Each: the code so far,
# a bar where the line broke, and the page's width then.
NAMES_CUT_IN_TABLES = """() => {
    const cuts = [];
    for (const code of document.querySelectorAll('.bd-article :is(td, th) code')) {
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        let before = '', top = null, text = '';
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.data.length; i++) {
                const c = node.data[i];
                text += c;
                if (/\\s/.test(c)) { before = ' '; continue; }
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const box = range.getBoundingClientRect();
                if (box.height === 0) continue;  // not drawn
                if (top !== null && box.top > top + box.height / 2
                        && /[A-Za-z0-9]/.test(before))
                    cuts.push(text.slice(0, -1) + '|' + c);
                top = box.top;
                before = c;
            }
        }
    }
    return cuts;
}"""


@pytest.mark.parametrize("width", [PHONE, COMMON_PHONE])
def test_code_in_a_table_breaks_between_names_never_inside_one(open_page, width):
    """On a phone the code in a table's cells (the glossary's, chapter 8's)
    breaks at its spaces and after its dots and underscores, never inside a
    name: the glossary's cells broke "batc" / "h", "(32, 1" / "0)", chapter
    8's "to_sd" / "pa_mask" (book.css let code in a table break anywhere); at
    390 px every such table fits its column (391-396 px when code broke after
    dots and underscores only, without a smaller font and break points in
    short names)."""
    for path in (PAGES["tables"], PAGES["code headings"]):
        page, _ = open_page(path, width=width)
        assert page.locator(".bd-article table code").count() > 20, path
        assert page.evaluate(NAMES_CUT_IN_TABLES) == [], (path, width)
        if width == COMMON_PHONE:
            tables = page.evaluate(TABLES)
            wide = [t for t in tables if t["width"] > t["room"] + 1]
            assert wide == [], (path, wide)
