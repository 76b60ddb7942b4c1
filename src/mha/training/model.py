"""The toy model every task trains: the book's pipeline with a readout per answer."""

from __future__ import annotations

import torch
from torch import nn

from mha._checks import check_int
from mha.attention import MultiHeadAttention, divisors
from mha.defaults import D_MODEL, MAX_LENGTH
from mha.embedding import Embeddings, PositionalEncoding

HEAD_COUNTS = tuple(divisors(D_MODEL))  # the head counts a layer of width 8 accepts


class ToyModel(nn.Module):
    """Embeddings, positional encoding, one self-attention layer, and one linear
    readout per answer giving, at every position, a score for every word.

    There is no residual connection: everything a readout sees has passed
    through attention.

    Args:
        vocab_size: number of words (and of scores per readout).
        n_answers: number of readouts (one per answer of the task).
        d_model, n_heads: as for :class:`~mha.attention.MultiHeadAttention`.
        max_length: the longest sentence the positional encoding covers.
        dtype: precision of the weights.

    Shape:
        - ids: ``(batch, seq_len)``; mask (optional): as for
          :class:`~mha.attention.MultiHeadAttention`.
        - returns ``logits (batch, seq_len, n_answers, vocab_size)``, the
          scores of readout ``a`` at ``[:, :, a]``, and
          ``attn_probs (batch, n_heads, seq_len, seq_len)``.
    """

    def __init__(
        self,
        vocab_size: int,
        n_answers: int = 1,
        d_model: int = D_MODEL,
        n_heads: int = 4,
        max_length: int = MAX_LENGTH,
        dtype: torch.dtype | None = None,
    ):
        """Build the embeddings, the positional encoding, the attention layer
        (no dropout) and ``n_answers`` readouts of ``vocab_size`` scores each."""
        super().__init__()
        check_int("n_answers", n_answers)
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.attention = MultiHeadAttention(d_model, n_heads, dropout=0.0, dtype=dtype)
        self.readouts = nn.ModuleList(
            nn.Linear(d_model, vocab_size, dtype=dtype) for _ in range(n_answers)
        )

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None):
        """ids ``(batch, seq_len)`` → logits ``(batch, seq_len, n_answers,
        vocab_size)`` and attn_probs ``(batch, n_heads, seq_len, seq_len)``."""
        x = self.position(self.embed(ids))  # (batch, seq_len, d_model)
        out, attn_probs = self.attention(x, x, x, mask)  # (batch, seq_len, d_model)
        # One score per word of the vocabulary, per readout: (batch, seq_len, vocab) each.
        scores = [readout(out) for readout in self.readouts]
        logits = torch.stack(scores, dim=2)  # (batch, seq_len, n_answers, vocab)
        return logits, attn_probs
