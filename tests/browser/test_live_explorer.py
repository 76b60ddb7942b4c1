"""The live explorer in a real JupyterLab, as ``make lab`` serves it: the
playground chapter's explorer, before its cell has run (the first setting's
picture and a note) and once it has (a Jupyter widget whose front end is the
site's, computing in the page): every control moved, sentences typed, good
and bad, the picture checked against the package after each step (how fast:
benchmarks/bench_lab.py); its setting read and set from Python in the
kernel (the picture follows, the reader's clicks reach Python, a bad value
is refused by name); a second explorer in the same notebook and a third in
another notebook, with ids of their own, each label driving its own
explorer. How every chapter reads there: test_lab_reading.py."""

from __future__ import annotations

import json
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
    notebook_shown,
    open_notebook,
    run_all,
)
from booktools.pages import DESKTOP

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # JupyterLab: the longest

# The chapter whose explorer has every kind of control.
PLAYGROUND = ROOT / fullest_explorer_page().replace(".html", ".ipynb")


# A second explorer of the notebook: other controls, its own ids.
SECOND = 'mha.attention_explorer(weights=["random"], head_counts=[2, 4])'


def explorer_notebook(folder: Path) -> Path:
    """A notebook of three cells: import mha, the playground's explorer call
    (the widget kept as ``ex``) and a second explorer."""
    path = folder / "explorer.ipynb"
    cells = [
        nbformat.v4.new_code_cell("import mha"),
        nbformat.v4.new_code_cell(f"ex = {explorer_call(PLAYGROUND)}\nex"),
        nbformat.v4.new_code_cell(SECOND),
    ]
    metadata = nbformat.read(PLAYGROUND, as_version=4).metadata  # its kernel
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=metadata), path)
    return path


def run_code(page, code: str) -> str:
    """Run ``code`` in the kernel of the notebook shown (as a cell would, but
    without one) and return what it printed."""
    return page.evaluate(
        """async code => {
            const kernel = window.jupyterapp.shell.currentWidget
                .sessionContext.session.kernel;
            const future = kernel.requestExecute({code});
            let printed = '';
            future.onIOPub = msg => {
                if (msg.header.msg_type === 'stream') printed += msg.content.text;
                if (msg.header.msg_type === 'error') printed += msg.content.evalue;
            };
            await future.done;
            return printed;
        }""",
        code,
    )


def python_setting(page) -> dict:
    """The widget's setting as Python reads it, in the page's names."""
    setting = json.loads(run_code(page, "import json; print(json.dumps(ex.setting()))"))
    names = {"model": "option", "padding": "nPad", "heads": "nHeads"}
    return {names.get(k, k): v for k, v in setting.items()}


def check_python_follows(page, root) -> None:
    """What Python reads is what the page shows: the setting, and the
    reading's tokens."""
    state = shown(root)["state"]
    setting = python_setting(page)
    setting["layer"] = str(setting["layer"])
    assert setting == {k: state[k] for k in setting}
    tokens = json.loads(run_code(page, "print(json.dumps(ex.reading().tokens))"))
    assert tokens == root.evaluate("r => r.mhaExplorer.result.tokens")


def second_notebook(folder: Path) -> Path:
    """Another notebook with an explorer (as another chapter would be)."""
    path = folder / "another.ipynb"
    cells = [nbformat.v4.new_code_cell(f"import mha\n{SECOND}")]
    metadata = nbformat.read(PLAYGROUND, as_version=4).metadata  # its kernel
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=metadata), path)
    return path


def check_own_ids(page, explorers: int, shown: int) -> None:
    """The page's ``explorers`` (in every notebook open) have ids of their
    own, and in the notebook shown (``shown`` explorers) each one's "Or
    type:" label puts the focus in its own box."""
    roots = notebook_shown(page).locator(".jp-OutputArea-output .mha-explorer")
    assert roots.count() == shown
    ids = page.evaluate(
        "() => [...document.querySelectorAll('.mha-explorer [id]')].map(e => e.id)"
    )
    assert len(ids) == len(set(ids)), ids
    every = page.locator(".jp-OutputArea-output .mha-explorer canvas.mha-maps")
    assert every.count() == explorers
    for k in range(roots.count()):
        root = roots.nth(k)
        label = root.locator('label[for$="-text"]')
        label.scroll_into_view_if_needed()
        label.click()
        assert root.evaluate("r => r.contains(document.activeElement)")
        assert root.evaluate("r => document.activeElement.name") == "text"


def test_live_explorer_follows_every_control(browser, tmp_path):
    explorer = chapter_explorer(fullest_explorer_page(), ROOT)
    notebooks = [PLAYGROUND, explorer_notebook(tmp_path), second_notebook(tmp_path)]
    with jupyterlab(notebooks) as (base, token):
        context = browser.new_context(viewport={"width": DESKTOP, "height": 900})
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        open_notebook(page, base, token, "explorer.ipynb")
        run_all(page)
        live = LiveExplorer(page)
        root = live.root
        # A widget: its state kept with the kernel's.
        assert root.evaluate("r => r.mhaExplorer.host !== null")
        check_picture(root, explorer)
        check_python_follows(page, root)
        run_code(
            page, "seen = []\nex.observe(lambda c: seen.append(c['new']), 'heads')"
        )
        steps = [
            ("nHeads", -1), ("nHeads", 0), ("nHeads", 1), ("mask", 1), ("mask", 2),
            ("nPad", -1), ("sentence", 2), ("option", 1), ("mask", 0), ("option", 0),
        ]  # fmt: skip
        for name, index in steps:
            index = index % len(options(root, name))
            live.act(lambda: pick(root, name, index))  # noqa: B023
            check_picture(root, explorer)
        # The reader's clicks reached Python, each heads change observed.
        check_python_follows(page, root)
        heads = [value for name, value in steps if name == "nHeads"]
        counts = [int(c) for c in options(root, "nHeads")]
        assert json.loads(run_code(page, "print(seen)")) == [counts[i] for i in heads]
        # Set from Python: the picture follows.
        assert shown(root)["state"]["nHeads"] != 8
        live.act(lambda: run_code(page, "ex.heads = 8"))
        assert shown(root)["state"]["nHeads"] == 8
        check_picture(root, explorer)
        both = "with ex.hold_sync():\n    ex.mask = 'causal'\n    ex.sentence = 'a basic example'"
        live.act(lambda: run_code(page, both))
        assert shown(root)["state"]["mask"] == "causal"
        assert shown(root)["state"]["sentence"] == "a basic example"
        check_picture(root, explorer)
        check_python_follows(page, root)
        before = shown(root)
        refused = run_code(
            page, "try:\n    ex.heads = 3\nexcept ValueError as e:\n    print(e)"
        )
        assert refused.startswith("heads must be one of 1, 2, 4, 8, got 3"), refused
        assert shown(root)["picture"] == before["picture"]
        for typed in ("what will come next", "a basic example"):
            live.act(lambda: type_sentence(root, typed))  # noqa: B023
            assert shown(root)["state"]["sentence"] == typed
            check_picture(root, explorer)
        before = shown(root)
        type_sentence(root, "the cat sat")
        assert "not a word this model knows" in shown(root)["message"]
        assert shown(root)["picture"] == before["picture"]
        check_own_ids(page, explorers=2, shown=2)
        # Another notebook run in the same page (as a second chapter would be; on
        # the same kernel, which saves starting one).
        open_on_the_same_kernel(page, "another.ipynb")
        notebook_shown(page).locator(".jp-Cell", has_text=SECOND).wait_for()
        page.get_by_text("| Idle").first.wait_for(timeout=60_000)
        run_all(page)
        LiveExplorer(page)  # drawn
        check_own_ids(page, explorers=3, shown=1)
        # The chapter, its cell not run (opened in the same page, on the same
        # kernel: no second load of JupyterLab, no kernel of its own): the
        # stored explorer shows its first picture and a note.
        open_on_the_same_kernel(page, PLAYGROUND.name)
        shown_now = notebook_shown(page)
        cell = shown_now.locator(".jp-Cell", has_text="mha.attention_explorer(").first
        cell.scroll_into_view_if_needed()
        output = cell.locator(".jp-OutputArea")
        output.locator(".mha-fallback img").wait_for()
        assert "Run this cell" in output.inner_text()
        assert output.locator(".mha-fallback img").evaluate("i => i.naturalWidth") > 0
        assert errors == []
        context.close()


def open_on_the_same_kernel(page, name: str) -> None:
    """Open notebook ``name`` in the JupyterLab shown, on the kernel of the
    notebook shown (as File → Open, then choosing that kernel), and wait
    until it is the notebook shown."""
    page.evaluate(
        """name => {
            const app = window.jupyterapp;
            const id = app.shell.currentWidget.sessionContext.session.kernel.id;
            return app.commands.execute('docmanager:open', {path: name, kernel: {id}});
        }""",
        name,
    )
    page.wait_for_function(
        "name => window.jupyterapp.shell.currentWidget?.context?.path === name",
        arg=name,
    )
