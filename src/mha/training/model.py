"""The toy models the tasks train: the book's pipeline with a readout per
answer (:class:`ToyModel`, one layer), and two attention layers on a
residual stream (:class:`TwoLayerModel`).

Both expose their attention layers in order as ``model.layers`` and say
whether the layers add to a residual stream (``model.residual``)."""

from __future__ import annotations

import torch
from torch import nn

from mha._checks import check_int
from mha.attention import MultiHeadAttention, divisors
from mha.defaults import D_MODEL, MAX_LENGTH
from mha.embedding import Embeddings, PositionalEncoding
from mha.masks import causal_mask, check_mask

HEAD_COUNTS = tuple(divisors(D_MODEL))  # the head counts a layer of width 8 accepts


class ToyModel(nn.Module):
    """Embeddings, positional encoding, one self-attention layer, and one linear
    readout per answer giving, at every position, a score for every word.

    There is no residual connection: everything a readout sees has passed
    through attention.

    Attributes:
        residual: ``False``: no residual stream.

    Args:
        vocab_size: number of words (and of scores per readout).
        n_answers: number of readouts (one per answer of the task).
        d_model, n_heads: as for :class:`~mha.attention.MultiHeadAttention`.
        max_length: the longest sentence the positional encoding covers.
        dtype: precision of the weights.
        d_key: each head's width, as for
            :class:`~mha.attention.MultiHeadAttention` (by default
            ``d_model // n_heads``).

    Shape:
        - ids: ``(batch, seq_len)``; mask (optional): as for
          :class:`~mha.attention.MultiHeadAttention`.
        - returns ``logits (batch, seq_len, n_answers, vocab_size)``, the
          scores of readout ``a`` at ``[:, :, a]``, and
          ``attn_probs (batch, n_heads, seq_len, seq_len)``.
    """

    residual = False

    def __init__(
        self,
        vocab_size: int,
        n_answers: int = 1,
        d_model: int = D_MODEL,
        n_heads: int = 4,
        max_length: int = MAX_LENGTH,
        dtype: torch.dtype | None = None,
        d_key: int | None = None,
    ):
        """Build the embeddings, the positional encoding, the attention layer
        (no dropout) and ``n_answers`` readouts of ``vocab_size`` scores each."""
        super().__init__()
        check_int("n_answers", n_answers)
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.attention = MultiHeadAttention(
            d_model, n_heads, dropout=0.0, d_key=d_key, dtype=dtype
        )
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

    @property
    def layers(self) -> tuple[MultiHeadAttention]:
        """The attention layers in order, here ``(self.attention,)``, the one layer."""
        return (self.attention,)


class TwoLayerModel(nn.Module):
    """Two attention layers on a *residual stream*, and one linear readout
    per answer: attention only, no feed-forward network and no LayerNorm, as
    in the models of Elhage et al. (2021), *A Mathematical Framework for
    Transformer Circuits*.

    Each token's residual stream starts as its embedding plus its position
    code, ``x0``; each layer reads the stream and *adds* its output to it,
    ``x1 = x0 + attn1(x0)``, ``x2 = x1 + attn2(x1)``; the readouts read
    ``x2``. So what the first layer writes at a token, the second layer's
    queries, keys and values can read there. As in those models (and GPT),
    attention is causal: each token attends to itself and the tokens
    before it (:func:`~mha.masks.causal_mask`), in both layers. Its
    arguments are :class:`ToyModel`'s; each layer has ``n_heads`` heads.

    Attributes:
        layers: ``nn.ModuleList`` of the two
            :class:`~mha.attention.MultiHeadAttention` layers, in order.
        residual: ``True``: the layers add to a residual stream.

    Shape:
        - ids: ``(batch, seq_len)``; mask (optional): as for
          :class:`~mha.attention.MultiHeadAttention`, used by both layers
          together with the causal mask (a key is allowed where both allow it).
        - returns ``logits (batch, seq_len, n_answers, vocab_size)`` and
          ``attn``, a tuple of the two layers' maps, each ``(batch, n_heads,
          seq_len, seq_len)``: ``attn[0]`` the first layer's.
    """

    residual = True

    def __init__(
        self,
        vocab_size: int,
        n_answers: int = 1,
        d_model: int = D_MODEL,
        n_heads: int = 4,
        max_length: int = MAX_LENGTH,
        dtype: torch.dtype | None = None,
        d_key: int | None = None,
    ):
        """Build the embeddings, the positional encoding, two attention layers
        (no dropout) and ``n_answers`` readouts of ``vocab_size`` scores each."""
        super().__init__()
        check_int("n_answers", n_answers)
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.layers = nn.ModuleList(
            MultiHeadAttention(d_model, n_heads, dropout=0.0, d_key=d_key, dtype=dtype)
            for _ in range(2)
        )
        self.readouts = nn.ModuleList(
            nn.Linear(d_model, vocab_size, dtype=dtype) for _ in range(n_answers)
        )

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None):
        """ids ``(batch, seq_len)`` → logits ``(batch, seq_len, n_answers,
        vocab_size)`` and the maps of both layers, a tuple of ``(batch,
        n_heads, seq_len, seq_len)``."""
        attn1, attn2 = self.layers
        allowed = causal_mask(ids.size(1), device=ids.device)  # (seq_len, seq_len)
        if mask is not None:
            shape = (ids.size(0), attn1.n_heads, ids.size(1), ids.size(1))
            allowed = allowed & check_mask(mask, shape, device=ids.device)
        mask = allowed  # broadcastable to (batch, n_heads, seq_len, seq_len)
        x0 = self.position(self.embed(ids))  # (batch, seq_len, d_model): the stream
        out1, probs1 = attn1(x0, x0, x0, mask)  # (batch, seq_len, d_model)
        x1 = x0 + out1  # (batch, seq_len, d_model): layer 1 adds to the stream
        out2, probs2 = attn2(x1, x1, x1, mask)  # (batch, seq_len, d_model)
        x2 = x1 + out2  # (batch, seq_len, d_model): layer 2 adds to it
        scores = [readout(x2) for readout in self.readouts]  # (batch, seq_len, vocab)
        logits = torch.stack(scores, dim=2)  # (batch, seq_len, n_answers, vocab)
        return logits, (probs1, probs2)
