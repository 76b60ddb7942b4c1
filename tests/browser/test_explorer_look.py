"""How explorers and choices look: one label column, buttons that say which
one is chosen, the page's own colours in light and dark mode (readable by
axe-core's contrast rule); the maps' text at 9 CSS px or more on a phone,
drawn at the device's pixel density (sharp), in the page's text colour,
blocked keys marked as blocked, each head's frame in its colour."""

from __future__ import annotations

import pytest

from booktools.book import fullest_explorer_page
from booktools.colours import contrast_problems
from booktools.explorers import EXPLORER, options, pick, shown, wait_until_drawn
from booktools.pages import DESKTOP, PHONE, resize, settle

pytestmark = pytest.mark.browser


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
    and drawn filled, readable (axe's contrast rule), and unlike the others;
    choosing another moves all of that."""
    page, log = open_page(fullest_explorer_page())
    root = page.locator(EXPLORER).first
    looks_js = """(root => [...root.querySelector('input[name=mask]').closest('fieldset')
        .querySelectorAll('.mha-button')].map(b => ({
            checked: b.querySelector('input').checked,
            background: getComputedStyle(b.querySelector('span')).backgroundColor})))"""
    for chosen in (0, 1):
        pick(root, "mask", chosen)
        looks = root.evaluate(looks_js)
        assert [look["checked"] for look in looks] == [i == chosen for i in range(3)]
        others = {look["background"] for i, look in enumerate(looks) if i != chosen}
        assert len(others) == 1 and looks[chosen]["background"] not in others
        assert contrast_problems(page, f"{EXPLORER} fieldset") == []
    assert log.problems() == [], "\n".join(log.problems())


# The page's colours and the explorer's: its background against the page's,
# and the colours its canvas draws text and frames in (as the canvas spells
# colours) against the page's text colour.
DARK_JS = """(root => {
    const spelt = c => { const g = document.createElement('canvas').getContext('2d');
                         g.fillStyle = c; return g.fillStyle; };
    const background = el => {
        for (let a = el; a; a = a.parentElement) {
            const c = getComputedStyle(a).backgroundColor;
            if (!/^rgba\\(.*, 0\\)$|transparent/.test(c)) return spelt(c);
        }
        return spelt('white');
    };
    const x = root.mhaExplorer;
    return {theme: document.documentElement.dataset.theme,
            panel: background(root), page: background(document.body),
            text: spelt(getComputedStyle(root).color), ink: spelt(x.ink.text),
            ground: spelt(x.ink.ground), texts: x.picture.texts.length};
})"""


def in_the_fullest_explorer(browser, site_url, scheme: str, check):
    """``check(page, root)`` on the fullest explorer page's first explorer,
    drawn on a laptop's screen in colour scheme ``scheme``."""
    context = browser.new_context(
        color_scheme=scheme, viewport={"width": DESKTOP, "height": 900}
    )
    try:
        page = context.new_page()
        page.goto(site_url + fullest_explorer_page(), wait_until="networkidle")
        root = page.locator(EXPLORER).first
        wait_until_drawn(root)
        return check(page, root)
    finally:
        context.close()


def test_explorers_sit_on_the_dark_page(browser, site_url):
    """In dark mode an explorer has no panel of its own: its labels, buttons,
    caption and description stand on the page's dark background, readable
    (axe's contrast rule), and the maps' titles and labels are drawn in the
    page's own text colour on its ground."""

    def check(page, root):
        return root.evaluate(DARK_JS), contrast_problems(page, EXPLORER)

    found, problems = in_the_fullest_explorer(browser, site_url, "dark", check)
    assert found["theme"] == "dark" and found["panel"] == found["page"]
    assert found["ink"] == found["text"] and found["ground"] == found["page"]
    assert found["texts"] >= 20
    assert problems == []


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


# Each map of the picture: its head and the canvas's pixel halfway down the
# map's left frame; the colours the page was given for the heads.
HEADS_JS = """(root) => {
    const x = root.mhaExplorer, canvas = root.querySelector('canvas.mha-maps');
    const ratio = canvas.width / x.picture.width, g = canvas.getContext('2d');
    return {heads: x.data.look.headColours, maps: x.picture.maps.map(m => {
        const px = g.getImageData(Math.round((m.x + 0.2) * ratio),
                                  Math.round((m.y + m.size / 2) * ratio), 1, 1).data;
        return {head: m.head, pixel: [...px.slice(0, 3)]};
    })};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_each_head_has_its_colour_as_in_the_book_s_figures(browser, site_url, scheme):
    """Each map's frame is drawn in its head's colour (mha.plotting.core's
    HEAD_COLOURS, as in every figure of the book), on a light page and a
    dark one."""
    from mha.plotting.palette import HEAD_COLOURS

    found = in_the_fullest_explorer(
        browser, site_url, scheme, lambda page, root: root.evaluate(HEADS_JS)
    )
    assert found["heads"] == list(HEAD_COLOURS)
    assert len(found["maps"]) >= 2
    for m in found["maps"]:
        colour = HEAD_COLOURS[m["head"]]
        own = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        assert max(abs(a - b) for a, b in zip(m["pixel"], own, strict=True)) <= 40, m
