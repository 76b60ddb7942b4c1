"""The two-neighbour task, the shared training loop, head removal, and the
figures and counts the chapters on trained heads and on costs added.

The shipped models are judged by their behaviour (accuracies, which heads
look where), never by their digits; nothing here retrains them.
"""

from __future__ import annotations

import pytest
import torch
from matplotlib.figure import Figure

import mha
from mha import cost, training


def _shipped(n_heads, seed=0):
    return training.trained_neighbours(n_heads, seed, torch.float64)


# --- The task -------------------------------------------------------------------------


def test_neighbours_batch_targets_both_neighbours():
    generator = torch.Generator().manual_seed(0)
    ids, targets = training.neighbours_batch(
        generator, 50, 7, first_id=2, vocab_size=16
    )
    assert ids.shape == (50, 7) and targets.shape == (50, 7, 2)
    assert ids.min() >= 2 and ids.max() < 16
    assert (targets[:, 0, 0] == training.IGNORE).all()  # no previous word at position 0
    assert (
        targets[:, -1, 1] == training.IGNORE
    ).all()  # no next word at the last position
    assert torch.equal(targets[:, 1:, 0], ids[:, :-1])
    assert torch.equal(targets[:, :-1, 1], ids[:, 1:])


@pytest.mark.parametrize(
    "make_batch", [training.neighbours_batch, training.previous_word_batch]
)
@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"batch_size": 0}, ValueError, r"batch_size must be an int >= 1, got 0"),
        ({"batch_size": 2.0}, TypeError, r"batch_size must be an int, got float"),
        ({"length": 1}, ValueError, r"length must be an int >= 2, got 1"),
        ({"first_id": -1}, ValueError, r"first_id must be an int >= 0, got -1"),
        ({"vocab_size": 2}, ValueError, r"vocab_size must be an int >= 3, got 2"),
    ],
)
def test_batches_reject_bad_arguments(make_batch, kwargs, error, pattern):
    args = {"batch_size": 4, "length": 5, "first_id": 2, "vocab_size": 16}
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        make_batch(torch.Generator().manual_seed(0), **args)


def test_neighbours_model_shapes():
    model = training.NeighboursModel(16, n_heads=4, dtype=torch.float64)
    logits, probs = model(torch.randint(2, 16, (3, 6)))
    assert logits.shape == (3, 6, 2, 16)
    assert probs.shape == (3, 4, 6, 6)


# --- The shipped weights: what they learned ---------------------------------------------


@pytest.mark.parametrize("n_heads", [2, 4])
@pytest.mark.parametrize("seed", training.NEIGHBOURS_SEEDS)
def test_several_heads_name_both_neighbours(n_heads, seed):
    learned = training.neighbours_behaviour(_shipped(n_heads, seed))
    assert learned["both"] > 0.95
    assert learned["previous_share"] > 0.8 and learned["next_share"] > 0.8
    assert learned["previous_head"] != learned["next_head"]


@pytest.mark.parametrize("n_heads", [1, 8])
def test_one_head_or_one_feature_per_head_gets_about_half(n_heads):
    for seed in training.NEIGHBOURS_SEEDS:
        learned = training.neighbours_behaviour(_shipped(n_heads, seed))
        assert learned["both"] < 0.6
        assert max(learned["previous_share"], learned["next_share"]) < 0.6


def test_the_chapters_model_heads_and_ablation():
    model = _shipped(4)
    learned = training.neighbours_behaviour(model)
    assert (learned["previous_head"], learned["next_head"]) == (3, 1)
    full = training.neighbours_accuracy(model)
    with training.without_head(model, 3):
        without_previous = training.neighbours_accuracy(model)
    with training.without_head(model, 1):
        without_next = training.neighbours_accuracy(model)
    assert without_previous["previous"] < 0.3 < 0.9 < without_previous["next"]
    assert without_next["next"] < 0.3 < 0.9 < without_next["previous"]
    assert (
        training.neighbours_accuracy(model) == full
    )  # the model is unchanged afterwards


def test_the_causal_mask_hides_the_next_word():
    masked = training.neighbours_accuracy(_shipped(4), mask=mha.causal_mask(6))
    assert masked["next"] < 0.15 and masked["previous"] > 0.9


def test_shipped_weights_load_in_float32_by_default():
    model = training.trained_neighbours()
    assert model.attention.Wq.weight.dtype == torch.float32
    assert not model.training and not any(p.requires_grad for p in model.parameters())


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"n_heads": 3}, ValueError, r"n_heads must be one of \(1, 2, 4, 8\), got 3"),
        ({"seed": 7}, ValueError, r"seed must be one of \(0, 1, 2, 3, 4\), got 7"),
        (
            {"dtype": torch.int64},
            TypeError,
            r"dtype must be a floating-point torch.dtype",
        ),
        (
            {"dtype": "float64"},
            TypeError,
            r"dtype must be a floating-point torch.dtype",
        ),
    ],
)
def test_trained_neighbours_rejects_bad_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        training.trained_neighbours(**kwargs)


def test_trained_model_rejects_a_bad_dtype():
    with pytest.raises(TypeError, match=r"dtype must be a floating-point torch.dtype"):
        training.trained_model(4, torch.int32)


# --- Measures -------------------------------------------------------------------------


def test_share_at_offset_of_known_maps():
    length = 5
    back = torch.diag(torch.ones(length - 1), -1)  # every query on the key before it
    ahead = torch.diag(torch.ones(length - 1), 1)  # every query on the key after it
    uniform = torch.full((length, length), 1.0 / length)
    maps = torch.stack([back, ahead, uniform])
    torch.testing.assert_close(
        training.share_at_offset(maps, -1), torch.tensor([1.0, 0.0, 1.0 / length])
    )
    torch.testing.assert_close(
        training.share_at_offset(maps, 1), torch.tensor([0.0, 1.0, 1.0 / length])
    )
    torch.testing.assert_close(
        training.previous_word_share(maps), training.share_at_offset(maps, -1)
    )


@pytest.mark.parametrize(
    ("attention", "offset", "error", "pattern"),
    [
        (
            torch.rand(4, 4),
            -1,
            ValueError,
            r"attention must have shape \(n_heads, L, L\)",
        ),
        (torch.rand(2, 3, 4), -1, ValueError, r"attention must be square"),
        (torch.rand(2, 3, 3), 3, ValueError, r"L >= 4 for offset 3, got \(2, 3, 3\)"),
        (torch.rand(2, 3, 3), 1.0, TypeError, r"offset must be an int, got float"),
        ([[0.5]], -1, ValueError, r"attention must have shape"),
    ],
)
def test_share_at_offset_rejects_bad_input(attention, offset, error, pattern):
    with pytest.raises(error, match=pattern):
        training.share_at_offset(attention, offset)


# --- Removing a head ------------------------------------------------------------------


def test_without_head_zeroes_that_heads_features_before_wo():
    torch.manual_seed(0)
    layer = mha.MultiHeadAttention(8, 4, dropout=0.0, dtype=torch.float64).eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    with training.without_head(layer, 2):
        out, probs = layer(x, x, x)
    Q, K, V = (mha.split_heads(w(x), 4) for w in (layer.Wq, layer.Wk, layer.Wv))
    A = mha.attention_probs(mha.scaled_dot_product(Q, K)) @ V  # (2, 4, 5, 2)
    A[:, 2] = 0.0
    torch.testing.assert_close(out, layer.Wo(mha.merge_heads(A)))
    torch.testing.assert_close(probs, layer(x, x, x)[1])  # the maps are still computed
    assert not layer.Wo._forward_pre_hooks  # the hook is gone after the block


@pytest.mark.parametrize(
    ("model", "head", "error", "pattern"),
    [
        ("layer", 4, ValueError, r"head must be an int in \[0, 3\], got 4"),
        ("layer", -1, ValueError, r"head must be an int in \[0, 3\], got -1"),
        ("layer", "0", TypeError, r"head must be an int, got str"),
        (
            torch.nn.Linear(2, 2),
            0,
            TypeError,
            r"model must be a mha.MultiHeadAttention",
        ),
    ],
)
def test_without_head_rejects_bad_arguments(model, head, error, pattern):
    if model == "layer":
        model = mha.MultiHeadAttention(8, 4, dropout=0.0)
    with pytest.raises(error, match=pattern), training.without_head(model, head):
        pass


# --- The loop -------------------------------------------------------------------------


def test_fit_returns_one_loss_per_step_and_lowers_it():
    torch.manual_seed(0)
    model = training.NeighboursModel(16, n_heads=2, dtype=torch.float32)
    generator = torch.Generator().manual_seed(1)

    def next_batch():
        return training.neighbours_batch(generator, 32, 5, 2, 16)

    with torch.enable_grad():
        losses = training.fit(model, next_batch, steps=30, lr=0.05)
    assert len(losses) == 30
    assert sum(losses[-5:]) < sum(losses[:5])


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"steps": 0}, ValueError, r"steps must be an int >= 1, got 0"),
        ({"lr": 0.0}, ValueError, r"lr must be a positive number, got 0.0"),
        ({"lr": "0.1"}, TypeError, r"lr must be a number, got str"),
    ],
)
def test_fit_rejects_bad_arguments(kwargs, error, pattern):
    args = {"steps": 2, "lr": 0.1}
    args.update(kwargs)
    model = training.PreviousWordModel(16, n_heads=2)
    with pytest.raises(error, match=pattern):
        training.fit(model, lambda: None, **args)


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"n_heads": 3}, ValueError, r"n_heads must be one of \(1, 2, 4, 8\), got 3"),
        ({"seed": -1}, ValueError, r"seed must be an int >= 0, got -1"),
        ({"batch_size": 0}, ValueError, r"batch_size must be an int >= 1, got 0"),
    ],
)
def test_train_neighbours_rejects_bad_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        training.train_neighbours(**kwargs)


# --- Costs: the KV cache ----------------------------------------------------------------


def test_kv_cache_bytes():
    assert cost.kv_cache_bytes(1, 8, 64) == 2 * 8 * 64 * 4
    assert cost.kv_cache_bytes(1, 8, 64) == 8 * cost.kv_cache_bytes(1, 1, 64)
    size = cost.kv_cache_bytes(4096, 8, 128, n_layers=32, dtype=torch.float16, batch=2)
    assert size == 2 * 2 * 32 * 4096 * 8 * 128 * 2
    K = torch.empty(
        3, 2, 10, 16
    )  # (batch, n_kv_heads, seq_len, d_key): keys; values as many
    assert (
        cost.kv_cache_bytes(10, 2, 16, batch=3) == 2 * K.element_size() * K.nelement()
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"seq_len": 0}, ValueError, r"seq_len must be an int >= 1, got 0"),
        ({"n_kv_heads": 1.5}, TypeError, r"n_kv_heads must be an int, got float"),
        ({"n_layers": 0}, ValueError, r"n_layers must be an int >= 1, got 0"),
        ({"dtype": "float16"}, TypeError, r"dtype must be a torch.dtype"),
    ],
)
def test_kv_cache_bytes_rejects_bad_arguments(kwargs, error, pattern):
    args = {"seq_len": 4, "n_kv_heads": 2, "d_key": 8}
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        cost.kv_cache_bytes(**args)


# --- Figures --------------------------------------------------------------------------


def test_key_plane_figure_draws_keys_query_and_scores():
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    query = torch.tensor([0.5, 0.5])
    scores = keys @ query
    fig = mha.plotting.key_plane_figure(
        [-1, 0, 1], keys, query, scores, absent=[-1], title="t"
    )
    assert isinstance(fig, Figure)
    plane, bars = fig.axes
    assert len(plane.collections) == 3 and len(bars.patches) == 3
    assert [t.get_text() for t in bars.get_xticklabels()] == ["-1", "0", "1"]
    assert bars.patches[0].get_hatch() == "///" and not bars.patches[1].get_hatch()
    assert fig.get_size_inches()[0] <= 7.2
    fig._repr_png_()


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        (
            {"keys": torch.zeros(3, 3)},
            ValueError,
            r"keys, query and scores must have shapes",
        ),
        (
            {"query": torch.zeros(3)},
            ValueError,
            r"keys, query and scores must have shapes",
        ),
        ({"scores": [1.0, 2.0, 3.0]}, TypeError, r"scores must be a torch.Tensor"),
        ({"positions": "abc"}, TypeError, r"positions must be a sequence of ints"),
        ({"absent": [5]}, ValueError, r"absent must list some of the positions"),
    ],
)
def test_key_plane_figure_rejects_bad_input(kwargs, error, pattern):
    args = {
        "positions": [-1, 0, 1],
        "keys": torch.zeros(3, 2),
        "query": torch.zeros(2),
        "scores": torch.zeros(3),
    }
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        mha.plotting.key_plane_figure(**args)


def test_timing_figure_relative_to_adds_a_ratio_panel():
    seconds = {"a": [1.0, 4.0, 16.0], "b": [2.0, 4.0, 8.0]}
    fig = mha.plotting.timing_figure(
        [64, 128, 256], seconds, relative_to="b", title="t"
    )
    times, ratios = fig.axes
    assert fig.get_size_inches()[0] <= 7.2
    assert list(ratios.lines[0].get_ydata()) == pytest.approx([0.5, 1.0, 2.0])
    assert list(ratios.lines[1].get_ydata()) == pytest.approx([1.0, 1.0, 1.0])
    assert len(times.lines) == 3  # two implementations and the slope line
    with pytest.raises(
        ValueError, match=r"relative_to must name one of the implementations"
    ):
        mha.plotting.timing_figure([64, 128, 256], seconds, relative_to="c")


def test_cost_figures_fit_the_text_column():
    lengths = [16, 32, 64, 128]
    fig = mha.plotting.cost_counts_figure(
        lengths, {"m": [1, 2, 3, 4]}, {"f": [1, 2, 3, 4]}
    )
    assert fig.get_size_inches()[0] <= 7.2
