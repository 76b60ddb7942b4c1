"""Figures of training: the loss curve, and one trained head's keys in its plane."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure

from mha._checks import as_matrix, check_number
from mha.plotting.figure import BookFigure
from mha.plotting.palette import COLOURS
from mha.plotting.screens import (
    COLUMN_WIDTH,
    SMALLEST_TEXT,
    for_every_screen,
    plain_log_labels,
)


@for_every_screen
def training_curve(
    losses: Sequence[float], title: str | None = None, *, width: float | None = None
) -> Figure:
    """The training loss after every step, on a log scale, with a running mean.

    Args:
        losses: one loss value per training step.
        title: a title over the axes.
        width: the figure's width in inches; ``None``: 6 inches, and a phone's
            layout too (see `mha.plotting.screens`).
    """
    if isinstance(losses, (str, bytes)) or not isinstance(
        losses, (Sequence, torch.Tensor)
    ):
        raise TypeError(
            f"losses must be a sequence of numbers, got {type(losses).__name__}"
        )
    if len(losses) == 0:
        raise ValueError("losses must hold at least one value, got an empty sequence")
    losses = [check_number("losses[i] (a log scale)", float(v)) for v in losses]
    width = 6.0 if width is None else check_number("width", width)
    fig = BookFigure(figsize=(width, 2.8), layout="constrained")
    ax = fig.subplots()
    steps = list(range(1, len(losses) + 1))
    ax.plot(steps, list(losses), color="#9bb8d3", linewidth=0.8, label="each step")
    window = max(1, min(25, len(losses) // 10))
    values = torch.tensor(list(losses), dtype=torch.float64).log()
    smooth = values.unfold(0, window, 1).mean(dim=-1).exp()  # geometric running mean
    ax.plot(
        steps[window - 1 :],
        smooth.tolist(),
        color=COLOURS[0],
        linewidth=2.0,
        label=f"running mean of {window} steps",
    )
    ax.legend(fontsize=9, frameon=False)
    ax.set_yscale("log")
    plain_log_labels(ax.yaxis)
    ax.tick_params(labelsize=SMALLEST_TEXT)
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy loss")
    ax.grid(True, which="major", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=11)
    return fig


@for_every_screen
def key_plane_figure(
    positions: Sequence[int],
    keys: torch.Tensor,
    query: torch.Tensor,
    scores: torch.Tensor,
    *,
    absent: Sequence[int] = (),
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Where a head with ``d_key = 2`` looks: its keys in the plane, and one query's scores.

    Left, each position's key as a labelled point (not joined: keys that
    go round more than once would cross their own path), and the query as
    an arrow from the origin: the score of a key is the query's length times the
    key's length along the arrow (divided by √2). Right, the scores as bars,
    one per position.

    Args:
        positions: the ``n`` positions the keys belong to (labels).
        keys: ``(n, 2)``, one key per position.
        query: ``(2,)``, the query.
        scores: ``(n,)``, the query's score against each key.
        absent: positions that no sentence has (such as -1): drawn hollow,
            their bars hatched.
        title: a title over the figure.
        width: the figure's width in inches; ``None``: the text column's, and a
            phone's layout too (see `mha.plotting.screens`), the bars under
            the plane.
    """
    if isinstance(positions, (str, bytes)) or not isinstance(positions, Sequence):
        raise TypeError(
            f"positions must be a sequence of ints, got {type(positions).__name__}"
        )
    n = len(positions)
    keys = as_matrix("keys", keys, 2)
    query = as_matrix("query", query, 1)
    scores = as_matrix("scores", scores, 1)
    if (
        tuple(keys.shape) != (n, 2)
        or tuple(query.shape) != (2,)
        or tuple(scores.shape) != (n,)
    ):
        raise ValueError(
            f"keys, query and scores must have shapes ({n}, 2), (2,) and ({n},) for "
            f"{n} positions, got {tuple(keys.shape)}, {tuple(query.shape)} and "
            f"{tuple(scores.shape)}"
        )
    missing = [p for p in absent if p not in positions]
    if missing:
        raise ValueError(
            f"absent must list some of the positions {list(positions)}, got {missing}"
        )

    width = COLUMN_WIDTH if width is None else check_number("width", width)
    if width < 5.5:  # a phone: the bars under the plane
        fig = BookFigure(figsize=(width, 7.8), layout="constrained")
        plane, bars = fig.subplots(2, 1, gridspec_kw={"height_ratios": (1.5, 1)})
    else:
        fig = BookFigure(figsize=(width, 3.5), layout="constrained")
        plane, bars = fig.subplots(1, 2, gridspec_kw={"width_ratios": (1, 1.25)})
    limit = 1.2 * float(max(keys.abs().max(), query.abs().max()))
    plane.axhline(0, color="0.85", linewidth=0.8, zorder=0)
    plane.axvline(0, color="0.85", linewidth=0.8, zorder=0)
    for p, (x, y) in zip(positions, keys.tolist(), strict=True):
        hollow = p in absent
        plane.scatter(
            [x],
            [y],
            s=40,
            facecolors="white" if hollow else COLOURS[0],
            edgecolors=COLOURS[1] if hollow else COLOURS[0],
            linewidths=1.5,
            zorder=3,
        )
        radius = (x * x + y * y) ** 0.5 or 1.0
        plane.annotate(
            str(p),
            (x, y),
            xytext=(9 * x / radius, 9 * y / radius),
            textcoords="offset points",
            ha="center",
            va="center",
            fontsize=9,
            color=COLOURS[1] if hollow else "black",
        )
    qx, qy = query.tolist()
    plane.annotate(
        "",
        xy=(qx, qy),
        xytext=(0, 0),
        arrowprops={"arrowstyle": "-|>", "color": COLOURS[2], "linewidth": 1.8},
    )
    length = (qx * qx + qy * qy) ** 0.5 or 1.0
    plane.annotate(  # beside the arrow, a third of the way out, not on it
        "query",
        (qx / 3, qy / 3),
        xytext=(-10 * qy / length, 10 * qx / length),
        textcoords="offset points",
        color=COLOURS[2],
        fontsize=9,
        ha="center",
        va="center",
    )
    plane.set_xlim(-limit, limit)
    plane.set_ylim(-limit, limit)
    plane.set_aspect("equal")
    plane.set_xlabel("key feature 0", fontsize=9)
    plane.set_ylabel("key feature 1", fontsize=9)
    plane.tick_params(labelsize=9)
    plane.set_title("keys of positions, and the query", fontsize=10)

    colours = [COLOURS[1] if p in absent else COLOURS[0] for p in positions]
    drawn = bars.bar(
        range(n),
        scores.tolist(),
        color=[
            "white" if p in absent else c
            for p, c in zip(positions, colours, strict=True)
        ],
        edgecolor=colours,
        linewidth=1.2,
    )
    for patch, p in zip(drawn, positions, strict=True):
        if p in absent:
            patch.set_hatch("///")
    bars.axhline(0, color="0.5", linewidth=0.8)
    bars.set_xticks(range(n), labels=[str(p) for p in positions], fontsize=9)
    bars.set_xlabel("position of the key", fontsize=9)
    bars.set_ylabel("score", fontsize=9)
    bars.tick_params(axis="y", labelsize=9)
    bars.set_title("the query's score for each key", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
