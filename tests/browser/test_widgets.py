"""How widgets arrive and look: a static preview first, the widget manager only
once the reader moves; one label column, toggle buttons that say which one is
chosen, and the page's own colours in light and dark mode."""

from __future__ import annotations

import pytest
from test_pages import DESKTOP, PHONE, WIDGET_VIEW, resize, wait_for_widgets

pytestmark = pytest.mark.browser

PLAYGROUND = "book/09_playground.html"  # every kind of control the book uses
# The widget manager and the page's widget state (its precomputed frames).
MANAGER = ("widgets/require.js", "widgets/embed-amd.js", "widget-state/")

# Colours as the browser computes them, and the WCAG contrast between them.
COLOUR_JS = """
const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
const luminance = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
const background = el => {
    for (let a = el; a; a = a.parentElement) {
        const c = rgb(getComputedStyle(a).backgroundColor);
        if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
};
const contrast = el => {
    const [x, y] = [luminance(rgb(getComputedStyle(el).color)), luminance(background(el))];
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};
"""

# The rows of controls of the first explorer (live, or its preview), each as
# {label, labelLeft, labelRight, control (left edge of its margin box),
#  buttons: [{text, pressed, active, left, right}]}, and the box's own edges.
ROWS_JS = """(preview) => {
    const root = preview ? document.querySelector('.widget-preview')
                         : document.querySelector('.widget-subarea');
    const box = root.getBoundingClientRect();
    const rows = [...root.querySelectorAll(preview ? '.wp-row'
        : '.widget-inline-hbox:not(.widget-html), .widget-toggle-buttons')];
    return {left: box.left, right: box.right, height: box.height, rows: rows
        .filter(row => row.offsetParent !== null)
        .map(row => {
            const label = row.querySelector(preview ? '.wp-label' : '.widget-label');
            const control = label.nextElementSibling;
            const l = label.getBoundingClientRect();
            const c = control.getBoundingClientRect();
            const buttons = [...row.querySelectorAll(preview ? '.wp-button' : 'button')];
            return {
                label: label.textContent.trim(), labelLeft: l.left, labelRight: l.right,
                control: c.left - parseFloat(getComputedStyle(control).marginLeft),
                spills: control.textContent.trim() !== ''  // a text that overflows its box
                        && control.scrollHeight > control.clientHeight + 1,
                buttons: buttons.map(b => ({
                    text: b.textContent.trim(),
                    pressed: b.getAttribute('aria-pressed'),
                    active: b.classList.contains('mod-active') || b.classList.contains('wp-active'),
                    left: b.getBoundingClientRect().left, right: b.getBoundingClientRect().right,
                })),
            };
        })};
}"""


def first_frame(page, preview: bool) -> dict:
    scope = ".widget-preview" if preview else ".widget-subarea"
    return page.evaluate(
        """(scope) => { const f = document.querySelector(scope + ' figure');
                        return {src: f.querySelector('img').getAttribute('src'),
                                caption: f.querySelector('figcaption').textContent}; }""",
        scope,
    )


def test_widget_manager_waits_for_the_reader(open_page):
    """Loading a page fetches no widget manager; the preview shows the
    controls and the first frame; the reader's first scroll brings the live
    widgets, which then replace the previews."""
    page, log = open_page("book/08_masks.html")
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.wait_for_timeout(500)
    assert page.locator(WIDGET_VIEW).count() >= 1
    assert page.locator(".widget-preview").count() == page.locator(WIDGET_VIEW).count()
    assert page.locator(".widget-subarea").count() == 0
    assert not any(name in url for url in requested for name in MANAGER)
    assert (
        page.evaluate("document.querySelector('.widget-preview img').naturalWidth") > 0
    )
    page.mouse.wheel(0, 300)
    wait_for_widgets(page)
    assert all(any(name in url for url in requested) for name in MANAGER)
    assert log.problems() == [], "\n".join(log.problems())


def test_preview_is_the_widget_as_it_first_looks(open_page, explorer_page_path):
    """On a laptop and on a phone: the preview has the widget's labels, chosen
    values and first frame, its controls in the same places and about its
    height, so nothing jumps when the live widget takes its place; and in
    both, every label sits in one column, every control starts at the same x,
    and toggle buttons wrap inside the control column, never under the labels
    nor past the widget's right edge."""
    page, _ = open_page(explorer_page_path, width=DESKTOP)
    before = {DESKTOP: page.evaluate(ROWS_JS, True)}
    frame = first_frame(page, True)
    resize(page, PHONE)
    before[PHONE] = page.evaluate(ROWS_JS, True)
    page.mouse.move(5, 5)
    wait_for_widgets(page)
    after = {PHONE: page.evaluate(ROWS_JS, False)}
    resize(page, DESKTOP)
    after[DESKTOP] = page.evaluate(ROWS_JS, False)
    assert frame == first_frame(page, False)
    for width in (DESKTOP, PHONE):
        old, new = before[width], after[width]
        assert [r["label"] for r in old["rows"]] == [r["label"] for r in new["rows"]]
        assert [
            [b["text"] for b in r["buttons"] if b["active"]] for r in old["rows"]
        ] == [[b["text"] for b in r["buttons"] if b["active"]] for r in new["rows"]]
        for old_row, new_row in zip(old["rows"], new["rows"], strict=True):
            assert abs(old_row["control"] - new_row["control"]) <= 1, (
                width,
                old_row,
                new_row,
            )
            assert not old_row["spills"], (
                f"the preview's {old_row['label']} spills at {width}"
            )
        assert abs(old["height"] - new["height"]) <= 12, (
            width,
            old["height"],
            new["height"],
        )
        for widget in (old, new):
            assert_lined_up(widget, width)


def assert_lined_up(widget: dict, width: int) -> None:
    rows = widget["rows"]
    assert rows, "no controls found"
    assert max(r["labelLeft"] for r in rows) - min(r["labelLeft"] for r in rows) <= 1
    assert max(r["labelRight"] for r in rows) - min(r["labelRight"] for r in rows) <= 1
    starts = [r["control"] for r in rows]
    assert max(starts) - min(starts) <= 1, (
        width,
        {r["label"]: r["control"] for r in rows},
    )
    for row in rows:
        for button in row["buttons"]:
            assert button["left"] >= row["control"] - 1, (width, row["label"], button)
            assert button["right"] <= widget["right"] + 1, (width, row["label"], button)


def test_toggle_buttons_say_which_is_chosen(open_page):
    """Each row of toggle buttons is a group named after its label; the chosen
    button is pressed (aria-pressed) and drawn filled, readable, and unlike
    the others; choosing another moves all of that."""
    page, log = open_page(PLAYGROUND)
    page.mouse.move(5, 5)
    wait_for_widgets(page)
    group = page.get_by_role("group", name="Mask")
    assert group.count() == 1
    buttons = group.get_by_role("button")
    assert [b.get_attribute("aria-pressed") for b in buttons.all()] == [
        "true",
        "false",
        "false",
    ]
    group.get_by_role("button", name="causal").click()
    page.wait_for_function(
        """() => document.querySelector('[role=group][aria-label=Mask] button:nth-child(2)')
                 .getAttribute('aria-pressed') === 'true'""",
        timeout=5_000,
    )
    assert [b.get_attribute("aria-pressed") for b in buttons.all()] == [
        "false",
        "true",
        "false",
    ]
    looks = page.evaluate(
        COLOUR_JS
        + """
        [...document.querySelectorAll('[role=group][aria-label=Mask] button')].map(b => ({
            background: getComputedStyle(b).backgroundColor, contrast: contrast(b)}))"""
    )
    assert looks[1]["background"] != looks[0]["background"] == looks[2]["background"]
    assert all(look["contrast"] >= 4.5 for look in looks), looks
    assert log.problems() == [], "\n".join(log.problems())


DARK_TEXTS_JS = (
    COLOUR_JS
    + """
    ((scope) => {
        const root = document.querySelector(scope);
        const texts = [...root.querySelectorAll(
            '.widget-label, .wp-label, figcaption, .widget-readout, .wp-readout')]
            .filter(el => el.offsetParent !== null && el.textContent.trim());
        return {panel: luminance(background(root)),
                page: luminance(background(document.body)),
                contrasts: texts.map(el => [el.textContent.trim(), contrast(el)])};
    })"""
)


def test_widgets_sit_on_the_dark_page(browser, site_url):
    """In dark mode a widget (and its preview) has no light panel of its own:
    its labels and caption stand on the page's dark background, readable."""
    context = browser.new_context(
        color_scheme="dark", viewport={"width": DESKTOP, "height": 900}
    )
    try:
        page = context.new_page()
        page.goto(site_url + PLAYGROUND, wait_until="networkidle")
        preview = page.evaluate(DARK_TEXTS_JS + "('.widget-preview')")
        page.mouse.move(5, 5)
        wait_for_widgets(page)
        live = page.evaluate(DARK_TEXTS_JS + "('.widget-subarea')")
    finally:
        context.close()
    for found in (preview, live):
        assert found["page"] < 0.05
        assert found["panel"] == found["page"]
        assert len(found["contrasts"]) >= 4
        low = [
            (text, round(ratio, 2)) for text, ratio in found["contrasts"] if ratio < 4.5
        ]
        assert low == []


def test_widgets_work_from_the_file_system(browser, site_dir):
    """Opened as a file (file://, no server), the preview is replaced by the
    live widget as well: everything loads with plain script tags."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto((site_dir / PLAYGROUND).resolve().as_uri(), wait_until="load")
        page.mouse.move(5, 5)
        wait_for_widgets(page)
        assert (
            page.locator(".widget-subarea figure img").first.evaluate(
                "i => i.naturalWidth"
            )
            > 0
        )
    finally:
        context.close()
    assert errors == []
