"""The explorer of a two-layer model: its reading is the model's own forward
pass on its residual stream, causal in both layers, and a mistake in its
arguments is named."""

from __future__ import annotations

import pytest
import torch

import mha
from mha import training
from mha.explorer import models
from mha.explorer.models import padded, reading, weights_data


def test_the_two_layer_model_is_explored_on_its_stream_causal_in_both_layers():
    two = training.load(training.FRONTED, 4, 0, n_layers=2)
    one = training.load(training.FRONTED, 4, 0)
    choice, found = models.networks(
        {"one layer": one, "two layers": two}, training.FRONTED, ("trained",), (4,)
    )
    assert choice == "Model:"
    network, plain = found["two layers"][4], found["one layer"][4]
    assert (network.residual, network.causal) == (True, True)
    assert (plain.residual, plain.causal) == (False, False)
    assert network.at == ("be",) and network.answers == ("verb",)
    tokens = mha.tokenize("behind the table the old keys be")
    ids = torch.tensor([network.vocab.encode(tokens)])  # (1, L)
    logits, (probs1, probs2) = two(ids)  # the model's own forward pass
    for mask in ("none", "causal"):
        got = reading(network, tokens, mask)
        assert torch.equal(got.blocked, ~mha.causal_mask(len(tokens)))
        assert torch.equal(got.probs[0], probs1[0]) and torch.equal(
            got.probs[1], probs2[0]
        )
        assert torch.equal(got.logits[0], logits[0, :, 0])
    # With padding, a key is blocked where the causal or the padding mask blocks it.
    padded_tokens = padded(tokens, "padding", 2)
    got = reading(network, padded_tokens, "padding")
    want = ~mha.causal_mask(len(tokens))
    want[:, -2:] = True
    assert torch.equal(got.blocked, want)
    assert weights_data(network)["causal"] and "causal" not in weights_data(plain)
    # Its sentences are its own task's (phrases before the subject among them).
    explorer = mha.attention_explorer({"two layers": two}, vocab=training.FRONTED)
    assert explorer.sentences == tuple(models.example_sentences(network))
    assert all(
        s.endswith(("be", "be old", "be red")) or " be" in s for s in explorer.sentences
    )


@pytest.mark.parametrize(
    ("call", "error", "says"),
    [
        (lambda two: mha.attention_explorer(two), TypeError, "vocab must be"),
        (lambda two: mha.attention_explorer(two, vocab="fronted"), TypeError, "vocab must be"),
        (
            lambda two: mha.attention_explorer(
                two, vocab=training.FRONTED, sentences=["the cat be"]
            ),
            ValueError, "unknown: cat",
        ),
        (
            lambda two: mha.attention_explorer(
                two, vocab=training.FRONTED, sentences=[" ".join(["the"] * 24)]
            ),
            ValueError, "at most 23",
        ),
        (
            lambda two: mha.attention_explorer(
                {"two": two, "eight": training.load(training.AGREEMENT, 8)},
                vocab=training.FRONTED,
            ),
            ValueError, "same head counts",
        ),
        (
            lambda two: mha.attention_explorer(two, vocab=training.FRONTED, masks=["left"]),
            ValueError, "masks",
        ),
    ],
    ids=["no vocab", "vocab a str", "unknown word", "too long", "head counts differ", "mask"],
)  # fmt: skip
def test_bad_input_to_the_two_layer_explorer_is_named(call, error, says):
    two = training.load(training.FRONTED, 4, 0, n_layers=2)
    with pytest.raises(error, match=says):
        call(two)
