"""Rewrite a chapter's MyST so that JupyterLab (jupyterlab-myst) draws it as the site does.

    python -m booktools.lab_markup book/04_scores.ipynb ...   # rewrites them in place
    python -m booktools.lab_markup --check book/*.ipynb       # lists what it would change

Two things read differently there, and both have a form that reads the same
in both places:

- A Sphinx role that jupyterlab-myst does not know (``{py:func}``,
  ``{py:class}``, ``{py:mod}``, ...) is drawn as its raw text,
  ``mha.tokenize <mha.text.tokenize>``. A Markdown link to the object's entry
  in the API page, ``[`mha.tokenize`](api.md#mha.text.tokenize)``, is a link
  on the site and clean code text in JupyterLab.
- A role whose text runs over two lines (``{ref}`the argument`` then
  ``<label>``` on the next) is not found there: each is joined into one line.
- An exercise is numbered ``Exercise 1`` in JupyterLab, which sees one
  notebook, and ``Exercise 4.1`` on the site. ``:enumerator: 4.1`` gives it
  the site's number in JupyterLab (the site's build accepts the option and
  numbers it itself).

Only markdown cells change; the notebook's outputs and metadata stay as they are.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

from booktools.book import TOC, notebooks

API_PAGE = "api.md"
# {py:func}`title <target>`, {py:class}`~a.b.C`, {func}`target`, ...
ROLE = re.compile(
    r"\{(?:py:)?(func|class|meth|mod|attr|data|obj|exc|const)\}`([^`]*)`", re.DOTALL
)
TITLED = re.compile(r"(.*?)\s*<([^<>]+)>\s*$", re.DOTALL)
# Any role whose text holds a line break.
SPLIT_ROLE = re.compile(r"(\{[a-z][\w:-]*\}`)([^`]*\n[^`]*)`")
EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n", re.MULTILINE)
ENUMERATOR = re.compile(r"^:enumerator:.*\n", re.MULTILINE)


def link(match: re.Match) -> str:
    """One role as a link to its object's entry in the API page."""
    kind, body = match.group(1), " ".join(match.group(2).split())
    titled = TITLED.fullmatch(body)
    if titled:
        title, target = titled.group(1), titled.group(2)
    else:
        target = body.lstrip("~")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else target
    anchor = f"module-{target}" if kind == "mod" else target
    return f"[`{title}`]({API_PAGE}#{anchor})"


def chapter_numbers(toc: Path = TOC) -> dict[str, int]:
    """{notebook name: its chapter's number}, as the site numbers the chapters
    of the numbered parts of _toc.yml, one after the other."""
    import yaml

    numbers, n = {}, 0
    for part in yaml.safe_load(toc.read_text()).get("parts", []):
        if not part.get("numbered"):
            continue
        for chapter in part.get("chapters", []):
            n += 1
            numbers[Path(chapter["file"]).name + ".ipynb"] = n
    return numbers


def number_exercises(text: str, chapter: int, start: int) -> tuple[str, int]:
    """``text`` with every exercise opening given ``:enumerator: chapter.k``
    (k counting on from ``start``); and the next k."""
    out, k, last = [], start, 0
    for match in EXERCISE.finditer(text):
        out.append(text[last : match.end()])
        rest = text[match.end() :]
        # An options block follows the opening line: drop an old enumerator.
        options = re.match(r"(?:^:[\w-]+:.*\n)*", rest, re.MULTILINE).group(0)
        kept = ENUMERATOR.sub("", options)
        out.append(f":enumerator: {chapter}.{k}\n{kept}")
        last = match.end() + len(options)
        k += 1
    out.append(text[last:])
    return "".join(out), k


def rewrite(notebook: dict, chapter: int | None) -> list[str]:
    """Rewrite ``notebook``'s markdown cells in place; the changes, as lines."""
    changes, k = [], 1
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        before = "".join(cell["source"])
        after = ROLE.sub(link, before)
        changes += [f"{m.group(0)!r} -> {link(m)!r}" for m in ROLE.finditer(before)]
        changes += [f"{m.group(0)!r} on one line" for m in SPLIT_ROLE.finditer(after)]
        after = SPLIT_ROLE.sub(
            lambda m: m.group(1) + " ".join(m.group(2).split()) + "`", after
        )
        if chapter is not None:
            numbered, k = number_exercises(after, chapter, k)
            if numbered != after:
                changes.append(f"exercises numbered {chapter}.{k - 1} and before")
            after = numbered
        if after != before:
            cell["source"] = after.splitlines(keepends=True)
    return changes


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [Path(a) for a in argv if a != "--check"] or notebooks()
    numbers = chapter_numbers()
    changed = 0
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        changes = rewrite(notebook, numbers.get(path.name))
        if changes:
            changed += 1
            print(f"{path}:", *changes, sep="\n  ")
            if not check:
                nbformat.write(notebook, path)
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
