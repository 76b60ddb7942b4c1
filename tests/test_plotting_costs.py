"""mha.plotting.costs: memory and operation counts against the length, and
measured times with a reference slope."""

from __future__ import annotations

import pytest
import torch
from figures import close, fits_the_column
from refusal import refuses, row_ids

from mha import plotting

LENGTHS = [16, 32, 64, 128]
MEMORY = {
    "attention matrix": [4.0 * n * n for n in LENGTHS],
    "activations": [64.0 * n for n in LENGTHS],
}
FLOPS = {
    "projections": [8 * n * 64 * 64 for n in LENGTHS],
    "scores": [4 * n * n * 64 for n in LENGTHS],
}
SECONDS = {"a": [0.001, 0.002, 0.005, 0.02], "b": [0.001, 0.0015, 0.003, 0.008]}


def test_cost_counts_figure_draws_mebibytes_and_flops_on_log_log_axes():
    fig = plotting.cost_counts_figure(LENGTHS, MEMORY, FLOPS, crossover=64)
    fits_the_column(fig)
    memory, flops = fig.axes
    for ax in (memory, flops):
        assert ax.get_xscale() == ax.get_yscale() == "log"
    close(memory.lines[0].get_ydata(), torch.tensor(MEMORY["attention matrix"]) / 2**20)
    close(flops.lines[1].get_ydata(), torch.tensor(FLOPS["scores"]))
    assert list(flops.lines[2].get_xdata()) == [64, 64]  # the crossover


@pytest.mark.parametrize("slope", [1, 2])
def test_timing_figure_draws_milliseconds_and_a_reference_slope(slope):
    fig = plotting.timing_figure(LENGTHS, SECONDS, reference_slope=slope)
    fits_the_column(fig)
    (ax,) = fig.axes
    close(ax.lines[0].get_ydata(), torch.tensor(SECONDS["a"]) * 1000)
    reference = ax.lines[2].get_ydata()
    assert reference[-1] == pytest.approx(20.0)  # through a's last point
    assert reference[-1] / reference[-2] == pytest.approx(2**slope)


def test_timing_figure_relative_to_adds_a_ratio_panel():
    seconds = {"a": [1.0, 4.0, 16.0], "b": [2.0, 4.0, 8.0]}
    fig = plotting.timing_figure([64, 128, 256], seconds, relative_to="b", title="t")
    fits_the_column(fig)
    times, ratios = fig.axes
    assert list(ratios.lines[0].get_ydata()) == pytest.approx([0.5, 1.0, 2.0])
    assert list(ratios.lines[1].get_ydata()) == pytest.approx([1.0, 1.0, 1.0])
    assert len(times.lines) == 3  # two implementations and the slope line


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.cost_counts_figure(LENGTHS, MEMORY, FLOPS, crossover=1000), ValueError,
     "crossover", "between 16 and 128", "got 1000"),
    (lambda: plotting.cost_counts_figure([16, 8], MEMORY, FLOPS), ValueError, "lengths",
     "strictly increasing", "got [16, 8]"),
    (lambda: plotting.cost_counts_figure(LENGTHS, {"m": [1, 2]}, FLOPS), ValueError,
     "memory['m']", "one value per length (4)", "got 2"),
    (lambda: plotting.timing_figure(LENGTHS, SECONDS, reference_slope=0), ValueError,
     "reference_slope", "positive number", "got 0"),
    (lambda: plotting.timing_figure(LENGTHS[:3], {"a": [1.0] * 3}, relative_to="c"), ValueError,
     "relative_to", "one of the implementations ['a']", "got 'c'"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
