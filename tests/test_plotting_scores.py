"""mha.plotting.scores: why the scores are divided by √d_key."""

from __future__ import annotations

import math

import pytest
import torch
from figures import close, fits_the_column
from refusal import refuses, row_ids

from mha import plotting


def saturation(n_keys: int = 10):
    """What the chapter measures: for each d_key, the spread of the scores and
    how peaked the softmax is, unscaled, divided by √d_key and by d_key."""
    gen = torch.Generator().manual_seed(0)
    d_keys = [2, 8, 32, 128, 512]
    score_std, max_prob = torch.zeros(3, 5), torch.zeros(3, 5)
    for i, d in enumerate(d_keys):
        keys = torch.randn(500, n_keys, d, generator=gen)
        s = (keys @ torch.randn(500, d, 1, generator=gen)).squeeze(-1)  # (500, n_keys)
        for j, t in enumerate([s, s / math.sqrt(d), s / d]):
            score_std[j, i] = t.std()
            max_prob[j, i] = t.softmax(-1).amax(-1).mean()
    return d_keys, score_std, max_prob


def test_softmax_saturation_figure_draws_each_scaling(gen):
    std, peak = torch.rand(2, 3, 4, generator=gen) + 0.1
    left, right = plotting.softmax_saturation_figure(
        [1, 4, 16, 64], std, peak / 1.1
    ).axes
    for i in range(3):
        close(left.lines[i].get_ydata(), std[i])
        close(right.lines[i].get_ydata(), peak[i] / 1.1)


def test_softmax_saturation_notes_are_off_the_curves():
    fig = plotting.softmax_saturation_figure(*saturation())
    fits_the_column(fig)  # also lays the figure out
    ax = fig.axes[1]
    for text in ax.texts:
        box = text.get_window_extent().padded(8)  # pixels of clear space around it
        for line in ax.get_lines()[:3]:  # the curves, straight between their points
            points = torch.tensor(ax.transData.transform(line.get_xydata()))  # (n, 2)
            steps = torch.linspace(0, 1, 50)[:, None, None]
            on_line = (points[:-1] + steps * (points[1:] - points[:-1])).reshape(-1, 2)
            assert not any(box.contains(x, y) for x, y in on_line.tolist()), (
                text.get_text()
            )


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.softmax_saturation_figure([1, 2], torch.ones(3, 2), torch.full((3, 2), 2.0)),
     ValueError, "max_prob", "probabilities in [0, 1]", "got values from 2 to 2"),
    (lambda: plotting.softmax_saturation_figure([1, 2], torch.zeros(3, 2), torch.ones(3, 2)),
     ValueError, "score_std", "positive", "got values from 0 to 0"),
    (lambda: plotting.softmax_saturation_figure([1, 2], torch.ones(2, 2), torch.ones(2, 2)),
     ValueError, "score_std", "(n_curves, n) = (3, 2)", "got (2, 2)"),
    (lambda: plotting.softmax_saturation_figure([], torch.ones(3, 0), torch.ones(3, 0)),
     TypeError, "d_keys", "non-empty sequence of ints", "got []"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
