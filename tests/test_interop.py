"""mha.interop: moving weights between MultiHeadAttention and nn.MultiheadAttention,
and from the Transformer blocks to PyTorch's encoder and decoder layers."""

from __future__ import annotations

import pytest
import torch
from refusal import refuses, row_ids
from torch import nn

import mha
from mha.interop import to_torch_block
from mha.masks import lengths_mask, to_key_padding_mask

TOL = {"atol": 1e-5, "rtol": 0.0}


def torch_forward(torch_layer, query, key, value, **masks):
    with torch.no_grad():
        return torch_layer(
            query, key, value, need_weights=True, average_attn_weights=False, **masks
        )


def test_to_torch_computes_what_the_layer_computes(make_layer, gen):
    layer = make_layer(12, 3)
    query, key = torch.randn(2, 3, 5, 12, generator=gen)
    causal = torch.ones(5, 5).tril().bool()
    with torch.no_grad():
        expected = layer(query, key, key, causal)
    for got, want in zip(
        torch_forward(mha.to_torch(layer), query, key, key, attn_mask=~causal),
        expected,
        strict=True,
    ):
        torch.testing.assert_close(got, want, **TOL)
    sequence_first = mha.to_torch(layer, batch_first=False)
    out, _ = torch_forward(
        sequence_first, *(x.transpose(0, 1) for x in (query, key, key))
    )
    torch.testing.assert_close(out.transpose(0, 1), layer(query, key, key)[0], **TOL)


def test_to_torch_copies_the_mode_dropout_dtype_and_gradient_setting(make_layer):
    layer = make_layer(8, 2).train().double().requires_grad_(False)
    copy = mha.to_torch(layer)
    assert (copy.embed_dim, copy.num_heads, copy.dropout) == (8, 2, 0.1)
    assert copy.training and copy.batch_first
    assert copy.in_proj_weight.dtype == torch.float64
    assert not any(p.requires_grad for p in copy.parameters())
    assert not mha.to_torch(layer.eval()).training


@pytest.mark.parametrize("batch_first", [True, False])
def test_from_torch_computes_what_the_torch_layer_computes(gen, batch_first):
    torch.manual_seed(11)
    torch_layer = nn.MultiheadAttention(
        16, 4, dropout=0.3, batch_first=batch_first
    ).eval()
    with torch.no_grad():
        torch_layer.in_proj_bias.uniform_(-0.5, 0.5)
        torch_layer.out_proj.bias.uniform_(-0.5, 0.5)
    layer = mha.from_torch(torch_layer)
    assert isinstance(layer, mha.MultiHeadAttention) and not layer.training
    assert (layer.n_heads, layer.dropout.p) == (4, 0.3)
    query, key = (
        torch.randn(2, 5, 16, generator=gen),
        torch.randn(2, 7, 16, generator=gen),
    )
    with torch.no_grad():
        out, probs = layer(query, key, key)  # always batch first
    if batch_first:
        t_out, t_probs = torch_forward(torch_layer, query, key, key)
    else:
        t_out, t_probs = torch_forward(
            torch_layer, query.transpose(0, 1), *[key.transpose(0, 1)] * 2
        )
        t_out = t_out.transpose(0, 1)
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)


def test_from_torch_undoes_to_torch(make_layer):
    layer = make_layer(8, 4).double()
    back = mha.from_torch(mha.to_torch(layer))
    assert (back.d_model, back.n_heads, back.dropout.p) == (8, 4, 0.1)
    for (name, mine), (name_back, theirs) in zip(
        layer.named_parameters(), back.named_parameters(), strict=True
    ):
        assert name == name_back and torch.equal(mine, theirs), name


# --- the blocks --------------------------------------------------------------------------


@pytest.fixture
def encoder(encoder):
    return with_moved_norms(encoder)


@pytest.fixture
def decoder(decoder):
    return with_moved_norms(decoder)


def with_moved_norms(block):
    """``block`` with LayerNorms that are not the identity (as a fresh block's
    are), so that a norm the converter forgets to copy shows."""
    with torch.no_grad():
        for module in block.modules():
            if isinstance(module, nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
    return block


def test_to_torch_block_gives_pytorchs_encoder_layer(encoder, sequences):
    x = sequences()
    theirs = to_torch_block(encoder)
    assert isinstance(theirs, nn.TransformerEncoderLayer)
    assert not theirs.training and theirs.norm_first is False
    torch.testing.assert_close(theirs(x), encoder(x))


def test_the_encoder_layer_computes_the_same_with_padding(encoder, sequences):
    x = sequences()
    mask = lengths_mask([6, 4, 3])  # (3, 1, 1, 6)
    theirs = to_torch_block(encoder)
    expected = theirs(x, src_key_padding_mask=to_key_padding_mask(mask))
    ours = encoder(x, mask)
    # PyTorch's fast path returns zeros at padded positions; compare the real tokens.
    for b, length in enumerate([6, 4, 3]):
        torch.testing.assert_close(ours[b, :length], expected[b, :length])


def test_to_torch_block_copies_dtype_mode_device_and_gradient_setting(sequences):
    torch.manual_seed(2)
    ours = with_moved_norms(mha.block.EncoderBlock(8, 4, 32, dropout=0.0))  # training
    theirs = to_torch_block(ours)
    assert theirs.training and theirs.linear1.weight.dtype == torch.float32
    assert theirs.linear1.weight.device == ours.feed_forward.linear1.weight.device
    x = sequences().float()
    torch.testing.assert_close(ours(x), theirs(x))
    frozen = to_torch_block(ours.eval().requires_grad_(False))
    assert not frozen.training
    assert not any(p.requires_grad for p in frozen.parameters())


def test_to_torch_block_gives_pytorchs_decoder_layer_given_the_causal_mask(
    decoder, sequences
):
    x, memory = sequences(4), sequences(6)
    theirs = to_torch_block(decoder)
    assert isinstance(theirs, nn.TransformerDecoderLayer)
    blocked = ~mha.causal_mask(4)  # PyTorch's bool convention: True = blocked
    torch.testing.assert_close(theirs(x, memory, tgt_mask=blocked), decoder(x, memory))


def test_the_decoder_layer_computes_the_same_with_padding(decoder, sequences):
    x, memory = sequences(5), sequences(6)
    x_pad, memory_pad = lengths_mask([5, 3, 4]), lengths_mask([6, 2, 5])
    expected = to_torch_block(decoder)(
        x,
        memory,
        tgt_mask=~mha.causal_mask(5),
        tgt_key_padding_mask=to_key_padding_mask(x_pad),
        memory_key_padding_mask=to_key_padding_mask(memory_pad),
    )
    torch.testing.assert_close(decoder(x, memory, x_pad, memory_pad), expected)


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: mha.to_torch(mha.MultiHeadAttention(8, 4), batch_first="yes"), TypeError,
     "batch_first", "a bool", "got str 'yes'"),
    (lambda: mha.to_torch(nn.Linear(8, 8)), TypeError, "layer", "mha.MultiHeadAttention",
     "got Linear"),
    (lambda: to_torch_block(mha.MultiHeadAttention(8, 4)), TypeError, "block",
     "mha.block.EncoderBlock or DecoderBlock", "got MultiHeadAttention"),
    (lambda: mha.from_torch(nn.Linear(8, 8)), TypeError, "torch_layer", "nn.MultiheadAttention",
     "got Linear"),
    *[
        (lambda kwargs=kwargs: mha.from_torch(nn.MultiheadAttention(8, 2, **kwargs)),
         ValueError, "torch_layer", expected, given)
        for kwargs, expected, given in (
            ({"kdim": 4}, "kdim and vdim equal to embed_dim=8", "got kdim=4, vdim=8"),
            ({"bias": False}, "biases on its projections", "got bias=False"),
            ({"add_bias_kv": True}, "no bias_k/bias_v", "got add_bias_kv=True"),
            ({"add_zero_attn": True}, "no add_zero_attn", "got add_zero_attn=True"),
        )
    ],
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
