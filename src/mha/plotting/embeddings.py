"""The positional-encoding table's columns drawn as curves."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from matplotlib.figure import Figure

from mha._checks import as_matrix, check_int, check_number
from mha.plotting.figure import BookFigure
from mha.plotting.palette import COLOURS, LINE_STYLES, MARKERS
from mha.plotting.screens import COLUMN_WIDTH, for_every_screen


def _room(width: float | None) -> tuple[float, bool]:
    """(the figure's width in inches, whether it is a phone's layout)."""
    width = COLUMN_WIDTH if width is None else check_number("width", width)
    return width, width < 5.5


def _wavelength_text(wavelength: float) -> str:
    """A wavelength at three significant digits, never in scientific notation:
    6.28, 62.8, 628, 6283."""
    decimals = max(0, 2 - math.floor(math.log10(wavelength)))
    return f"{wavelength:.{decimals}f}"


@for_every_screen
def positional_encoding_curves(
    table: torch.Tensor, dims: Sequence[int], *, width: float | None = None
) -> Figure:
    """Chosen columns of the positional-encoding table as curves over the positions.

    Args:
        table: ``(n_positions, d_model)``, e.g. ``mha.embedding.sinusoids(50, 8)``.
        dims: the columns (features) to draw, at most 8, each in ``[0, d_model)``.
        width: the figure's width in inches; ``None``: the text column's, and a
            phone's layout too (see `mha.plotting.screens`).

    Returns:
        A figure with one axes, position on x and value on y, one line per
        column, each with its own colour, line style and marker, labelled with
        its wavelength ``2π · 10000^(2i/d_model)`` in positions. The legend
        sits under the plot, so the curves keep the whole width.
    """
    table = as_matrix("table", table, 2)
    n_positions, d_model = table.shape
    dims = list(dims)
    if not dims or len(dims) > len(MARKERS):
        raise ValueError(f"dims must list 1 to {len(MARKERS)} columns, got {len(dims)}")
    for dim in dims:
        check_int("dims[i]", dim, minimum=0, maximum=d_model - 1)
    width, phone = _room(width)
    legend_cols = 1 if phone else min(2, len(dims))
    legend_rows = math.ceil(len(dims) / legend_cols)
    fig = BookFigure(
        figsize=(width, (2.9 if phone else 3.3) + 0.22 * legend_rows),
        layout="constrained",
    )
    ax = fig.subplots()
    positions = list(range(n_positions))
    # Only whole positions exist: mark each one while there are few enough to see.
    every, size = (1, 3.5) if n_positions <= 60 else (max(1, n_positions // 12), 5)
    for k, dim in enumerate(dims):
        wave = "sin" if dim % 2 == 0 else "cos"
        wavelength = 2 * math.pi * 10000 ** ((dim - dim % 2) / d_model)
        ax.plot(
            positions,
            table[:, dim].tolist(),
            color=COLOURS[k],
            linestyle=LINE_STYLES[k % 4],
            marker=MARKERS[k],
            markevery=every,
            markersize=size,
            linewidth=1.6,
            label=f"feature {dim}: {wave}, wavelength {_wavelength_text(wavelength)}",
        )
    ax.set_xlabel("position", fontsize=10)
    ax.set_ylabel("PE value", fontsize=10)
    ax.set_ylim(-1.15, 1.15)
    ax.set_xlim(0, max(1, n_positions - 1))
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.legend(
        fontsize=9,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2),
        ncols=legend_cols,
        frameon=False,
    )
    return fig
