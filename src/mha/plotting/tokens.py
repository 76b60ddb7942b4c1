"""Figures of tokens: a padded batch as a grid."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mha._checks import as_matrix, check_number
from mha.plotting.core import BLOCKED_FACE, BLOCKED_HATCH, BLOCKED_LINES, BookFigure
from mha.plotting.screens import COLUMN_WIDTH, for_every_screen


@for_every_screen
def token_grid(
    tokens: Sequence[Sequence[str]],
    is_token: torch.Tensor,
    *,
    width: float | None = None,
) -> Figure:
    """A padded batch as a grid: one row per sentence, padding shaded and
    hatched (the look of a blocked key: attention blocks it).

    Every cell has the same size whatever the batch (1 inch by half an inch,
    narrower only when more than six positions would pass the width of the
    text column), so grids of different chapters look alike.

    Args:
        tokens: ``batch`` rows of ``length`` token strings (``<pad>`` included).
        is_token: BoolTensor ``(batch, length)``, ``True`` on real tokens.
        width: the widest the figure may be, in inches; ``None``: the text
            column's, and a phone's layout too where the grid would not stay
            legible there (see `mha.plotting.screens`).
    """
    is_token = as_matrix("is_token", is_token, 2).bool()
    batch, length = is_token.shape
    if len(tokens) != batch or any(len(row) != length for row in tokens):
        raise ValueError(
            f"tokens must be {batch} rows of {length} strings to match is_token, "
            f"got rows of lengths {[len(row) for row in tokens]}"
        )
    room = COLUMN_WIDTH if width is None else check_number("width", width)
    labels = 1.1 if room >= 5.5 else 0.95  # inches for the row labels
    cell = min(1.0, (room - labels) / length)  # inches per position
    size = 10 if cell >= 0.8 else 9  # points: the words fit their cells
    fig = BookFigure(
        figsize=(cell * length + labels, 0.5 * batch + 0.6), layout="constrained"
    )
    ax = fig.subplots()
    for b in range(batch):
        for t in range(length):
            real = bool(is_token[b, t])
            ax.add_patch(
                Rectangle(
                    (t, b),
                    0.94,
                    0.86,
                    facecolor="#dbe7f5" if real else BLOCKED_FACE,
                    edgecolor="#333333" if real else BLOCKED_LINES,
                    hatch=None if real else BLOCKED_HATCH,
                )
            )
            # A padding label sits on a white patch, so the hatching cannot hide it.
            ax.text(
                t + 0.47,
                b + 0.43,
                tokens[b][t],
                ha="center",
                va="center",
                fontsize=size,
                color="#111111",
                bbox=None
                if real
                else dict(
                    facecolor="white", edgecolor="none", boxstyle="round,pad=0.2"
                ),
            )
    ax.set_xlim(-0.05, length)
    ax.set_ylim(batch, -0.14)
    ax.set_xticks(
        [t + 0.47 for t in range(length)],
        labels=[f"pos {t}" for t in range(length)],
        fontsize=size,
    )
    ax.set_yticks(
        [b + 0.43 for b in range(batch)],
        labels=[f"sentence {b}" for b in range(batch)],
        fontsize=size,
    )
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    return fig
