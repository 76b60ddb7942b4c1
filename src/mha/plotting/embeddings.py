"""Figures of vectors: the positional-encoding table, Q/K/V, and the cut into heads."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mha._checks import as_matrix, check_int, check_labels
from mha.attention import check_heads
from mha.plotting.core import (
    COLOURS,
    COLUMN_WIDTH,
    LINE_STYLES,
    MARKERS,
    BookFigure,
    heatmap,
)


def positional_encoding_heatmap(
    table: torch.Tensor, *, annotate: bool | None = None
) -> Figure:
    """The positional-encoding table as a heatmap: one row per position.

    Args:
        table: ``(n_positions, d_model)``, e.g. ``mha.embedding.sinusoids(6, 8)``.
        annotate: print each value in its cell; by default only when the table
            has at most 64 cells.

    Returns:
        A figure with the heatmap and its colour bar; columns are labelled with
        the feature index and whether it holds a sine or a cosine.
    """
    table = as_matrix("table", table, 2)
    n_positions, d_model = table.shape
    if n_positions == 0 or d_model == 0:
        raise ValueError(f"table must not be empty, got shape {tuple(table.shape)}")
    if annotate is None:
        annotate = table.numel() <= 64
    width = min(7.0, 1.6 + 0.62 * d_model)
    height = min(6.0, 1.3 + (0.42 if annotate else 0.12) * n_positions)
    fig = BookFigure(figsize=(width, height), layout="constrained")
    ax = fig.subplots()
    image = heatmap(ax, table, -1.0, 1.0, annotate=annotate)
    labels = [f"{j}\n{'sin' if j % 2 == 0 else 'cos'}" for j in range(d_model)]
    ax.set_xticks(range(d_model), labels=labels, fontsize=9)
    if n_positions <= 12:
        ax.set_yticks(
            range(n_positions), labels=[str(p) for p in range(n_positions)], fontsize=9
        )
    ax.set_xlabel("feature (column of the table)", fontsize=10)
    ax.set_ylabel("position", fontsize=10)
    ax.tick_params(length=0)
    fig.colorbar(image, ax=ax, label="PE value")
    return fig


def _wavelength_text(wavelength: float) -> str:
    """A wavelength at three significant digits, never in scientific notation:
    6.28, 62.8, 628, 6283."""
    decimals = max(0, 2 - math.floor(math.log10(wavelength)))
    return f"{wavelength:.{decimals}f}"


def positional_encoding_curves(table: torch.Tensor, dims: Sequence[int]) -> Figure:
    """Chosen columns of the positional-encoding table as curves over the positions.

    Args:
        table: ``(n_positions, d_model)``, e.g. ``mha.embedding.sinusoids(50, 8)``.
        dims: the columns (features) to draw, at most 8, each in ``[0, d_model)``.

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
    legend_rows = math.ceil(len(dims) / 2)
    fig = BookFigure(
        figsize=(COLUMN_WIDTH, 3.3 + 0.22 * legend_rows), layout="constrained"
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
        ncols=min(2, len(dims)),
        frameon=False,
    )
    return fig


def qkv_heatmaps(
    Q: torch.Tensor,
    K: torch.Tensor,
    V: torch.Tensor,
    tokens: Sequence[str],
    *,
    annotate: bool | None = None,
) -> Figure:
    """Q, K and V of one sentence side by side, on one shared colour scale.

    Args:
        Q, K, V: ``(seq_len, d_model)`` each, e.g. ``Q[0]``, ``K[0]`` and ``V[0]``
            for sentence 0.
        tokens: ``seq_len`` labels for the rows.
        annotate: print each value in its cell (9-point numbers at one
            decimal); by default only when the cells are wide enough for them.

    Returns:
        Three heatmaps titled ``Q``, ``K``, ``V`` (rows = tokens, columns =
        features) and one colour bar, as wide as the text column.
    """
    mats = {
        "Q": as_matrix("Q", Q, 2),
        "K": as_matrix("K", K, 2),
        "V": as_matrix("V", V, 2),
    }
    if not mats["Q"].shape == mats["K"].shape == mats["V"].shape:
        raise ValueError(
            "Q, K and V must have the same shape (seq_len, d_model), got "
            + ", ".join(str(tuple(m.shape)) for m in mats.values())
        )
    seq_len, d_model = mats["Q"].shape
    check_labels("tokens", tokens, seq_len, "rows of Q, K and V")
    if annotate is None:
        # About 5.5 inches are left for the three panels; "-0.5" needs 0.35 inch at 9 points.
        annotate = 5.5 / (3 * d_model) >= 0.35 and seq_len <= 12
    limit = max(float(m.abs().max()) for m in mats.values()) or 1.0
    fig = BookFigure(figsize=(COLUMN_WIDTH, 0.4 * seq_len + 1.2), layout="constrained")
    axes = fig.subplots(1, 3, sharey=True)
    for ax, (name, matrix) in zip(axes, mats.items(), strict=True):
        image = heatmap(ax, matrix, -limit, limit, annotate=annotate, fmt="{:.1f}")
        ax.set_title(name, fontsize=11)
        ax.set_xticks(
            range(d_model), labels=[str(j) for j in range(d_model)], fontsize=9
        )
        ax.set_xlabel("feature", fontsize=10)
        ax.tick_params(length=0)
    axes[0].set_yticks(range(seq_len), labels=list(tokens), fontsize=10)
    fig.colorbar(image, ax=axes.tolist(), shrink=0.9, label="value")
    return fig


def head_split_figure(
    q: torch.Tensor, tokens: Sequence[str], n_heads: int, *, name: str | None = None
) -> Figure:
    """One sentence's ``(seq_len, d_model)`` matrix and the ``n_heads`` slices cut from it.

    Args:
        q: ``(seq_len, d_model)``, e.g. ``Q[0]``.
        tokens: ``seq_len`` labels for the rows.
        n_heads: number of heads; must divide ``d_model``.
        name: what ``q`` is, e.g. ``"Q[0]"``, put in the left panel's title.

    Returns:
        Left, the whole matrix with the columns of each head framed and named;
        right, one ``(seq_len, d_key)`` panel per head (``head 0``, ``head 1``,
        …), its columns labelled with the features they came from. All panels
        share one colour scale.
    """
    q = as_matrix("q", q, 2)
    seq_len, d_model = q.shape
    check_labels("tokens", tokens, seq_len, "rows of q")
    check_heads(d_model, n_heads)
    d_key = d_model // n_heads
    limit = float(q.abs().max()) or 1.0
    annotate = d_model <= 8 and seq_len <= 12
    fig = BookFigure(figsize=(COLUMN_WIDTH, 0.42 * seq_len + 1.5), layout="constrained")
    grid = fig.add_gridspec(
        1, n_heads + 1, width_ratios=[d_model + 1.5] + [d_key] * n_heads
    )
    whole = fig.add_subplot(grid[0, 0])
    heatmap(whole, q, -limit, limit, annotate=annotate, fmt="{:.1f}")
    shape = f"(seq_len, d_model) = ({seq_len}, {d_model})"
    whole.set_title(f"{name}: {shape}" if name else shape, fontsize=10, pad=24)
    whole.set_xticks(
        range(d_model), labels=[str(j) for j in range(d_model)], fontsize=9
    )
    whole.set_yticks(range(seq_len), labels=list(tokens), fontsize=9)
    whole.set_xlabel("feature", fontsize=9)
    whole.tick_params(length=0)
    for head in range(n_heads):
        colour, style = COLOURS[head % len(COLOURS)], LINE_STYLES[head % 4]
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
            f"head {head}",
            ha="center",
            va="bottom",
            fontsize=9,
            color=colour,
            fontweight="bold",
        )
        ax = fig.add_subplot(grid[0, head + 1])
        image = heatmap(
            ax,
            q[:, first : first + d_key],
            -limit,
            limit,
            annotate=annotate,
            fmt="{:.1f}",
            fontsize=9,
        )
        ax.set_title(
            f"head {head}", fontsize=10, color=colour, fontweight="bold", pad=24
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
    fig.colorbar(image, ax=fig.axes, shrink=0.8, label="value")
    return fig
