"""Showing things in a chapter: the package's own source code and small tables."""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap
from collections.abc import Sequence


def digest(data: bytes | str) -> str:
    """A short, stable fingerprint of ``data`` (the first 12 hex digits of its
    SHA-256), for the text of an output that nbval compares."""
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()[:12]


class SourceCode:
    """Source text that Jupyter and the book show as a highlighted code block."""

    def __init__(self, source: str):
        self.source = source

    def __repr__(self) -> str:
        return self.source

    def _repr_markdown_(self) -> str:
        fence = "`" * max(3, _longest_backtick_run(self.source) + 1)
        return f"{fence}python\n{self.source.rstrip()}\n{fence}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def show_source(obj: object, docstring: bool = True) -> SourceCode:
    """The source code of a class, function or method of the package.

    Both its plain-text and its Markdown form hold the source itself, so a
    notebook that stores it is checked (by nbval) against the current code.
    With ``docstring=False`` a function's or method's docstring is left out
    (a chapter that has just said what the function does shows its code
    alone).
    """
    if not isinstance(docstring, bool):
        raise TypeError(f"docstring must be True or False, got {docstring!r}")
    try:
        source = inspect.getsource(obj)
    except (TypeError, OSError) as error:
        raise TypeError(
            f"obj must be a class, function or module with Python source, got {obj!r}"
        ) from error
    source = textwrap.dedent(source)  # a method without its class's indent
    if not docstring:
        source = _without_docstring(source)
    return SourceCode(source)


def _without_docstring(source: str) -> str:
    """``source`` without the docstring of the function or class it defines."""
    tree = ast.parse(source)
    if not tree.body or not isinstance(
        tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ):
        return source
    body = tree.body[0].body
    first = body[0]
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return source
    lines = source.splitlines(keepends=True)
    del lines[first.lineno - 1 : first.end_lineno]
    return "".join(lines)


class Table:
    """A table that Jupyter and the book show as a table (Markdown), and that
    prints as aligned plain text (what nbval compares).

    On a phone the book shows a table of three columns or more as one card per
    row, so a table a cell prints never runs off a narrow screen.

    Attributes:
        header: the column names.
        rows: the cells, as text, row by row.
        title: a line shown above the table, or ``None``. (A title printed
            before the table would not stay with it: the book shows all that
            a cell prints first, then what it displays.)
    """

    def __init__(
        self,
        header: Sequence[object],
        rows: Sequence[Sequence[object]],
        title: str | None = None,
    ):
        self.header = [str(h) for h in header]
        self.rows = [[str(c) for c in row] for row in rows]
        self.title = title

    def __repr__(self) -> str:
        widths = [
            max(len(line[i]) for line in (self.header, *self.rows))
            for i in range(len(self.header))
        ]
        lines = [
            "  ".join(
                cell.ljust(width) for cell, width in zip(line, widths, strict=True)
            ).rstrip()
            for line in (self.header, *self.rows)
        ]
        return "\n".join([self.title, *lines] if self.title else lines)

    def _repr_markdown_(self) -> str:
        def line(cells):
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        rule = "|" + "---|" * len(self.header)
        table = "\n".join([line(self.header), rule, *map(line, self.rows)])
        return f"{self.title}\n\n{table}" if self.title else table


def markdown_table(
    header: Sequence[object],
    rows: Sequence[Sequence[object]],
    title: str | None = None,
) -> Table:
    """A table of ``rows`` under ``header`` (each cell written with ``str``;
    Markdown in a cell or the ``title``, such as backticks, is kept), with
    ``title`` above it if given."""
    if title is not None and (not isinstance(title, str) or not title.strip()):
        raise ValueError(f"title must be a non-empty string or None, got {title!r}")
    if isinstance(header, str) or not header:
        raise ValueError(
            f"header must be a non-empty list of column names, got {header!r}"
        )
    for i, row in enumerate(rows):
        if isinstance(row, str) or len(row) != len(header):
            raise ValueError(
                f"rows[{i}] must have {len(header)} cells, one per column of the "
                f"header, got {row!r}"
            )
    return Table(header, rows, title)
