"""The figures of the chapters on scores, weighting the values and merging the heads."""

import math

import pytest
import torch
from matplotlib.figure import Figure

import mha
from mha.plotting import merge_heads_figure, softmax_saturation_figure, weighted_values_figure

D_KEYS = [2, 4, 8, 16]


def saturation_stats(gen: torch.Generator, n_keys: int = 10):
    score_std = torch.zeros(3, len(D_KEYS))
    max_prob = torch.zeros(3, len(D_KEYS))
    for i, d in enumerate(D_KEYS):
        q = torch.randn(200, 1, d, generator=gen)
        k = torch.randn(200, n_keys, d, generator=gen)
        s = (q @ k.transpose(-2, -1)).squeeze(1)
        for j, t in enumerate([s, s / math.sqrt(d), s / d]):
            score_std[j, i] = t.std()
            max_prob[j, i] = t.softmax(-1).amax(-1).mean()
    return score_std, max_prob


def lines_labels(ax) -> list[str]:
    return [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]


# --- softmax_saturation_figure ---------------------------------------------------------


def test_saturation_two_panels_with_one_line_per_scaling(gen):
    score_std, max_prob = saturation_stats(gen)
    fig = softmax_saturation_figure(D_KEYS, score_std, max_prob)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    ax_std, ax_max = fig.axes
    labels = ["unscaled", "÷ √d_key", "÷ d_key"]
    assert lines_labels(ax_std) == labels
    assert lines_labels(ax_max) == labels
    for ax in fig.axes:
        assert ax.get_xscale() == "log"
        assert "d_key" in ax.get_xlabel()
        assert [t.get_text() for t in ax.get_xticklabels()] == [str(d) for d in D_KEYS]
    assert "standard deviation" in ax_std.get_ylabel()
    assert "probability" in ax_max.get_ylabel()
    # The plotted points are the numbers given.
    unscaled = [line for line in ax_max.get_lines() if line.get_label() == "unscaled"][0]
    assert list(unscaled.get_ydata()) == pytest.approx(max_prob[0].tolist())


def test_saturation_curves_differ_in_greyscale(gen):
    fig = softmax_saturation_figure(D_KEYS, *saturation_stats(gen))
    lines = [line for line in fig.axes[1].get_lines() if not line.get_label().startswith("_")]
    assert len({line.get_marker() for line in lines}) == len(lines)
    assert len({str(line.get_linestyle()) for line in lines}) == len(lines)


def test_saturation_uniform_level_is_drawn(gen):
    fig = softmax_saturation_figure(D_KEYS, *saturation_stats(gen, n_keys=5), n_keys=5)
    texts = [t.get_text() for t in fig.axes[1].texts]
    assert "uniform (1/5)" in texts and "one-hot" in texts


def test_saturation_custom_labels(gen):
    score_std, max_prob = saturation_stats(gen)
    fig = softmax_saturation_figure(D_KEYS, score_std[:2], max_prob[:2], labels=["a", "b"])
    assert lines_labels(fig.axes[0]) == ["a", "b"]


def test_saturation_bad_input(gen):
    score_std, max_prob = saturation_stats(gen)
    with pytest.raises(ValueError, match="max_prob must have shape"):
        softmax_saturation_figure(D_KEYS, score_std, max_prob[:, :2])
    with pytest.raises(ValueError, match="score_std must have shape"):
        softmax_saturation_figure(D_KEYS[:3], score_std, max_prob)
    with pytest.raises(ValueError, match="d_keys must be a non-empty sequence of positive"):
        softmax_saturation_figure([2, 0, 8, 16], score_std, max_prob)
    with pytest.raises(TypeError, match="d_keys must be a sequence"):
        softmax_saturation_figure(torch.tensor(D_KEYS), score_std, max_prob)
    with pytest.raises(TypeError, match="score_std must be a torch.Tensor"):
        softmax_saturation_figure(D_KEYS, score_std.tolist(), max_prob)
    with pytest.raises(ValueError, match="max_prob must hold probabilities"):
        softmax_saturation_figure(D_KEYS, score_std, max_prob + 1)
    with pytest.raises(ValueError, match="n_keys must be a positive int"):
        softmax_saturation_figure(D_KEYS, score_std, max_prob, n_keys=0)


# --- weighted_values_figure --------------------------------------------------------------


def worked_row(ex):
    _, probs = ex.attention(ex.X, ex.X, ex.X)
    V = mha.split_heads(ex.attention.Wv(ex.X), ex.n_heads)
    return probs[0, 0, 2], V[0, 0]


def test_weighted_values_panels(ex):
    p, v = worked_row(ex)
    fig = weighted_values_figure(p, v, ex.tokens[0], "what")
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    ax_p, ax_v = fig.axes
    assert [t.get_text() for t in ax_p.get_yticklabels()] == ex.tokens[0]
    assert [bar.get_width() for bar in ax_p.patches] == pytest.approx(p.tolist())
    assert "probability" in ax_p.get_xlabel()
    assert ax_v.get_xlabel() and ax_v.get_ylabel()
    assert "'what'" in ax_p.get_title()
    # The star sits on the weighted average of the values.
    star = ax_v.collections[-1]
    assert star.get_offsets().tolist()[0] == pytest.approx((p @ v).tolist(), abs=1e-6)
    # Every value point is labelled with its token.
    assert [t.get_text() for t in ax_v.texts] == ex.tokens[0]


def test_weighted_values_bad_input(ex):
    p, v = worked_row(ex)
    with pytest.raises(ValueError, match=r"values must have shape \(k_len, 2\)"):
        weighted_values_figure(p, torch.zeros(6, 3), ex.tokens[0])
    with pytest.raises(ValueError, match="probs must be 1-D"):
        weighted_values_figure(p[None], v, ex.tokens[0])
    with pytest.raises(ValueError, match="key_tokens must label the 6 keys"):
        weighted_values_figure(p, v, ex.tokens[0][:5])
    with pytest.raises(ValueError, match="probs must hold probabilities"):
        weighted_values_figure(p * 10, v, ex.tokens[0])
    with pytest.raises(TypeError, match="values must be a torch.Tensor"):
        weighted_values_figure(p, v.tolist(), ex.tokens[0])


# --- merge_heads_figure ----------------------------------------------------------------


def test_merge_heads_cells_and_labels(gen):
    A = torch.randn(1, 4, 3, 2, generator=gen)  # (batch, n_heads, seq_len, d_key)
    merged = mha.merge_heads(A)  # (1, 3, 8)
    fig = merge_heads_figure(A[0, :, 1], merged[0, 1], token="cat")
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_title() == "Merging the heads of the token 'cat'"
    texts = [t.get_text() for t in ax.texts]
    for h in range(4):
        assert f"head {h}" in texts
        assert f"features {2 * h}–{2 * h + 1}" in texts
    # Each number appears twice: once in its head, once in the merged vector.
    for value in merged[0, 1].tolist():
        assert texts.count(f"{value:.2f}") >= 2
    assert len(ax.patches) == 2 * 8


def test_merge_heads_bad_input(gen):
    heads = torch.randn(4, 2, generator=gen)
    with pytest.raises(ValueError, match="merged must have n_heads \\* d_key = 8"):
        merge_heads_figure(heads, torch.zeros(6))
    with pytest.raises(ValueError, match="merged must hold the heads side by side"):
        merge_heads_figure(heads, heads.T.reshape(-1))
    with pytest.raises(ValueError, match="heads must be 2-D"):
        merge_heads_figure(heads.reshape(-1), heads.reshape(-1))
    with pytest.raises(TypeError, match="heads must be a torch.Tensor"):
        merge_heads_figure(heads.tolist(), heads.reshape(-1))
