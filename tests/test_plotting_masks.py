"""mha.plotting.masks: one mask as a grid of cells, or several side by side."""

from __future__ import annotations

import pytest
import torch
from figures import close, fits_the_column, shown

import mha
from mha import plotting

TOKENS = ["hello", "what", "is", "<pad>"]


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.float32])
def test_mask_figure_draws_blocked_cells_dark_and_hatched(dtype):
    mask = torch.tensor([[1, 1, 0, 0], [1, 0, 1, 0]]).to(dtype)
    fig = plotting.mask_figure(mask, TOKENS[:2], TOKENS, "a title")
    fits_the_column(fig)
    (ax,) = fig.axes
    close(shown(ax), mask)
    cells = [(round(p.get_x() + 0.5), round(p.get_y() + 0.5)) for p in ax.patches]
    assert sorted(cells) == [(1, 1), (2, 0), (3, 0), (3, 1)]  # (column, row), blocked


def test_mask_panels_one_panel_per_mask():
    causal = mha.causal_mask(4)
    padding = torch.tensor([True, True, True, False]).expand(4, 4)
    masks = [padding, causal, padding & causal]
    fig = plotting.mask_panels(masks, TOKENS, TOKENS, ["padding", "causal", "both"])
    fits_the_column(fig)
    assert [ax.get_title() for ax in fig.axes] == ["padding", "causal", "both"]
    for ax, mask in zip(fig.axes, masks, strict=True):
        close(shown(ax), mask)


# Each row, a test (see conftest.py): the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.mask_figure(torch.ones(1, 1, 4, 4), TOKENS, TOKENS), ValueError, "mask",
     "2-D (q_len, k_len)", "got shape (1, 1, 4, 4)"),
    (lambda: plotting.mask_figure(torch.full((4, 4), 0.5), TOKENS, TOKENS), ValueError, "mask",
     "only 0/False", "got the value 0.5"),
    (lambda: plotting.mask_figure(torch.ones(4, 4), TOKENS[:3], TOKENS), ValueError,
     "query_tokens and key_tokens", "label the 4 rows and 4 columns", "got 3 query"),
    (lambda: plotting.mask_panels([torch.ones(4, 4)] * 2, TOKENS, TOKENS, ["a"]), ValueError,
     "titles", "one title per mask (2)", "got ['a']"),
    (lambda: plotting.mask_panels(torch.ones(4, 4), TOKENS, TOKENS, ["a"]), TypeError, "masks",
     "non-empty list", "got Tensor"),
    (lambda: plotting.mask_panels([torch.ones(4, 4), torch.ones(3, 3)], TOKENS, TOKENS,
                                  ["a", "b"]), ValueError, "masks", "the same shape",
     "got shapes [(3, 3), (4, 4)]"),
    (lambda: plotting.mask_panels([torch.ones(1, 4, 4)], TOKENS, TOKENS, ["a"]), ValueError,
     "masks[0]", "2-D (q_len, k_len)", "got shape (1, 4, 4)"),
]  # fmt: skip
