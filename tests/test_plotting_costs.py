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


def test_cost_counts_figure_draws_mebibytes_and_flops_on_log_log_axes():
    fig = plotting.cost_counts_figure(LENGTHS, MEMORY, FLOPS, crossover=64)
    fits_the_column(fig)
    memory, flops = fig.axes
    for ax in (memory, flops):
        assert ax.get_xscale() == ax.get_yscale() == "log"
    close(memory.lines[0].get_ydata(), torch.tensor(MEMORY["attention matrix"]) / 2**20)
    close(flops.lines[1].get_ydata(), torch.tensor(FLOPS["scores"]))
    assert list(flops.lines[2].get_xdata()) == [64, 64]  # the crossover


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.cost_counts_figure(LENGTHS, MEMORY, FLOPS, crossover=1000), ValueError,
     "crossover", "between 16 and 128", "got 1000"),
    (lambda: plotting.cost_counts_figure([16, 8], MEMORY, FLOPS), ValueError, "lengths",
     "strictly increasing", "got [16, 8]"),
    (lambda: plotting.cost_counts_figure(LENGTHS, {"m": [1, 2]}, FLOPS), ValueError,
     "memory['m']", "one value per length (4)", "got 2"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
