"""Figures of merging the heads: where each head's output lands in the merged
vector, and the output projection as a sum over heads."""

from __future__ import annotations

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mha.plotting.core import (
    CMAP,
    BookFigure,
    as_matrix,
    heatmap,
)

# Light fills for the heads (Okabe–Ito tints), each with its own hatch for greyscale.
HEAD_FILLS = (
    "#f5c89a",
    "#a9d4f2",
    "#8fd6c0",
    "#e6bcd5",
    "#f9e08f",
    "#c7c7c7",
    "#b8b8e0",
    "#e0d0a0",
)
HEAD_HATCHES = ("", "//", "..", "xx", "\\\\", "++", "--", "oo")


def merge_heads_figure(
    heads: torch.Tensor, merged: torch.Tensor, token: str = ""
) -> Figure:
    """Where each head's output lands in the merged vector of one token.

    Top, the ``n_heads`` outputs of one token, ``d_key`` numbers each; bottom,
    the merged vector of ``n_heads * d_key`` features. Each head has its own
    fill and hatch, and a line joins it to its slice.

    Args:
        heads: ``(n_heads, d_key)``, e.g. ``A[0, :, 2]`` (one token, every head).
        merged: ``(n_heads * d_key,)``, the same token after merging, e.g.
            ``merged[0, 2]``; must be the heads laid side by side.
        token: the token's label, for the title.
    """
    heads = as_matrix("heads", heads, 2)
    merged = as_matrix("merged", merged, 1)
    n_heads, d_key = heads.shape
    if n_heads > len(HEAD_FILLS):
        raise ValueError(
            f"heads can have at most {len(HEAD_FILLS)} rows, got {n_heads}"
        )
    if merged.numel() != n_heads * d_key:
        raise ValueError(
            f"merged must have n_heads * d_key = {n_heads * d_key} features for heads of "
            f"shape {tuple(heads.shape)}, got shape {tuple(merged.shape)}"
        )
    if not torch.allclose(merged, heads.reshape(-1)):
        raise ValueError(
            "merged must hold the heads side by side (head 0 first), "
            "as merge_heads gives; it holds other numbers"
        )

    gap = 0.6  # space between two heads in the top row
    fig = BookFigure(
        figsize=(min(7.2, max(6.0, 0.95 * n_heads * d_key + 1.5)), 3.0),
        layout="constrained",
    )
    ax = fig.subplots()

    def cell(x, y, value, head):
        ax.add_patch(
            Rectangle(
                (x, y),
                0.92,
                0.8,
                facecolor=HEAD_FILLS[head],
                edgecolor="#222222",
                hatch=HEAD_HATCHES[head],
                linewidth=1.0,
            )
        )
        ax.text(
            x + 0.46,
            y + 0.4,
            f"{value:.2f}",
            ha="center",
            va="center",
            fontsize=10,
            bbox=dict(
                boxstyle="round,pad=0.25",
                facecolor="white",
                edgecolor="none",
                alpha=0.85,
            ),
        )

    top_width = n_heads * d_key + (n_heads - 1) * gap
    shift = (top_width - n_heads * d_key) / 2  # centre the bottom row under the top one
    for h in range(n_heads):
        x0 = h * (d_key + gap)
        for f in range(d_key):
            cell(x0 + f, 2.2, float(heads[h, f]), h)
            cell(shift + h * d_key + f, 0.0, float(merged[h * d_key + f]), h)
        ax.text(x0 + d_key / 2, 3.15, f"head {h}", ha="center", fontsize=10)
        ax.plot(
            [x0 + d_key / 2, shift + h * d_key + d_key / 2],
            [2.15, 0.85],
            color="#555555",
            linewidth=1.0,
        )
        ax.text(
            shift + h * d_key + d_key / 2,
            -0.35,
            f"features {h * d_key}–{(h + 1) * d_key - 1}",
            ha="center",
            va="top",
            fontsize=9,
        )
    ax.text(
        -0.3,
        2.6,
        f"per head\n({n_heads}, {d_key})",
        ha="right",
        va="center",
        fontsize=10,
    )
    ax.text(
        -0.3, 0.4, f"merged\n({n_heads * d_key},)", ha="right", va="center", fontsize=10
    )
    ax.set_xlim(-2.2, top_width + 0.2)
    ax.set_ylim(-0.9, 3.5)
    ax.set_axis_off()
    if token:
        ax.set_title(f"Merging the heads of the token '{token}'", fontsize=11)
    return fig


def head_contributions_figure(
    pieces: torch.Tensor, bias: torch.Tensor, output: torch.Tensor, token: str = ""
) -> Figure:
    """The output projection as a sum over heads, for one token.

    ``Wo`` applied to the merged heads equals a sum: each head ``h`` writes
    ``A_h @ Wo.weight[:, h*d_key:(h+1)*d_key].T``, a vector of ``d_model``
    numbers, and the bias is added once. Top, one row per head and one for
    the bias; bottom, their sum, the token's output. Each value is printed in
    its cell, on one colour scale centred on 0.

    Args:
        pieces: ``(n_heads, d_model)``, what each head adds to the token's output.
        bias: ``(d_model,)``, the bias of ``Wo``.
        output: ``(d_model,)``, the token's output; must equal
            ``pieces.sum(0) + bias``.
        token: the token's label, for the title.
    """
    pieces = as_matrix("pieces", pieces, 2)
    bias = as_matrix("bias", bias, 1)
    output = as_matrix("output", output, 1)
    n_heads, d_model = pieces.shape
    if n_heads > 8 or d_model > 12:
        raise ValueError(
            f"pieces can show at most 8 heads of 12 features, got shape {tuple(pieces.shape)}"
        )
    for name, vector in (("bias", bias), ("output", output)):
        if vector.numel() != d_model:
            raise ValueError(
                f"{name} must have d_model = {d_model} features like pieces, "
                f"got shape {tuple(vector.shape)}"
            )
    if not torch.allclose(pieces.sum(dim=0) + bias, output):
        raise ValueError(
            "output must equal pieces.sum(0) + bias; it holds other numbers"
        )

    rows = torch.cat([pieces, bias[None]])  # (n_heads + 1, d_model)
    limit = float(torch.cat([rows.flatten(), output]).abs().max()) or 1.0
    fig = BookFigure(figsize=(min(7.2, 0.62 * d_model + 2.4), 0.4 * n_heads + 2.0))
    fig.set_layout_engine("constrained")
    ax_sum, ax_out = fig.subplots(2, 1, height_ratios=[n_heads + 1, 1.0])
    heatmap(ax_sum, rows, -limit, limit, annotate=True, fontsize=9, cmap=CMAP)
    image = heatmap(
        ax_out, output[None], -limit, limit, annotate=True, fontsize=9, cmap=CMAP
    )
    labels = [f"head {h}" for h in range(n_heads)] + ["bias"]
    ax_sum.set_yticks(range(n_heads + 1), labels=labels, fontsize=9)
    ax_sum.set_xticks([])
    ax_sum.axhline(n_heads - 0.5, color="white", linewidth=2)
    ax_out.set_yticks([0], labels=["sum = output"], fontsize=9)
    ax_out.set_xticks(
        range(d_model), labels=[str(f) for f in range(d_model)], fontsize=9
    )
    ax_out.set_xlabel("output feature", fontsize=10)
    for ax in (ax_sum, ax_out):
        ax.tick_params(length=0)
    title = "What each head adds to the output"
    ax_sum.set_title(f"{title} of '{token}'" if token else title, fontsize=11)
    fig.colorbar(image, ax=[ax_sum, ax_out], label="value", shrink=0.9)
    return fig
