"""Every page of the book, opened in a real browser with the network cut off."""

from __future__ import annotations

import time

import pytest
from test_phone import NAMES_CUT_IN_TABLES

from booktools.book import PAGES
from booktools.pages import (
    COMMON_PHONE,
    DESKTOP,
    ONLY_CONTRAST,
    PHONE,
    axe_settings,
    layouts,
    load_images,
    overflow,
    resize,
    settle,
    too_wide,
)

pytestmark = pytest.mark.browser

GOOD_LAYOUT_SHIFT = 0.1  # Google's threshold for a page that does not move
# axe-core checks each page layout, in light and in dark mode.
LAYOUTS = layouts()


# The fonts _ext/book_fonts.py cuts down: a page fetches one whole only if it
# shows a character that is not in the copy.
WHOLE_FONTS = ("/stix-two-math.woff2", "/fa-solid-900.woff2")


# Load the faces the site declares for the math font again, under a name of
# the test's own and with font-display "block" (the site's "optional" may
# keep a font that arrives late out of a page, which would make the
# comparison depend on timing), once as the site declares them (the whole
# font for what the copy lacks, then the copy for its characters) and once
# the whole font alone, for every character.
# Then measure every box of every formula, relative to its formula, with each.
MEASURE_FORMULAS = """async () => {
    const faces = [];
    for (const sheet of document.styleSheets) {
        let rules;
        try { rules = sheet.cssRules; } catch (e) { continue; }
        for (const rule of rules) {
            if (!(rule instanceof CSSFontFaceRule)) continue;
            if (!rule.style.getPropertyValue('font-family').includes('STIX Two Math')) continue;
            const url = rule.style.getPropertyValue('src').match(/url\\("?([^")]+)"?\\)/)[1];
            faces.push({url: new URL(url, sheet.href).href,
                        range: rule.style.getPropertyValue('unicode-range') || 'U+0-10FFFF'});
        }
    }
    const load = async (family, list) => {
        for (const f of list) {
            const face = new FontFace(family, `url("${f.url}")`,
                                      {unicodeRange: f.range, display: 'block'});
            document.fonts.add(await face.load());
        }
    };
    await load('Site faces', faces);
    await load('Whole font', faces.filter(f => !f.url.includes('-book.'))
                                  .map(f => ({url: f.url, range: 'U+0-10FFFF'})));
    const style = document.createElement('style');
    document.head.append(style);
    const boxes = async family => {
        style.textContent = `.bd-article math { font-family: "${family}" !important; }`;
        await document.fonts.ready;
        return [...document.querySelectorAll('.bd-article math')].map(math => {
            const origin = math.getBoundingClientRect();
            return [...math.querySelectorAll('*')].map(el => {
                const r = el.getBoundingClientRect();
                return [el.tagName, el.textContent.slice(0, 20), r.left - origin.left,
                        r.top - origin.top, r.width, r.height].map(
                            v => typeof v === 'number' ? Math.round(v * 2) / 2 : v);
            });
        });
    };
    return {faces: faces.length, site: await boxes('Site faces'),
            whole: await boxes('Whole font')};
}"""


def formulas_drawn_differently(page) -> list:
    """Boxes of the page's formulas that differ between the math font's copy
    cut down to the book's characters (_ext/book_fonts.py) and the whole font:
    (whole, copy) pairs; none if the copy lacks nothing a formula needs."""
    result = page.evaluate(MEASURE_FORMULAS)
    assert result["faces"] == 2, "expected the whole math font and its copy"
    return [
        (whole, copy)
        for formula_copy, formula_whole in zip(
            result["site"], result["whole"], strict=True
        )
        for copy, whole in zip(formula_copy, formula_whole, strict=True)
        if copy != whole
    ]


# Display formulas wider than the column: on a phone the reader would have to
# scroll them sideways (they may, but the book writes them to fit).
WIDE_FORMULAS = """() => [...document.querySelectorAll('.bd-article div.math')]
    .filter(box => box.scrollWidth > box.clientWidth + 1)
    .map(box => `${box.scrollWidth} px in ${box.clientWidth} px: `
         + (box.querySelector('annotation') || box).textContent.trim().slice(0, 60))"""


# Inline formulas split from the punctuation touching them (_ext/book_math.py
# keeps each in one span with it, which book.css keeps on one line).
MATH_APART = """() => [...document.querySelectorAll('.bd-article .math-with-punctuation')]
    .filter(span => new Set([...span.getClientRects()].map(r => Math.round(r.top))).size > 1)
    .map(span => (span.querySelector('annotation') || span).textContent.slice(0, 60))"""


# Code in a heading or in the contents panel broken inside a piece (the text
# between two of _ext/book_code.py's break points) rather than at one.
CODE_BROKEN_IN_A_WORD = """() => [...document.querySelectorAll(
        ':is(.bd-article :is(h1, h2, h3, h4), .bd-sidebar-secondary) code span.pre')]
    .filter(piece => new Set([...piece.getClientRects()].map(r => Math.round(r.top))).size > 1)
    .map(piece => piece.closest('code').textContent)"""


def rows_broken(found: dict, width: int) -> str:
    return (
        f"printed lines that wrap back to their own start at {width} px, where the "
        "rest of a tensor's row reads as a row (x of the line, x of the rest, the "
        "line so far):\n" + "\n".join(map(str, found["rows"]))
    )


def printed_too_wide(found: dict, width: int) -> str:
    return (
        f"printed outputs wider than the column at {width} px (width, room, line):\n"
        + ("\n".join(map(str, found["printed"])))
    )


def test_page_renders_offline(open_page, page_path):
    """Everything a reader of this page gets: on a phone on a slow network
    (scripts, fonts and images arriving after the first paint) the text does
    not move while the page loads (cumulative layout shift below Google's
    "good" threshold); no request leaves the site, nothing fails or logs an
    error, every explorer, formula and image renders, every image has a text
    alternative, and the page fits the window, on a 360 px phone and on a
    laptop (wide tables, printouts and code scroll inside their own box, and
    every display formula fits a phone's column, and no line starts with the
    comma or bracket of an inline formula, and at 1280 px no heading's code,
    nor the contents panel's, breaks inside a word); at 390 px no table (nor
    any table's code cut inside a name: test_phone.py), and on
    the pages of Part 1 no printed output (at 1280 px neither), is wider
    than its column, so the numbers the prose quotes are all in view (a
    printed line wraps at its spaces, book.css, and at 360 and 390 px its
    rest starts right of where it started, so a tensor's wrapped row reads as
    one row; at 390 px no printed line wraps at all, a folded solution's
    neither, on any page; on a phone a wide table stays a table:
    test_phone.py); the site's cut-down
    fonts have every character the page shows, and draw its formulas exactly
    as the whole math font does."""
    page, log = open_page(page_path, width=PHONE, height=800, slow=True)
    shifts = page.evaluate("window.layoutShifts")
    assert sum(shifts) < GOOD_LAYOUT_SHIFT, f"the page moved while loading: {shifts}"
    settle(page)
    load_images(page)
    broken = page.evaluate(
        """() => [...document.images]
               .filter(img => !(img.complete && img.naturalWidth > 0))
               .map(img => img.src.slice(0, 120))"""
    )
    without_alt = page.evaluate(
        """() => [...document.images]
               .filter(img => !(img.getAttribute('alt') || '').trim())
               .map(img => img.src.slice(0, 120))"""
    )
    assert log.problems() == [], "\n".join(log.problems())
    assert broken == [], f"broken images: {broken}"
    assert without_alt == [], f"images without alt text: {without_alt}"
    assert page.title(), "page has no title"
    assert overflow(page) == [], "\n".join(overflow(page))
    assert page.evaluate(WIDE_FORMULAS) == []
    found = too_wide(page, page_path)
    assert found["rows"] == [], rows_broken(found, PHONE)
    apart = page.evaluate(MATH_APART)
    assert apart == [], f"{PHONE} px: formulas apart from their punctuation: {apart}"
    resize(page, COMMON_PHONE)
    settle(page)
    apart = page.evaluate(MATH_APART)
    assert apart == [], (
        f"{COMMON_PHONE} px: formulas apart from their punctuation: {apart}"
    )
    found = too_wide(page, page_path)
    assert found["printed"] == [], printed_too_wide(found, COMMON_PHONE)
    assert found["rows"] == [], rows_broken(found, COMMON_PHONE)
    wraps = found["wrapped"]
    assert wraps == [], f"printed lines that wrap at {COMMON_PHONE} px: {wraps}"
    assert found["tables"] == [], "tables wider than their box:\n" + "\n".join(
        map(str, found["tables"])
    )
    cut = page.evaluate(NAMES_CUT_IN_TABLES)
    assert cut == [], f"{COMMON_PHONE} px: code in a table cut inside a name: {cut}"
    resize(page, DESKTOP)
    assert overflow(page) == [], "\n".join(overflow(page))
    broken = page.evaluate(CODE_BROKEN_IN_A_WORD)
    assert broken == [], f"{DESKTOP} px: code broken inside a word: {broken}"
    found = too_wide(page, page_path)
    assert found["printed"] == [], printed_too_wide(found, DESKTOP)
    whole_fonts = [url for url in log.requested if url.endswith(WHOLE_FONTS)]
    assert whole_fonts == [], (
        f"the page needed a character its font's copy lacks (_ext/book_fonts.py) "
        f"and fetched the whole font: {whole_fonts}"
    )
    if page.locator(".bd-article math").count():
        differences = formulas_drawn_differently(page)
        assert differences == [], (
            "formulas drawn with the math font's copy differ from the whole "
            f"font's (whole, copy): {differences[:5]}"
        )


def test_a_request_to_another_host_fails_and_is_the_page_s_problem(browser, tmp_path):
    """What the checks of every page stand on: a page that asks another host
    for anything (by name or by address) gets nothing, because the browser
    the tests start sends it to a proxy that is not there (never out of
    this machine), and the page's log counts it as a problem."""
    from booktools.pages import open_page
    from booktools.server import serve

    (tmp_path / "index.html").write_text("<!doctype html><title>t</title><p>page")
    elsewhere = ["http://example.com/a.png", "http://192.0.2.1/b.png"]
    with serve(tmp_path) as url:
        page, log = open_page(browser, url, "index.html")
        try:
            failures = {}
            page.on("requestfailed", lambda r: failures.update({r.url: r.failure}))
            loaded = page.evaluate(
                """sources => Promise.all(sources.map(src => new Promise(done => {
                    const img = new Image();
                    img.onload = () => done(true);
                    img.onerror = () => done(false);
                    img.src = src;
                })))""",
                [*elsewhere, url + "here.png"],
            )
        finally:
            page.context.close()
    assert loaded == [False, False, False]
    assert {u: failures.get(u) for u in elsewhere} == dict.fromkeys(
        elsewhere, "net::ERR_PROXY_CONNECTION_FAILED"
    )
    assert log.external == elsewhere
    assert [p for p in log.problems() if "another host" in p] == [
        f"request to another host: {u}" for u in elsewhere
    ]
    assert any(p.startswith(f"failed request: {url}here.png") for p in log.problems())


def test_a_late_math_font_copy_does_not_fetch_the_whole_font(browser, site_url):
    """On a slow machine or network the math font's copy may arrive after the
    browser's short wait for it (font-display: optional); the page then draws
    its formulas with the reader's own math font, and must not go on to
    fetch the 400 KB whole font (which it did while the whole font was
    declared for every character)."""
    context = browser.new_context(viewport={"width": PHONE, "height": 800})
    requested = []
    context.on("request", lambda request: requested.append(request.url))

    def late(route):
        time.sleep(0.6)  # the browser waits about 0.1 s
        route.continue_()

    context.route("**/*-book.woff2", late)
    page = context.new_page()
    try:
        page.goto(site_url + PAGES["math"])
        page.wait_for_timeout(1500)
        assert page.locator(".bd-article math").count() > 0
        assert any(url.endswith("stix-two-math-book.woff2") for url in requested)
        whole = [url for url in requested if url.endswith(WHOLE_FONTS)]
        assert whole == [], f"fetched the whole font: {whole}"
    finally:
        context.close()


def test_page_was_built(site_dir, page_path):
    assert (site_dir / page_path).is_file(), (
        f"{page_path} is in _toc.yml but was not built"
    )


def test_every_page_has_a_description(site_dir, page_path):
    """A short description for search results and link previews, taken from
    the page's first paragraph."""
    import re
    from html import unescape

    text = (site_dir / page_path).read_text()
    tags = [t for t in re.findall(r"<meta [^>]*>", text) if 'name="description"' in t]
    assert len(tags) == 1, tags
    description = unescape(re.search(r'content="([^"]*)"', tags[0]).group(1))
    assert 40 <= len(description) <= 160, description
    assert "<" not in description and "\n" not in description


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("path", LAYOUTS)
def test_accessibility(browser, site_url, path, mode):
    """axe-core (the copy bundled with axe-playwright-python, injected from
    disk) finds no serious or critical violation, colour contrast included,
    with every explorer showing its frame, in the theme's light and dark modes."""
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(
        color_scheme=mode, viewport={"width": DESKTOP, "height": 900}
    )
    try:
        page = context.new_page()
        page.goto(site_url + path, wait_until="networkidle")
        assert page.evaluate("document.documentElement.dataset.theme") == mode
        settle(page)
        scope, options = axe_settings(path, mode)
        results = Axe().run(page, context=scope, options=options).response
        violations = results["violations"]
        assert results["passes"] or violations, "axe checked nothing"
    finally:
        context.close()
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} — e.g. {v['nodes'][0]['html'][:160]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == [], "\n".join(serious)


def contrast_check(
    browser, url: str, mode: str, selector: str, must_have: str | None = None
) -> dict:
    """axe-core's colour-contrast rule on the elements ``selector`` picks on the
    page at ``url``, in the theme's ``mode``: axe's response. ``must_have``:
    elements the page must have for the check to mean something."""
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(
        color_scheme=mode, viewport={"width": DESKTOP, "height": 900}
    )
    try:
        page = context.new_page()
        page.goto(url, wait_until="networkidle")
        for wanted in filter(None, (selector, must_have)):
            assert page.locator(wanted).count() > 0, f"nothing matches {wanted}"
        return (
            Axe()
            .run(page, context={"include": [[selector]]}, options=ONLY_CONTRAST)
            .response
        )
    finally:
        context.close()


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_code_colours_are_readable(browser, site_url, mode):
    """The syntax colours of code blocks (the theme's style, shared by every page)
    have enough contrast: axe's colour-contrast rule on one chapter's code."""
    results = contrast_check(browser, site_url + PAGES["code"], mode, ".highlight")
    assert results["violations"] == []
    assert results["passes"], "axe checked no code at all"


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_exercise_boxes_are_readable(browser, site_url, mode):
    """Text and links in the exercises' tinted boxes (sphinx-exercise's style,
    in every chapter) have enough contrast: axe's colour-contrast rule on the
    exercises of a chapter whose exercises link to other chapters."""
    url = site_url + PAGES["exercises"]
    results = contrast_check(
        browser, url, mode, "div.exercise", must_have="div.exercise a.reference"
    )
    assert results["violations"] == []
    assert results["passes"], "axe checked no exercise at all"
