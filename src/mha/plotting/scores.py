"""Figures of the scores: why they are divided by √d_key."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from mha._checks import as_matrix, check_int, check_number
from mha.plotting.figure import BookFigure
from mha.plotting.palette import COLOURS, line_style
from mha.plotting.screens import COLUMN_WIDTH, for_every_screen


@for_every_screen
def softmax_saturation_figure(
    d_keys: Sequence[int],
    score_std: torch.Tensor,
    max_prob: torch.Tensor,
    labels: Sequence[str] = ("unscaled", "/ √d_key", "/ d_key"),
    n_keys: int = 10,
    *,
    width: float | None = None,
) -> Figure:
    """Why the scores are divided by √d_key: two panels against ``d_key``.

    Left (on a phone, above), the standard deviation of the scores; right
    (below), the average largest probability of a softmax row
    (1 / ``n_keys`` = uniform, 1 = one-hot).

    Args:
        d_keys: the ``n`` sizes of the query and key vectors (x axis, log scale).
        score_std: ``(n_curves, n)``, the scores' standard deviation for each
            scaling (row) and each ``d_key`` (column).
        max_prob: ``(n_curves, n)``, the mean of each softmax row's largest
            probability, in [0, 1].
        labels: ``n_curves`` names of the scalings, for the legend.
        n_keys: how many keys each softmax row had (draws the uniform level).
        width: the figure's width in inches; ``None``: the text column's, and a
            phone's layout too (see `mha.plotting.screens`).
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

    width = COLUMN_WIDTH if width is None else check_number("width", width)
    phone = width < 5.5
    fig = BookFigure(figsize=(width, 6.6 if phone else 3.5), layout="constrained")
    ax_std, ax_max = fig.subplots(2, 1) if phone else fig.subplots(1, 2)
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
