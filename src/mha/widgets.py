"""Interactive widgets that also work on the static site.

On the built site there is no Python kernel: only what the browser can do on
its own runs. A ``widgets.Stack`` holding precomputed panels whose
``selected_index`` is ``jslink``-ed to a control's ``index`` switches panels
in the browser, so it works both in Jupyter and on the static page.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets

from mha.plotting import digest


class StaticChoice(widgets.VBox):
    """A dropdown that switches between precomputed panels, with no kernel needed."""

    def __repr__(self) -> str:
        dropdown, stack = self.children
        panels = "".join(getattr(panel, "value", repr(panel)) for panel in stack.children)
        return (f"StaticChoice({dropdown.description!r}, {len(dropdown.options)} panels, "
                f"digest={digest(panels)})")


def static_choice(
    description: str, labels: Sequence[str], panels: Sequence[widgets.Widget]
) -> StaticChoice:
    """A dropdown of ``labels``; choosing label ``i`` shows ``panels[i]``.

    The link is made in the browser (``jslink``), so it also works on the
    static site.
    """
    if len(labels) != len(panels) or not labels:
        raise ValueError(
            f"labels and panels must be non-empty and of equal length, got "
            f"{len(labels)} labels and {len(panels)} panels"
        )
    dropdown = widgets.Dropdown(
        options=list(labels), index=0, description=description,
        style={"description_width": "initial"}, layout=widgets.Layout(width="max-content"),
    )
    stack = widgets.Stack(list(panels), selected_index=0)
    widgets.jslink((dropdown, "index"), (stack, "selected_index"))
    return StaticChoice([dropdown, stack])


_CELL = "border:1px solid #999;padding:2px 10px;text-align:center;"


def html_table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> widgets.HTML:
    """A small bordered HTML table (styled inline, so it looks the same in
    Jupyter and on the site); every cell is escaped."""
    head = "".join(f'<th style="{_CELL}">{html.escape(str(h))}</th>' for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{html.escape(str(c))}</td>' for c in row) + "</tr>"
        for row in rows
    )
    return widgets.HTML(
        f'<table style="border-collapse:collapse;margin:4px 0;">'
        f"<tr>{head}</tr>{body}</table>"
    )
