"""The key-value cache gives what the layer gives on the whole sequence with a
causal mask, one step at a time, and refuses what it cannot continue."""

from __future__ import annotations

import pytest
import torch
from refusal import refuses, row_ids

import mha
from mha.kv_cache import KVCache


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
    (lambda: started().step(X[:, :1].float()), TypeError, "x", "dtype torch.float64",
     "got torch.float32"),
    (lambda: started().step(X[0]), ValueError, "x", "(batch, new, d_model=8)", "got (7, 8)"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
