"""The live explorer in a real JupyterLab, as ``make lab`` serves it: the
playground chapter's explorer, before its cell has run (the first setting's
picture and a note) and once it has (the same front end as the site's,
computing in the page): every control moved, sentences typed, good and bad,
the picture checked against the package after each step (how fast:
benchmarks/bench_lab.py). How every chapter reads there: test_lab_reading.py."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from booktools.book import ROOT, fullest_explorer_page
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
    jupyterlab,
    open_notebook,
    run_all,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # JupyterLab: the longest

# The chapter whose explorer has every kind of control.
PLAYGROUND = ROOT / fullest_explorer_page().replace(".html", ".ipynb")


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
