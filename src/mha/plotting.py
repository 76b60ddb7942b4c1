"""The book's figures, one small function each; every one returns a Figure.

Figures are built as ``matplotlib.figure.Figure`` objects rather than with
pyplot, so a notebook shows a figure exactly once (as the cell's result) and
nothing is left open in pyplot's global state. The colour map is *cividis*: its
lightness rises steadily from 0 to 1, so it reads in greyscale and for
readers with colour-vision deficiencies.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

CMAP = "cividis"


class BookFigure(Figure):
    """A matplotlib Figure that shows itself as a PNG in Jupyter without pyplot."""

    def _repr_png_(self) -> bytes:
        return to_png(self)


def to_png(fig: Figure, dpi: float | None = None) -> bytes:
    """The figure as PNG bytes, without metadata, so equal figures give equal bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def _as_matrix_stack(name: str, values: torch.Tensor, dims: int) -> torch.Tensor:
    if not isinstance(values, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(values).__name__}")
    if values.dim() != dims:
        raise ValueError(f"{name} must be {dims}-D, got shape {tuple(values.shape)}")
    return values.detach().float().cpu()


def _label_axes(ax, query_tokens: Sequence[str], key_tokens: Sequence[str], fontsize=9) -> None:
    ax.set_xticks(range(len(key_tokens)), labels=key_tokens, rotation=90, fontsize=fontsize)
    ax.set_yticks(range(len(query_tokens)), labels=query_tokens, fontsize=fontsize)
    ax.tick_params(length=0)


def _annotate(ax, matrix: torch.Tensor, fontsize=7) -> None:
    for i, row in enumerate(matrix.tolist()):
        for j, value in enumerate(row):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=fontsize,
                    color="black" if value > 0.5 else "white")


def display_attention(
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    attention: torch.Tensor,
    n_heads: int,
    n_rows: int,
    n_cols: int,
    *,
    annotate: bool | None = None,
    title: str | None = None,
    head_size: float = 2.3,
    dpi: int = 100,
) -> Figure:
    """One labelled heatmap per head: rows are queries, columns are keys.

    Args:
        query_tokens: ``q_len`` labels for the rows.
        key_tokens: ``k_len`` labels for the columns.
        attention: ``(n_heads, q_len, k_len)`` probabilities of one sequence,
            e.g. ``attn_probs[0]``.
        n_heads: number of heads to draw.
        n_rows, n_cols: grid of panels; ``n_rows * n_cols`` must equal ``n_heads``.
        annotate: print each value in its cell; by default only when a map
            has at most 64 cells.
        title: a title over the whole figure.
        head_size: width of one panel in inches.
        dpi: resolution of the figure.

    Returns:
        The ``matplotlib.figure.Figure``, with one axes per head (titled
        ``head 0``, ``head 1``, …) plus one for the colour bar.
    """
    attention = _as_matrix_stack("attention", attention, 3)
    if n_rows * n_cols != n_heads:
        raise ValueError(
            f"n_rows * n_cols must equal n_heads, got {n_rows} * {n_cols} = "
            f"{n_rows * n_cols} panels for n_heads={n_heads}"
        )
    if attention.size(0) != n_heads:
        raise ValueError(
            f"attention must have n_heads={n_heads} maps on its first axis, "
            f"got shape {tuple(attention.shape)}"
        )
    q_len, k_len = attention.shape[1:]
    if len(query_tokens) != q_len or len(key_tokens) != k_len:
        raise ValueError(
            f"query_tokens and key_tokens must label the {q_len} rows and {k_len} columns "
            f"of attention, got {len(query_tokens)} query and {len(key_tokens)} key tokens"
        )
    if annotate is None:
        annotate = q_len * k_len <= 64
    fig = BookFigure(figsize=(head_size * n_cols + 0.9, head_size * n_rows + 0.3), dpi=dpi,
                 layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False).flatten()
    for head, ax in enumerate(axes):
        image = ax.imshow(attention[head].numpy(), cmap=CMAP, vmin=0.0, vmax=1.0)
        _label_axes(ax, query_tokens, key_tokens)
        ax.set_title(f"head {head}", fontsize=10)
        if annotate:
            _annotate(ax, attention[head])
    fig.colorbar(image, ax=axes.tolist(), shrink=0.8, label="attention probability")
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def token_grid(tokens: Sequence[Sequence[str]], is_token: torch.Tensor) -> Figure:
    """A padded batch as a grid: one row per sentence, padding shaded and hatched.

    Args:
        tokens: ``batch`` rows of ``length`` token strings (``<pad>`` included).
        is_token: BoolTensor ``(batch, length)``, ``True`` on real tokens.
    """
    is_token = _as_matrix_stack("is_token", is_token, 2).bool()
    batch, length = is_token.shape
    if len(tokens) != batch or any(len(row) != length for row in tokens):
        raise ValueError(
            f"tokens must be {batch} rows of {length} strings to match is_token, "
            f"got rows of lengths {[len(row) for row in tokens]}"
        )
    fig = BookFigure(figsize=(1.3 * length + 0.8, 0.55 * batch + 0.7), layout="constrained")
    ax = fig.subplots()
    for b in range(batch):
        for t in range(length):
            real = bool(is_token[b, t])
            ax.add_patch(Rectangle((t, b), 0.94, 0.86, facecolor="#dbe7f5" if real else "#d9d9d9",
                                   edgecolor="#333333", hatch=None if real else "///"))
            ax.text(t + 0.47, b + 0.43, tokens[b][t], ha="center", va="center", fontsize=10,
                    color="#111111" if real else "#555555")
    ax.set_xlim(-0.05, length)
    ax.set_ylim(batch, -0.14)
    ax.set_xticks([t + 0.47 for t in range(length)], labels=[f"pos {t}" for t in range(length)])
    ax.set_yticks([b + 0.43 for b in range(batch)], labels=[f"sentence {b}" for b in range(batch)])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    return fig
