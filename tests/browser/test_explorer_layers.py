"""The explorer on a phone and on a laptop: a stage that keeps its size
whatever the reader chooses (the maps fit it, a two-layer model one layer at
a time), controls a finger can hit and a text box a phone does not zoom into,
and a caption that says the setting once and truly.

``check_picture`` (booktools' check of what the picture shows, of the layer
shown) is imported by the other explorer tests."""

from __future__ import annotations

import dataclasses
import re
from unittest import mock

import pytest

from booktools import explorers
from booktools.book import explorer_pages
from booktools.explorers import (
    EXPLORER,
    control,
    controls,
    options,
    pick,
    shown,
    type_sentence,
    wait_until_drawn,
)
from booktools.pages import COMMON_PHONE, DESKTOP

pytestmark = pytest.mark.browser

PHONE_SCREEN = {
    "width": COMMON_PHONE,
    "height": 844,
    "is_mobile": True,
    "has_touch": True,
}
FINGER = 44  # px: the smallest target a finger hits (WCAG 2.5.5, Apple, Google)


def check_picture(root, explorer) -> None:
    """booktools.explorers.check_picture of the layer shown: a model of two
    layers shows one at a time (the Layer switch, ``state.layer``)."""
    layer = int(shown(root)["state"].get("layer", "1")) - 1
    read = explorers.reading

    def one_layer(network, tokens, mask="none"):
        got = read(network, tokens, mask)
        if len(got.probs) < 2:
            return got
        return dataclasses.replace(got, probs=got.probs[layer : layer + 1])

    with mock.patch.object(explorers, "reading", one_layer):
        explorers.check_picture(root, explorer)


def page_with(path_part: str) -> str:
    (found,) = [p for p in explorer_pages() if path_part in p]
    return found


# The canvas's box, the block from the first control to the caption's last
# line, and the window's height.
BOX_JS = """r => {
    const c = r.querySelector('canvas.mha-maps').getBoundingClientRect();
    const top = r.querySelector('form').getBoundingClientRect().top;
    const bottom = r.querySelector('figcaption').getBoundingClientRect().bottom;
    return {canvas: [Math.round(c.top - top), Math.round(c.width), Math.round(c.height)],
            block: bottom - top, screen: innerHeight};
}"""


def every_setting(root):
    """Each option of each control in turn (the padding slider with the
    padding mask), then two typed sentences of different lengths; yields
    after each."""
    for name in controls(root):
        if name == "text" or not control(root, name).first.is_enabled():
            continue
        for index in range(len(options(root, name))):
            pick(root, name, index)
            yield name, index
    if control(root, "mask").count() and "padding" in options(root, "mask"):
        pick(root, "mask", options(root, "mask").index("padding"))
        for index in range(len(options(root, "nPad"))):
            pick(root, "nPad", index)
            yield "nPad", index
    for name in ("option", "layer"):  # the second layer of a two-layer model
        if control(root, name).count():
            pick(root, name, len(options(root, name)) - 1)
            yield name, -1
    for sentence in options(root, "sentence")[:1]:
        words = sentence.split()
        for typed in (words[0], " ".join((words * 3)[:9])):
            type_sentence(root, typed)
            yield "typed", typed


@pytest.mark.parametrize(
    "screen", [PHONE_SCREEN, {"width": DESKTOP, "height": 900}], ids=["phone", "laptop"]
)
def test_the_stage_keeps_its_size_and_fits_the_screen(
    open_page, explorer_page_path, screen
):
    """Whatever the setting (every option of every control, a typed sentence
    of one word and one of nine), the maps' canvas keeps its place and size on
    the page, within the column; the controls, the maps and the caption fit
    the screen at once (844 px on a phone)."""
    page, log = open_page(explorer_page_path, **screen)
    root = page.locator(EXPLORER).first
    wait_until_drawn(root)
    first = root.evaluate(BOX_JS)
    assert first["canvas"][1] <= screen["width"]
    seen = {}
    for step in every_setting(root):
        now = root.evaluate(BOX_JS)
        assert now["canvas"] == first["canvas"], (step, now, first)
        seen[step] = now["block"]
    assert len(seen) >= 8
    tallest = max(seen.values())
    assert tallest <= first["screen"], (tallest, seen)
    assert log.problems() == [], "\n".join(log.problems())


# Each control a finger taps: what it is, its box; the text box's font size
# and how much of its row it fills with its button; the form's own width.
TARGETS_JS = """r => {
    const form = r.querySelector('form').getBoundingClientRect();
    const seen = el => el.offsetParent !== null;
    const targets = [...r.querySelectorAll(
        '.mha-button > span, select, input[type=text], input[type=range], button, summary')]
        .filter(seen).map(el => {
            const b = el.getBoundingClientRect();
            return [el.tagName + ' ' + (el.textContent || el.name || '').slice(0, 20),
                    b.width, b.height];
        });
    const box = r.querySelector('input[name=text]');
    const typing = box.parentNode.getBoundingClientRect();
    return {targets: targets, font: parseFloat(getComputedStyle(box).fontSize),
            box: box.getBoundingClientRect().width, typing: [typing.left, typing.right],
            form: [form.left, form.right]};
}"""


def test_every_control_is_a_finger_s_size_and_the_box_is_not_zoomed(open_page):
    """On a 390 px phone, in the explorer with every kind of control (and the
    layer switch): each button, drop-down, slider, word list and the text box
    is 44 px tall or more (and buttons 44 px wide); the box's text is 16 px
    (a phone zooms into a box of smaller text) and the box with its button
    runs to the form's right edge, the box taking most of it; a message about
    the typed text stands right under the box."""
    for part in ("_masks", "_two_layers"):
        page, _ = open_page(page_with(part), **PHONE_SCREEN)
        root = page.locator(EXPLORER).first
        wait_until_drawn(root)
        if control(root, "mask").count():
            pick(root, "mask", options(root, "mask").index("padding"))
        found = root.evaluate(TARGETS_JS)
        small = [(what, round(w), round(h)) for what, w, h in found["targets"]
                 if h < FINGER - 0.5 or (what.startswith("SPAN") and w < FINGER - 0.5)]  # fmt: skip
        assert small == [], small
        assert len(found["targets"]) >= 8
        assert found["font"] >= 16
        assert abs(found["typing"][1] - found["form"][1]) <= 1
        assert found["box"] >= 0.5 * (found["form"][1] - found["form"][0])
        type_sentence(root, "zebra")
        message = root.locator(".mha-message")
        assert "not a word this model knows" in message.text_content()
        gap = message.bounding_box()["y"] - control(root, "text").bounding_box()["y"]
        assert 0 < gap <= 2 * FINGER, gap


def caption(root) -> str:
    return shown(root)["caption"]


def test_the_two_layer_caption_says_each_part_once_and_truly(open_page):
    """Chapter 12's two-layer model is causal in every layer: its caption says
    its causal mask (never "no mask"), names the model once, and says which
    of its two layers the picture shows; the picture draws that layer's maps
    only; the description does not repeat the caption. With one layer, the
    layer switch stays in place, out of reach, its chosen button readable as
    any chosen button (its label was grey on the button's blue)."""
    page, _ = open_page(page_with("_two_layers"), **PHONE_SCREEN)
    root = page.locator(EXPLORER).first
    wait_until_drawn(root)
    pick(root, "option", options(root, "option").index("two layers"))
    said = caption(root)
    assert said.endswith(
        " · two layers · 4 heads (d_key = 2) · causal mask (the model's own)"
        " · layer 1 of 2 shown"
    ), said
    assert (
        "no mask" not in said and said.count("layer") == 2 and said.count("mask") == 1
    )
    pick(root, "layer", 1)
    assert caption(root).endswith(" · layer 2 of 2 shown")
    maps = root.evaluate("r => r.mhaExplorer.picture.maps.map(m => m.layer)")
    assert maps == [1, 1, 1, 1]
    now = shown(root)
    assert "two layers" not in now["description"] and "mask" not in now["description"]
    pick(root, "option", options(root, "option").index("one layer"))
    assert "layer" not in caption(root).replace("one layer", "")
    assert control(root, "layer").first.is_disabled()  # in its place, out of reach
    chosen = root.evaluate(
        """r => ['layer', 'option'].map(name => getComputedStyle(
            r.querySelector(`[name="${name}"]:checked + span`)).color)"""
    )
    assert chosen[0] == chosen[1]  # the layer shown reads as any chosen button


def test_the_padding_caption_says_the_pad_tokens_shown(open_page):
    """Chapter 6 with the padding mask: the slider's readout, the caption and
    the picture agree on the <pad> tokens shown, and the caption quotes the
    words the model reads (those <pad> replaced are not quoted); a sentence of
    one word has no <pad> to show, and the readout says 0."""
    page, _ = open_page(page_with("_masks"), **PHONE_SCREEN)
    root = page.locator(EXPLORER).first
    wait_until_drawn(root)
    pick(root, "mask", options(root, "mask").index("padding"))
    readout = root.locator('[name="nPad"] ~ output')
    for index in range(len(options(root, "nPad"))):
        pick(root, "nPad", index)
        tokens = root.evaluate("r => r.mhaExplorer.result.tokens")
        pads = tokens.count("<pad>")
        words = " ".join(t for t in tokens if t != "<pad>")
        said = caption(root)
        assert said.startswith(f"“{words}” · "), said
        assert f"padding mask: {pads} <pad> in place of the last words" in said
        assert readout.text_content() == str(pads) == str(shown(root)["state"]["nPad"])
    type_sentence(root, "basic")
    assert readout.text_content() == "0"
    assert caption(root).startswith("“basic” · ") and ": 0 <pad>" in caption(root)


def test_a_character_that_is_no_word_is_not_quoted(open_page):
    """An emoji (no word: the tokenizer drops it, the maps have no row for it)
    is not in the caption either; nor is the punctuation of a listed sentence."""
    page, _ = open_page(page_with("_masks"), **PHONE_SCREEN)
    root = page.locator(EXPLORER).first
    wait_until_drawn(root)
    type_sentence(root, "😀 a basic example!")
    said = caption(root)
    assert said.startswith("“a basic example” · "), said
    assert "😀" not in said and "!" not in said
    tokens = root.evaluate("r => r.mhaExplorer.result.tokens")
    assert tokens == ["a", "basic", "example"]
    # the state once: the caption, not a title drawn in the picture nor the description
    texts = root.evaluate("r => r.mhaExplorer.picture.texts.map(t => t.text)")
    assert not any(re.search(r"heads?, ", t) for t in texts)
    assert "heads" not in shown(root)["description"]
