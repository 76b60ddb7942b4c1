"""mha.plotting.pytorch: the weights of one query computed several ways, side by
side, where PyTorch's NaN must not read as a weight of 0."""

from __future__ import annotations

import torch
from figures import close, fits_the_column, heatmaps, shown

from mha import plotting


def test_weights_panels_mark_nan_cells_so_they_do_not_read_as_zero(gen):
    maps = torch.softmax(torch.randn(2, 3, 4, generator=gen), dim=-1)
    maps[1, 2] = float("nan")
    fig = plotting.weights_panels(maps, list("abc"), list("wxyz"), ["ours", "nn"])
    fits_the_column(fig)
    panels = heatmaps(fig)
    for ax, matrix in zip(panels, maps, strict=True):
        close(shown(ax), matrix, equal_nan=True)
    assert [len(ax.patches) for ax in panels] == [0, 4]  # white, not a colour
    # One "NaN" over the row (a cell is too narrow for the word).
    (nan,) = [text for text in panels[1].texts if text.get_text() == "NaN"]
    assert nan.get_position() == (1.5, 2)


Z = torch.zeros(6, 8)

# Each row, a test (see conftest.py): the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.weights_panels([Z, Z[:3]], ["a"], ["b"], ["x", "y"]), ValueError, "maps",
     "the same shape", "got shapes [(3, 8), (6, 8)]"),
    (lambda: plotting.weights_panels([Z], ["a"] * 6, ["b"] * 8, ["x", "y"]), ValueError,
     "titles", "one title per map (1)", "got ['x', 'y']"),
    (lambda: plotting.weights_panels([Z], ["a"] * 5, ["b"] * 8, ["x"]), ValueError,
     "query_tokens and key_tokens", "label the 6 rows and 8 columns of each map",
     "got 5 query and 8 key tokens"),
    (lambda: plotting.weights_panels("maps", ["a"], ["b"], ["x"]), TypeError, "maps",
     "non-empty list of (q_len, k_len) tensors", "got str"),
    (lambda: plotting.weights_panels([Z[None]], ["a"] * 6, ["b"] * 8, ["x"]), ValueError,
     "maps[0]", "2-D", "got shape (1, 6, 8)"),
]  # fmt: skip
