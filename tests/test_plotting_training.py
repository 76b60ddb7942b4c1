"""mha.plotting.training: the loss curve of a training run, and where a head looks."""

from __future__ import annotations

import math

import pytest
import torch
from figures import close, fits_the_column
from refusal import refuses, row_ids

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


def test_key_plane_figure_draws_keys_query_and_scores():
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    query = torch.tensor([0.5, 0.5])
    fig = plotting.key_plane_figure(
        [-1, 0, 1], keys, query, keys @ query, absent=[-1], title="t"
    )
    fits_the_column(fig)
    plane, bars = fig.axes
    assert len(plane.collections) == 3 and len(bars.patches) == 3
    # The keys as points, not joined (the two axes' lines are the only lines).
    assert len(plane.lines) == 2
    points = torch.cat([torch.tensor(c.get_offsets()) for c in plane.collections])
    close(points, keys)
    close([bar.get_height() for bar in bars.patches], keys @ query)
    # The query's label sits beside its arrow, not on it.
    fig.draw_without_rendering()
    (label,) = [t for t in plane.texts if t.get_text() == "query"]
    box = label.get_window_extent()
    for share in torch.linspace(0.1, 1.0, 10).tolist():
        x, y = plane.transData.transform((share * 0.5, share * 0.5))
        assert not box.contains(x, y), share
    assert [t.get_text() for t in bars.get_xticklabels()] == ["-1", "0", "1"]
    assert bars.patches[0].get_hatch() == "///" and not bars.patches[1].get_hatch()


Z = torch.zeros(6, 8)


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.training_curve([]), ValueError, "losses", "at least one value",
     "got an empty sequence"),
    (lambda: plotting.training_curve(None), TypeError, "losses", "a sequence of numbers",
     "got NoneType"),
    (lambda: plotting.training_curve([1.0, 0.0]), ValueError, "losses[i]", "positive number",
     "got 0.0"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :3], Z[0, :2], Z[0, :3]), ValueError,
     "keys, query and scores", "shapes (3, 2), (2,) and (3,)", "got (3, 3), (2,) and (3,)"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :2], Z[0, :3], Z[0, :3]), ValueError,
     "keys, query and scores", "shapes (3, 2), (2,) and (3,)", "got (3, 2), (3,) and (3,)"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :2], Z[0, :2], [1.0, 2.0, 3.0]),
     TypeError, "scores", "torch.Tensor", "got list"),
    (lambda: plotting.key_plane_figure("abc", Z[:3, :2], Z[0, :2], Z[0, :3]), TypeError,
     "positions", "a sequence of ints", "got str"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :2], Z[0, :2], Z[0, :3], absent=[5]),
     ValueError, "absent", "some of the positions [-1, 0, 1]", "got [5]"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
