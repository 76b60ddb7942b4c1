"""The book in a real JupyterLab, as ``make lab`` serves it (a server of its
own for each test: JupyterLab restores the tabs a test left open):

- a chapter opened reads as on the site: its MyST rendered (exercises, folded
  solutions, citations) with no directive or role left raw, the set-up cell
  folded to its title and each solution's code folded;
- the live explorer: run the playground as a reader would, move every
  control, type sentences good and bad, and check after each step that the
  picture, its caption and the controls agree."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

import mha
from booktools.book import ROOT, fullest_explorer_page, notebooks
from booktools.lab import (
    LiveExplorer,
    following_cell,
    jupyterlab,
    markdown_cells,
    notebook_shown,
    open_notebook,
    run_all,
)
from mha.explorer.model import Settings, attention_maps, caption

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # JupyterLab: the longest

# The chapter whose explorer has every kind of control.
PLAYGROUND = ROOT / fullest_explorer_page().replace(".html", ".ipynb")


# What MyST source looks like when nothing rendered it.
RAW = (":label:", ":class:", "```{", "{cite", "{exercise", "{solution", "{note}")


def chapter_with_solutions_and_citations() -> Path:
    """The first chapter of _toc.yml with an exercise, a solution holding code and
    a citation: every kind of MyST this test checks."""
    for path in notebooks():
        text = path.read_text()
        if all(s in text for s in ("{exercise}", "{solution-start}", "{cite:p}")):
            return path
    raise AssertionError("no chapter has an exercise, a solution and a citation")


CHAPTER = chapter_with_solutions_and_citations()


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


def test_a_chapter_reads_in_jupyterlab_as_on_the_site(browser):
    with jupyterlab([CHAPTER]) as (base, token):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        problems = []
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on(
            "console",
            lambda m: m.type == "error" and problems.append(f"console: {m.text}"),
        )
        open_notebook(page, base, token, CHAPTER.name, wait_for_kernel=False)
        cells = markdown_cells(page)
        # (JupyterLab's own renderer draws .jp-RenderedMarkdown, jupyterlab-myst .myst)
        page.wait_for_function(
            """() => {
                const cells = [...document.querySelectorAll(
                    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell')];
                return cells.length > 0 && cells.every(
                    c => c.querySelector('.myst, .jp-RenderedMarkdown'));
            }""",
            timeout=30_000,
        )

        # Every markdown cell is drawn by the MyST renderer, and none shows source.
        count = cells.count()
        assert count > 5
        assert cells.locator(".myst").count() == count, "is jupyterlab-myst installed?"
        for number, text in enumerate(cells.all_inner_texts()):
            raw = [marker for marker in RAW if marker in text]
            assert not raw, f"markdown cell {number} shows {raw}: {text[:200]!r}"

        # An exercise is a box with its number; a citation is a citation.
        notebook = notebook_shown(page)
        exercise = notebook.locator(".myst-exercise", has_text="Exercise 1").first
        assert exercise.is_visible()
        assert notebook.locator(".cite-group").count() >= 1

        # The first solution is folded: its text hidden until the reader opens it,
        # its code folded, source and output.
        solution_cell = cells.filter(has_text="Solution to").first
        solution = solution_cell.locator("details.myst-exercise").first
        solution.scroll_into_view_if_needed()
        body = solution.locator(".myst-exercise-body")
        assert solution.get_attribute("open") is None and not body.is_visible()
        code = following_cell(solution_cell)
        assert "jp-CodeCell" in code.get_attribute("class")
        assert code.locator(".jp-InputPlaceholder").is_visible()
        assert not code.locator(".jp-InputArea-editor").is_visible()
        solution.locator("summary").click()
        assert body.is_visible()

        # The set-up cell is folded to its title.
        setup = notebook.locator(".jp-CodeCell").first
        assert (
            setup.locator(".jp-InputPlaceholder")
            .inner_text()
            .startswith("# @title Set-up:")
        )
        assert not setup.locator(".jp-InputArea-editor").is_visible()
        assert problems == []
        context.close()
