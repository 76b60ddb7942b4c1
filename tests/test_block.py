"""The Transformer blocks of mha.block: shapes, the same numbers as PyTorch's
own encoder and decoder layers, causality, and errors that say what is wrong."""

import pytest
import torch
from torch import nn

import mha
from mha import block
from mha.masks import lengths_mask, to_key_padding_mask

D_MODEL, N_HEADS, D_FF = 8, 4, 32


@pytest.fixture
def encoder() -> block.EncoderBlock:
    torch.manual_seed(0)
    return block.EncoderBlock(D_MODEL, N_HEADS, D_FF, dtype=torch.float64).eval()


@pytest.fixture
def decoder() -> block.DecoderBlock:
    torch.manual_seed(1)
    return block.DecoderBlock(D_MODEL, N_HEADS, D_FF, dtype=torch.float64).eval()


def inputs(gen: torch.Generator, batch: int = 3, length: int = 6) -> torch.Tensor:
    return torch.randn(batch, length, D_MODEL, generator=gen, dtype=torch.float64)


# --- FeedForward -------------------------------------------------------------------------


def test_feed_forward_acts_on_each_position_alone(gen):
    ff = block.FeedForward(D_MODEL, D_FF, dropout=0.0, dtype=torch.float64)
    x = inputs(gen)
    out = ff(x)
    assert out.shape == (3, 6, D_MODEL)
    torch.testing.assert_close(out[1, 4], ff(x[1, 4]))
    hidden = torch.relu(x @ ff.linear1.weight.T + ff.linear1.bias)  # (3, 6, d_ff)
    torch.testing.assert_close(out, hidden @ ff.linear2.weight.T + ff.linear2.bias)


# --- EncoderBlock ------------------------------------------------------------------------


def test_encoder_shape_and_post_norm(encoder, gen):
    x = inputs(gen)
    out = encoder(x)
    assert out.shape == x.shape
    # Post-norm: every token's output comes out of a LayerNorm with weight 1 and bias 0.
    torch.testing.assert_close(out.mean(dim=-1), torch.zeros(3, 6, dtype=torch.float64))
    variance = out.var(dim=-1, unbiased=False)  # LayerNorm divides by sqrt(var + eps)
    torch.testing.assert_close(
        variance, torch.ones(3, 6, dtype=torch.float64), atol=1e-3, rtol=0
    )


def test_encoder_is_the_written_formula(encoder, gen):
    x = inputs(gen)
    attended, _ = encoder.attention(x, x, x)
    h = nn.functional.layer_norm(x + attended, (D_MODEL,))
    expected = nn.functional.layer_norm(h + encoder.feed_forward(h), (D_MODEL,))
    torch.testing.assert_close(encoder(x), expected)


def test_encoder_matches_pytorch(encoder, gen):
    x = inputs(gen)
    theirs = block.to_torch(encoder)
    assert isinstance(theirs, nn.TransformerEncoderLayer)
    assert not theirs.training and theirs.norm_first is False
    torch.testing.assert_close(encoder(x), theirs(x))


def test_encoder_matches_pytorch_with_padding(encoder, gen):
    x = inputs(gen)
    mask = lengths_mask([6, 4, 3])  # (3, 1, 1, 6)
    theirs = block.to_torch(encoder)
    expected = theirs(x, src_key_padding_mask=to_key_padding_mask(mask))
    ours = encoder(x, mask)
    # PyTorch's fast path returns zeros at padded positions; compare the real tokens.
    for b, length in enumerate([6, 4, 3]):
        torch.testing.assert_close(ours[b, :length], expected[b, :length])


def test_encoder_matches_pytorch_float32_and_training_mode_settings(gen):
    torch.manual_seed(2)
    ours = block.EncoderBlock(
        D_MODEL, N_HEADS, D_FF, dropout=0.0
    )  # float32, training mode
    theirs = block.to_torch(ours)
    assert theirs.training and theirs.linear1.weight.dtype == torch.float32
    x = inputs(gen).float()
    torch.testing.assert_close(ours(x), theirs(x))


def test_encoder_is_permutation_equivariant(encoder, gen):
    x = inputs(gen)
    order = torch.tensor([3, 0, 5, 1, 4, 2])
    torch.testing.assert_close(encoder(x[:, order]), encoder(x)[:, order])


# --- DecoderBlock ------------------------------------------------------------------------


def test_decoder_shape_follows_the_decoder_not_the_memory(decoder, gen):
    x, memory = inputs(gen, length=4), inputs(gen, length=6)
    out = decoder(x, memory)
    assert out.shape == (3, 4, D_MODEL)


def test_decoder_matches_pytorch_with_a_causal_mask(decoder, gen):
    x, memory = inputs(gen, length=4), inputs(gen, length=6)
    theirs = block.to_torch(decoder)
    assert isinstance(theirs, nn.TransformerDecoderLayer)
    blocked = ~mha.causal_mask(4)  # PyTorch's bool convention: True = blocked
    torch.testing.assert_close(decoder(x, memory), theirs(x, memory, tgt_mask=blocked))


def test_decoder_matches_pytorch_with_padding(decoder, gen):
    x, memory = inputs(gen, length=5), inputs(gen, length=6)
    x_pad, memory_pad = lengths_mask([5, 3, 4]), lengths_mask([6, 2, 5])
    theirs = block.to_torch(decoder)
    expected = theirs(
        x,
        memory,
        tgt_mask=~mha.causal_mask(5),
        tgt_key_padding_mask=to_key_padding_mask(x_pad),
        memory_key_padding_mask=to_key_padding_mask(memory_pad),
    )
    torch.testing.assert_close(decoder(x, memory, x_pad, memory_pad), expected)


def test_decoder_cannot_see_the_future_but_sees_all_the_memory(decoder, gen):
    x, memory = inputs(gen, length=5), inputs(gen, length=6)
    out = decoder(x, memory)
    later = x.clone()
    later[:, 3:] = 0.0  # change the last two decoder tokens
    torch.testing.assert_close(decoder(later, memory)[:, :3], out[:, :3])
    other_memory = memory.clone()
    other_memory[:, 5] = 0.0  # change the encoder's last token
    changed = (decoder(x, other_memory) - out).abs().amax(dim=-1)  # (3, 5)
    assert bool((changed > 1e-6).all())


# --- to_torch ----------------------------------------------------------------------------


def test_to_torch_copies_requires_grad_and_device(encoder):
    encoder.requires_grad_(False)
    theirs = block.to_torch(encoder)
    assert not any(p.requires_grad for p in theirs.parameters())
    assert theirs.linear1.weight.device == encoder.feed_forward.linear1.weight.device


def test_to_torch_refuses_other_modules():
    with pytest.raises(
        TypeError, match="block must be a mha.block.EncoderBlock or DecoderBlock"
    ):
        block.to_torch(mha.MultiHeadAttention(8, 4))


# --- Errors ------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [block.EncoderBlock, block.DecoderBlock])
def test_bad_construction(cls):
    with pytest.raises(ValueError, match="n_heads must divide d_model"):
        cls(8, 3)
    with pytest.raises(TypeError, match="d_ff must be an int, got float 32.0"):
        cls(8, 4, 32.0)
    with pytest.raises(ValueError, match="d_ff must be an int >= 1, got 0"):
        cls(8, 4, 0)
    with pytest.raises(
        ValueError, match=r"dropout must be a probability in \[0, 1\), got 1.5"
    ):
        cls(8, 4, 32, dropout=1.5)


def test_encoder_bad_input(encoder):
    with pytest.raises(
        TypeError, match=r"x must be a torch.Tensor of shape \(batch, x_len"
    ):
        encoder([[0.0] * 8])
    with pytest.raises(
        ValueError, match=r"x must have shape \(batch, x_len, d_model=8\), got \(6, 8\)"
    ):
        encoder(torch.zeros(6, 8, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"x must have shape .*got \(3, 6, 4\)"):
        encoder(torch.zeros(3, 6, 4, dtype=torch.float64))
    with pytest.raises(
        TypeError, match="x must be a floating-point tensor, got dtype torch.int64"
    ):
        encoder(torch.zeros(3, 6, 8, dtype=torch.long))


def test_decoder_bad_input(decoder, gen):
    x, memory = inputs(gen, length=4), inputs(gen, length=6)
    with pytest.raises(
        ValueError, match=r"x and memory must have the same batch size .*got 3 and 1"
    ):
        decoder(x, memory[:1])
    with pytest.raises(
        ValueError, match=r"memory must have shape \(batch, m_len, d_model=8\)"
    ):
        decoder(x, memory[..., :4])
    with pytest.raises(TypeError, match="memory must be a torch.Tensor"):
        decoder(x, None)
    with pytest.raises(ValueError, match="mask of shape"):
        decoder(x, memory, mask=torch.ones(3, 1, 1, 5, dtype=torch.bool))
