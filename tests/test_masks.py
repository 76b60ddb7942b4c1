"""mha.masks: the builders, the checks every mask goes through, and the
converters to PyTorch's conventions (each used with PyTorch's own function)."""

from __future__ import annotations

import pytest
import torch
from refusal import refuses, row_ids

import mha
from mha import masks

TOL = {"atol": 1e-5, "rtol": 0.0}


@pytest.mark.parametrize("length", [1, 5])
def test_causal_mask_lets_each_position_see_itself_and_the_past(length):
    got = mha.causal_mask(length)
    assert got.dtype == torch.bool and got.shape == (length, length)
    for i in range(length):
        for j in range(length):
            assert bool(got[i, j]) == (j <= i)


@pytest.mark.parametrize("pad_id", [0, 7])
def test_padding_mask_blocks_exactly_the_padding_keys(pad_id):
    ids = torch.tensor([[5, 3, 2, pad_id, pad_id], [4, pad_id, pad_id, pad_id, pad_id]])
    got = mha.padding_mask(ids, pad_id)
    assert got.dtype == torch.bool and got.shape == (2, 1, 1, 5)
    blocked = [[False, False, False, True, True], [False, True, True, True, True]]
    assert got[:, 0, 0].tolist() == [[not b for b in row] for row in blocked]


def test_lengths_mask_and_padding_mask_agree_with_the_vocabulary():
    vocab = mha.Vocab.from_corpus(mha.SENTENCES)
    ids, is_token = vocab.encode_batch(
        ["a basic split", "hello", "what is a basic example"]
    )
    assert torch.equal(mha.padding_mask(ids, vocab.pad_id)[:, 0, 0], is_token)
    assert torch.equal(masks.lengths_mask([3, 1, 5])[:, 0, 0], is_token)
    assert masks.lengths_mask(torch.tensor([0, 2]), k_len=4)[:, 0, 0].tolist() == [
        [False] * 4,
        [True, True, False, False],
    ]


# --- converters, each fed to the PyTorch function it is for ------------------------

SHAPE = (2, 3, 4, 5)  # (batch, n_heads, q_len, k_len): cross-attention


def mask_of_kind(kind, gen):
    """A mask in the package's convention in which every query keeps a key."""
    batch, n_heads, q_len, k_len = SHAPE
    shape = {
        "causal (q_len, k_len)": (q_len, k_len),
        "padding": (batch, 1, 1, k_len),
        "per sequence": (batch, 1, q_len, k_len),
        "per head": SHAPE,
    }[kind]
    if kind.startswith("causal"):
        return torch.arange(k_len)[None, :] <= torch.arange(q_len)[:, None]
    allowed = torch.rand(shape, generator=gen) < 0.5
    return allowed.index_fill(-1, torch.tensor(1), True)  # key 1 is always allowed


@pytest.fixture
def inputs(make_layer, gen):
    layer = make_layer(12, SHAPE[1])
    query = torch.randn(SHAPE[0], SHAPE[2], 12, generator=gen)
    key = torch.randn(SHAPE[0], SHAPE[3], 12, generator=gen)
    return layer, query, key


def assert_ours_gives(expected, layer, query, key, mask):
    """The layer with ``mask`` (the package's convention) gives PyTorch's
    ``(output, weights)``, computed with the converted mask."""
    with torch.no_grad():
        got = layer(query, key, key, mask)
    for ours, theirs in zip(got, expected, strict=True):
        torch.testing.assert_close(ours, theirs, **TOL)


@pytest.mark.parametrize(
    "kind", ["causal (q_len, k_len)", "padding", "per sequence", "per head"]
)
@pytest.mark.parametrize("dtype", [torch.bool, torch.float32])
def test_to_nn_attn_mask_gives_nn_multihead_attention_the_same_mask(
    inputs, reference, gen, kind, dtype
):
    layer, query, key = inputs
    mask = mask_of_kind(kind, gen).to(dtype)
    converted = masks.to_nn_attn_mask(mask, SHAPE)
    assert converted.dtype == torch.bool
    assert converted.dim() == (2 if kind.startswith("causal") else 3)
    expected = reference(layer, query, key, key, attn_mask=converted)
    assert_ours_gives(expected, layer, query, key, mask)


@pytest.mark.parametrize("as_given", ["(batch, 1, 1, k_len)", "(batch, k_len)"])
def test_to_key_padding_mask_gives_nn_multihead_attention_the_same_mask(
    inputs, reference, gen, as_given
):
    layer, query, key = inputs
    mask = mask_of_kind("padding", gen)
    given = mask if as_given.count(",") == 3 else mask[:, 0, 0]
    expected = reference(
        layer, query, key, key, key_padding_mask=masks.to_key_padding_mask(given)
    )
    assert_ours_gives(expected, layer, query, key, mask)


@pytest.mark.parametrize("kind", ["causal (q_len, k_len)", "per head"])
def test_to_sdpa_mask_gives_scaled_dot_product_attention_the_same_mask(
    inputs, reference, gen, kind
):
    layer, query, key = inputs
    mask = mask_of_kind(kind, gen)
    converted = masks.to_sdpa_mask(mask.float())
    assert converted.dtype == torch.bool and converted.shape == mask.shape
    expected = reference(layer, query, key, key, api="sdpa", attn_mask=converted)
    assert_ours_gives(expected, layer, query, key, mask)


@pytest.mark.parametrize("dtype", [None, torch.float64])
def test_to_additive_mask_added_to_the_scores_gives_the_same_weights(gen, dtype):
    scores = 3 * torch.randn(SHAPE, generator=gen, dtype=dtype)
    mask = mask_of_kind("per sequence", gen)
    additive = masks.to_additive_mask(mask, dtype=dtype)
    assert additive.dtype == scores.dtype
    assert set(additive.unique().tolist()) == {0.0, float("-inf")}
    expected = torch.softmax(scores + additive, dim=-1)
    torch.testing.assert_close(
        mha.attention_probs(scores, mask), expected, atol=0, rtol=0
    )


# --- bad masks ------------------------------------------------------------------------

B, H, Q, K = 2, 2, 3, 7
LAYER = mha.MultiHeadAttention(8, H).eval()
QUERY, KEY = torch.zeros(B, Q, 8), torch.zeros(B, K, 8)


def one_value(value, dtype):
    mask = torch.ones(Q, K, dtype=dtype)
    mask[1, 2] = value
    return mask


# A mask given to the layer: the mask, its error, and what the message names.
BAD_MASKS = [
    (torch.ones(B, Q, K).bool(), ValueError, "mask", "2-D (q_len, k_len) or 4-D",
     "got shape (2, 3, 7). A 3-D mask is ambiguous"),
    (torch.ones(K).bool(), ValueError, "mask", "2-D (q_len, k_len) or 4-D", "got shape (7,)"),
    (torch.ones(Q, 6).bool(), ValueError, "mask", "does not broadcast to (batch, n_heads, q_len, "
     "k_len) = (2, 2, 3, 7)", "mask of shape (3, 6)"),
    (torch.ones(3, 1, 1, K).bool(), ValueError, "mask", "does not broadcast", "of shape (3, 1, 1"),
    (one_value(0.5, torch.float32), ValueError, "mask", "only 0/False (blocked) and 1/True",
     "got the value 0.5 (dtype torch.float32). A mask says which keys a query may attend to"),
    (one_value(2, torch.int64), ValueError, "mask", "only 0/False", "got the value 2 (dtype "
     "torch.int64)"),
    (one_value(float("-inf"), torch.float32), ValueError, "mask", "convert it with `mask == 0`",
     "got the value -inf"),
    (torch.ones(Q, K, dtype=torch.complex64), TypeError, "mask", "bool, integer or float",
     "got dtype torch.complex64"),
    ([[True] * K] * Q, TypeError, "mask", "torch.Tensor or None", "got list"),
    (torch.zeros(B, 1, 1, K, dtype=torch.uint8), ValueError, "mask", "blocks every key",
     "all 14 entries are 0/False"),
]  # fmt: skip


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    *[
        (lambda mask=mask: LAYER(QUERY, KEY, KEY, mask), *refusal)
        for mask, *refusal in BAD_MASKS
    ],
    (lambda: mha.causal_mask(0), ValueError, "length", "int >= 1", "got 0"),
    (lambda: mha.padding_mask(torch.ones(5)), ValueError, "ids", "(batch, k_len)", "got (5,)"),
    (lambda: mha.padding_mask(torch.ones(2, 5)), TypeError, "ids", "integer token ids",
     "got dtype torch.float32"),
    (lambda: mha.padding_mask([[3, 0]]), TypeError, "ids", "a tensor of token ids",
     "got list"),
    (lambda: masks.lengths_mask([3, 5], 4), ValueError, "lengths", "[0, k_len=4]",
     "from 3 to 5"),
    (lambda: masks.lengths_mask([]), ValueError, "lengths", "non-empty 1-D", "shape (0,)"),
    (lambda: masks.lengths_mask([1.0, 2.0]), ValueError, "lengths", "list of ints",
     "dtype torch.float32"),
    (lambda: masks.lengths_mask([1, 2], k_len=2.5), TypeError, "k_len", "an int",
     "got float 2.5"),
    (lambda: masks.to_nn_attn_mask([[True]], (1, 1, 1, 1)), TypeError, "mask", "torch.Tensor",
     "got list"),
    (lambda: masks.to_sdpa_mask([[True]]), TypeError, "mask", "torch.Tensor", "got list"),
    (lambda: masks.to_additive_mask([[True]]), TypeError, "mask", "torch.Tensor", "got list"),
    (lambda: masks.to_key_padding_mask([[True]]), TypeError, "mask", "torch.Tensor", "got list"),
    (lambda: masks.to_key_padding_mask(torch.ones(2, 1, 4, 4).bool()), ValueError, "mask",
     "(batch, 1, 1, k_len) or (batch, k_len)", "got shape (2, 1, 4, 4)"),
    (lambda: masks.to_nn_attn_mask(torch.ones(3, 3).bool(), (1, 1, 4, 4)), ValueError, "mask",
     "does not broadcast", "mask of shape (3, 3)"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


def test_only_a_negative_mask_value_gets_the_hint_about_additive_masks():
    """0.5 is no additive mask: its message says what a mask is instead."""
    for value, hint in ((0.5, "`mask > 0`"), (float("-inf"), "`mask == 0`")):
        with pytest.raises(ValueError) as info:
            LAYER(QUERY, KEY, KEY, one_value(value, torch.float32))
        assert hint in str(info.value)
        other = "-inf" if value > 0 else "`mask > 0`"
        assert other not in str(info.value).split("got the value")[1]
