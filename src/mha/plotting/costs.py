"""Figures of what attention costs: counts and timings against the sequence length."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from matplotlib.figure import Figure

from mha._checks import check_number
from mha.plotting.figure import BookFigure
from mha.plotting.palette import COLOURS, line_style
from mha.plotting.screens import (
    COLUMN_WIDTH,
    SMALLEST_TEXT,
    for_every_screen,
    plain_log_labels,
)


def _lengths(lengths: Sequence[int]) -> list[float]:
    if (
        isinstance(lengths, (str, bytes))
        or not isinstance(lengths, Sequence)
        or not lengths
    ):
        raise TypeError(
            f"lengths must be a non-empty list of sequence lengths, "
            f"got {type(lengths).__name__} {lengths!r}"
        )
    values = [check_number("lengths[i]", value) for value in lengths]
    if any(b <= a for a, b in zip(values, values[1:], strict=False)):
        raise ValueError(f"lengths must be strictly increasing, got {list(lengths)!r}")
    return values


def _series(name: str, series: object, n: int) -> dict[str, list[float]]:
    if not isinstance(series, Mapping) or not series:
        raise TypeError(
            f"{name} must be a non-empty dict {{label: values}}, got {type(series).__name__}"
        )
    if len(series) > len(COLOURS):
        raise ValueError(
            f"{name} can hold at most {len(COLOURS)} lines, got {len(series)}"
        )
    checked = {}
    for label, values in series.items():
        values = values.tolist() if isinstance(values, torch.Tensor) else values
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise TypeError(
                f"{name}[{label!r}] must be a list of numbers, got {type(values).__name__}"
            )
        if len(values) != n:
            raise ValueError(
                f"{name}[{label!r}] must hold one value per length ({n}), got {len(values)}"
            )
        checked[str(label)] = [
            check_number(f"{name}[{label!r}][i] (log scale)", v) for v in values
        ]
    return checked


def _panel(
    ax, lengths: list[float], series: dict[str, list[float]], ylabel: str, title: str
) -> None:
    for i, (label, values) in enumerate(series.items()):
        ax.plot(
            lengths, values, **line_style(i), linewidth=1.6, markersize=5, label=label
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(lengths, labels=[f"{v:g}" for v in lengths], fontsize=9)
    ax.minorticks_off()
    ax.set_xlabel("sequence length L", fontsize=10)
    ax.set_ylabel(ylabel, fontsize=10)
    ax.set_title(title, fontsize=10)
    plain_log_labels(ax.yaxis)  # 1k, 1M: no exponent at 70% of the label's size
    ax.tick_params(axis="y", labelsize=SMALLEST_TEXT)
    ax.grid(True, which="major", alpha=0.3)


def _room(width: float | None) -> tuple[float, bool]:
    """(the figure's width in inches, whether it is a phone's layout)."""
    width = COLUMN_WIDTH if width is None else check_number("width", width)
    return width, width < 5.5


@for_every_screen
def cost_counts_figure(
    lengths: Sequence[int],
    memory: dict[str, Sequence[float]],
    flops: dict[str, Sequence[float]],
    *,
    crossover: float | None = None,
    width: float | None = None,
) -> Figure:
    """Memory and FLOPs against the sequence length, on log–log axes, side by side.

    On log–log axes a count proportional to ``L^k`` is a straight line of
    slope ``k``: linear growth and quadratic growth are told apart by their slopes.

    Args:
        lengths: ``n`` increasing sequence lengths ``L`` (the x axis, base 2).
        memory: ``{label: n byte counts}``, e.g. the attention matrix and the
            ``(batch, L, d_model)`` activations; drawn in MiB.
        flops: ``{label: n FLOP counts}``, e.g. the projections and the
            scores + weighting.
        crossover: a length to mark with a vertical line on the FLOP panel
            (where the two FLOP curves cross), or ``None``.
        width: the figure's width in inches; ``None``: the text column's, and a
            phone's layout too (see `mha.plotting.screens`), one panel above
            the other.

    Returns:
        A figure with two axes, memory on the left (above) and FLOPs on the
        right (below), each with a legend.
    """
    xs = _lengths(lengths)
    memory = _series("memory", memory, len(xs))
    flops = _series("flops", flops, len(xs))
    if crossover is not None:
        check_number("crossover", crossover)
        if not xs[0] <= crossover <= xs[-1]:
            raise ValueError(
                f"crossover must be a length between {xs[0]:g} and {xs[-1]:g}, got {crossover!r}"
            )
    width, phone = _room(width)
    fig = BookFigure(figsize=(width, 6.8 if phone else 3.6), layout="constrained")
    left, right = fig.subplots(2, 1) if phone else fig.subplots(1, 2)
    mib = {label: [v / 2**20 for v in values] for label, values in memory.items()}
    _panel(left, xs, mib, "memory (MiB)", "memory of one tensor")
    _panel(right, xs, flops, "FLOPs per sequence", "floating-point operations")
    if crossover is not None:
        right.axvline(crossover, color="0.35", linestyle=":", linewidth=1.2)
        right.annotate(
            f"L = {crossover:g}",
            (crossover, 0.04),
            xycoords=("data", "axes fraction"),
            xytext=(4, 0),
            textcoords="offset points",
            fontsize=9,
            color="0.25",
        )
    for ax in (left, right):
        ax.legend(fontsize=9, loc="upper left")
        # Every other length, so that the labels of a narrow panel do not touch.
        if len(xs) > 6:
            ax.set_xticks(xs[::2], labels=[f"{v:g}" for v in xs[::2]], fontsize=9)
    return fig
