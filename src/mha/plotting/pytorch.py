"""Figures comparing attention weights computed several ways (PyTorch's built-ins)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mha._checks import as_matrix, as_panels, check_int, check_tokens
from mha.plotting.core import PROBABILITY, BookFigure, heatmap, label_axes

NAN_FACE = "#e0e0e0"
NAN_EDGE = "#7a7a7a"


def weights_panels(
    maps: Sequence[torch.Tensor],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    titles: Sequence[str],
    *,
    suptitle: str | None = None,
    n_cols: int | None = None,
    cell_size: float = 0.36,
    dpi: int = 100,
) -> Figure:
    """Attention weights of one sequence and head, computed several ways, side by side.

    Every value is printed in its cell. Cells holding NaN (what PyTorch returns
    for a query whose keys are all blocked) are drawn light grey, hatched and
    labelled ``NaN``, so they cannot be mistaken for a weight of 0.

    Args:
        maps: ``n`` tensors, each ``(q_len, k_len)`` of weights in [0, 1] or NaN
            (a ``(n, q_len, k_len)`` tensor works too).
        query_tokens: ``q_len`` labels for the rows (shared by all panels).
        key_tokens: ``k_len`` labels for the columns (shared by all panels).
        titles: ``n`` panel titles.
        suptitle: a title over the whole figure.
        n_cols: panels per row; by default all panels in one row.
        cell_size: side of one cell in inches.
        dpi: resolution of the figure.

    Returns:
        The figure, with one axes per map (each holding one image) and one colour bar.
    """
    if isinstance(maps, torch.Tensor):
        maps = list(as_matrix("maps", maps, 3))
    matrices = as_panels(
        "maps", maps, titles, lambda name, m: as_matrix(name, m, 2), "map"
    )
    q_len, k_len = matrices[0].shape
    check_tokens(query_tokens, key_tokens, (q_len, k_len), "each map")
    n = len(matrices)
    n_cols = n if n_cols is None else check_int("n_cols", n_cols, maximum=n)
    n_rows = -(-n // n_cols)
    fig = BookFigure(
        figsize=(
            n_cols * (cell_size * k_len + 0.9) + 1.0,
            n_rows * (cell_size * q_len + 1.5) + 0.4,
        ),
        dpi=dpi,
        layout="constrained",
    )
    grid = fig.subplots(n_rows, n_cols, squeeze=False).flatten()
    for ax in grid[n:]:
        ax.set_axis_off()
    axes = grid[:n]
    for ax, matrix, panel_title in zip(axes, matrices, titles, strict=True):
        image = heatmap(ax, matrix, 0.0, 1.0, annotate=True)  # NaN cells left empty
        for i, j in matrix.isnan().nonzero().tolist():
            ax.add_patch(
                Rectangle(
                    (j - 0.5, i - 0.5),
                    1,
                    1,
                    facecolor=NAN_FACE,
                    edgecolor=NAN_EDGE,
                    hatch="///",
                    linewidth=0,
                )
            )
            ax.text(
                j,
                i,
                "NaN",
                ha="center",
                va="center",
                fontsize=9,
                color="black",
                fontweight="bold",
            )
        label_axes(ax, query_tokens, key_tokens)
        ax.set_xlabel("key", fontsize=9)
        ax.set_title(panel_title, fontsize=9)
    for row_start in range(0, n, n_cols):
        axes[row_start].set_ylabel("query", fontsize=9)
    fig.colorbar(image, ax=grid.tolist(), shrink=0.8, label=PROBABILITY)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    return fig
