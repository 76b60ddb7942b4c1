"""Figures of attention masks: one mask as a grid, or several side by side."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mha._checks import as_panels, check_tokens
from mha.masks import check_mask
from mha.plotting.core import KEY_AXIS, QUERY_AXIS, BookFigure, label_axes

ALLOWED = "#fde838"  # the light end of cividis
BLOCKED = "#1f2d4d"  # a dark navy near cividis' dark end
HATCH = "#c8c8c8"
LEGEND_LABELS = ["may attend (True / 1)", "blocked (False / 0)"]


def _matrix(name: str, mask: torch.Tensor) -> torch.Tensor:
    """A 2-D mask in the package's convention, as a bool matrix ``(q_len, k_len)``."""
    if isinstance(mask, torch.Tensor) and mask.dim() != 2:
        raise ValueError(
            f"{name} must be 2-D (q_len, k_len), got shape {tuple(mask.shape)}; pick one "
            "sequence and head first, e.g. mask[0, 0] of a (batch, n_heads, q_len, k_len) mask"
        )
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(mask).__name__}")
    return check_mask(mask.detach().cpu(), (1, 1, *mask.shape))


def _legend_handles() -> list:
    return [
        Rectangle((0, 0), 1, 1, facecolor=ALLOWED, edgecolor="#333333"),
        Rectangle((0, 0), 1, 1, facecolor=BLOCKED, edgecolor=HATCH, hatch="///"),
    ]


def _draw(
    ax,
    mask: torch.Tensor,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    fontsize: float = 9,
) -> None:
    q_len, k_len = mask.shape
    check_tokens(query_tokens, key_tokens, (q_len, k_len), "mask")
    ax.imshow(
        mask.float().numpy(),
        cmap=ListedColormap([BLOCKED, ALLOWED]),
        vmin=0.0,
        vmax=1.0,
    )
    for i, j in (~mask).nonzero().tolist():
        ax.add_patch(
            Rectangle(
                (j - 0.5, i - 0.5),
                1,
                1,
                facecolor="none",
                edgecolor=HATCH,
                hatch="///",
                linewidth=0,
            )
        )
    ax.set_xticks([x - 0.5 for x in range(k_len + 1)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(q_len + 1)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    label_axes(ax, query_tokens, key_tokens, fontsize=fontsize)
    ax.set_xlabel(KEY_AXIS, fontsize=fontsize)
    ax.set_ylabel(QUERY_AXIS, fontsize=fontsize)


def mask_figure(
    mask: torch.Tensor,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    title: str | None = None,
    *,
    cell_size: float = 0.42,
    dpi: int = 100,
) -> Figure:
    """One attention mask as a grid of cells: rows are queries, columns are keys.

    Cells a query may attend to are light; blocked cells are dark and hatched,
    so the two read apart in greyscale too. A legend names both.

    Args:
        mask: ``(q_len, k_len)`` in the package's convention: ``True``/1 = may
            attend, ``False``/0 = blocked (bool, integer or float 0/1).
        query_tokens: ``q_len`` labels for the rows.
        key_tokens: ``k_len`` labels for the columns.
        title: a title over the grid.
        cell_size: side of one cell in inches.
        dpi: resolution of the figure.

    Returns:
        The figure, with one axes whose image holds the mask as 0/1.
    """
    mask = _matrix("mask", mask)
    q_len, k_len = mask.shape
    fig = BookFigure(
        figsize=(cell_size * k_len + 1.7, cell_size * q_len + 2.0),
        dpi=dpi,
        layout="constrained",
    )
    ax = fig.subplots()
    _draw(ax, mask, query_tokens, key_tokens)
    if title:
        ax.set_title(title, fontsize=10)
    fig.legend(
        _legend_handles(),
        LEGEND_LABELS,
        loc="outside lower center",
        ncols=1,
        fontsize=9,
        frameon=False,
    )
    return fig


def mask_panels(
    masks: Sequence[torch.Tensor],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    titles: Sequence[str],
    *,
    suptitle: str | None = None,
    cell_size: float = 0.29,
    dpi: int = 100,
) -> Figure:
    """Several masks of the same sequence side by side, e.g. padding, causal, both.

    Args:
        masks: ``n`` masks, each ``(q_len, k_len)`` in the package's convention
            (``True``/1 = may attend, ``False``/0 = blocked).
        query_tokens: ``q_len`` labels for the rows (shared by all panels).
        key_tokens: ``k_len`` labels for the columns (shared by all panels).
        titles: ``n`` panel titles.
        suptitle: a title over the whole figure.
        cell_size: side of one cell in inches.
        dpi: resolution of the figure.

    Returns:
        The figure, with one axes per mask, each holding its mask as a 0/1 image.
    """
    matrices = as_panels("masks", masks, titles, _matrix, "mask")
    q_len, k_len = matrices[0].shape
    n = len(matrices)
    # Only the first panel carries the query labels, so the grids can sit close.
    width = n * cell_size * k_len + 1.3 + 0.3 * (n - 1)
    height = cell_size * q_len + (1.85 if suptitle else 1.6)
    fig = BookFigure(figsize=(width, height), dpi=dpi, layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    for ax, matrix, panel_title in zip(axes, matrices, titles, strict=True):
        _draw(ax, matrix, query_tokens, key_tokens, fontsize=10)
        ax.set_title(panel_title, fontsize=11)
    for ax in axes[1:]:
        ax.set_ylabel("")
        ax.tick_params(labelleft=False)
    fig.legend(
        _legend_handles(),
        LEGEND_LABELS,
        loc="outside lower center",
        ncols=2,
        fontsize=9,
        frameon=False,
    )
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    return fig
