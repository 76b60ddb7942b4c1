"""mha.training: the previous-word task and the shipped weights, judged by what
they do (never by equality with retrained weights: training amplifies the
last-bit differences between processors; the chapter trains, nbval checks it)."""

from __future__ import annotations

import pytest
import torch

from mha import training


def test_the_target_of_each_word_is_the_word_before():
    generator = torch.Generator().manual_seed(0)
    ids, targets = training.previous_word_batch(
        generator, 50, 7, first_id=2, vocab_size=16
    )
    assert ids.shape == targets.shape == (50, 7)
    assert ids.min() >= 2 and ids.max() < 16  # no <pad>, no <unk>
    assert (targets[:, 0] == training.IGNORE).all()
    assert torch.equal(targets[:, 1:], ids[:, :-1])


def test_previous_word_share_scores_a_perfect_head_1_and_a_uniform_one_1_over_L():
    perfect = torch.eye(5).roll(
        -1, dims=1
    )  # row i attends to i - 1 (row 0 to the last)
    uniform = torch.full((5, 5), 1 / 5)
    share = training.previous_word_share(torch.stack([perfect, uniform]))
    torch.testing.assert_close(share, torch.tensor([1.0, 1 / 5]))


@pytest.mark.parametrize("n_heads", training.HEAD_COUNTS)
def test_the_shipped_models_learned_what_their_width_allows(n_heads):
    """1, 2 and 4 heads copy the previous word, with a head that looks at it;
    8 heads of d_key = 1 cannot find the previous word."""
    learned = training.behaviour(training.trained_model(n_heads))
    if n_heads == 8:
        assert learned["accuracy"] < 0.9
    else:
        assert learned["accuracy"] > 0.99
        assert learned["share"] > 0.6


def test_the_float64_model_predicts_what_the_float32_model_predicts():
    model32, model64 = (
        training.trained_model(4),
        training.trained_model(4, torch.float64),
    )
    assert all(p.dtype == torch.float64 for p in model64.parameters())
    for model in (model32, model64):
        assert not model.training and not any(
            p.requires_grad for p in model.parameters()
        )
    ids, _ = training.previous_word_batch(
        torch.Generator().manual_seed(3), 200, 8, 2, 16
    )
    logits32, probs32 = model32(ids)
    logits64, probs64 = model64(ids)
    predicted32, predicted64 = logits32.argmax(-1), logits64.argmax(-1)
    assert torch.equal(
        predicted32[:, 1:], predicted64[:, 1:]
    )  # position 0 has no target
    torch.testing.assert_close(probs64.float(), probs32, atol=1e-4, rtol=0)


BAD_INPUT = [
    (lambda: training.trained_model(3), ValueError, "n_heads", "one of (1, 2, 4, 8)", "got 3"),
    (lambda: training.previous_word_share(torch.rand(4, 4)), ValueError, "attention",
     "(n_heads, L, L)", "got (4, 4)"),
    (lambda: training.previous_word_share(torch.rand(2, 3, 4)), ValueError, "attention",
     "square with L >= 2", "got (2, 3, 4)"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "name", "expected", "given"), BAD_INPUT)
def test_bad_input_is_refused_with_a_clear_message(
    fails_with, call, error, name, expected, given
):
    fails_with(call, error, name, expected, given)
