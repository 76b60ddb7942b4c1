"""The plainest peer of the book's layer, for the side-by-side benchmark.

Written here in the style of the chapter-3 ``MultiHeadAttention`` of Sebastian
Raschka's *Build a Large Language Model (From Scratch)* (a causal layer whose
mask is a registered buffer, filled in place; no checks, no named steps): the
simplest layer a reader would compare the book's with. Not used by the book.
"""

from __future__ import annotations

import torch
from torch import nn


class PeerAttention(nn.Module):
    """Causal multi-head self-attention on ``x (batch, seq_len, d_model)``."""

    def __init__(self, d_model: int, n_heads: int, context_length: int):
        super().__init__()
        self.n_heads = n_heads
        self.d_key = d_model // n_heads
        self.W_query = nn.Linear(d_model, d_model)
        self.W_key = nn.Linear(d_model, d_model)
        self.W_value = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        future = torch.triu(torch.ones(context_length, context_length), diagonal=1)
        self.register_buffer("mask", future.bool())  # True = a later token

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, d_model = x.shape

        def heads(t):  # (batch, length, d_model) -> (batch, n_heads, length, d_key)
            return t.view(batch, length, self.n_heads, self.d_key).transpose(1, 2)

        q, k, v = heads(self.W_query(x)), heads(self.W_key(x)), heads(self.W_value(x))
        scores = q @ k.transpose(2, 3)  # (batch, n_heads, length, length)
        scores.masked_fill_(self.mask[:length, :length], -torch.inf)
        weights = torch.softmax(scores / self.d_key**0.5, dim=-1)
        context = (weights @ v).transpose(1, 2)  # (batch, length, n_heads, d_key)
        return self.out_proj(context.contiguous().view(batch, length, d_model))
