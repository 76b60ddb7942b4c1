"""Every chapter opened in a real JupyterLab (as ``make lab`` serves it, with
jupyterlab-myst; opened to be read, with no kernel started) reads as on the
site: no role drawn as its raw text (such as ``training.fit
<mha.training.loop.fit>``), every exercise numbered as the site numbers it
and the text cites it (``Exercise 4.1``, not ``Exercise 1``), and
no console error (such as a cross-reference JupyterLab cannot find). And,
as it is read, one chapter with every kind of MyST looked at closely: every
markdown cell drawn by the MyST renderer with no directive or role left
raw, an exercise in its numbered box, a citation, each solution folded (its
text and its code) until the reader opens it, and the set-up cell folded to
its title.

(The checks are plain functions of the rendered text, so that they can move
into the tooling package with the JupyterLab driver.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from booktools import lab_markup
from booktools.book import notebooks
from booktools.lab import (
    following_cell,
    jupyterlab,
    markdown_cells,
    notebook_shown,
    open_in_lab,
    open_lab,
)
from booktools.pages import DESKTOP

pytestmark = pytest.mark.browser

# A role drawn as its raw text: its braces, or its "title <target>" body.
RAW_ROLE = re.compile(r"\{[a-z][\w:-]*\}`|\S <(?:mha|torch)\.[\w.]+>|<~?mha\.[\w.]+>")
EXERCISE = re.compile(r"^(?:Solution to )?Exercise[\s\u00a0]+(\S+?)\.?$", re.MULTILINE)


def raw_roles(texts: list[str]) -> list[str]:
    """The pieces of raw role text in the rendered cells ``texts``."""
    return [m.group(0) for text in texts for m in RAW_ROLE.finditer(text)]


def exercise_numbers(texts: list[str]) -> list[str]:
    """The numbers of the exercises the rendered cells ``texts`` show, in
    order (not their solutions)."""
    return [
        m.group(1)
        for text in texts
        for m in EXERCISE.finditer(text)
        if not m.group(0).startswith("Solution")
    ]


@pytest.mark.parametrize(
    ("text", "roles", "numbers"),
    [
        ("Train with training.fit <mha.training.loop.fit> now.", ["t <mha.training.loop.fit>"], []),
        ("A {py:func}`x` and [`mha.tokenize`](api.md).", ["{py:func}`"], []),
        ("Exercise 4.1\n\nDo it.\n\nSolution to Exercise 4.1", [], ["4.1"]),
        ("Exercise 1\n\nSee exercise 4.1 and a < b.", [], ["1"]),
    ],
)  # fmt: skip
def test_what_the_checks_find(text, roles, numbers):
    assert raw_roles([text]) == roles
    assert exercise_numbers([text]) == numbers


def test_an_unresolved_cross_reference_fails_a_chapter():
    assert unresolved("warning", "Cross reference target was not found: scores-shift")
    assert unresolved("error", "anything")
    assert not unresolved("warning", "a deprecation")


CHAPTERS = notebooks()


# What MyST source looks like when nothing rendered it.
RAW = (":label:", ":class:", "```{", "{cite", "{exercise", "{solution", "{note}")


def chapter_with_solutions_and_citations() -> Path:
    """The first chapter of _toc.yml with an exercise, a solution holding code and
    a citation: every kind of MyST checked closely."""
    for path in notebooks():
        text = path.read_text()
        if all(s in text for s in ("{exercise}", "{solution-start}", "{cite:p}")):
            return path
    raise AssertionError("no chapter has an exercise, a solution and a citation")


CHAPTER = chapter_with_solutions_and_citations()


def check_markup_closely(page, first_exercise: str) -> None:
    """The checks of the chapter shown that need more than its text (see the
    module's docstring); ``first_exercise``: its first exercise's title."""
    cells = markdown_cells(page)
    count = cells.count()
    assert count > 5
    assert cells.locator(".myst").count() == count, "is jupyterlab-myst installed?"
    for number, text in enumerate(cells.all_inner_texts()):
        raw = [marker for marker in RAW if marker in text]
        assert not raw, f"markdown cell {number} shows {raw}: {text[:200]!r}"

    # An exercise is a box with its number; a citation is a citation.
    notebook = notebook_shown(page)
    exercise = notebook.locator(".myst-exercise", has_text=first_exercise).first
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


def unresolved(kind: str, text: str) -> bool:
    """A console message that fails a chapter: an error, or the warning
    jupyterlab-myst gives for a cross-reference it cannot find."""
    return kind == "error" or "reference target was not found" in text.lower()


@pytest.mark.slow
def test_every_chapter_reads_in_jupyterlab_as_on_the_site(browser):
    numbers = lab_markup.chapter_numbers()
    problems = []
    with jupyterlab(CHAPTERS, kernels=False) as (base, token):
        context = browser.new_context(viewport={"width": DESKTOP, "height": 900})
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
        page.on(
            "console",
            lambda m: (
                unresolved(m.type, m.text) and errors.append(f"console: {m.text}")
            ),
        )
        open_lab(page, base, token)
        for chapter in CHAPTERS:
            errors.clear()
            open_in_lab(page, chapter.name)
            page.wait_for_timeout(500)  # references are resolved after the cells draw
            texts = markdown_cells(page).all_inner_texts()
            if chapter == CHAPTER:  # looked at closely while it is open
                check_markup_closely(page, f"Exercise {numbers[CHAPTER.name]}.1")
            source = chapter.read_text()
            expected = [
                f"{numbers[chapter.name]}.{k}"
                for k in range(1, source.count("```{exercise}") + 1)
            ] if chapter.name in numbers else []  # fmt: skip
            found = {
                "raw roles": raw_roles(texts),
                "exercise numbers": []
                if exercise_numbers(texts) == expected
                else [f"{exercise_numbers(texts)}, the site's {expected}"],
                "errors": list(errors),
            }
            problems += [
                f"{chapter.name}: {kind}: {what}"
                for kind, items in found.items()
                for what in items
            ]
            # Read, its tab closed: JupyterLab keeps every open notebook's cells
            # in the page, and each one opened after would cost more CPU time.
            # (With no kernel, closing cancels no request of JupyterLab's.)
            page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
        assert problems == [], "\n".join(problems)
        # Read, not run: no chapter started a kernel.
        kernels = page.request.get(f"{base}/api/kernels?token={token}")
        assert kernels.ok and kernels.json() == []
        assert errors == []  # closing the last tab logged none
        context.close()
