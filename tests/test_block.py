"""mha.block: the feed-forward network and the encoder and decoder blocks, as
the formulas of the paper (post-norm), causal where they must be, and errors
that say what is wrong. That PyTorch's own layers compute the same is in
test_interop.py, with the converter."""

import pytest
import torch
from refusal import refuses, row_ids
from torch.nn.functional import layer_norm

import mha
from mha import block
from mha.masks import lengths_mask

D_MODEL, N_HEADS, D_FF = 8, 4, 32


# --- FeedForward -------------------------------------------------------------------------


def test_feed_forward_acts_on_each_position_alone(sequences):
    ff = block.FeedForward(D_MODEL, D_FF, dropout=0.0, dtype=torch.float64)
    x = sequences()
    out = ff(x)
    assert out.shape == (3, 6, D_MODEL)
    torch.testing.assert_close(out[1, 4], ff(x[1, 4]))
    hidden = torch.relu(x @ ff.linear1.weight.T + ff.linear1.bias)  # (3, 6, d_ff)
    torch.testing.assert_close(out, hidden @ ff.linear2.weight.T + ff.linear2.bias)


# --- EncoderBlock ------------------------------------------------------------------------


def test_encoder_shape_and_post_norm(encoder, sequences):
    x = sequences()
    out = encoder(x)
    assert out.shape == x.shape
    # Post-norm: every token's output comes out of a LayerNorm with weight 1 and bias 0.
    torch.testing.assert_close(out.mean(dim=-1), torch.zeros(3, 6, dtype=torch.float64))
    variance = out.var(dim=-1, unbiased=False)  # LayerNorm divides by sqrt(var + eps)
    torch.testing.assert_close(
        variance, torch.ones(3, 6, dtype=torch.float64), atol=1e-3, rtol=0
    )


def test_encoder_is_the_written_formula(encoder, sequences):
    x = sequences()
    attended, _ = encoder.attention(x, x, x)
    h = layer_norm(x + attended, (D_MODEL,))
    expected = layer_norm(h + encoder.feed_forward(h), (D_MODEL,))
    torch.testing.assert_close(encoder(x), expected)


def test_encoder_is_permutation_equivariant(encoder, sequences):
    x = sequences()
    order = torch.tensor([3, 0, 5, 1, 4, 2])
    torch.testing.assert_close(encoder(x[:, order]), encoder(x)[:, order])


# --- DecoderBlock ------------------------------------------------------------------------


def test_decoder_shape_follows_the_decoder_not_the_memory(decoder, sequences):
    x, memory = sequences(4), sequences(6)
    out = decoder(x, memory)
    assert out.shape == (3, 4, D_MODEL)


def test_decoder_cannot_see_the_future_but_sees_all_the_memory(decoder, sequences):
    x, memory = sequences(5), sequences(6)
    out = decoder(x, memory)
    later = x.clone()
    later[:, 3:] = 0.0  # change the last two decoder tokens
    torch.testing.assert_close(decoder(later, memory)[:, :3], out[:, :3])
    other_memory = memory.clone()
    other_memory[:, 5] = 0.0  # change the encoder's last token
    changed = (decoder(x, other_memory) - out).abs().amax(dim=-1)  # (3, 5)
    assert bool((changed > 1e-6).all())


@pytest.mark.parametrize("padded", [False, True])
def test_decoder_is_the_written_formula(decoder, sequences, padded):
    """Causal self-attention (and the padding mask, if given), cross-attention on
    the memory, the feed-forward network: each added to its input, then normalised."""
    x, memory = sequences(5), sequences(6)
    mask = lengths_mask([5, 3, 4]) if padded else None
    allowed = mha.causal_mask(5) & (True if mask is None else mask)
    attended, _ = decoder.self_attention(x, x, x, allowed)
    h = layer_norm(x + attended, (D_MODEL,))
    crossed, _ = decoder.cross_attention(h, memory, memory)
    h = layer_norm(h + crossed, (D_MODEL,))
    expected = layer_norm(h + decoder.feed_forward(h), (D_MODEL,))
    torch.testing.assert_close(decoder(x, memory, mask), expected)


ENCODER, DECODER = block.EncoderBlock(8, 4, 32), block.DecoderBlock(8, 4, 32)
X, MEMORY = torch.zeros(3, 4, 8), torch.zeros(3, 6, 8)

# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    *[
        row
        for cls in (block.EncoderBlock, block.DecoderBlock)
        for row in [
            (lambda cls=cls: cls(8, 3), ValueError, "n_heads", "divide d_model",
             "d_model=8 is not divisible by n_heads=3"),
            (lambda cls=cls: cls(8, 4, 32.0), TypeError, "d_ff", "an int", "got float 32.0"),
            (lambda cls=cls: cls(8, 4, 0), ValueError, "d_ff", "int >= 1", "got 0"),
            (lambda cls=cls: cls(8, 4, 32, dropout=1.5), ValueError, "dropout",
             "probability in [0, 1)", "got 1.5"),
        ]
    ],
    (lambda: ENCODER([[0.0] * 8]), TypeError, "x", "torch.Tensor of shape (batch, x_len",
     "got list"),
    (lambda: ENCODER(X[0]), ValueError, "x", "(batch, x_len, d_model=8)", "got (4, 8)"),
    (lambda: ENCODER(X[..., :4]), ValueError, "x", "(batch, x_len, d_model=8)",
     "got (3, 4, 4)"),
    (lambda: ENCODER(X.long()), TypeError, "x", "floating-point tensor", "got dtype torch.int64"),
    (lambda: DECODER(X, MEMORY[:1]), ValueError, "x and memory", "the same batch size",
     "got 3 and 1"),
    (lambda: DECODER(X, MEMORY[..., :4]), ValueError, "memory", "(batch, m_len, d_model=8)",
     "got (3, 6, 4)"),
    (lambda: DECODER(X, None), TypeError, "memory", "torch.Tensor", "got NoneType"),
    (lambda: DECODER(X, MEMORY, mask=torch.ones(3, 1, 1, 5).bool()), ValueError, "mask",
     "does not broadcast to (batch, n_heads, q_len, k_len) = (3, 4, 4, 4)",
     "mask of shape (3, 1, 1, 5)"),
    (lambda: DECODER(X, MEMORY, memory_mask=torch.ones(3, 1, 1, 4).bool()), ValueError, "mask",
     "does not broadcast to (batch, n_heads, q_len, k_len) = (3, 4, 4, 6)",
     "mask of shape (3, 1, 1, 4)"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
