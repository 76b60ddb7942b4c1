"""The explorers on the built site: every control of every explorer shows, in
the browser and with no kernel, the picture the package computes for what
the controls say (each cell's probability, number and colour, the title, the
answers); with the mouse and with the keyboard, and from file://. Each
page's explorer holds the weights its chapter's call gives, and loads nothing
but the site's own explorer.js and explorer.css."""

from __future__ import annotations

import pytest
from test_explorer_layers import check_picture

from booktools.book import ROOT, fullest_explorer_page
from booktools.explorers import (
    EXPLORER,
    assert_same_data,
    chapter_explorer,
    control,
    controls,
    data,
    kind,
    options,
    pick,
    shown,
    value_of,
    wait_until_drawn,
)
from booktools.pages import DESKTOP, PHONE

pytestmark = pytest.mark.browser


def open_explorers(open_page, path, **kwargs):
    page, log = open_page(path, **kwargs)
    roots = page.locator(EXPLORER).all()
    for root in roots:
        wait_until_drawn(root)
    return page, log, roots


def test_every_control_shows_the_package_s_picture(open_page, explorer_page_path):
    """Every option of every control, chosen with the mouse."""
    page, log, roots = open_explorers(open_page, explorer_page_path)
    explorer = chapter_explorer(explorer_page_path, ROOT)
    assert len(roots) == 1
    root = roots[0]
    assert_same_data(data(root), explorer.data)  # the chapter's weights
    root.scroll_into_view_if_needed()
    check_picture(root, explorer)
    for name in ("option", "sentence", "mask", "nPad", "nHeads"):
        if not control(root, name).count():
            continue
        if not control(root, name).first.is_enabled():  # the padding slider
            pick(root, "mask", options(root, "mask").index("padding"))
        texts = options(root, name)
        for index in [*range(len(texts))[::-1], 0]:
            pick(root, name, index)
            assert shown(root)["state"][name] == value_of(name, texts[index])
            check_picture(root, explorer)
    explorer_files = [u for u in log.requested if "/_static/explorer" in u]
    assert sorted(u.split("?")[0].rsplit("/", 1)[1] for u in explorer_files) == [
        "explorer.css",
        "explorer.js",
    ]
    assert log.problems() == [], "\n".join(log.problems())


def test_every_control_works_with_the_keyboard_and_has_a_name(open_page):
    """Each control is one stop of the Tab key, in order, named after its label
    (what a screen reader announces); arrow keys and Home/End change it."""
    page, log, roots = open_explorers(open_page, fullest_explorer_page())
    root = roots[0]
    explorer = chapter_explorer(fullest_explorer_page(), ROOT)
    pick(root, "mask", options(root, "mask").index("padding"))  # every control shown
    names = [
        n
        for n in controls(root)
        if n in ("option", "sentence", "mask", "nPad", "nHeads")
    ]
    assert names == ["option", "sentence", "mask", "nPad", "nHeads"]
    roles = {"buttons": "radio", "menu": "combobox", "slider": "slider"}
    for name in names:
        label = control(root, name).first.evaluate(
            "c => (c.closest('fieldset')?.querySelector('legend') || c.labels[0]).textContent"
        )
        if kind(root, name) == "buttons":
            assert root.get_by_role("group", name=label).count() == 1
            for text in options(root, name):
                assert root.get_by_role("radio", name=text, exact=True).count() == 1
        else:
            assert root.get_by_role(roles[kind(root, name)], name=label).count() == 1
    assert root.get_by_role("textbox", name="Or type:").count() == 1
    assert root.get_by_role("img").count() == 1  # the maps, described in words
    for name in names:
        first = root.locator(
            f'[name="{name}"]:checked, select[name="{name}"], input[type=range][name="{name}"]'
        ).first
        first.focus()
        texts = options(root, name)
        start = texts.index(str(shown(root)["state"][name]))
        steps = {
            "buttons": [("ArrowRight", (start + 1) % len(texts)), ("ArrowLeft", start)],
            "menu": [("End", -1), ("Home", 0), ("ArrowDown", 1)],
            "slider": [("End", -1), ("Home", 0), ("ArrowRight", 1)],
        }[kind(root, name)]
        for key, index in steps:
            page.keyboard.press(key)
            assert shown(root)["state"][name] == value_of(name, texts[index]), key
            check_picture(root, explorer)
    # From the first control to the last, one Tab each (the text box, its
    # button and the words' list sit between the sentence and the mask).
    root.locator('[name="option"]:checked').focus()
    reached = [page.evaluate("document.activeElement.name")]
    for _ in range(8):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.name || ''"))
    order = [n for n in reached if n in names]
    assert order == names, reached
    assert log.problems() == [], "\n".join(log.problems())


def test_explorers_work_from_the_file_system(browser, site_dir):
    """Opened as a file (file://, no server), the explorer computes and draws:
    its weights are in the page, nothing is fetched."""
    context = browser.new_context(viewport={"width": DESKTOP, "height": 900})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto((site_dir / fullest_explorer_page()).resolve().as_uri())
        root = page.locator(EXPLORER).first
        wait_until_drawn(root)
        explorer = chapter_explorer(fullest_explorer_page(), ROOT)
        for name in ("nHeads", "mask"):
            pick(root, name, 0 if name == "nHeads" else 1)
            check_picture(root, explorer)
    finally:
        context.close()
    assert errors == []


# Elements added to or removed from the chapter (the theme watches it for
# them, then measures every code box and output of the page).
WATCH_ELEMENTS_JS = """() => {
    window.__added = [];
    new MutationObserver(records => records.forEach(r => window.__added.push(
        `${r.target.tagName.toLowerCase()}.${r.target.className}: `
        + `+${r.addedNodes.length} -${r.removedNodes.length}`)))
        .observe(document.getElementById('main-content'), {subtree: true, childList: true});
}"""


def test_a_change_of_setting_adds_and_removes_no_element(open_page):
    """Weights, heads and mask changed (the same words: padding adds some):
    the explorer changes its picture and its text in place (only new words
    rebuild the list of words), so the theme's watcher of the chapter has
    nothing to do."""
    page, log, roots = open_explorers(open_page, fullest_explorer_page())
    root = roots[0]
    page.evaluate(WATCH_ELEMENTS_JS)
    masks = [m for m in options(root, "mask") if m != "padding"]
    assert len(masks) >= 2
    changes = [
        ("option", None),
        ("nHeads", None),
        ("mask", masks[1]),
        ("mask", masks[0]),
    ]
    for name, value in changes:
        before = shown(root)
        texts = options(root, name)
        now = texts.index(str(before["state"][name]))
        pick(root, name, texts.index(value) if value else (now + 1) % len(texts))
        assert shown(root)["picture"] != before["picture"], name  # a new picture
    assert page.evaluate("window.__added") == []
    assert log.problems() == [], "\n".join(log.problems())


RECORD_SELECTION_JS = """() => {
    window.__selections = [];  // the page's selection (a text box has its own)
    document.addEventListener('selectionchange', e => {
        if (e.target === document) {
            window.__selections.push(String(document.getSelection().type));
        }
    });
}"""


HINT_FITS_JS = """box => {
    const style = getComputedStyle(box);
    const pen = document.createElement('canvas').getContext('2d');
    pen.font = style.font;
    const room = box.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight);
    return [box.placeholder, pen.measureText(box.placeholder).width, room];
}"""


def test_on_a_phone_a_tap_selects_no_text_and_the_box_s_hint_fits(open_page):
    """On a phone (360 px, a narrow one), tapping a button of the explorer
    (an option, the list of words, a word) changes the setting and selects
    nothing: a tap that set a caret in the button's text would make the
    browser sync the selection through the whole page, a cost the reader
    waits for on every tap. The text box's hint is read whole, not cut at
    the box's edge."""
    page, log, roots = open_explorers(
        open_page, fullest_explorer_page(), width=PHONE, height=800,
        is_mobile=True, has_touch=True,
    )  # fmt: skip
    root = roots[0]
    hint, width, room = control(root, "text").evaluate(HINT_FITS_JS)
    assert hint and width <= room, (
        f"the hint {hint!r} needs {width:.0f} px of {room:.0f}"
    )
    page.evaluate(RECORD_SELECTION_JS)

    def tap(locator):
        locator.scroll_into_view_if_needed()
        box = locator.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    tapped = []
    for name in controls(root):
        if name == "text" or kind(root, name) != "buttons":
            continue
        texts = options(root, name)
        now = texts.index(str(shown(root)["state"][name]))
        value = texts[(now + 1) % len(texts)]
        tap(root.locator(f'label:has(> input[name="{name}"][value="{value}"])'))
        page.wait_for_function(
            "([r, n, v]) => String(r.mhaExplorer.state[n]) === v",
            arg=[root.element_handle(), name, value],
        )
        tapped.append(name)
    tap(root.locator(".mha-words > summary"))
    word = root.locator("button.mha-word:not([data-remove])").first
    word.wait_for()
    before = control(root, "text").input_value()
    tap(word)
    assert control(root, "text").input_value() != before  # the word was added
    assert "mask" in tapped, tapped  # a row of buttons was tapped
    page.wait_for_timeout(100)  # a selection change is reported in a task of its own
    assert page.evaluate("window.__selections") == []
    assert log.problems() == [], "\n".join(log.problems())


# For each explorer of the page: its ids, and where each of its labels,
# outputs and the canvas's description point (inside it or not).
IDS_JS = """() => {
    const roots = [...document.querySelectorAll('.mha-explorer')];
    const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
    return {duplicates: ids.filter((id, i) => ids.indexOf(id) !== i),
            explorers: roots.map(root => {
        const pointers = [...root.querySelectorAll('label[for], output[for]')]
            .map(e => e.getAttribute('for'))
            .concat([...root.querySelectorAll('[aria-labelledby]')]
                .map(e => e.getAttribute('aria-labelledby')));
        return {ids: [...root.querySelectorAll('[id]')].length,
                outside: pointers.filter(id => !root.contains(document.getElementById(id)))};
    })};
}"""

# A notebook output added to the page once it has loaded, its script run, as
# JupyterLab shows the output of a cell run or of another notebook opened.
ADD_OUTPUT_JS = """(html) => {
    const box = document.createElement('section');
    box.innerHTML = html;
    document.body.append(box);
    box.querySelectorAll('script:not([type])').forEach(old => {
        const script = document.createElement('script');
        script.textContent = old.textContent;
        old.replaceWith(script);
    });
}"""


def test_two_explorers_on_one_page_each_have_their_own_ids(browser, tmp_path):
    """Two notebook outputs in one page, each with its own copy of the
    script, the second added after the first had drawn (two notebooks open
    in one JupyterLab): every id of the page is unique, each explorer's
    labels and the canvas's description point into it, and its label
    "Or type:" gives the focus to its own box."""
    import mha

    outputs = [
        mha.attention_explorer(weights=[w], head_counts=[2, 4])._repr_mimebundle_()[
            "text/html"
        ]
        for w in ("random", "trained")
    ]
    path = tmp_path / "two.html"
    path.write_text(
        '<!doctype html><html lang="en"><meta charset="utf-8"><title>two</title>'
        f"<body><section>{outputs[0]}</section></body></html>"
    )
    context = browser.new_context(viewport={"width": 760, "height": 900})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path.as_uri())
        wait_until_drawn(page.locator(EXPLORER).first)
        page.evaluate(ADD_OUTPUT_JS, outputs[1])
        roots = page.locator(EXPLORER).all()
        assert len(roots) == 2
        wait_until_drawn(roots[1])
        found = page.evaluate(IDS_JS)
        assert found["duplicates"] == []
        assert [e["outside"] for e in found["explorers"]] == [[], []]
        assert all(e["ids"] >= 4 for e in found["explorers"])
        for root in roots:
            root.locator("label", has_text="Or type:").click()
            assert root.evaluate("r => r.contains(document.activeElement)")
            page.keyboard.type("basic example")
            page.keyboard.press("Enter")
            assert shown(root)["state"]["sentence"] == "basic example"
        assert errors == []
    finally:
        context.close()
