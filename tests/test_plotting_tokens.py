"""mha.plotting.tokens: a padded batch as a grid of tokens."""

from __future__ import annotations

import pytest
import torch
from figures import fits_the_column

import mha
from mha import plotting


def test_token_grid_hatches_padding_and_keeps_its_label_readable():
    tokens = [["i", "wonder", "<pad>"], ["what", "will", "come"]]
    fig = plotting.token_grid(
        tokens, torch.tensor([[True, True, False], [True, True, True]])
    )
    (ax,) = fig.axes
    assert len(ax.patches) == 6
    assert sum(bool(patch.get_hatch()) for patch in ax.patches) == 1
    assert sorted(text.get_text() for text in ax.texts) == sorted(sum(tokens, []))
    # A <pad> label sits on an opaque white patch, the others on nothing.
    for text in ax.texts:
        box = text.get_bbox_patch()
        assert (box is not None and tuple(box.get_facecolor()) == (1, 1, 1, 1)) == (
            text.get_text() == "<pad>"
        )


@pytest.fixture
def grid():
    """``grid(sentences)``: the token grid of the running example's vocabulary."""
    vocab = mha.running_example().vocab

    def make(sentences):
        ids, is_token = vocab.encode_batch(sentences)
        return plotting.token_grid([vocab.decode(row) for row in ids], is_token)

    return make


def test_token_grid_has_one_cell_size_whatever_the_batch(grid):
    four = grid(["I wonder.", "What will come next?", "Hello!"])  # 4 positions
    six = grid(list(mha.SENTENCES))  # 6 positions
    (w4, h4), (w6, h6) = four.get_size_inches(), six.get_size_inches()
    assert w6 - w4 == pytest.approx(2.0)  # two more cells of 1 inch
    assert h4 == h6
    for fig in (four, six):
        fits_the_column(fig)
    fits_the_column(grid(["a " * 12]))  # 12 positions: cells shrink to stay in it


# Each row, a test (see conftest.py): the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.token_grid([["a"]], torch.ones(2, 3).bool()), ValueError, "tokens",
     "2 rows of 3 strings", "got rows of lengths [1]"),
    (lambda: plotting.token_grid([["a"]], [[True]]), TypeError, "is_token", "torch.Tensor",
     "got list"),
]  # fmt: skip
