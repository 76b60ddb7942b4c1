"""The book's pages in the order of _toc.yml: the one place the chapter list is read.

``python scripts/toc.py notebooks`` prints the chapter notebooks (for the
Makefile); tests and benchmarks import :func:`pages` and :func:`notebooks`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def pages(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """Every page of the table of contents, in order, without its suffix
    (``book/intro``, ``book/01_tokens``, ...)."""
    data = yaml.safe_load(toc.read_text())
    found = [data["root"]]

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                found.append(entry["file"])
            walk(entry.get("sections", []))
            walk(entry.get("chapters", []))

    walk(data.get("parts", []))
    walk(data.get("chapters", []))
    return found


def notebooks(toc: Path = ROOT / "_toc.yml") -> list[Path]:
    """The pages that are notebooks, as paths."""
    return [
        ROOT / f"{page}.ipynb"
        for page in pages(toc)
        if (ROOT / f"{page}.ipynb").exists()
    ]


if __name__ == "__main__":
    if sys.argv[1:] != ["notebooks"]:
        raise SystemExit("usage: python scripts/toc.py notebooks")
    print(" ".join(str(path.relative_to(ROOT)) for path in notebooks()))
