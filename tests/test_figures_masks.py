"""mask_figure and mask_panels: masks drawn as allowed / blocked grids."""

import pytest
import torch
from matplotlib.figure import Figure

import mha

TOKENS = ["hello", "what", "is", "<pad>"]


def grid_axes(fig: Figure) -> list:
    return [ax for ax in fig.axes if ax.images]


def shown(ax) -> torch.Tensor:
    return torch.as_tensor(ax.images[0].get_array().data)


def legend_texts(fig: Figure) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def test_mask_figure_draws_the_mask():
    mask = mha.causal_mask(4)
    fig = mha.plotting.mask_figure(mask, TOKENS, TOKENS, "causal")
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1
    (ax,) = grid_axes(fig)
    assert ax.get_title() == "causal"
    assert [t.get_text() for t in ax.get_xticklabels()] == TOKENS
    assert [t.get_text() for t in ax.get_yticklabels()] == TOKENS
    assert ax.get_xlabel() == "key (attended to)"
    assert ax.get_ylabel() == "query (attending)"
    torch.testing.assert_close(shown(ax), mask.float(), check_dtype=False)
    # Every blocked cell carries a hatched patch, so it reads in greyscale too.
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == int((~mask).sum())
    assert legend_texts(fig) == ["may attend (True / 1)", "blocked (False / 0)"]


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.float32])
def test_mask_figure_accepts_bool_int_and_float(dtype):
    mask = mha.causal_mask(4).to(dtype)
    fig = mha.plotting.mask_figure(mask, TOKENS, TOKENS)
    torch.testing.assert_close(shown(fig.axes[0]), mha.causal_mask(4).float(), check_dtype=False)


def test_mask_figure_cross_attention_shape():
    mask = torch.ones(2, 4, dtype=torch.bool)
    fig = mha.plotting.mask_figure(mask, ["a", "b"], TOKENS)
    assert shown(fig.axes[0]).shape == (2, 4)


def test_mask_figure_bad_input():
    with pytest.raises(ValueError, match=r"mask must be 2-D \(q_len, k_len\), got shape"):
        mha.plotting.mask_figure(torch.ones(1, 1, 4, 4, dtype=torch.bool), TOKENS, TOKENS)
    with pytest.raises(TypeError, match="mask must be a torch.Tensor, got list"):
        mha.plotting.mask_figure([[True]], ["a"], ["a"])
    with pytest.raises(ValueError, match="only False/0"):
        mha.plotting.mask_figure(torch.full((4, 4), 0.5), TOKENS, TOKENS)
    with pytest.raises(ValueError, match="must label the 4 rows and 4 columns"):
        mha.plotting.mask_figure(mha.causal_mask(4), TOKENS[:3], TOKENS)


def test_mask_panels_side_by_side():
    ids = torch.tensor([[5, 6, 7, 0]])
    padding = mha.padding_mask(ids)[0, 0].expand(4, 4)
    causal = mha.causal_mask(4)
    masks = [padding, causal, padding & causal]
    titles = ["padding", "causal", "both"]
    fig = mha.plotting.mask_panels(masks, TOKENS, TOKENS, titles, suptitle="sentence 0")
    assert isinstance(fig, Figure)
    axes = grid_axes(fig)
    assert len(axes) == len(fig.axes) == 3
    assert fig.get_suptitle() == "sentence 0"
    for ax, mask, title in zip(axes, masks, titles, strict=True):
        assert ax.get_title() == title
        torch.testing.assert_close(shown(ax), mask.float(), check_dtype=False)
    assert legend_texts(fig) == ["may attend (True / 1)", "blocked (False / 0)"]


def test_mask_panels_bad_input():
    causal = mha.causal_mask(4)
    with pytest.raises(TypeError, match="masks must be a non-empty list"):
        mha.plotting.mask_panels(causal, TOKENS, TOKENS, ["a"])
    with pytest.raises(ValueError, match="one title per mask"):
        mha.plotting.mask_panels([causal, causal], TOKENS, TOKENS, ["a"])
    with pytest.raises(ValueError, match="masks must all have the same shape"):
        mha.plotting.mask_panels([causal, mha.causal_mask(3)], TOKENS, TOKENS, ["a", "b"])


def test_token_grid_labels_every_cell_and_keeps_padding_readable():
    """One cell per token; a ``<pad>`` label sits on an opaque white patch so the
    hatching of its cell does not run through the letters."""
    tokens = [["i", "wonder", "<pad>"], ["what", "will", "come"]]
    is_token = torch.tensor([[True, True, False], [True, True, True]])
    fig = mha.plotting.token_grid(tokens, is_token)
    ax = fig.axes[0]
    assert len(ax.patches) == 6
    labels = {(text.get_text(), text.get_position()): text for text in ax.texts}
    assert sorted(text for text, _ in labels) == sorted(sum(tokens, []))
    for text in ax.texts:
        patch = text.get_bbox_patch()
        if text.get_text() == "<pad>":
            assert patch is not None and patch.get_facecolor()[:3] == (1.0, 1.0, 1.0)
            assert patch.get_facecolor()[3] == 1.0
        else:
            assert patch is None
