"""The static explorers on the built site: every control switches, in the
browser and without a kernel, to the right precomputed frame, and the caption
follows. Frames are recognised by their caption, which states every setting
(not by their PNG bytes, which may differ in a pixel between machines)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_pages import settle

import mha
from mha.explorer.model import Settings, attention_maps, caption

pytestmark = pytest.mark.browser

PLAYGROUND = "book/09_playground.html"
EXPLORER = ".widget-vbox:has(> .widget-box figure)"


def expected_frame(settings: Settings) -> str:
    """The caption of the frame the package draws for ``settings``."""
    tokens, _ = attention_maps(settings)
    return caption(settings, tokens)


def shown(explorer) -> tuple[str, str]:
    """(img src, caption) of the one frame visible in ``explorer``."""
    figures = explorer.locator("figure:visible")
    assert figures.count() == 1, "exactly one frame must be visible"
    return (
        figures.locator("img").get_attribute("src"),
        figures.locator("figcaption").inner_text(),
    )


def shown_caption(explorer) -> str:
    return shown(explorer)[1]


def control(explorer, kind: str, label: str):
    return explorer.locator(
        f".{kind}", has=explorer.page.locator("label", has_text=label)
    )


def click(explorer, label: str, value: str) -> None:
    control(explorer, "widget-toggle-buttons", label).get_by_role(
        "button", name=value, exact=True
    ).click()


def choose(explorer, label: str, value: str) -> None:
    control(explorer, "widget-dropdown", label).locator("select").select_option(value)


def slide(explorer, label: str, index: int) -> None:
    """Move a slider with the keyboard, as a reader without a mouse would."""
    handle = control(explorer, "widget-hslider", label).locator(".noUi-handle")
    handle.focus()
    handle.press("Home")
    for _ in range(index):
        handle.press("ArrowRight")


def open_explorers(open_page, path):
    page, log = open_page(path)
    settle(page)
    return page, log, page.locator(EXPLORER)


def test_playground_every_control_shows_the_right_frame(open_page):
    page, log, explorers = open_explorers(open_page, PLAYGROUND)
    assert explorers.count() == 1
    explorer = explorers.first
    settings = Settings(
        weights="trained"
    )  # the playground opens on the trained weights
    assert shown_caption(explorer) == expected_frame(settings)
    pad_slider = control(explorer, "widget-hslider", "Padding tokens")
    assert not pad_slider.is_visible()

    steps = [
        (lambda: slide(explorer, "Heads", 3), {"n_heads": 8}),
        (lambda: slide(explorer, "Heads", 0), {"n_heads": 1}),
        (lambda: slide(explorer, "Heads", 1), {"n_heads": 2}),
        (lambda: click(explorer, "Mask", "causal"), {"mask": "causal"}),
        (lambda: click(explorer, "Mask", "padding"), {"mask": "padding"}),
        (lambda: slide(explorer, "Padding tokens", 2), {"n_pad": 3}),
        (
            lambda: choose(explorer, "Sentence", mha.SENTENCES[2]),
            {"sentence": mha.SENTENCES[2]},
        ),
        (lambda: click(explorer, "Weights", "random"), {"weights": "random"}),
        (lambda: slide(explorer, "Heads", 2), {"n_heads": 4}),
        (lambda: click(explorer, "Mask", "none"), {"mask": "none"}),
    ]
    for act, change in steps:
        before = shown(explorer)
        act()
        settings = replace(settings, **change)
        after = shown(explorer)
        assert after[0] != before[0], f"{change} did not change the picture"
        assert after[1] == expected_frame(settings), f"wrong frame after {change}"
        assert pad_slider.is_visible() == (settings.mask == "padding")
    assert log.problems() == [], "\n".join(log.problems())


def test_every_explorer_control_changes_the_frame(open_page, explorer_page_path):
    """On every page with explorers, each control of each one switches the visible frame."""
    page, log, explorers = open_explorers(open_page, explorer_page_path)
    assert explorers.count() >= 1
    for i in range(explorers.count()):
        explorer = explorers.nth(i)
        explorer.scroll_into_view_if_needed()
        for buttons in explorer.locator(".widget-toggle-buttons").all():
            for button in buttons.locator("button").all()[::-1]:
                if "mod-active" in (button.get_attribute("class") or ""):
                    continue
                before = shown(explorer)
                button.click()
                assert shown(explorer) != before
        for select in explorer.locator(".widget-dropdown select").all():
            values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
            for value in values[::-1]:
                if select.input_value() == value:
                    continue
                before = shown(explorer)
                select.select_option(value)
                assert shown(explorer) != before
        for handle in explorer.locator(".noUi-handle:visible").all():
            seen = {shown(explorer)}
            handle.focus()
            for key in ("End", "Home"):
                handle.press(key)
                seen.add(shown(explorer))
            assert len(seen) >= 2, "the slider did not change the frame"
    assert log.problems() == [], "\n".join(log.problems())
