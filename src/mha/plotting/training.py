"""Figures of training: the loss curve."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure

from mha._checks import check_number
from mha.plotting.core import COLOURS, BookFigure


def training_curve(losses: Sequence[float], title: str | None = None) -> Figure:
    """The training loss after every step, on a log scale, with a running mean.

    Args:
        losses: one loss value per training step.
        title: a title over the axes.
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
    fig = BookFigure(figsize=(6.0, 2.8), layout="constrained")
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
    ax.legend(fontsize=8, frameon=False)
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy loss")
    ax.grid(True, which="major", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=11)
    return fig
