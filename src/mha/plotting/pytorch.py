"""Figures comparing attention weights computed several ways (PyTorch's built-ins)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from mha._checks import as_matrix, as_panels, check_int, check_tokens
from mha.plotting.core import (
    AttentionFigure,
    attention_grid,
    blocked_keys,
    check_blocked_are_empty,
)
from mha.plotting.screens import for_every_screen


@for_every_screen
def weights_panels(
    maps: Sequence[torch.Tensor],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    titles: Sequence[str],
    *,
    masks: Sequence[torch.Tensor | None] | None = None,
    suptitle: str | None = None,
    n_cols: int | None = None,
    cell_size: float = 0.36,
    width: float | None = None,
    dpi: int = 100,
) -> AttentionFigure:
    """Attention weights of one sequence and head, computed several ways, side by side.

    The maps look like every attention map of the book (`mha.plotting.core.display_attention`):
    the square-root colour scale, the same axis names, each value printed in
    its cell where it fits, a blocked key light grey and hatched. A NaN (what
    PyTorch returns for a query whose keys are all blocked) prints ``NaN`` in
    its cell, so it cannot be mistaken for a weight of 0.

    Args:
        maps: ``n`` tensors, each ``(q_len, k_len)`` of weights in [0, 1] or NaN
            (a ``(n, q_len, k_len)`` tensor works too).
        query_tokens: ``q_len`` labels for the rows (shared by all panels).
        key_tokens: ``k_len`` labels for the columns (shared by all panels).
        titles: ``n`` panel titles (wrapped at spaces in a phone's layout).
        masks: for each map, the keys its computation blocked, in the
            package's convention (``True`` or 1 = may attend), broadcastable
            to ``(q_len, k_len)``, or ``None`` for a map where nothing was
            blocked; blocked keys must hold no weight (or NaN). ``None``:
            nothing blocked anywhere.
        suptitle: a title over the whole figure.
        n_cols: panels per row; by default all panels in one row.
        cell_size: side of one cell in inches.
        width: the figure's width in inches (see `mha.plotting.core.display_attention`).
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
    stacked = torch.stack(matrices)  # (n, q_len, k_len)
    blocked = None
    if masks is not None:
        if isinstance(masks, torch.Tensor) or len(masks) != n:
            raise ValueError(
                f"masks must be a list of {n} masks (one per map, or None), "
                f"got {type(masks).__name__} of length {len(masks)}"
            )
        blocked = torch.stack(
            [
                torch.zeros(q_len, k_len, dtype=torch.bool)
                if mask is None
                else blocked_keys(mask, (1, q_len, k_len), f"masks[{i}]")[0]
                for i, mask in enumerate(masks)
            ]
        )
        check_blocked_are_empty(stacked, blocked, "masks")
    return attention_grid(
        stacked,
        query_tokens,
        key_tokens,
        list(titles),
        n_rows,
        n_cols,
        blocked=blocked,
        annotate=True,
        title=suptitle,
        head_size=cell_size * k_len,
        width=width,
        dpi=dpi,
    )
