"""Write the set-up cell into the first code cell of every chapter.

    python scripts/setup_cell.py        (or: make setup-cell)

The cell's text is ``setup_cell_template.py`` beside this file, with the address
the package is installed from filled in from ``repository`` in ``_config.yml``
(the one place the book's address is written). Run it after changing either
of them, or after adding a chapter; ``tests/test_setup_cell.py`` fails until the
chapters hold exactly what this writes. Only that cell's source (and its
``remove-cell`` tag) is touched; the notebooks are not executed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import yaml
from toc import notebooks

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("setup_cell_template.py")
PLACEHOLDER = "@MHA_SOURCE@"
TAG = "remove-cell"


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
    source = install_source(
        repository.get("url") or "", repository.get("branch") or "main"
    )
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


def write(paths: list[Path], source: str) -> list[Path]:
    """Put ``source`` into the first code cell of each notebook; return those changed."""
    changed = []
    for path in paths:
        notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        cell = first_code_cell(notebook)
        if cell is None:
            continue
        tags = cell.metadata.setdefault("tags", [])
        if cell.source == source and TAG in tags:
            continue
        cell.source = source
        if TAG not in tags:
            tags.insert(0, TAG)
        nbformat.write(notebook, path)
        changed.append(path)
    return changed


def main() -> None:
    changed = write(chapters(), render())
    for path in changed:
        print(f"wrote the set-up cell of {path.relative_to(ROOT)}")
    if not changed:
        print("every chapter's set-up cell is up to date")


if __name__ == "__main__":
    if sys.argv[1:]:
        raise SystemExit(__doc__)
    main()
