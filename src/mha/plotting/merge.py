"""Figures of weighting and merging: one query's output as a weighted average of
the values, and the output projection of the merged heads as a sum over the heads."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure

from mha._checks import as_matrix, check_labels, check_number
from mha.plotting.figure import BookFigure
from mha.plotting.heatmap import heatmap
from mha.plotting.palette import (
    COLOURS,
    KEY_AXIS,
    PROBABILITY,
    SIGNED_CMAP,
    head_colour,
)
from mha.plotting.screens import COLUMN_WIDTH, for_every_screen


def _room(width: float | None) -> tuple[float, bool]:
    """(the figure's width in inches, whether it is a phone's layout)."""
    width = COLUMN_WIDTH if width is None else check_number("width", width)
    return width, width < 5.5


@for_every_screen
def weighted_values_figure(
    probs: torch.Tensor,
    values: torch.Tensor,
    key_tokens: Sequence[str],
    query_token: str = "query",
    *,
    width: float | None = None,
) -> Figure:
    """One query's output as a weighted average of the value vectors (d_key = 2).

    Left (on a phone, above), the query's attention probabilities over the
    keys; right (below), the value vectors as points of the plane, each drawn
    with an area that grows with its probability, and their weighted average
    ``probs @ values`` as a star.

    Args:
        probs: ``(k_len,)``, one row of attention probabilities.
        values: ``(k_len, 2)``, the value vector of each key (one head, so
            ``d_key = 2`` in the running example).
        key_tokens: ``k_len`` labels.
        query_token: the query's label, for the titles.
        width: the figure's width in inches; ``None``: the text column's, and a
            phone's layout too (see `mha.plotting.screens`).
    """
    probs = as_matrix("probs", probs, 1)
    values = as_matrix("values", values, 2)
    k_len = probs.size(0)
    if tuple(values.shape) != (k_len, 2):
        raise ValueError(
            f"values must have shape (k_len, 2) = ({k_len}, 2) to match the {k_len} "
            f"probabilities (the plane can show d_key = 2 only), got {tuple(values.shape)}"
        )
    check_labels("key_tokens", key_tokens, k_len, "keys")
    if bool((probs < 0).any()) or bool((probs > 1).any()):
        raise ValueError(
            f"probs must hold probabilities in [0, 1], got values from "
            f"{float(probs.min()):g} to {float(probs.max()):g}"
        )
    mixed = probs @ values  # (2,)

    width, phone = _room(width)
    if phone:
        fig = BookFigure(figsize=(width, 7.6), layout="constrained")
        ax_p, ax_v = fig.subplots(2, 1, height_ratios=[1, 1.6])
    else:
        fig = BookFigure(figsize=(width, 4.2), layout="constrained")
        ax_p, ax_v = fig.subplots(1, 2, width_ratios=[1, 1.3])
    rows = list(range(k_len))
    ax_p.barh(rows, probs.tolist(), color=COLOURS[0], edgecolor="#222222", height=0.65)
    for j, p in enumerate(probs.tolist()):
        ax_p.text(p + 0.01, j, f"{p:.2f}", va="center", fontsize=9)
    ax_p.set_yticks(rows, labels=list(key_tokens), fontsize=10)
    ax_p.invert_yaxis()
    ax_p.set_xlim(0, float(probs.max()) + 0.15)  # room for the largest one's number
    ax_p.set_xlabel(f"{PROBABILITY} $p_j$", fontsize=10)
    ax_p.set_ylabel(KEY_AXIS, fontsize=10)
    ax_p.set_title(f"Weights of the query '{query_token}'", fontsize=11)

    ax_v.axhline(0, color="#bbbbbb", linewidth=0.8)
    ax_v.axvline(0, color="#bbbbbb", linewidth=0.8)
    # Each label goes on the far side of its point from the star, so that no
    # label hides under the star: along the direction star → point, measured
    # in units of the plotted range of each axis.
    span = (values.amax(dim=0) - values.amin(dim=0)).clamp(min=1e-9)  # (2,)
    for j, ((x, y), p) in enumerate(zip(values.tolist(), probs.tolist(), strict=True)):
        dx, dy = ((values[j] - mixed) / span).tolist()
        norm = (dx * dx + dy * dy) ** 0.5 or 1.0
        dx, dy = dx / norm, dy / norm
        radius = (60 + 900 * p) ** 0.5 / 2 + 4  # points: the marker's radius and a gap
        ax_v.annotate(
            key_tokens[j],
            (x, y),
            xytext=(radius * dx, radius * dy),
            textcoords="offset points",
            fontsize=9,
            ha="left" if dx > 0.35 else "right" if dx < -0.35 else "center",
            va="bottom" if dy > 0.35 else "top" if dy < -0.35 else "center",
        )
        ax_v.plot(
            [mixed[0], x],
            [mixed[1], y],
            color="#999999",
            linewidth=0.8,
            linestyle="--",
            zorder=1,
        )
        ax_v.scatter(
            [x],
            [y],
            s=60 + 900 * p,
            color=COLOURS[5],
            edgecolor="#222222",
            zorder=2,
            label=r"value $v_j$ (area ∝ $p_j$)" if j == 0 else None,
        )
    ax_v.scatter(
        [float(mixed[0])],
        [float(mixed[1])],
        marker="*",
        s=320,
        color=COLOURS[1],
        edgecolor="#222222",
        zorder=3,
        label=rf"$\Sigma_j\, p_j v_j$ (the head's result for '{query_token}')",
    )
    ax_v.set_xlabel("feature 0 of the head", fontsize=10)
    ax_v.set_ylabel("feature 1 of the head", fontsize=10)
    ax_v.set_title("Values and their weighted average", fontsize=11)
    ax_v.margins(0.22)
    # Below the plane, where it cannot cover a point.
    ax_v.legend(
        fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2), markerscale=0.6
    )
    _separate(fig, ax_v.texts)
    return fig


def _separate(fig: Figure, labels: list) -> None:
    """Move each label that covers an earlier one up or down, away from it,
    until it covers none (two values close together would print their words
    one over the other)."""
    fig.draw_without_rendering()
    to_points = 72 / fig.dpi
    for i, label in enumerate(labels):
        for _ in range(len(labels)):
            box = label.get_window_extent()
            hit = next(
                (o for o in labels[:i] if box.overlaps(o.get_window_extent())), None
            )
            if hit is None:
                break
            other = hit.get_window_extent()
            if box.y0 + box.y1 < other.y0 + other.y1:  # below it: further down
                shift = other.y0 - box.y1 - 1
            else:
                shift = other.y1 - box.y0 + 1
            x, y = label.xyann
            label.xyann = (x, y + shift * to_points)


@for_every_screen
def head_contributions_figure(
    pieces: torch.Tensor,
    bias: torch.Tensor,
    output: torch.Tensor,
    token: str = "",
    *,
    width: float | None = None,
) -> Figure:
    """The output projection as a sum over heads, for one token.

    ``Wo`` applied to the merged heads equals a sum: each head ``h`` writes
    ``A_h @ Wo.weight[:, h*d_key:(h+1)*d_key].T``, a vector of ``d_model``
    numbers, and the bias is added once. One row per head (in its colour) and
    one for the bias, then their sum, the token's output. Each value is
    printed in its cell, on one colour scale centred on 0. On a phone the
    figure is turned a quarter: one column per head, the bias and the sum, one
    row per feature.

    Args:
        pieces: ``(n_heads, d_model)``, what each head adds to the token's output.
        bias: ``(d_model,)``, the bias of ``Wo``.
        output: ``(d_model,)``, the token's output; must equal
            ``pieces.sum(0) + bias``.
        token: the token's label, for the title.
        width: the figure's width in inches; ``None``: the text column's (or
            less), and a phone's layout too (see `mha.plotting.screens`).
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
    labels = [f"head {h}" for h in range(n_heads)] + ["bias"]
    width, phone = _room(
        min(COLUMN_WIDTH, 0.62 * d_model + 2.4) if width is None else width
    )
    title = "What each head adds to the output"
    title = f"{title} of '{token}'" if token else title
    if phone:
        fig = BookFigure(figsize=(width, 0.36 * d_model + 2.2), layout="constrained")
        ax_sum, ax_out = fig.subplots(1, 2, width_ratios=[n_heads + 1, 1.4])
        heatmap(ax_sum, rows.T, -limit, limit, cmap=SIGNED_CMAP, annotate=True)
        image = heatmap(
            ax_out, output[:, None], -limit, limit, cmap=SIGNED_CMAP, annotate=True
        )
        ax_sum.set_xticks(
            range(n_heads + 1), labels=[label.replace("head ", "") for label in labels],
            fontsize=9,
        )  # fmt: skip
        ax_sum.set_xlabel("head (or bias)", fontsize=9)
        ax_sum.set_yticks(
            range(d_model), labels=[str(f) for f in range(d_model)], fontsize=9
        )
        ax_sum.set_ylabel("output feature", fontsize=10)
        ax_sum.axvline(n_heads - 0.5, color="#333333", linewidth=1.5)
        ax_out.set_xticks([0], labels=["sum"], fontsize=9)
        ax_out.set_xlabel("= output", fontsize=9)
        ax_out.set_yticks([])
        head_labels = ax_sum.get_xticklabels()[:n_heads]
        fig.suptitle(title, fontsize=10)
        bar = {"location": "bottom", "shrink": 0.8, "aspect": 30}
    else:
        fig = BookFigure(figsize=(width, 0.4 * n_heads + 2.0), layout="constrained")
        ax_sum, ax_out = fig.subplots(2, 1, height_ratios=[n_heads + 1, 1.0])
        heatmap(ax_sum, rows, -limit, limit, cmap=SIGNED_CMAP, annotate=True)
        image = heatmap(
            ax_out, output[None], -limit, limit, cmap=SIGNED_CMAP, annotate=True
        )
        ax_sum.set_yticks(range(n_heads + 1), labels=labels, fontsize=9)
        ax_sum.set_xticks([])
        ax_sum.axhline(n_heads - 0.5, color="#333333", linewidth=1.5)
        ax_out.set_yticks([0], labels=["sum = output"], fontsize=9)
        ax_out.set_xticks(
            range(d_model), labels=[str(f) for f in range(d_model)], fontsize=9
        )
        ax_out.set_xlabel("output feature", fontsize=10)
        head_labels = ax_sum.get_yticklabels()[:n_heads]
        ax_sum.set_title(title, fontsize=11)
        bar = {"shrink": 0.9}
    for h, label in enumerate(head_labels):
        label.set_color(head_colour(h))
        label.set_fontweight("bold")
    for ax in (ax_sum, ax_out):
        ax.tick_params(length=0)
    fig.colorbar(image, ax=[ax_sum, ax_out], label="value", **bar)
    return fig
