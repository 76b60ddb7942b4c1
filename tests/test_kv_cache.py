"""Generation: a causal layer's earlier outputs never change, so the
key-value cache gives what the layer gives on the whole sequence one step at
a time; and it refuses what it cannot continue."""

from __future__ import annotations

import pytest
import torch
from refusal import refuses, row_ids

import mha
from mha.kv_cache import KVCache


@pytest.fixture
def causal_layer() -> mha.MultiHeadAttention:
    return mha.MultiHeadAttention(16, 4, dropout=0.0, dtype=torch.float64).eval()


@pytest.fixture
def x_seq(gen) -> torch.Tensor:
    # (batch, seq_len, d_model)
    return torch.randn(2, 7, 16, generator=gen, dtype=torch.float64)


def test_causal_outputs_do_not_depend_on_later_tokens(causal_layer, x_seq):
    full, _ = causal_layer(x_seq, x_seq, x_seq, mask=mha.causal_mask(7))
    for t in range(1, 8):
        prefix = x_seq[:, :t]
        out, _ = causal_layer(prefix, prefix, prefix, mask=mha.causal_mask(t))
        torch.testing.assert_close(out, full[:, :t])


def test_without_the_mask_later_tokens_change_earlier_outputs(causal_layer, x_seq):
    full, _ = causal_layer(x_seq, x_seq, x_seq)
    prefix = x_seq[:, :6]
    out, _ = causal_layer(prefix, prefix, prefix)
    assert (out - full[:, :6]).abs().max() > 1e-3


def test_one_query_per_step_gives_the_causal_outputs(causal_layer, x_seq):
    full, _ = causal_layer(x_seq, x_seq, x_seq, mask=mha.causal_mask(7))
    steps = [
        causal_layer(x_seq[:, t - 1 : t], x_seq[:, :t], x_seq[:, :t])[0]
        for t in range(1, 8)
    ]
    torch.testing.assert_close(torch.cat(steps, dim=1), full)


def layer_and_inputs(n_heads=4, d_key=None, batch=2, length=7, seed=0):
    torch.manual_seed(seed)
    layer = mha.MultiHeadAttention(8, n_heads, d_key=d_key, dtype=torch.float64).eval()
    return layer, torch.randn(batch, length, 8, dtype=torch.float64)


@pytest.mark.parametrize(
    ("n_heads", "d_key", "prompt"), [(4, None, 1), (2, None, 3), (8, 2, 2), (1, 5, 7)]
)
def test_step_by_step_equals_the_whole_sequence_under_a_causal_mask(
    n_heads, d_key, prompt
):
    layer, x = layer_and_inputs(n_heads, d_key)
    whole, whole_probs = layer(x, x, x, mask=mha.causal_mask(x.size(1)))
    cache = KVCache(layer)
    out, probs = cache.step(x[:, :prompt])  # the prompt at once
    outputs = [out]
    close = dict(rtol=0, atol=1e-6)
    torch.testing.assert_close(probs, whole_probs[:, :, :prompt, :prompt], **close)
    for t in range(prompt, x.size(1)):  # then one position per step
        out, probs = cache.step(x[:, t : t + 1])
        outputs.append(out)
        # position t's row, over keys 0 … t (the whole map's row is 0 after t)
        torch.testing.assert_close(
            probs[:, :, 0], whole_probs[:, :, t, : t + 1], **close
        )
    torch.testing.assert_close(torch.cat(outputs, dim=1), whole, **close)
    assert cache.length == x.size(1)
    assert cache.K.shape == (2, n_heads, 7, layer.d_key) == cache.V.shape


def test_the_cache_holds_the_keys_and_values_the_layer_computes():
    layer, x = layer_and_inputs()
    cache = KVCache(layer)
    for t in range(x.size(1)):
        cache.step(x[:, t : t + 1])
    torch.testing.assert_close(cache.K, mha.split_heads(layer.Wk(x), 4))
    torch.testing.assert_close(cache.V, mha.split_heads(layer.Wv(x), 4))


def started(batch=2):
    layer, x = layer_and_inputs(batch=batch)
    cache = KVCache(layer, max_length=8)
    cache.step(x[:, :6])
    return cache


LAYER, X = layer_and_inputs()
DROPPING = mha.MultiHeadAttention(8, 4, dropout=0.1).train()

BAD_INPUT = [
    (lambda: KVCache(torch.nn.Linear(8, 8)), TypeError, "layer", "mha.MultiHeadAttention",
     "got Linear"),
    (lambda: KVCache(DROPPING), ValueError, "layer", "layer.eval()", "dropout=0.1"),
    (lambda: KVCache(LAYER, max_length=0), ValueError, "max_length", ">= 1", "got 0"),
    (lambda: started().step(X[:1, :1]), ValueError, "x", "cache's 2 sequences",
     "batch of 1"),
    (lambda: started().step(X[:, :3]), ValueError, "max_length=8", "at most",
     "6 so far plus x's 3"),
    (lambda: started().step(X[:, :0]), ValueError, "x", "at least one new position",
     "got (2, 0, 8)"),
    (lambda: started().step(torch.zeros(2, 1, 6, dtype=torch.float64)), ValueError, "x",
     "d_model=8", "got (2, 1, 6)"),
    (lambda: started().step(X[:, :1].float()), TypeError, "x",
     "the layer's weights have dtype torch.float64", "x has dtype torch.float32"),
    (lambda: started().step(X[0]), ValueError, "x", "(batch, new, d_model=8)", "got (7, 8)"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
