"""Showing things in a chapter: the package's own source code, small tables, and
a drop-down that switches between panels made in advance, with no kernel needed."""

from __future__ import annotations

import html
import inspect
import textwrap
from collections.abc import Sequence

from mha.plotting.fingerprint import digest


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


def show_source(obj: object) -> SourceCode:
    """The source code of a class, function or method of the package.

    Both its plain-text and its Markdown form hold the source itself, so a
    notebook that stores it is checked (by nbval) against the current code.
    """
    try:
        source = inspect.getsource(obj)
    except (TypeError, OSError) as error:
        raise TypeError(
            f"obj must be a class, function or module with Python source, got {obj!r}"
        ) from error
    return SourceCode(textwrap.dedent(source))  # a method without its class's indent


_CELL = "border:1px solid #999;padding:2px 10px;text-align:center;"


class HTML:
    """A piece of HTML that Jupyter and the book's pages show as it is.

    Attributes:
        value: the HTML.
    """

    def __init__(self, value: str):
        self.value = value

    def _repr_html_(self) -> str:
        return self.value


def html_table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> HTML:
    """A small bordered HTML table (styled inline, so it looks the same in
    Jupyter and on the site); every cell is escaped."""
    head = "".join(f'<th style="{_CELL}">{html.escape(str(h))}</th>' for h in header)
    body = "".join(
        "<tr>"
        + "".join(f'<td style="{_CELL}">{html.escape(str(c))}</td>' for c in row)
        + "</tr>"
        for row in rows
    )
    return HTML(
        f'<table style="border-collapse:collapse;margin:4px 0;"><tr>{head}</tr>{body}</table>'
    )


class Table:
    """A table that Jupyter and the book show as a table (Markdown), and that
    prints as aligned plain text (what nbval compares).

    On a phone the book shows a table of three columns or more as one card per
    row, so a table a cell prints never runs off a narrow screen.

    Attributes:
        header: the column names.
        rows: the cells, as text, row by row.
    """

    def __init__(self, header: Sequence[object], rows: Sequence[Sequence[object]]):
        self.header = [str(h) for h in header]
        self.rows = [[str(c) for c in row] for row in rows]

    def __repr__(self) -> str:
        widths = [
            max(len(line[i]) for line in (self.header, *self.rows))
            for i in range(len(self.header))
        ]
        return "\n".join(
            "  ".join(
                cell.ljust(width) for cell, width in zip(line, widths, strict=True)
            ).rstrip()
            for line in (self.header, *self.rows)
        )

    def _repr_markdown_(self) -> str:
        def line(cells):
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        rule = "|" + "---|" * len(self.header)
        return "\n".join([line(self.header), rule, *map(line, self.rows)])


def markdown_table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> Table:
    """A table of ``rows`` under ``header`` (each cell written with ``str``;
    Markdown in a cell, such as backticks, is kept)."""
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
    return Table(header, rows)


class StaticChoice:
    """A drop-down that shows one of several panels made in advance.

    Plain HTML: the panel of the option chosen is shown by a style rule (CSS
    ``:has``), so it works with no kernel and no script, on the book's pages
    and in a notebook (GitHub, which leaves style rules out, shows every panel).

    Attributes:
        description: the drop-down's label.
        labels: the options.
        panels: the HTML of each option's panel.
    """

    def __init__(self, description: str, labels: Sequence[str], panels: Sequence[str]):
        self.description, self.labels, self.panels = description, labels, panels

    def __repr__(self) -> str:
        return (
            f"{self.description} a drop-down of {len(self.labels)} panels "
            f"(content {digest(''.join(self.panels))})"
        )

    def _repr_html_(self) -> str:
        box = f"mha-choice-{digest(repr(self) + ''.join(self.labels))[:8]}"
        rules = "".join(
            f'#{box}:has(option[value="{i}"]:not(:checked)) [data-panel="{i}"]'
            "{display:none}"
            for i in range(len(self.panels))
        )
        options = "".join(
            f'<option value="{i}"{" selected" if i == 0 else ""}>{html.escape(label)}</option>'
            for i, label in enumerate(self.labels)
        )
        panels = "".join(
            f'<div class="mha-panel" data-panel="{i}">{panel}</div>'
            for i, panel in enumerate(self.panels)
        )
        return (
            f'<div class="mha-choice" id="{box}"><style>{rules}</style>'
            f'<div class="mha-row"><label class="mha-label" for="{box}-menu">'
            f"{html.escape(self.description)}</label>"
            f'<select id="{box}-menu">{options}</select></div>{panels}</div>'
        )


def static_choice(
    description: str, labels: Sequence[str], panels: Sequence[object]
) -> StaticChoice:
    """A drop-down of ``labels``; choosing label ``i`` shows ``panels[i]``
    (HTML: a string, or an object with ``_repr_html_`` such as
    :func:`html_table`'s). It needs no kernel, so it works on the book's pages."""
    if len(labels) != len(panels) or not labels:
        raise ValueError(
            f"labels and panels must be non-empty and of equal length, got "
            f"{len(labels)} labels and {len(panels)} panels"
        )
    texts = []
    for panel in panels:
        if isinstance(panel, str) or hasattr(panel, "_repr_html_"):
            texts.append(panel if isinstance(panel, str) else panel._repr_html_())
        else:
            raise TypeError(
                f"panels must be HTML (strings or objects with _repr_html_), "
                f"got {type(panel).__name__}"
            )
    return StaticChoice(description, list(labels), texts)
