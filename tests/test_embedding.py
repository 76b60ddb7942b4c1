"""mha.embedding: the scaled lookup table and the sinusoidal positional encoding."""

from __future__ import annotations

import math

import pytest
import torch
from refusal import refuses, row_ids

from mha.embedding import Embeddings, PositionalEncoding, sinusoids


def pe_formula(length: int, d_model: int) -> torch.Tensor:
    """*Attention Is All You Need*: ``PE[pos, 2i] = sin(pos / 10000^(2i/d_model))``,
    ``PE[pos, 2i+1] = cos(...)`` of the same angle; one scalar at a time with ``math``.
    The only implementation of the formula in the tests."""
    table = torch.zeros(length, d_model, dtype=torch.float64)
    for pos in range(length):
        for j in range(d_model):
            angle = pos / 10000 ** ((j - j % 2) / d_model)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


@pytest.mark.parametrize("ids_dtype", [torch.int64, torch.int32, torch.uint8])
def test_embeddings_are_table_rows_times_root_d_model(ids_dtype):
    embed = Embeddings(vocab_size=11, d_model=6, dtype=torch.float64)
    ids = torch.tensor([[0, 3, 10], [7, 7, 1]])
    out = embed(ids.to(ids_dtype))
    assert out.shape == (2, 3, 6)
    for b, t in torch.cartesian_prod(torch.arange(2), torch.arange(3)):
        expected = embed.lut.weight[ids[b, t]] * math.sqrt(6)
        torch.testing.assert_close(out[b, t], expected, atol=1e-12, rtol=0)


def test_embeddings_start_at_the_size_of_the_positional_code():
    """Entries of size about 1 after the √d_model scale, like the sines they are added to."""
    out = Embeddings(vocab_size=2000, d_model=64)(torch.arange(2000)[None])
    assert 0.95 < out.std().item() < 1.05


@pytest.mark.parametrize("d_model", [1, 7, 8, 64])
def test_sinusoids_follow_the_formula(d_model):
    table = sinusoids(100, d_model, dtype=torch.float64)
    torch.testing.assert_close(table, pe_formula(100, d_model), atol=1e-12, rtol=0)
    assert sinusoids(3, d_model).dtype == torch.get_default_dtype()


@pytest.mark.parametrize("d_model", [7, 8])
def test_positional_encoding_adds_the_code_of_each_position_in_eval_mode(d_model):
    position = PositionalEncoding(
        d_model, dropout=0.5, max_length=12, dtype=torch.float64
    ).eval()
    x = torch.randn(2, 9, d_model, dtype=torch.float64)
    torch.testing.assert_close(
        position(x) - x, pe_formula(9, d_model).expand(2, 9, d_model)
    )
    position(torch.zeros(1, 12, d_model, dtype=torch.float64))  # max_length is fine


def test_positional_encoding_applies_dropout_in_training_mode():
    position = PositionalEncoding(16, dropout=0.5, max_length=20).train()
    x = torch.randn(4, 20, 16)
    out = position(x)
    kept = out != 0
    assert 0.3 < kept.float().mean() < 0.7
    scaled = 2 * (x + position.pe)  # kept entries are scaled by 1 / (1 - p)
    torch.testing.assert_close(out[kept], scaled[kept])


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: Embeddings(0, 4), ValueError, "vocab_size", "int >= 1", "got 0"),
    (lambda: Embeddings(5, -2), ValueError, "d_model", "int >= 1", "got -2"),
    (lambda: Embeddings(5, 4)(torch.tensor([[1.0, 2.0]])), TypeError, "ids",
     "integer tensor", "got torch.float32"),
    (lambda: Embeddings(5, 4)(torch.tensor([[True]])), TypeError, "ids", "integer tensor",
     "got torch.bool"),
    (lambda: Embeddings(5, 4)([[1, 2]]), TypeError, "ids", "integer tensor", "got list"),
    (lambda: Embeddings(5, 4)(torch.tensor([[-1, 5]])), ValueError, "ids", "lie in [0, 5)",
     "got values from -1 to 5"),
    (lambda: PositionalEncoding(8, dropout=1.0), ValueError, "dropout",
     "probability in [0, 1)", "got 1.0"),
    (lambda: PositionalEncoding(8.0), TypeError, "d_model", "an int", "got float 8.0"),
    (lambda: PositionalEncoding(8, max_length=0), ValueError, "max_length", "int >= 1", "got 0"),
    (lambda: PositionalEncoding(8)(torch.zeros(2, 5, 7)), ValueError, "x",
     "(batch, seq_len, 8)", "got (2, 5, 7)"),
    (lambda: PositionalEncoding(8, max_length=10)(torch.zeros(2, 11, 8)), ValueError,
     "max_length", "max_length >= 11", "x has 11 positions but max_length is 10"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
