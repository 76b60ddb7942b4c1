"""What a reader does besides reading: search offline, switch to dark mode."""

from __future__ import annotations

import pytest

from booktools.book import PAGES
from booktools.colours import contrast, rgb
from booktools.pages import COMMON_PHONE, DESKTOP, PHONE

pytestmark = pytest.mark.browser


def test_search_works_offline(open_page):
    page, log = open_page("search.html?q=softmax")
    results = page.locator("#search-results li")
    results.first.wait_for(timeout=15_000)
    assert results.count() >= 3
    titles = " ".join(results.all_inner_texts()).lower()
    assert "scores and softmax" in titles  # the chapter that defines it
    assert log.problems() == [], "\n".join(log.problems())


def test_figures_stay_readable_in_dark_mode(browser, site_url):
    """In the theme's dark mode the figures keep their own opaque light
    background, so dark text and colour bars stay legible."""
    context = browser.new_context(
        color_scheme="dark", viewport={"width": DESKTOP, "height": 900}
    )
    try:
        page = context.new_page()
        page.goto(site_url + PAGES["figures"], wait_until="networkidle")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        corners = page.evaluate(
            """async () => {
                // (Not an explorer's maps layer: transparent but for the maps,
                // over a picture of its own white ground.)
                const imgs = [...document.querySelectorAll('.cell_output img:not(.mha-maps)')];
                // Figures load lazily, as the reader scrolls to them: load them now.
                imgs.forEach(i => { i.loading = 'eager'; });
                await Promise.all(imgs.map(i => i.decode().catch(() => null)));
                return imgs.map(img => {
                    const c = document.createElement('canvas');
                    c.width = img.naturalWidth; c.height = img.naturalHeight;
                    const g = c.getContext('2d');
                    g.drawImage(img, 0, 0);
                    return Array.from(g.getImageData(1, 1, 1, 1).data);
                });
            }"""
        )
        assert len(corners) >= 3
        for red, green, blue, alpha in corners:
            assert alpha == 255 and min(red, green, blue) >= 240
    finally:
        context.close()


@pytest.mark.parametrize("width", [DESKTOP, 420])
def test_exactly_one_search_field_is_visible(open_page, width):
    """On a wide screen the sidebar's search field is the only one (the theme
    would otherwise repeat it in a header bar above every page); on a phone
    the sidebar folds away and the page header's search button takes over."""
    page, _ = open_page(PAGES["code"], width=width)
    visible = page.locator(
        ".search-button-field:visible, .search-button__button:visible"
    )
    assert visible.count() == 1
    visible.first.click()
    dialog_input = page.locator(
        ".search-button__search-container input:visible, dialog[open] input[type=search]"
    )
    dialog_input.first.wait_for(timeout=5_000)


def test_contents_panel_fits_long_code_headings(open_page):
    """Headings such as ``F.multi_head_attention_forward: sequence-first``
    wrap inside the page's contents panel instead of running off the page."""
    page, _ = open_page(PAGES["code headings"])
    overflow = page.evaluate(
        """() => {
            const panel = document.querySelector('.bd-sidebar-secondary');
            const right = panel.getBoundingClientRect().right;
            return [...panel.querySelectorAll('code')]
                .filter(c => c.getBoundingClientRect().right > right + 1)
                .map(c => c.textContent);
        }"""
    )
    assert page.locator(".bd-sidebar-secondary code").count() >= 4
    assert overflow == []


def test_figures_open_at_full_size_on_a_phone(open_page):
    """On a phone a figure is shrunk to the width of the screen; tapping it
    opens the picture itself, drawn at twice the size it is shown at."""
    page, _ = open_page(PAGES["figures"], width=PHONE)
    figure = page.locator(".cell_output a.image-reference").first
    figure.scroll_into_view_if_needed()
    shown = figure.locator("img").evaluate("img => img.getBoundingClientRect().width")
    href = figure.get_attribute("href")
    assert href.endswith(".png")
    page.goto(page.url.rsplit("/", 1)[0] + "/" + href)
    natural = page.evaluate("document.images[0].naturalWidth")
    assert (
        natural >= 2.5 * shown
    )  # a 360 px screen shows a 700 px figure at about 330 px


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_colour_theme_is_chosen_before_any_script_runs(browser, site_url, scheme):
    """The theme's style sheet only has light and dark colours. Before any
    script file has run (here: none may load), the page already has the
    reader's theme, so nothing is drawn first without its colours and then redrawn."""
    context = browser.new_context(color_scheme=scheme)
    try:
        context.route(
            "**/*.js*",
            lambda route: route.abort(),
        )
        page = context.new_page()
        page.goto(site_url + PAGES["figures"], wait_until="load")
        assert page.evaluate("document.documentElement.dataset.theme") == scheme
    finally:
        context.close()


# The entries of the list of references: where each one's first line and its
# other lines start (relative to the page's first paragraph of prose), and
# the room between it and the next.
REFERENCES = """() => {
    const prose = document.querySelector('.bd-article section > p');
    const edge = prose.getBoundingClientRect().left;
    const entries = [...document.querySelectorAll('div.citation')];
    return entries.map((entry, i) => {
        const range = document.createRange();
        range.selectNodeContents(entry.querySelector('p'));
        const lines = [...range.getClientRects()];
        const later = lines.filter(r => r.top > lines[0].bottom - 1);
        const next = entries[i + 1];
        return {first: Math.round(lines[0].left - edge),
                rest: later.length ? Math.round(Math.min(...later.map(r => r.left)) - edge)
                                   : null,
                gap: next ? Math.round(next.getBoundingClientRect().top
                                       - entry.getBoundingClientRect().bottom) : null};
    });
}"""


def test_references_read_as_a_list_on_a_phone(open_page):
    """On a phone every entry of the list of references starts where the
    prose does, its other lines indented under it, with room before the
    next one (the entries' labels are hidden: no empty column for them)."""
    page, _ = open_page(PAGES["references"], width=COMMON_PHONE)
    entries = page.evaluate(REFERENCES)
    assert len(entries) >= 10
    assert all(abs(e["first"]) <= 2 for e in entries), entries[:3]
    assert all(e["rest"] is None or e["rest"] >= e["first"] + 8 for e in entries)
    gaps = [e["gap"] for e in entries if e["gap"] is not None]
    assert min(gaps) >= 8, gaps


def test_figure_captions_are_as_easy_to_read_as_the_prose(open_page):
    """A figure's caption is in the prose's weight, not the theme's light one
    (300: thin grey strokes that read pale on a phone), and its colour keeps
    at least 4.5:1 against the page."""
    page, _ = open_page(PAGES["figures"], width=COMMON_PHONE)
    found = page.evaluate(
        """() => [...document.querySelectorAll('.bd-article figcaption')].map(c => {
            const s = getComputedStyle(c.querySelector('.caption-text') || c);
            return [Number(s.fontWeight), s.color];
        })"""
    )
    assert found, "the chapter has no figure caption"
    prose = page.evaluate(
        "Number(getComputedStyle(document.querySelector('.bd-article p')).fontWeight)"
    )
    assert all(weight >= prose for weight, _ in found), (prose, found)
    for _, colour in found:
        assert contrast(rgb(colour), (255, 255, 255)) >= 4.5, colour


UNDERSCORED_LINKS = """() => [...document.querySelectorAll('.bd-article a')]
    .filter(a => { const c = a.querySelector('code'); return c && c.textContent.includes('_'); })
    .map(a => {
        const code = a.querySelector('code'), s = getComputedStyle(code);
        const g = document.createElement('canvas').getContext('2d');
        g.font = s.fontSize + ' ' + s.fontFamily;
        const line = getComputedStyle(a);
        return {text: code.textContent,
                // how far below the baseline the underscore's ink reaches
                underscore: g.measureText('_').actualBoundingBoxDescent,
                // where the link's underline starts below the baseline
                underline: parseFloat(line.textUnderlineOffset),
                offset: line.textUnderlineOffset};
    })"""


def test_a_link_s_underline_runs_below_the_underscores_of_its_code(open_page):
    """A link made of code (``circuits.ov_circuit``) is underlined below its
    underscores, not through them: else ``ov_circuit`` reads ``ov circuit``."""
    page, _ = open_page(PAGES["code links"], width=COMMON_PHONE)
    links = page.evaluate(UNDERSCORED_LINKS)
    assert len(links) >= 3, links
    hidden = [link for link in links if not link["underline"] >= link["underscore"] + 1]
    assert hidden == [], hidden[:3]
