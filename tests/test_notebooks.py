"""The chapters as files: what every notebook must hold, whatever its content."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import setup_cell  # noqa: E402
from toc import notebooks as chapters  # noqa: E402

sys.path.remove(str(ROOT / "scripts"))
SETUP_CELL = setup_cell.render()


@pytest.fixture(params=chapters(), ids=lambda p: p.stem)
def notebook(request) -> dict:
    return json.loads(request.param.read_text())


def code_cells(notebook: dict) -> list[dict]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_there_are_chapters():
    assert len(chapters()) >= 12


def test_first_cell_is_the_setup_cell(notebook):
    """Opened anywhere (Colab, Binder, a download), a chapter sets itself up: its first
    code cell is exactly what scripts/setup_cell.py writes from its template."""
    cells = code_cells(notebook)
    if not cells:
        return  # a page of prose runs nothing, so it needs no set-up
    assert "remove-cell" in cells[0]["metadata"].get("tags", [])
    assert "".join(cells[0]["source"]) == SETUP_CELL, "run `make setup-cell`"


def test_every_code_cell_was_executed_in_order(notebook):
    counts = [cell["execution_count"] for cell in code_cells(notebook)]
    assert counts == list(range(1, len(counts) + 1)), "re-run the chapter top to bottom"


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


def test_explorers_were_stored_in_their_static_form_and_no_widget(notebook):
    """A chapter that builds an explorer stores the web page's form of it (every
    frame drawn), as ``make execute`` runs it; no chapter stores an ipywidget or
    widget state, which the book's pages cannot show."""
    from mha.explorer.static import MIME

    for cell in code_cells(notebook):
        source = "".join(cell["source"])
        data = [o.get("data", {}) for o in cell["outputs"]]
        assert not any("application/vnd.jupyter.widget-view+json" in d for d in data)
        if source.lstrip().startswith("mha.attention_explorer("):  # the cell shows one
            assert [MIME in d for d in data] == [True], source[:80]
    assert "widgets" not in notebook["metadata"], (
        "the notebook stores widget state: run `make execute`, which drops it"
    )


def test_every_folded_cell_says_what_it_holds(notebook):
    """A cell folded away whole (tag ``hide-cell``) shows the reader only its
    button, so the button must say what is inside, not "Show code cell content"."""
    for cell in code_cells(notebook):
        if "hide-cell" not in cell["metadata"].get("tags", []):
            continue
        labels = cell["metadata"].get("mystnb", {})
        assert labels.get("code_prompt_show", "").startswith("Show the code"), cell[
            "source"
        ][:80]
        assert labels.get("code_prompt_hide", "").startswith("Hide the code"), cell[
            "source"
        ][:80]
