"""Figures of vectors: columns of the positional-encoding table as curves, and one
matrix cut into heads."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mha._checks import as_matrix, check_int, check_labels, check_number
from mha.attention import check_heads
from mha.plotting.figure import BookFigure
from mha.plotting.heatmap import heatmap, room_for
from mha.plotting.palette import COLOURS, LINE_STYLES, MARKERS, SIGNED_CMAP, head_colour
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


@for_every_screen
def head_split_figure(
    q: torch.Tensor,
    tokens: Sequence[str],
    n_heads: int,
    *,
    name: str | None = None,
    width: float | None = None,
) -> Figure:
    """One sentence's ``(seq_len, d_model)`` matrix and the ``n_heads`` slices cut from it.

    Args:
        q: ``(seq_len, d_model)``, e.g. ``Q[0]``.
        tokens: ``seq_len`` labels for the rows.
        n_heads: number of heads; must divide ``d_model``.
        name: what ``q`` is, e.g. ``"Q[0]"``, put in the left panel's title.
        width: the figure's width in inches; ``None``: the text column's, and a
            phone's layout too (see `mha.plotting.screens`), the heads under
            the whole matrix.

    Returns:
        Left (on a phone, above), the whole matrix with the columns of each
        head framed and named; right (below), one ``(seq_len, d_key)`` panel
        per head (``head 0``, ``head 1``, …), its columns labelled with the
        features they came from. All panels share one colour scale; each
        head has its colour (`mha.plotting.palette.head_colour`) and a line style of its own.
    """
    q = as_matrix("q", q, 2)
    seq_len, d_model = q.shape
    check_labels("tokens", tokens, seq_len, "rows of q")
    check_heads(d_model, n_heads)
    width, phone = _room(width)
    d_key = d_model // n_heads
    limit = float(q.abs().max()) or 1.0
    if phone:
        height = 2 * (0.3 * seq_len + 0.75) + 0.9
        fig = BookFigure(figsize=(width, height), layout="constrained")
        grid = fig.add_gridspec(2, n_heads, height_ratios=[1.15, 1])
        whole = fig.add_subplot(grid[0, :])
        heads = [fig.add_subplot(grid[1, h]) for h in range(n_heads)]
        cells = (width - 1.2) / d_model, (width - 0.4) / d_model - 0.1  # inches
    else:
        fig = BookFigure(figsize=(width, 0.42 * seq_len + 1.5), layout="constrained")
        grid = fig.add_gridspec(
            1, n_heads + 1, width_ratios=[d_model + 1.5] + [d_key] * n_heads
        )
        whole = fig.add_subplot(grid[0, 0])
        heads = [fig.add_subplot(grid[0, h + 1]) for h in range(n_heads)]
        cells = ((width - 1.9) / (2 * d_model + 1.5),) * 2
    # Values printed where they fit their cells (the running example's 6 by 8).
    fits = min(cells) >= room_for("-0.0")
    annotate = fits and d_model <= 8 and seq_len <= 12
    heatmap(whole, q, -limit, limit, cmap=SIGNED_CMAP, annotate=annotate, fmt="{:.1f}")
    shape = f"(seq_len, d_model) = ({seq_len}, {d_model})"
    whole.set_title(f"{name}: {shape}" if name else shape, fontsize=10, pad=24)
    whole.set_xticks(
        range(d_model), labels=[str(j) for j in range(d_model)], fontsize=9
    )
    whole.set_yticks(range(seq_len), labels=list(tokens), fontsize=9)
    whole.set_xlabel("feature", fontsize=9)
    whole.tick_params(length=0)
    for head, ax in enumerate(heads):
        colour, style = head_colour(head), LINE_STYLES[head % 4]
        first = head * d_key
        whole.add_patch(
            Rectangle(
                (first - 0.47, -0.47),
                d_key - 0.06,
                seq_len - 0.06,
                fill=False,
                edgecolor=colour,
                linestyle=style,
                linewidth=2.2,
                clip_on=False,
            )
        )
        whole.text(
            first + (d_key - 1) / 2,
            -0.75,
            f"head {head}" if d_key * cells[0] >= 0.45 else str(head),
            ha="center",
            va="bottom",
            fontsize=9,
            color=colour,
            fontweight="bold",
        )
        image = heatmap(
            ax,
            q[:, first : first + d_key],
            -limit,
            limit,
            cmap=SIGNED_CMAP,
            annotate=annotate,
            fmt="{:.1f}",
            fontsize=9,
        )
        ax.set_title(
            f"head {head}" if d_key * cells[1] >= 0.5 else str(head),
            fontsize=10,
            color=colour,
            fontweight="bold",
            pad=6 if phone else 24,
        )
        ax.set_xticks(
            range(d_key), labels=[str(first + j) for j in range(d_key)], fontsize=9
        )
        ax.set_yticks([])
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_edgecolor(colour)
            side.set_linestyle(style)
            side.set_linewidth(2.2)
    fig.colorbar(
        image,
        ax=fig.axes,
        shrink=0.8,
        label="value",
        location="bottom" if phone else "right",
        aspect=30 if phone else 20,
    )
    return fig
