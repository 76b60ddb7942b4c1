"""Figures of scaled dot-product attention: why √d_key, weighting the values
(merging the heads: :mod:`mha.plotting.merging`)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from mha._checks import check_int
from mha.plotting.core import (
    COLOURS,
    KEY_AXIS,
    PROBABILITY,
    BookFigure,
    as_matrix,
    check_labels,
    line_style,
)


def softmax_saturation_figure(
    d_keys: Sequence[int],
    score_std: torch.Tensor,
    max_prob: torch.Tensor,
    labels: Sequence[str] = ("unscaled", "÷ √d_key", "÷ d_key"),
    n_keys: int = 10,
) -> Figure:
    """Why the scores are divided by √d_key: two panels against ``d_key``.

    Left, the standard deviation of the scores; right, the average largest
    probability of a softmax row (1 / ``n_keys`` = uniform, 1 = one-hot).

    Args:
        d_keys: the ``n`` sizes of the query and key vectors (x axis, log scale).
        score_std: ``(n_curves, n)``, the scores' standard deviation for each
            scaling (row) and each ``d_key`` (column).
        max_prob: ``(n_curves, n)``, the mean of each softmax row's largest
            probability, in [0, 1].
        labels: ``n_curves`` names of the scalings, for the legend.
        n_keys: how many keys each softmax row had (draws the uniform level).
    """
    if (
        isinstance(d_keys, (str, bytes))
        or not isinstance(d_keys, Sequence)
        or not d_keys
    ):
        raise TypeError(f"d_keys must be a non-empty sequence of ints, got {d_keys!r}")
    for d in d_keys:
        check_int("d_keys[i]", d)
    score_std = as_matrix("score_std", score_std, 2)
    max_prob = as_matrix("max_prob", max_prob, 2)
    n_curves = len(labels)
    for name, values in (("score_std", score_std), ("max_prob", max_prob)):
        if tuple(values.shape) != (n_curves, len(d_keys)):
            raise ValueError(
                f"{name} must have shape (n_curves, n) = ({n_curves}, {len(d_keys)}) for "
                f"{n_curves} labels and {len(d_keys)} d_keys, got {tuple(values.shape)}"
            )
    check_int("n_keys", n_keys)
    if n_curves > len(COLOURS):
        raise ValueError(
            f"labels can name at most {len(COLOURS)} curves, got {n_curves}"
        )
    if bool((max_prob < 0).any()) or bool((max_prob > 1).any()):
        raise ValueError(
            f"max_prob must hold probabilities in [0, 1], got values from "
            f"{float(max_prob.min()):g} to {float(max_prob.max()):g}"
        )
    if bool((score_std <= 0).any()):
        raise ValueError(
            f"score_std must be positive (it is drawn on a log scale), got values from "
            f"{float(score_std.min()):g} to {float(score_std.max()):g}"
        )

    fig = BookFigure(figsize=(7.2, 3.5), layout="constrained")
    ax_std, ax_max = fig.subplots(1, 2)
    for i, label in enumerate(labels):
        style = dict(**line_style(i), linewidth=1.8, markersize=5, label=label)
        ax_std.plot(list(d_keys), score_std[i].tolist(), **style)
        ax_max.plot(list(d_keys), max_prob[i].tolist(), **style)
    for ax in (ax_std, ax_max):
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(d_keys), labels=[str(d) for d in d_keys], fontsize=9)
        ax.minorticks_off()
        ax.set_xlabel("d_key (size of a query or key)", fontsize=10)
        ax.grid(True, color="#dddddd", linewidth=0.6)
    ax_std.set_yscale("log", base=2)
    ax_std.yaxis.set_major_formatter(
        FuncFormatter(lambda v, _: f"{v:g}" if v >= 1 else f"1/{1 / v:g}")
    )
    ax_std.set_ylabel("standard deviation of the scores", fontsize=10)
    ax_std.set_title("Spread of the scores", fontsize=11)
    # Both notes sit at the left end, outside the curves: above the one-hot
    # line, and below the uniform line (every curve stays above 1 / n_keys).
    for level, text, where in (
        (1.0, "one-hot", "bottom"),
        (1.0 / n_keys, f"uniform (1/{n_keys})", "top"),
    ):
        ax_max.axhline(level, color="#555555", linewidth=1.0, linestyle=(0, (1, 1)))
        offset = 0.015 if where == "bottom" else -0.015
        ax_max.text(
            d_keys[0],
            level + offset,
            text,
            fontsize=9,
            color="#333333",
            va=where,
            ha="left",
        )
    ax_max.set_ylim(0.0, 1.1)
    ax_max.set_ylabel("mean largest probability of a row", fontsize=10)
    ax_max.set_title(f"How peaked the softmax is ({n_keys} keys)", fontsize=11)
    ax_max.legend(fontsize=9, loc="center right", framealpha=1.0)
    return fig


def weighted_values_figure(
    probs: torch.Tensor,
    values: torch.Tensor,
    key_tokens: Sequence[str],
    query_token: str = "query",
) -> Figure:
    """One query's output as a weighted average of the value vectors (d_key = 2).

    Left, the query's attention probabilities over the keys; right, the value
    vectors as points of the plane, each drawn with an area that grows with its
    probability, and their weighted average ``probs @ values`` as a star.

    Args:
        probs: ``(k_len,)``, one row of attention probabilities.
        values: ``(k_len, 2)``, the value vector of each key (one head, so
            ``d_key = 2`` in the running example).
        key_tokens: ``k_len`` labels.
        query_token: the query's label, for the titles.
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

    fig = BookFigure(figsize=(7.2, 4.2), layout="constrained")
    ax_p, ax_v = fig.subplots(1, 2, width_ratios=[1, 1.3])
    rows = list(range(k_len))
    ax_p.barh(rows, probs.tolist(), color=COLOURS[0], edgecolor="#222222", height=0.65)
    for j, p in enumerate(probs.tolist()):
        ax_p.text(p + 0.01, j, f"{p:.2f}", va="center", fontsize=9)
    ax_p.set_yticks(rows, labels=list(key_tokens), fontsize=10)
    ax_p.invert_yaxis()
    ax_p.set_xlim(0, min(1.0, float(probs.max()) + 0.15))
    ax_p.set_xlabel(f"{PROBABILITY} p_j", fontsize=10)
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
            label="value v_j (area ∝ p_j)" if j == 0 else None,
        )
    ax_v.scatter(
        [float(mixed[0])],
        [float(mixed[1])],
        marker="*",
        s=320,
        color=COLOURS[1],
        edgecolor="#222222",
        zorder=3,
        label=f"Σ p_j v_j (output for '{query_token}')",
    )
    ax_v.set_xlabel("feature 0 of the head", fontsize=10)
    ax_v.set_ylabel("feature 1 of the head", fontsize=10)
    ax_v.set_title("Values and their weighted average", fontsize=11)
    ax_v.margins(0.22)
    # Below the plane, where it cannot cover a point.
    ax_v.legend(
        fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2), markerscale=0.6
    )
    return fig
