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


def test_explorers_were_stored_with_their_widget_state(notebook):
    """A chapter with an explorer must carry the frames for the static site."""
    has_widgets = any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        for cell in code_cells(notebook)
        for o in cell["outputs"]
    )
    state = (
        notebook["metadata"]
        .get("widgets", {})
        .get("application/vnd.jupyter.widget-state+json", {})
        .get("state", {})
    )
    assert bool(state) == has_widgets
