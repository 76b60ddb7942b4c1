"""Write the set-up cell into the first code cell of every chapter, and fold
the code of every solution in JupyterLab.

    python -m booktools.setup_cell        (or: make setup-cell)

The cell's text is ``scripts/setup_cell_template.py``, with the address
the package is installed from filled in from ``repository`` in ``_config.yml``
(the one place the book's address is written). Its metadata keeps it out of
the reader's way everywhere: tagged ``remove-cell`` (not on the site), folded
in JupyterLab (``jupyter.source_hidden``), shown as its title alone on Colab
(``cellView: form``, with the template's ``# @title`` line).

A solution (between ``{solution-start}`` and ``{solution-end}``) is folded on
the site, and JupyterLab (with jupyterlab-myst) folds its text, but it shows
every cell on its own: so the code cells of a solution are written folded
there too, source and output (``jupyter.source_hidden``, ``outputs_hidden``).

Run it after changing the template or the address, or after adding or
rewriting a chapter; ``tests/test_notebooks.py`` fails until the chapters hold
exactly what this writes. Only that metadata and the set-up cell's source are
touched; the notebooks are not executed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import yaml

from booktools.book import ROOT, notebooks

TEMPLATE = ROOT / "scripts" / "setup_cell_template.py"
PLACEHOLDER = "@MHA_SOURCE@"
TAG = "remove-cell"
# The set-up cell: folded in JupyterLab, its title alone in Colab's form view.
SETUP_METADATA = {"jupyter": {"source_hidden": True}, "cellView": "form"}
# A solution's code cell: folded in JupyterLab, source and output.
SOLUTION_METADATA = {"jupyter": {"source_hidden": True, "outputs_hidden": True}}


def install_source(url: str, branch: str = "main") -> str:
    """What pip installs ``mha`` from, for the repository at ``url`` ("" if none).

    A GitHub repository is installed from the archive of ``branch`` (no git
    needed on the reader's machine); any other host through git.
    """
    if not isinstance(url, str) or not isinstance(branch, str):
        raise TypeError(
            f"url and branch must be strings, got {type(url).__name__} "
            f"and {type(branch).__name__}"
        )
    url = url.strip().removesuffix("/").removesuffix(".git")
    if not url:
        return ""
    if not re.fullmatch(r"https://[^\s\"'\\@]+", url):
        raise ValueError(
            f"repository.url in _config.yml must be the https:// address of the "
            f"book's repository, or empty; got {url!r}"
        )
    if not re.fullmatch(r"[\w./-]+", branch):
        raise ValueError(
            f"repository.branch in _config.yml must be a branch name such as "
            f"'main'; got {branch!r}"
        )
    if re.fullmatch(r"https://github\.com/[^/]+/[^/]+", url):
        return f"mha @ {url}/archive/refs/heads/{branch}.zip"
    return f"mha @ git+{url}@{branch}"


def render(config_file: Path = ROOT / "_config.yml") -> str:
    """The set-up cell's source for the book configured in ``config_file``."""
    repository = (yaml.safe_load(config_file.read_text()) or {}).get("repository") or {}
    return render_for(repository.get("url") or "", repository.get("branch") or "main")


def render_for(url: str, branch: str = "main") -> str:
    """The set-up cell's source for the book whose repository is at ``url``."""
    source = install_source(url, branch)
    return TEMPLATE.read_text().replace(PLACEHOLDER, source).rstrip("\n")


def chapters() -> list[Path]:
    """The notebooks of ``_toc.yml``, in its order."""
    return notebooks()


def first_code_cell(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode | None:
    """The notebook's first code cell; None for a page of prose only (it runs
    nothing, so it needs no set-up)."""
    for cell in notebook.cells:
        if cell.cell_type == "code":
            return cell
    return None


def solution_code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The code cells between a ``{solution-start}`` and its ``{solution-end}``."""
    found, inside = [], False
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            # A markdown cell may close one solution and open the next: the
            # last of its markers says whether the code after it is a solution's.
            start = cell.source.rfind("```{solution-start}")
            end = cell.source.rfind("```{solution-end}")
            if start != end:  # one of them is there
                inside = start > end
        elif inside:
            found.append(cell)
    return found


def _merge(metadata: dict, wanted: dict) -> bool:
    """Set every key of ``wanted`` (one level of nesting) in ``metadata``; True if
    anything changed."""
    changed = False
    for key, value in wanted.items():
        if isinstance(value, dict):
            inner = metadata.setdefault(key, {})
            for name, setting in value.items():
                changed |= inner.get(name) != setting
                inner[name] = setting
        else:
            changed |= metadata.get(key) != value
            metadata[key] = value
    return changed


def update(notebook: nbformat.NotebookNode, source: str) -> bool:
    """Put ``source`` into the notebook's first code cell, with its metadata, and
    fold its solutions' code; True if anything changed (False for a page of
    prose, which runs nothing and so needs no set-up)."""
    cell = first_code_cell(notebook)
    if cell is None:
        return False
    changed = cell.source != source
    cell.source = source
    tags = cell.metadata.setdefault("tags", [])
    if TAG not in tags:
        tags.insert(0, TAG)
        changed = True
    changed |= _merge(cell.metadata, SETUP_METADATA)
    for solution in solution_code_cells(notebook):
        changed |= _merge(solution.metadata, SOLUTION_METADATA)
    return changed


def write(paths: list[Path], source: str) -> list[Path]:
    """:func:`update` each notebook of ``paths``; return those changed."""
    changed = []
    for path in paths:
        notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        if update(notebook, source):
            nbformat.write(notebook, path)
            changed.append(path)
    return changed


def main() -> None:
    changed = write(chapters(), render())
    for path in changed:
        print(
            f"wrote the set-up cell and folded the solutions of {path.relative_to(ROOT)}"
        )
    if not changed:
        print("every chapter's set-up cell is up to date")


if __name__ == "__main__":
    if sys.argv[1:]:
        raise SystemExit(__doc__)
    main()
