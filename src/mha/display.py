"""Showing things in a chapter: the package's own source code, small tables, and
a drop-down that switches between precomputed panels with no kernel needed."""

from __future__ import annotations

import html
import inspect
import textwrap
from collections.abc import Sequence

import ipywidgets as widgets

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


def html_table(
    header: Sequence[object], rows: Sequence[Sequence[object]]
) -> widgets.HTML:
    """A small bordered HTML table (styled inline, so it looks the same in
    Jupyter and on the site); every cell is escaped."""
    head = "".join(f'<th style="{_CELL}">{html.escape(str(h))}</th>' for h in header)
    body = "".join(
        "<tr>"
        + "".join(f'<td style="{_CELL}">{html.escape(str(c))}</td>' for c in row)
        + "</tr>"
        for row in rows
    )
    return widgets.HTML(
        f'<table style="border-collapse:collapse;margin:4px 0;"><tr>{head}</tr>{body}</table>'
    )


class StaticChoice(widgets.VBox):
    """A drop-down that switches between precomputed panels, with no kernel needed."""

    def _repr_mimebundle_(self, **kwargs) -> dict:
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)  # whole: ipywidgets cuts it at 110 characters
        return bundle

    def __repr__(self) -> str:
        dropdown, stack = self.children
        panels = "".join(
            getattr(panel, "value", repr(panel)) for panel in stack.children
        )
        return (
            f"{dropdown.description} a drop-down of {len(dropdown.options)} panels "
            f"(content {digest(panels)})"
        )


def static_choice(
    description: str, labels: Sequence[str], panels: Sequence[widgets.Widget]
) -> StaticChoice:
    """A drop-down of ``labels``; choosing label ``i`` shows ``panels[i]``.

    The link is made in the browser (``jslink``), so it also works on the
    static site.
    """
    if len(labels) != len(panels) or not labels:
        raise ValueError(
            f"labels and panels must be non-empty and of equal length, got "
            f"{len(labels)} labels and {len(panels)} panels"
        )
    dropdown = widgets.Dropdown(
        options=list(labels),
        index=0,
        description=description,
        style={"description_width": "initial"},
        layout=widgets.Layout(width="max-content"),
    )
    stack = widgets.Stack(list(panels), selected_index=0)
    widgets.jslink((dropdown, "index"), (stack, "selected_index"))
    return StaticChoice([dropdown, stack])
