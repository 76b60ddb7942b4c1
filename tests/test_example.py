"""mha.example: the running example every chapter starts from."""

from __future__ import annotations

import math

import pytest
import torch

import mha
from mha.embedding import sinusoids


@pytest.fixture(scope="module")
def ex():
    return mha.running_example()


def test_three_sentences_of_six_tokens(ex):
    assert ex.sentences == mha.SENTENCES
    assert ex.tokens[2] == ["hello", "what", "is", "a", "basic", "split"]  # no comma
    assert [len(tokens) for tokens in ex.tokens] == [6, 6, 6]
    assert len(ex.vocab) == 16  # 14 different words, counted by hand, + <pad> + <unk>
    assert [ex.vocab.decode(row) for row in ex.ids] == ex.tokens
    assert (ex.d_model, ex.n_heads, ex.d_key) == (8, 4, 2)


def test_X_is_the_scaled_embedding_plus_the_position_code(ex):
    expected = ex.embed.lut.weight[ex.ids] * math.sqrt(8) + sinusoids(
        6, 8, torch.float64
    )
    assert ex.X.shape == (3, 6, 8)
    torch.testing.assert_close(ex.X, expected, atol=1e-12, rtol=0)


def test_float64_eval_mode_and_no_gradients(ex):
    """Drawn and computed in float64, in eval mode, without gradients."""
    assert ex.X.dtype == torch.float64 and ex.X.grad_fn is None
    for module in (ex.embed, ex.position, ex.attention):
        assert not module.training
        for tensor in [*module.parameters(), *module.buffers()]:
            assert tensor.dtype == torch.float64 and not tensor.requires_grad
    # Drawn in float64, not rounded from float32 draws (which differ between
    # processors in their last bit): most values are not float32 numbers.
    weight = ex.attention.Wq.weight
    assert not torch.equal(weight.float().double(), weight)


def same_weights(a, b) -> bool:
    """The two layers hold equal weights and biases, parameter by parameter."""
    pairs = zip(a.parameters(), b.parameters(), strict=True)
    return all(torch.equal(x, y) for x, y in pairs)


def test_the_same_example_whatever_ran_before(ex):
    torch.manual_seed(99)
    torch.randn(100)
    again = mha.running_example()
    assert torch.equal(again.X, ex.X)
    assert same_weights(again.attention, ex.attention)
    other = mha.running_example(seed=5)
    assert not torch.equal(other.attention.Wq.weight, ex.attention.Wq.weight)


@pytest.mark.parametrize("n_heads", [1, 2, 8])
def test_another_head_count_keeps_the_weights_and_the_input(ex, n_heads):
    other = mha.running_example(n_heads=n_heads)
    assert (other.n_heads, other.d_key) == (n_heads, 8 // n_heads)
    assert torch.equal(other.X, ex.X)
    assert same_weights(other.attention, ex.attention)
