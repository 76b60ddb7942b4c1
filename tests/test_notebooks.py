"""The chapters as files: what every notebook must hold, whatever its content."""

from __future__ import annotations

import ast
import base64
import io
import json
import re
from itertools import pairwise

import nbformat
import pytest
from PIL import Image

from booktools import setup_cell
from booktools.book import ROOT, notebooks as chapters
from mha.plotting.screens import COLUMN_WIDTH

SETUP_CELL = setup_cell.render()


@pytest.fixture(params=chapters(), ids=lambda p: p.stem)
def notebook(request) -> dict:
    return json.loads(request.param.read_text())


def code_cells(notebook: dict) -> list[dict]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_there_are_chapters():
    assert len(chapters()) >= 12


def test_first_cell_is_the_setup_cell_and_solutions_are_folded(notebook):
    """Opened anywhere (Colab, Binder, a download), a chapter sets itself up: its first
    code cell is exactly what booktools.setup_cell writes from its template, out
    of the reader's way (removed from the site, folded in JupyterLab, a title on
    Colab); and the code of each solution is folded in JupyterLab."""
    cells = code_cells(notebook)
    if not cells:
        return  # a page of prose runs nothing, so it needs no set-up
    assert "remove-cell" in cells[0]["metadata"].get("tags", [])
    assert "".join(cells[0]["source"]) == SETUP_CELL, "run `make setup-cell`"
    assert not setup_cell.update(
        nbformat.reads(json.dumps(notebook), as_version=4), SETUP_CELL
    ), "run `make setup-cell`: its metadata, or a solution's, is not what it writes"


def test_every_code_cell_was_executed_in_order(notebook):
    counts = [cell["execution_count"] for cell in code_cells(notebook)]
    assert counts == list(range(1, len(counts) + 1)), "re-run the chapter top to bottom"


def test_printed_output_is_stored_in_one_piece_per_stream(notebook):
    """What a cell prints is one stream output, as ``make execute`` stores it
    (nbconvert's CoalesceStreamsPreprocessor): the site ends each piece with
    a line break of its own, a blank line where a piece began with the
    previous one's line break."""
    for cell in code_cells(notebook):
        kinds = [(o["output_type"], o.get("name")) for o in cell["outputs"]]
        split = [a for a, b in pairwise(kinds) if a == b and a[0] == "stream"]
        assert not split, f"re-run `make execute` on it: {cell['source'][:1]}"


def test_no_errors_or_nondeterministic_output_is_stored(notebook):
    for cell in code_cells(notebook):
        for output in cell["outputs"]:
            assert output["output_type"] != "error"
            text = "".join(output.get("text", "")) + "".join(
                output.get("data", {}).get("text/plain", "")
            )
            assert " at 0x" not in text, (
                f"a memory address in the output of {cell['source']}"
            )


def test_every_figure_has_alt_text(notebook):
    for cell in code_cells(notebook):
        if any("image/png" in o.get("data", {}) for o in cell["outputs"]):
            alt = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
            assert len(alt) > 20, (
                f"no alt text for the figure of {''.join(cell['source'])[:80]}"
            )


def test_every_figure_is_drawn_for_the_column(notebook):
    """A stored figure (its PNG drawn at twice the figures' 100 dpi) is at most
    as wide as the page's text column: shown at its own size on a desk, its
    text as large as drawn, not scaled down (four maps in a row were 11.6
    inches, their labels about 7 px tall at 1280 px)."""
    widest = round(2 * 100 * COLUMN_WIDTH)
    for cell in code_cells(notebook):
        for output in cell["outputs"]:
            png = output.get("data", {}).get("image/png")
            if png:
                width, _ = Image.open(io.BytesIO(base64.b64decode(png))).size
                assert width <= widest, (
                    f"{width} px wide (at most {widest}): {''.join(cell['source'])[-80:]}"
                )


def test_every_cell_excused_from_nbval_says_why(notebook):
    """A cell tagged nbval-ignore-output starts with a `#` comment saying why its
    output varies (timings, a training curve that differs between processors)."""
    unexplained = []
    for number, cell in enumerate(code_cells(notebook), start=1):
        if "nbval-ignore-output" in cell["metadata"].get("tags", []):
            first = "".join(cell["source"]).lstrip().split("\n", 1)[0]
            if not (first.startswith("#") and len(first.split()) >= 4):
                unexplained.append(
                    f"code cell {number} (id {cell.get('id')}): {first[:60]}"
                )
    assert not unexplained, "no comment says why the output varies: " + "; ".join(
        unexplained
    )


def test_explorers_store_their_data_for_the_site_and_no_widget(notebook):
    """A chapter that builds an explorer stores its data under the explorer's
    output type (which the site renders); a widget's view, which needs a
    kernel, only beside that data and the picture shown without one; no
    chapter stores widget state, which the book's pages cannot show."""
    from mha.explorer.notebook import MIME

    for cell in code_cells(notebook):
        source = "".join(cell["source"])
        data = [o.get("data", {}) for o in cell["outputs"]]
        for d in data:
            if "application/vnd.jupyter.widget-view+json" in d:
                assert MIME in d and "text/html" in d, source[:80]
        if source.lstrip().startswith("mha.attention_explorer("):  # the cell shows one
            assert [MIME in d for d in data] == [True], source[:80]
    assert "widgets" not in notebook["metadata"], (
        "the notebook stores widget state: run `make execute`, which drops it"
    )


# Proofs out of the reader's way: what the site shows is code that teaches (the
# computation, the print, the shape check); every other check that backs the
# prose runs under nbval in a cell the site removes and JupyterLab folds.


def _is_shape(node: ast.expr) -> bool:
    """``X.shape``, ``X.shape[1:]``, ``tuple(X.shape)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return (
            node.func.id == "tuple" and len(node.args) == 1 and _is_shape(node.args[0])
        )
    if isinstance(node, ast.Subscript):
        return _is_shape(node.value)
    return isinstance(node, ast.Attribute) and node.attr == "shape"


def _is_size(node: ast.expr) -> bool:
    """A literal shape: a tuple of numbers, names and arithmetic on them."""
    return isinstance(node, ast.Tuple) and all(
        isinstance(e, ast.Constant | ast.Name | ast.BinOp | ast.Attribute)
        for e in node.elts
    )


def is_shape_check(statement: ast.Assert) -> bool:
    """``assert Q.shape == K.shape == (3, 4, 6, 2)``, or several joined by ``and``."""
    tests = (
        statement.test.values
        if isinstance(statement.test, ast.BoolOp)
        else [statement.test]
    )
    for test in tests:
        if not isinstance(test, ast.Compare) or not all(
            isinstance(op, ast.Eq) for op in test.ops
        ):
            return False
        sides = [test.left, *test.comparators]
        if not any(map(_is_shape, sides)) or not all(
            _is_shape(side) or _is_size(side) for side in sides
        ):
            return False
    return True


def _statements(cell: dict) -> ast.Module:
    lines = "".join(cell["source"]).splitlines()
    # IPython's magics and shell lines are not Python.
    return ast.parse(
        "\n".join(x for x in lines if not x.lstrip().startswith(("%", "!")))
    )


def _removed(cell: dict) -> bool:
    return "remove-cell" in cell["metadata"].get("tags", [])


def test_the_code_a_reader_sees_asserts_only_shapes(notebook):
    """Every ``assert`` the site shows is a shape check; the other checks are in
    removed cells."""
    shown = [
        ast.get_source_segment("".join(cell["source"]), node) or ast.unparse(node)
        for cell in code_cells(notebook)
        if not _removed(cell)
        for node in ast.walk(_statements(cell))
        if isinstance(node, ast.Assert) and not is_shape_check(node)
    ]
    assert not shown, "move these checks into a remove-cell cell: " + "; ".join(shown)


def test_removed_cells_are_folded_checks_with_nothing_to_show(notebook):
    """A cell the site removes is folded in JupyterLab (``jupyter.source_hidden``),
    prints nothing, and, unless it is the set-up cell, checks something."""
    for cell in code_cells(notebook)[1:]:
        if not _removed(cell):
            continue
        where = f"cell {cell.get('id')}: {''.join(cell['source'])[:60]!r}"
        assert cell["metadata"].get("jupyter", {}).get("source_hidden"), where
        assert not cell["outputs"], f"a removed cell shows nothing on the site: {where}"
        checks = [
            node
            for node in ast.walk(_statements(cell))
            if isinstance(node, ast.Assert | ast.Raise)
            or (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", getattr(node.func, "id", "")).startswith(
                    "assert"
                )
            )
        ]
        assert checks, f"a removed cell that checks nothing: {where}"


@pytest.mark.parametrize(
    ("line", "shape_check"),
    [
        ("assert X.shape == (3, 6, 8)", True),
        ("assert Q.shape == K.shape == V.shape == (3, 6, 8)", True),
        ("assert tuple(A.shape) == (batch, 4, 6, d_key)", True),
        ("assert x.shape == (3, 6) and y.shape == (3, 6)", True),
        ("assert X.shape[1:] == (6, 8)", True),
        ("assert torch.equal(X, ex.X)", False),
        ("assert X.shape == (3, 6, 8) and torch.equal(X, ex.X)", False),
        ("assert len(vocab) == 16", False),
        ("assert X.shape != (3, 6, 8)", False),
        ("assert (3, 6, 8) == (3, 6, 8)", False),
    ],
)
def test_what_counts_as_a_shape_check(line, shape_check):
    (statement,) = ast.parse(line).body
    assert is_shape_check(statement) is shape_check


LABEL = re.compile(r"^:label: (\S+)$|^\((\S+)\)=$|^:name: (\S+)$", re.MULTILINE)
REFERENCE = re.compile(r"\{(?:ref|numref)\}`(?:[^`<]*<)?([^`>]+)>?`")
EXERCISE_LINK = re.compile(r"\[exercise (\d+)\.(\d+)\]\((\S+?\.ipynb)\)")


def _markdown(notebook: dict) -> str:
    return "\n".join(
        "".join(cell["source"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown"
    )


def test_references_stay_in_their_notebook(notebook):
    # JupyterLab and Colab see one notebook at a time: a {ref} to another
    # chapter's label is drawn there as an unresolved name. A link to the
    # chapter's file works everywhere.
    text = _markdown(notebook)
    labels = {next(filter(None, m.groups())) for m in LABEL.finditer(text)}
    elsewhere = set(REFERENCE.findall(text)) - labels
    assert not elsewhere, f"use a link to the chapter's file for {sorted(elsewhere)}"


def test_exercise_links_name_an_exercise_of_that_chapter(notebook):
    for chapter, number, target in EXERCISE_LINK.findall(_markdown(notebook)):
        assert int(target[:2]) == int(chapter), f"exercise {chapter}.{number}"
        exercises = _markdown(json.loads((ROOT / "book" / target).read_text()))
        assert exercises.count("```{exercise}") >= int(number), target


def _shown(cell: dict) -> bool:
    """A code cell the site shows (not removed, its input not removed)."""
    tags = set(cell["metadata"].get("tags", []))
    return cell["cell_type"] == "code" and not tags & {"remove-cell", "remove-input"}


def _names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names a cell defines (assigned, imported, def/class, arguments) and
    the names it reads."""
    defined, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else defined).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, ast.alias):
            defined.add((node.asname or node.name).split(".")[0])
    return defined, read


def names_from_removed_cells(notebook: dict) -> list[str]:
    """Names a cell the site shows reads that only a removed cell (other than
    the set-up cell) defined before it: a reader who copies the page's code gets
    a NameError."""
    seen, hidden, found = set(), set(), []
    for cell in code_cells(notebook)[1:]:
        defined, read = _names(_statements(cell))
        if _shown(cell):
            found += sorted((read - defined - seen) & hidden)
            seen |= defined
        else:
            hidden |= defined
    return found


def test_visible_code_uses_no_name_of_a_removed_cell(notebook):
    found = names_from_removed_cells(notebook)
    assert not found, f"defined only in a removed cell: {found}"


def test_a_name_of_a_removed_cell_is_found():
    def cell(source, removed=False):
        tags = ["remove-cell"] if removed else []
        return {"cell_type": "code", "source": source, "metadata": {"tags": tags}}

    setup = cell("x = 0", removed=True)  # the set-up cell does not count
    notebook = {
        "cells": [
            setup,
            cell("a = 1"),
            cell("hidden = a + 1\nassert hidden", removed=True),
            cell("print(a, x)"),
            cell("def f(arg):\n    return arg + hidden\nprint(len(str(f)))"),
            cell("hidden = 2\nprint(hidden)"),
        ]
    }
    assert names_from_removed_cells(notebook) == ["hidden"]


# A line that starts with what Markdown reads as a block (a quote, an item, a
# heading): inside $...$ it breaks the formula in two.
BLOCK_START = re.compile(r"\s*(?:[>+*#-]|\d+\.)\s")


def test_no_inline_formula_is_broken_by_a_line_that_starts_a_block(notebook):
    """A formula wrapped so that its next line starts with ``>`` (``S(b, b) >
    S(b, c)``) was read as a quote: half a formula in the text, half in a
    box. Every line inside a formula must not start like a block."""
    broken = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = re.sub(r"\$\$.*?\$\$", "", "".join(cell["source"]), flags=re.DOTALL)
        inside = False
        for line in text.split("\n"):
            if inside and BLOCK_START.match(line):
                broken.append(line)
            inside = inside != (line.replace(r"\$", "").count("$") % 2 == 1)
    assert broken == []
