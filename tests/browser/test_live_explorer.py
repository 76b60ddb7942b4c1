"""The book in a real JupyterLab, as ``make lab`` serves it (a server of its
own for each test: JupyterLab restores the tabs a test left open):

- a chapter opened reads as on the site: its MyST rendered (exercises, folded
  solutions, citations) with no directive or role left raw, the set-up cell
  folded to its title and each solution's code folded;
- the live explorer: the playground chapter's explorer, before its cell has
  run (the first setting's picture and a note) and once it has (the same
  front end as the site's, computing in the page): every control moved,
  sentences typed, good and bad, the picture checked against the package
  after each step (how fast: benchmarks/bench_lab.py)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from booktools.book import ROOT, fullest_explorer_page, notebooks
from booktools.explorers import (
    chapter_explorer,
    check_picture,
    explorer_call,
    options,
    pick,
    shown,
    type_sentence,
)
from booktools.lab import (
    LiveExplorer,
    following_cell,
    jupyterlab,
    markdown_cells,
    notebook_shown,
    open_notebook,
    run_all,
)

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


def explorer_notebook(folder: Path) -> Path:
    """A notebook of two cells: import mha, and the playground's explorer call."""
    path = folder / "explorer.ipynb"
    cells = [
        nbformat.v4.new_code_cell("import mha"),
        nbformat.v4.new_code_cell(explorer_call(PLAYGROUND)),
    ]
    metadata = nbformat.read(PLAYGROUND, as_version=4).metadata  # its kernel
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=metadata), path)
    return path


def test_live_explorer_follows_every_control(browser, tmp_path):
    explorer = chapter_explorer(fullest_explorer_page(), ROOT)
    with jupyterlab([PLAYGROUND, explorer_notebook(tmp_path)]) as (base, token):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        # Before its cell runs, the stored explorer shows its first picture and a note.
        open_notebook(page, base, token, PLAYGROUND.name, wait_for_kernel=False)
        cell = page.locator(".jp-Cell", has_text="mha.attention_explorer(").first
        cell.scroll_into_view_if_needed()
        output = cell.locator(".jp-OutputArea")
        assert "Run this cell" in output.inner_text()
        assert output.locator(".mha-fallback img").evaluate("i => i.naturalWidth") > 0

        open_notebook(page, base, token, "explorer.ipynb")
        run_all(page)
        live = LiveExplorer(page)
        root = live.root
        check_picture(root, explorer)
        steps = [
            ("nHeads", -1), ("nHeads", 0), ("nHeads", 1), ("mask", 1), ("mask", 2),
            ("nPad", -1), ("sentence", 2), ("option", 1), ("mask", 0), ("option", 0),
        ]  # fmt: skip
        for name, index in steps:
            index = index % len(options(root, name))
            live.act(lambda: pick(root, name, index))  # noqa: B023
            check_picture(root, explorer)
        for typed in ("what will come next", "a basic example"):
            live.act(lambda: type_sentence(root, typed))  # noqa: B023
            assert shown(root)["state"]["sentence"] == typed
            check_picture(root, explorer)
        before = shown(root)
        type_sentence(root, "the cat sat")
        assert "not a word this model knows" in shown(root)["message"]
        assert shown(root)["picture"] == before["picture"]
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
