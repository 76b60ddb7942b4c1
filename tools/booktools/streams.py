"""A chapter's printed output stored as one piece per stream.

A kernel sends what a cell prints in chunks, and a chunk may end anywhere,
even just before a line break. myst-nb joins a cell's chunks by ending each
one with a single line break (``myst_nb.core.utils.coalesce_streams``), so a
chunk that starts with the line break the previous one lacked printed a
blank line on the site that the code never printed (the corrections page
did). ``make execute`` therefore joins each cell's consecutive chunks of one
stream exactly, as nbval does before it compares, and stores them so.

Public names: :func:`coalesce` (one notebook, in memory) and :func:`main`
(``python -m booktools coalesce PATH...``: rewrite notebooks in place).
"""

from __future__ import annotations

from pathlib import Path

import nbformat


def coalesce(notebook) -> bool:
    """Join, in every code cell of ``notebook`` (an ``nbformat`` node), each
    run of consecutive stream outputs of one name into its first; whether
    anything changed."""
    changed = False
    for cell in notebook.cells:
        outputs = []
        for output in cell.get("outputs", []):
            last = outputs[-1] if outputs else None
            if (
                output.output_type == "stream"
                and last is not None
                and last.output_type == "stream"
                and last.name == output.name
            ):
                last.text += output.text
                changed = True
            else:
                outputs.append(output)
        if "outputs" in cell:
            cell.outputs = outputs
    return changed


def main(paths: list[str]) -> None:
    """Coalesce the streams of each notebook of ``paths``, rewriting those
    that change."""
    for path in map(Path, paths):
        notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        if coalesce(notebook):
            nbformat.write(notebook, path)
            print(f"{path}: printed output joined into one piece per stream")
