"""Token embeddings and sinusoidal positional encoding."""

from __future__ import annotations

import math

import torch
from torch import nn

from mha._checks import check_int, check_probability


class Embeddings(nn.Module):
    """A learned lookup table, scaled by √d_model.

    The table starts small, each entry drawn from N(0, 1/d_model), so that
    after the √d_model scale an embedding has entries of size about 1 — the
    same size as the positional code added to it next. (``nn.Embedding`` alone
    starts at N(0, 1), which the scale would blow up to √d_model and drown
    the position signal.)

    Args:
        vocab_size: number of rows of the table (ids ``0 … vocab_size-1``).
        d_model: length of each embedding vector.
        device, dtype: where and in which precision the table is made, as for
            ``nn.Embedding``.

    Shape:
        - ids: ``(batch, seq_len)``, integer.
        - output: ``(batch, seq_len, d_model)``.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ):
        """The table, ``(vocab_size, d_model)``, drawn from N(0, 1/d_model)."""
        super().__init__()
        check_int("vocab_size", vocab_size)
        check_int("d_model", d_model)
        self.vocab_size = vocab_size
        self.d_model = d_model
        self.lut = nn.Embedding(vocab_size, d_model, device=device, dtype=dtype)
        # self.lut.weight: (vocab_size, d_model)
        nn.init.normal_(self.lut.weight, mean=0.0, std=d_model**-0.5)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """The scaled embeddings of ``ids (batch, seq_len)``: ``(batch, seq_len,
        d_model)``."""
        if (
            not isinstance(ids, torch.Tensor)
            or ids.dtype == torch.bool
            or ids.is_floating_point()
            or ids.is_complex()
        ):
            got = ids.dtype if isinstance(ids, torch.Tensor) else type(ids).__name__
            raise TypeError(f"ids must be an integer tensor, got {got}")
        if ids.numel() and (ids.min() < 0 or ids.max() >= self.vocab_size):
            raise ValueError(
                f"ids must lie in [0, {self.vocab_size}), got values from "
                f"{ids.min().item()} to {ids.max().item()}"
            )
        vectors = self.lut(ids.long())  # (batch, seq_len, d_model)
        return vectors * math.sqrt(self.d_model)  # (batch, seq_len, d_model)


def sinusoids(
    max_length: int, d_model: int, dtype: torch.dtype | None = None
) -> torch.Tensor:
    """The positional-encoding table, ``(max_length, d_model)``.

    ``PE[pos, 2i] = sin(pos / 10000^(2i/d_model))`` and
    ``PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model))``. Computed in float64,
    returned in ``dtype`` (by default PyTorch's default dtype).
    """
    check_int("max_length", max_length)
    check_int("d_model", d_model)
    f64 = torch.float64
    position = torch.arange(max_length, dtype=f64).unsqueeze(1)  # (max_length, 1)
    two_i = torch.arange(0, d_model, 2, dtype=f64)  # (ceil(d_model/2),)
    angle = position / 10000 ** (two_i / d_model)  # (max_length, ceil(d_model/2))
    table = torch.zeros(max_length, d_model, dtype=f64)  # (max_length, d_model)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table.to(dtype or torch.get_default_dtype())


class PositionalEncoding(nn.Module):
    """Adds a fixed sinusoidal code for each position, then applies dropout.

    Args:
        d_model: embedding size.
        dropout: dropout probability applied to the sum (active only in
            training mode).
        max_length: longest sequence the table covers.
        dtype: precision of the table (by default PyTorch's default dtype).

    Shape:
        - x: ``(batch, seq_len, d_model)`` with ``seq_len <= max_length``.
        - output: same shape as ``x``.
    """

    def __init__(
        self,
        d_model: int,
        dropout: float = 0.1,
        max_length: int = 5000,
        dtype: torch.dtype | None = None,
    ):
        """The table of sines and cosines, computed once: ``(1, max_length,
        d_model)``."""
        super().__init__()
        check_probability("dropout", dropout)
        self.d_model = d_model
        self.max_length = max_length
        self.dropout = nn.Dropout(p=dropout)
        table = sinusoids(max_length, d_model, dtype)  # (max_length, d_model)
        self.register_buffer("pe", table.unsqueeze(0))  # (1, max_length, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (batch, seq_len, d_model)`` plus each position's code, then
        dropout: ``(batch, seq_len, d_model)``."""
        if x.dim() != 3 or x.size(-1) != self.d_model:
            raise ValueError(
                f"x must have shape (batch, seq_len, {self.d_model}), got {tuple(x.shape)}"
            )
        seq_len = x.size(1)
        if seq_len > self.max_length:
            raise ValueError(
                f"x has {seq_len} positions but max_length is {self.max_length}; "
                f"use a PositionalEncoding with max_length >= {seq_len}"
            )
        x = x + self.pe[:, :seq_len]  # (batch, seq_len, d_model)
        return self.dropout(x)
