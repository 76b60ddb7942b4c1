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


@pytest.mark.parametrize("weights", ["trained", "random"])
def test_float64_eval_mode_and_no_gradients(weights):
    """Computed in float64, in eval mode, without gradients."""
    ex = mha.running_example(weights=weights)
    assert ex.X.dtype == torch.float64 and ex.X.grad_fn is None
    for module in (ex.embed, ex.position, ex.attention):
        assert not module.training
        for tensor in [*module.parameters(), *module.buffers()]:
            assert tensor.dtype == torch.float64 and not tensor.requires_grad


def test_random_weights_are_drawn_in_float64():
    """Not rounded from float32 draws (which differ between processors in their
    last bit): most values are not float32 numbers."""
    weight = mha.running_example(weights="random").attention.Wq.weight
    assert not torch.equal(weight.float().double(), weight)


def test_the_trained_layer_is_the_shipped_previous_word_model(ex):
    """The embeddings and the layer are the previous-word model's, so two of
    its heads look one position back on the book's own sentences."""
    model = mha.training.load(mha.training.PREVIOUS_WORD, 4, dtype=torch.float64)
    assert same_weights(ex.attention, model.attention)
    assert torch.equal(ex.embed.lut.weight, model.embed.lut.weight)
    _, probs = ex.attention(ex.X, ex.X, ex.X)  # (3, 4, 6, 6)
    one_back = torch.stack([mha.training.share_at_offset(p, -1) for p in probs])
    assert one_back.max(dim=1).values.min() > 0.8  # a sharp head in every sentence
    random = mha.running_example(weights="random")
    _, flat = random.attention(random.X, random.X, random.X)
    assert flat.amax(dim=-1).mean() < probs.amax(dim=-1).mean() - 0.2


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
    random = mha.running_example(weights="random")
    assert not torch.equal(random.attention.Wq.weight, ex.attention.Wq.weight)
    other = mha.running_example(weights="random", seed=5)
    assert not torch.equal(other.attention.Wq.weight, random.attention.Wq.weight)
    assert same_weights(mha.running_example(seed=5).attention, ex.attention)


@pytest.mark.parametrize("n_heads", [1, 2, 8])
def test_another_head_count_keeps_the_weights_and_the_input(ex, n_heads):
    other = mha.running_example(n_heads=n_heads)
    assert (other.n_heads, other.d_key) == (n_heads, 8 // n_heads)
    assert torch.equal(other.X, ex.X)
    assert same_weights(other.attention, ex.attention)


@pytest.mark.parametrize(
    ("kwargs", "error", "names"),
    [
        ({"weights": "learned"}, ValueError, ["weights", "'trained'", "'learned'"]),
        ({"seed": "x"}, TypeError, ["seed", "int", "'x'"]),
        ({"seed": -1}, ValueError, ["seed", "-1"]),
        ({"n_heads": 3}, ValueError, ["n_heads", "3"]),
    ],
)
def test_bad_arguments_are_named(kwargs, error, names):
    with pytest.raises(error) as raised:
        mha.running_example(**kwargs)
    assert all(name in str(raised.value) for name in names)
