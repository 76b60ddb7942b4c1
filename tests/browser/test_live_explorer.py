"""The live explorer in a real JupyterLab: run the playground as a reader would,
move every control, type sentences good and bad, and check after each step
that the picture, its caption and the controls agree."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import fullest_explorer_page
from lab_driver import LiveExplorer, jupyterlab, open_notebook, run_all

import mha
from mha.explorer.model import Settings, attention_maps, caption

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
# The chapter whose explorer has every kind of control.
PLAYGROUND = ROOT / fullest_explorer_page().replace(".html", ".ipynb")


def expected_caption(settings: Settings) -> str:
    tokens, _ = attention_maps(settings)
    return caption(settings, tokens)


def test_live_explorer_follows_every_control(browser):
    with jupyterlab([PLAYGROUND]) as (base, token):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_notebook(page, base, token, PLAYGROUND.name)

        # Before anything runs, the explorer's place says what to do.
        cell = page.locator(".jp-Cell", has_text="mha.attention_explorer(").first
        cell.scroll_into_view_if_needed()
        assert "Run this cell" in cell.locator(".jp-OutputArea").inner_text()

        run_all(page)
        explorer = LiveExplorer(page)
        settings = Settings(
            weights="trained"
        )  # the playground opens on the trained weights

        def check(settings: Settings, dropdown: str | None = None) -> None:
            assert explorer.caption() == expected_caption(settings)
            assert explorer.sentence_shown() == (dropdown or settings.sentence)
            assert explorer.slider_visible("Padding tokens") == (
                settings.mask == "padding"
            )

        check(settings)
        steps = [
            (lambda: explorer.slide("Heads", "End"), {"n_heads": 8}),
            (lambda: explorer.slide("Heads", "Home"), {"n_heads": 1}),
            (lambda: explorer.slide("Heads", "ArrowRight"), {"n_heads": 2}),
            (lambda: explorer.click("Mask", "causal"), {"mask": "causal"}),
            (lambda: explorer.click("Mask", "padding"), {"mask": "padding"}),
            (lambda: explorer.slide("Padding tokens", "End"), {"n_pad": 3}),
            (lambda: explorer.choose(mha.SENTENCES[2]), {"sentence": mha.SENTENCES[2]}),
            (lambda: explorer.click("Weights", "random"), {"weights": "random"}),
            (lambda: explorer.click("Mask", "none"), {"mask": "none"}),
        ]
        for act, change in steps:
            act()
            settings = replace(settings, **change)
            check(settings)

        # A typed sentence shows in the drop-down; unknown words are listed once.
        typed = "the cat sat on the mat"
        explorer.type(typed)
        settings = replace(settings, sentence=typed)
        check(settings, dropdown=f"your sentence: {typed}")
        assert "shown as <unk>: the, cat, sat, on, mat" in explorer.message()

        # A listed sentence replaces it and empties the box; the typed one stays listed.
        explorer.choose(mha.SENTENCES[0])
        settings = replace(settings, sentence=mha.SENTENCES[0])
        check(settings)
        assert explorer.root.locator(".widget-text input").input_value() == ""
        explorer.choose(f"your sentence: {typed}")
        check(replace(settings, sentence=typed), dropdown=f"your sentence: {typed}")

        # Clearing the box goes back to the sentence chosen in the drop-down.
        explorer.type("")
        check(settings)

        # Enter on an empty box, and text the explorer cannot show: a message,
        # and the picture and the controls stay as they were.
        for text, says in [
            ("", "the box is empty"),
            ("!!! ???", "at least one word"),
            (" ".join(["word"] * 11), "at most 10"),
        ]:
            explorer.type(text, expect_new_frame=False)
            assert says in explorer.message()
            check(settings)

        # Characters the figure's font cannot draw are named.
        explorer.type("你好 世界")
        check(
            replace(settings, sentence="你好 世界"), dropdown="your sentence: 你好 世界"
        )
        assert re.search("font cannot draw 你 好 世 界", explorer.message())
        assert errors == []
        context.close()
