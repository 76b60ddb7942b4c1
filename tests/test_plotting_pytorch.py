"""mha.plotting.pytorch: the weights of one query computed several ways, side by
side, where PyTorch's NaN must not read as a weight of 0."""

from __future__ import annotations

import pytest
import torch
from figures import close, fits_the_column, heatmaps, shown, texts
from matplotlib.colors import PowerNorm
from refusal import refuses, row_ids

import mha
from mha import plotting
from mha.plotting.palette import BLOCKED_HATCH, KEY_AXIS, QUERY_AXIS


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


def test_weights_panels_look_like_every_map_of_the_book(gen):
    """The square-root scale, the book's axis names, the keys each call
    blocked hatched (and named in the legend), a NaN written out."""
    causal = mha.causal_mask(3)
    right = torch.softmax(
        torch.randn(3, 3, generator=gen).masked_fill(~causal, float("-inf")), -1
    )
    inverted = torch.softmax(
        torch.randn(3, 3, generator=gen).masked_fill(causal, float("-inf")), -1
    )  # the last row: every key blocked, NaN
    fig = plotting.weights_panels(
        [right, inverted], list("abc"), list("abc"), ["right", "inverted"],
        masks=[causal, ~causal],
    )  # fmt: skip
    fits_the_column(fig)
    panels = heatmaps(fig)
    for ax in panels:
        assert isinstance(ax.images[0].norm, PowerNorm)
    assert [len(ax.patches) for ax in panels] == [3, 6]
    assert all(p.get_hatch() == BLOCKED_HATCH for ax in panels for p in ax.patches)
    assert texts(fig.legends[0].get_texts()) == ["blocked"]
    assert {t.get_text() for t in fig.texts} >= {QUERY_AXIS, KEY_AXIS}
    assert [t.get_text() for t in panels[1].texts].count("NaN") == 1
    # A mask that blocks a key some weight went to is the wrong mask.
    with pytest.raises(ValueError, match=r"masks\[1\] must block only keys"):
        plotting.weights_panels(
            [right, right], list("abc"), list("abc"), ["a", "b"], masks=[None, ~causal]
        )


Z = torch.zeros(6, 8)

# Each row, a case of the test below: the call, its error, and what the message
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
    (lambda: plotting.weights_panels([Z], ["a"] * 6, ["b"] * 8, ["x"], masks=[None, None]),
     ValueError, "masks", "a list of 1 masks (one per map, or None)", "got list of length 2"),
    (lambda: plotting.weights_panels([Z], ["a"] * 6, ["b"] * 8, ["x"],
                                     masks=[torch.ones(5, 8)]), ValueError,
     "masks[0]", "broadcastable to (n_heads, q_len, k_len) = (1, 6, 8)", "got shape (5, 8)"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
