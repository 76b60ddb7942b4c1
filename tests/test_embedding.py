"""Embeddings (scaled lookup) and the sinusoidal PositionalEncoding."""

import math
import re

import pytest
import torch

from mha import Embeddings, PositionalEncoding, sinusoids


def pe_formula(max_length: int, d_model: int) -> torch.Tensor:
    """The table of *Attention Is All You Need*, one scalar at a time with ``math``."""
    rows = []
    for pos in range(max_length):
        row = []
        for j in range(d_model):
            two_i = j - j % 2  # column 2i holds sin, column 2i+1 holds cos, same frequency
            angle = pos / 10000 ** (two_i / d_model)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float64)


# --------------------------------------------------------------------------- Embeddings


def test_embeddings_are_table_rows_times_sqrt_d_model():
    emb = Embeddings(vocab_size=11, d_model=6)
    ids = torch.tensor([[0, 3, 10], [7, 7, 1]])
    out = emb(ids)
    assert out.shape == (2, 3, 6)
    weight = emb.lut.weight.detach()
    scale = math.sqrt(6)
    for b in range(2):
        for t in range(3):
            expected = weight[ids[b, t].item()] * scale
            torch.testing.assert_close(out[b, t], expected, atol=1e-6, rtol=0)


def test_embeddings_accept_int32_ids():
    emb = Embeddings(5, 4)
    ids = torch.tensor([[1, 4]])
    torch.testing.assert_close(emb(ids.int()), emb(ids), atol=0, rtol=0)


@pytest.mark.parametrize("bad_dtype", [torch.float32, torch.float64])
def test_embeddings_reject_float_ids(bad_dtype):
    emb = Embeddings(5, 4)
    with pytest.raises(TypeError, match=rf"ids must be an integer tensor, got {bad_dtype}"):
        emb(torch.tensor([[1.0, 2.0]], dtype=bad_dtype))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.uint8, torch.int32])
def test_embeddings_accept_every_integer_dtype(dtype):
    emb = Embeddings(5, 4)
    ids = torch.tensor([[1, 4]])
    torch.testing.assert_close(emb(ids.to(dtype)), emb(ids), atol=0, rtol=0)


def test_embeddings_reject_bool_ids():
    with pytest.raises(TypeError, match=r"ids must be an integer tensor, got torch.bool"):
        Embeddings(5, 4)(torch.tensor([[True, False]]))


def test_embeddings_reject_list_ids():
    with pytest.raises(TypeError, match=r"ids must be an integer tensor, got list"):
        Embeddings(5, 4)([[1, 2]])


@pytest.mark.parametrize(
    ("values", "low", "high"), [([0, 5], 0, 5), ([-1, 2], -1, 2), ([-3, 9], -3, 9)]
)
def test_embeddings_reject_out_of_range_ids(values, low, high):
    emb = Embeddings(5, 4)
    message = rf"ids must lie in \[0, 5\), got values from {low} to {high}"
    with pytest.raises(ValueError, match=message):
        emb(torch.tensor([values]))


@pytest.mark.parametrize(("name", "args"), [("vocab_size", (0, 4)), ("d_model", (5, -2))])
def test_embeddings_sizes_must_be_positive(name, args):
    with pytest.raises(ValueError, match=rf"{name} must be a positive int, got {min(args)}"):
        Embeddings(*args)


# --------------------------------------------------------------------------- PositionalEncoding


@pytest.mark.parametrize("d_model", [1, 2, 7, 8, 33, 64])
def test_sinusoids_match_formula(d_model):
    table = sinusoids(100, d_model)
    assert table.shape == (100, d_model)
    assert table.dtype == torch.float32
    torch.testing.assert_close(table.double(), pe_formula(100, d_model), atol=1e-5, rtol=0)


@pytest.mark.parametrize("d_model", [7, 8])
def test_module_buffer_is_the_formula_table(d_model):
    pe = PositionalEncoding(d_model, dropout=0.0, max_length=30)
    assert pe.pe.shape == (1, 30, d_model)
    torch.testing.assert_close(pe.pe[0].double(), pe_formula(30, d_model), atol=1e-5, rtol=0)


def test_position_zero_is_sin0_cos0():
    table = sinusoids(3, 6)
    assert table[0].tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("d_model", [7, 8])
def test_eval_mode_adds_exactly_the_table(d_model):
    pe = PositionalEncoding(d_model, dropout=0.5, max_length=12).eval()
    x = torch.randn(2, 9, d_model)
    out = pe(x)
    expected = x + pe_formula(12, d_model)[:9].float()
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=0)
    # ... and with no randomness at all: the same call twice gives the same tensor.
    assert torch.equal(pe(x), out)


def test_sequence_of_exactly_max_length_is_accepted():
    pe = PositionalEncoding(4, dropout=0.0, max_length=5)
    assert pe(torch.zeros(1, 5, 4)).shape == (1, 5, 4)


def test_training_mode_applies_dropout():
    pe = PositionalEncoding(16, dropout=0.5, max_length=20).train()
    x = torch.randn(4, 20, 16)
    out = pe(x)
    clean = x + pe.pe
    zeroed = out == 0
    assert zeroed.any()
    # Kept entries are scaled by 1/(1-p) = 2.
    torch.testing.assert_close(out[~zeroed], 2 * clean[~zeroed])


def test_sequence_longer_than_max_length():
    pe = PositionalEncoding(8, max_length=10)
    with pytest.raises(ValueError, match=r"x has 11 positions but max_length is 10"):
        pe(torch.zeros(2, 11, 8))


@pytest.mark.parametrize("shape", [(2, 5, 7), (2, 5, 9), (5, 8)])
def test_wrong_shape(shape):
    pe = PositionalEncoding(8, max_length=10)
    shown = re.escape(str(shape))
    with pytest.raises(ValueError, match=rf"x must have shape \(batch, seq_len, 8\), got {shown}"):
        pe(torch.zeros(shape))


@pytest.mark.parametrize("p", [-0.1, 1.0])
def test_bad_dropout(p):
    with pytest.raises(ValueError, match=rf"dropout must be a probability in \[0, 1\), got {p}"):
        PositionalEncoding(8, dropout=p)

