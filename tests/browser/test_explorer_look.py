"""How explorers and choices look: one label column, buttons that say which
one is chosen, the page's own colours in light and dark mode; the maps'
text at 9 CSS px or more on a phone, drawn at the device's pixel density
(sharp), readable on the dark page, blocked keys marked as blocked; a
choice shows the panel of its option."""

from __future__ import annotations

import pytest

from booktools.book import fullest_explorer_page
from booktools.colours import contrast, rgb
from booktools.explorers import EXPLORER, options, pick, shown, wait_until_drawn
from booktools.pages import DESKTOP, PHONE, resize, settle

pytestmark = pytest.mark.browser

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

# The rows of controls of an explorer or a choice, each as {label, labelLeft,
# labelRight, control (left edge of its margin box), spills, buttons: [{text,
# left, right}]}, and the box's own edges.
ROWS_JS = """(root) => {
    const box = root.getBoundingClientRect();
    const rows = [...root.querySelectorAll('.mha-row')].filter(r => r.offsetParent !== null);
    return {left: box.left, right: box.right, rows: rows.map(row => {
        const label = row.querySelector('.mha-label');
        const control = label.nextElementSibling;
        const l = label.getBoundingClientRect(), c = control.getBoundingClientRect();
        return {
            label: label.textContent.trim(), labelLeft: l.left, labelRight: l.right,
            control: c.left - parseFloat(getComputedStyle(control).marginLeft),
            spills: control.scrollWidth > control.clientWidth + 1
                    || c.right > box.right + 1,
            buttons: [...row.querySelectorAll('.mha-button > span')].map(b => ({
                text: b.textContent, left: b.getBoundingClientRect().left,
                right: b.getBoundingClientRect().right})),
        };
    })};
}"""


def assert_lined_up(widget: dict, width: int) -> None:
    rows = widget["rows"]
    assert rows, "no controls found"
    for edge in ("labelLeft", "labelRight", "control"):
        places = [r[edge] for r in rows]
        assert max(places) - min(places) <= 1, (width, edge, places)
    for row in rows:
        assert not row["spills"], f"{row['label']} spills out at {width} px"
        for button in row["buttons"]:
            assert button["left"] >= row["control"] - 1, (width, row["label"], button)
            assert button["right"] <= widget["right"] + 1, (width, row["label"], button)


def test_controls_line_up_in_one_column(open_page):
    """On a phone and on a laptop, in the explorer with every kind of control:
    every label sits in one column, every control starts at the same x,
    buttons wrap inside the control column and nothing spills past the right
    edge."""
    page, _ = open_page(fullest_explorer_page(), width=PHONE)
    settle(page)
    root = page.locator(EXPLORER).first
    if root.locator('[name="mask"]').count():
        pick(root, "mask", options(root, "mask").index("padding"))
    for width in (PHONE, DESKTOP):
        resize(page, width)
        assert_lined_up(root.evaluate(ROWS_JS), width)


def test_the_chosen_button_is_filled_and_readable(open_page):
    """A row of buttons is a group of radio buttons: the chosen one is checked
    and drawn filled, readable, and unlike the others; choosing another moves
    all of that."""
    page, log = open_page(fullest_explorer_page())
    root = page.locator(EXPLORER).first
    looks_js = (
        COLOUR_JS
        + """
        (root => [...root.querySelector('input[name=mask]').closest('fieldset')
            .querySelectorAll('.mha-button')].map(b => ({
                checked: b.querySelector('input').checked,
                background: getComputedStyle(b.querySelector('span')).backgroundColor,
                contrast: contrast(b.querySelector('span'))})))"""
    )
    for chosen in (0, 1):
        pick(root, "mask", chosen)
        looks = root.evaluate(looks_js)
        assert [look["checked"] for look in looks] == [i == chosen for i in range(3)]
        others = {look["background"] for i, look in enumerate(looks) if i != chosen}
        assert len(others) == 1 and looks[chosen]["background"] not in others
        assert all(look["contrast"] >= 4.5 for look in looks), looks
    assert log.problems() == [], "\n".join(log.problems())


DARK_JS = (
    COLOUR_JS
    + """
    (root => {
        const texts = [...root.querySelectorAll('.mha-label, .mha-readout, figcaption,'
                                              + ' .mha-button > span, select, .mha-description')]
            .filter(el => el.offsetParent !== null && el.textContent.trim());
        const page = background(document.body);
        // The maps' titles and labels: drawn in the explorer's ink.
        const hex = root.mhaExplorer.ink.text.match(/[0-9a-f]{2}/gi).map(h => parseInt(h, 16));
        const [x, y] = [luminance(hex), luminance(page)];
        const ink = root.mhaExplorer.picture.texts.map(t =>
            [t.text, (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05)]);
        return {panel: luminance(background(root)), page: luminance(page),
                contrasts: texts.map(el => [el.textContent.trim(), contrast(el)]).concat(ink)};
    })"""
)


def in_the_fullest_explorer(browser, site_url, scheme: str, script: str):
    """``script``'s answer about the fullest explorer page's first explorer,
    drawn on a laptop's screen in colour scheme ``scheme``."""
    context = browser.new_context(
        color_scheme=scheme, viewport={"width": DESKTOP, "height": 900}
    )
    try:
        page = context.new_page()
        page.goto(site_url + fullest_explorer_page(), wait_until="networkidle")
        root = page.locator(EXPLORER).first
        wait_until_drawn(root)
        return root.evaluate(script)
    finally:
        context.close()


def test_explorers_sit_on_the_dark_page(browser, site_url):
    """In dark mode an explorer has no light panel of its own: its labels,
    buttons, caption and the maps' titles and labels stand on the page's dark
    background, readable."""
    found = in_the_fullest_explorer(browser, site_url, "dark", DARK_JS)
    assert found["page"] < 0.05 and found["panel"] == found["page"]
    assert len(found["contrasts"]) >= 20
    low = [(text, round(ratio, 2)) for text, ratio in found["contrasts"] if ratio < 4.5]
    assert low == []


# Every text of the maps (the cells' numbers included): its font size as drawn
# on the screen (CSS px: the canvas's size on the screen over the picture's),
# and whether the canvas has a pixel of its own for each device pixel (sharp).
TEXT_SIZES_JS = """(root) => {
    const canvas = root.querySelector('canvas.mha-maps');
    const picture = root.mhaExplorer.picture, box = canvas.getBoundingClientRect();
    const scale = box.width / picture.width;
    const sharp = canvas.width === Math.round(box.width * devicePixelRatio);
    const numbers = picture.maps.flatMap(m => m.cells.flat().filter(c => c.number !== null)
        .map(c => [c.number, picture.numberSize * scale, sharp]));
    return picture.texts.map(t => [t.text, t.size * scale, sharp]).concat(numbers);
}"""


@pytest.mark.parametrize(("width", "ratio"), [(PHONE, 3), (DESKTOP, 1)])
def test_the_maps_text_is_legible_on_a_phone_and_marks_blocked_keys(
    open_page, width, ratio
):
    """At a 360 px column (and on a laptop) every label, number and title of
    the maps is 9 CSS px or more, on a canvas with a pixel for each of the
    screen's; with the padding mask the blocked keys are hatched grey cells
    without a number, and the colour bar's legend says "blocked"."""
    page, _ = open_page(fullest_explorer_page(), width=width, device_scale_factor=ratio)
    root = page.locator(EXPLORER).first
    wait_until_drawn(root)
    pick(root, "mask", options(root, "mask").index("padding"))
    sizes = root.evaluate(TEXT_SIZES_JS)
    assert len(sizes) > 30
    small = [
        (text, round(size, 1)) for text, size, drawn in sizes if size < 9 or not drawn
    ]
    assert small == []
    texts = [text for text, _, _ in sizes]
    assert "blocked" in texts and "head 0" in texts and "key (attended to)" in texts
    cells = [cell for cells in shown(root)["maps"] for cell in cells]
    blocked = [seen for p, _, seen in cells if p == "blocked"]
    assert blocked and all(seen[1:3] == seen[3:5] == seen[5:7] for seen in blocked)
    canvas = root.locator("canvas.mha-maps")
    assert canvas.evaluate("s => s.getBoundingClientRect().right") <= width


# Each map of the picture: its head, the colours the page gives that head
# (frame, title), the page's ground, and the canvas's pixel halfway down the
# map's left frame.
HEADS_JS = """(root) => {
    const x = root.mhaExplorer, canvas = root.querySelector('canvas.mha-maps');
    const ratio = canvas.width / x.picture.width, g = canvas.getContext('2d');
    return {heads: x.data.headColours, ground: x.ink.ground, maps: x.picture.maps.map(m => {
        const c = window.mhaExplorer.headColour(x.ink, m.head);
        const px = g.getImageData(Math.round((m.x + 0.2) * ratio),
                                  Math.round((m.y + m.size / 2) * ratio), 1, 1).data;
        return {head: m.head, frame: c.frame, text: c.text, pixel: [...px.slice(0, 3)]};
    })};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_each_head_has_its_colour_as_in_the_book_s_figures(browser, site_url, scheme):
    """Each map's frame is drawn in its head's colour (mha.plotting.core's
    HEAD_COLOURS, as in every figure of the book) and its title in a shade of
    it that reads at 4.5:1 on the page, light or dark; the explorer's maps
    had black frames and titles."""
    from mha.plotting.core import HEAD_COLOURS

    found = in_the_fullest_explorer(browser, site_url, scheme, HEADS_JS)
    assert found["heads"] == list(HEAD_COLOURS)
    assert len(found["maps"]) >= 2
    ground = rgb(found["ground"])
    for m in found["maps"]:
        own = rgb(HEAD_COLOURS[m["head"]])
        assert rgb(m["frame"]) == own, m
        assert max(abs(a - b) for a, b in zip(m["pixel"], own, strict=True)) <= 40, m
        assert contrast(rgb(m["text"]), ground) >= 4.5, m
