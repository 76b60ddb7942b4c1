"""mha.plotting.training: the loss curve of a training run."""

from __future__ import annotations

import math

import torch
from figures import close, fits_the_column

from mha import plotting


def test_training_curve_draws_each_loss_and_a_geometric_running_mean():
    losses = [math.exp(-step / 50) * (1.5 if step % 2 else 1.0) for step in range(100)]
    fig = plotting.training_curve(losses, title="t")
    fits_the_column(fig)
    raw, smooth = fig.axes[0].lines
    close(raw.get_ydata(), torch.tensor(losses))
    window = 10  # a tenth of the steps (at most 25)
    means = [
        math.exp(sum(map(math.log, losses[i : i + window])) / window) for i in range(91)
    ]
    close(smooth.get_ydata(), torch.tensor(means))


# Each row, a test (see conftest.py): the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.training_curve([]), ValueError, "losses", "at least one value",
     "got an empty sequence"),
    (lambda: plotting.training_curve(None), TypeError, "losses", "a sequence of numbers",
     "got NoneType"),
    (lambda: plotting.training_curve([1.0, 0.0]), ValueError, "losses[i]", "positive number",
     "got 0.0"),
]  # fmt: skip
