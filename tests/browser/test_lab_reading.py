"""A chapter read in JupyterLab (``make lab``) reads as on the site: its MyST
rendered (exercises, folded solutions, citations) with no directive or role
left raw, the set-up cell folded to its title and each solution's code folded.
Nothing runs: this is what a reader sees on opening the chapter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lab_driver import following_cell, jupyterlab, markdown_cells, open_notebook

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import toc  # noqa: E402

sys.path.remove(str(ROOT / "scripts"))

# What MyST source looks like when nothing rendered it.
RAW = (":label:", ":class:", "```{", "{cite", "{exercise", "{solution", "{note}")


def chapter_with_solutions_and_citations() -> Path:
    """The first chapter of _toc.yml with an exercise, a solution holding code and
    a citation: every kind of MyST this test checks."""
    for path in toc.notebooks():
        text = path.read_text()
        if all(s in text for s in ("{exercise}", "{solution-start}", "{cite:p}")):
            return path
    raise AssertionError("no chapter has an exercise, a solution and a citation")


CHAPTER = chapter_with_solutions_and_citations()


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
        open_notebook(page, base, token, CHAPTER.name)
        cells = markdown_cells(page)
        # (JupyterLab's own renderer draws .jp-RenderedMarkdown, jupyterlab-myst .myst)
        cells.last.locator(".myst, .jp-RenderedMarkdown").wait_for(timeout=30_000)

        # Every markdown cell is drawn by the MyST renderer, and none shows source.
        count = cells.count()
        assert count > 5
        assert cells.locator(".myst").count() == count, "is jupyterlab-myst installed?"
        for number, text in enumerate(cells.all_inner_texts()):
            raw = [marker for marker in RAW if marker in text]
            assert not raw, f"markdown cell {number} shows {raw}: {text[:200]!r}"

        # An exercise is a box with its number; a citation is a citation.
        exercise = page.locator(".myst-exercise", has_text="Exercise 1").first
        assert exercise.is_visible()
        assert page.locator(".cite-group").count() >= 1

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
        setup = page.locator(".jp-CodeCell").first
        assert (
            setup.locator(".jp-InputPlaceholder")
            .inner_text()
            .startswith("# @title Set-up:")
        )
        assert not setup.locator(".jp-InputArea-editor").is_visible()
        assert problems == []
        context.close()
