"""The attention layer inside a Transformer block, as in *Attention Is All You Need*.

A block wraps each sublayer (attention, feed-forward) in a residual connection
followed by layer normalisation, the paper's *post-norm* order::

    x = LayerNorm(x + Sublayer(x))

:class:`EncoderBlock` has two sublayers: self-attention and a feed-forward
network. :class:`DecoderBlock` has three: causal self-attention, cross-attention
on the encoder's output (``memory``), and a feed-forward network.
:func:`mha.interop.to_torch_block` gives PyTorch's ``nn.TransformerEncoderLayer``
or ``nn.TransformerDecoderLayer`` with the same weights, which computes the same
numbers. Shapes use ``batch``, ``x_len`` (the block's own tokens), ``m_len``
(the encoder's tokens), ``d_model`` and ``d_ff`` (the feed-forward network's
hidden size).
"""

from __future__ import annotations

import torch
from torch import nn

from mha._checks import check_int, check_probability, check_tensor
from mha.attention import MultiHeadAttention
from mha.masks import causal_mask, check_mask

__all__ = ["DecoderBlock", "EncoderBlock", "FeedForward"]


def _check_sequence(name: str, x: object, d_model: int) -> torch.Tensor:
    """``x`` must be a float tensor ``(batch, length, d_model)``."""
    shape_text = (
        f"(batch, {'m_len' if name == 'memory' else 'x_len'}, d_model={d_model})"
    )
    check_tensor(name, x, shape_text, dims=3)
    if x.size(-1) != d_model:
        raise ValueError(f"{name} must have shape {shape_text}, got {tuple(x.shape)}")
    return x


class FeedForward(nn.Module):
    """The position-wise feed-forward network: ``Linear → ReLU → Linear``.

    It acts on every token on its own: ``(…, d_model) → (…, d_ff) → (…, d_model)``.

    Args:
        d_model: size of each input and output vector.
        d_ff: size of the hidden layer (the paper uses ``4 * d_model``).
        dropout: dropout probability on the hidden layer (training mode only).
        device, dtype: as for ``nn.Linear``.
    """

    def __init__(
        self,
        d_model: int = 512,
        d_ff: int = 2048,
        dropout: float = 0.1,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ):
        """The two linear layers, ``d_model → d_ff → d_model``, and the dropout."""
        super().__init__()
        check_int("d_model", d_model)
        check_int("d_ff", d_ff)
        check_probability("dropout", dropout)
        self.linear1 = nn.Linear(d_model, d_ff, device=device, dtype=dtype)
        self.linear2 = nn.Linear(d_ff, d_model, device=device, dtype=dtype)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(…, d_model) → (…, d_model)``, every token on its own."""
        hidden = torch.relu(self.linear1(x))  # (…, d_ff)
        return self.linear2(self.dropout(hidden))  # (…, d_model)


class EncoderBlock(nn.Module):
    """Self-attention and a feed-forward network, each with a residual
    connection and LayerNorm (post-norm, as in the paper).

    Args:
        d_model, n_heads: as for :class:`~mha.attention.MultiHeadAttention`.
        d_ff: hidden size of the :class:`FeedForward` network.
        dropout: on the attention probabilities, the feed-forward hidden
            layer and each sublayer's output (training mode only).
        device, dtype: where and in which precision the weights are made.

    Shape:
        - x: ``(batch, x_len, d_model)``.
        - mask: ``None`` or a mask for the self-attention, as for
          :class:`~mha.attention.MultiHeadAttention` (e.g. a padding mask
          ``(batch, 1, 1, x_len)``).
        - output: ``(batch, x_len, d_model)``.
    """

    def __init__(
        self,
        d_model: int = 512,
        n_heads: int = 8,
        d_ff: int = 2048,
        dropout: float = 0.1,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ):
        """The self-attention, the feed-forward network and their LayerNorms
        (arguments: see the class)."""
        super().__init__()
        kind = {"device": device, "dtype": dtype}
        self.d_model = d_model
        self.n_heads = n_heads
        self.attention = MultiHeadAttention(d_model, n_heads, dropout, **kind)
        self.norm1 = nn.LayerNorm(d_model, **kind)
        self.feed_forward = FeedForward(d_model, d_ff, dropout, **kind)
        self.norm2 = nn.LayerNorm(d_model, **kind)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``x (batch, x_len, d_model)`` through both sublayers: ``(batch, x_len,
        d_model)``."""
        _check_sequence("x", x, self.d_model)
        attended, _ = self.attention(x, x, x, mask)  # (batch, x_len, d_model)
        x = self.norm1(x + self.dropout(attended))  # (batch, x_len, d_model)
        changed = self.feed_forward(x)  # (batch, x_len, d_model)
        return self.norm2(x + self.dropout(changed))  # (batch, x_len, d_model)


class DecoderBlock(nn.Module):
    """Causal self-attention, cross-attention on the encoder's output and a
    feed-forward network, each with a residual connection and LayerNorm.

    The self-attention always uses the causal mask (:func:`mha.masks.causal_mask`):
    token ``i`` sees the decoder's tokens ``0 … i`` only. In the
    cross-attention the queries come from the decoder and the keys and
    values from ``memory``, the encoder's output, all of which every token sees.

    Args:
        d_model, n_heads, d_ff, dropout, device, dtype: as for :class:`EncoderBlock`.

    Shape:
        - x: ``(batch, x_len, d_model)``, the decoder's tokens.
        - memory: ``(batch, m_len, d_model)``, the encoder's output.
        - mask: ``None`` or a mask that blocks more of the self-attention
          (e.g. padding, ``(batch, 1, 1, x_len)``); it is combined with the
          causal mask.
        - memory_mask: ``None`` or a mask for the cross-attention, broadcastable
          to ``(batch, n_heads, x_len, m_len)`` (e.g. the encoder's padding,
          ``(batch, 1, 1, m_len)``).
        - output: ``(batch, x_len, d_model)``.
    """

    def __init__(
        self,
        d_model: int = 512,
        n_heads: int = 8,
        d_ff: int = 2048,
        dropout: float = 0.1,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ):
        """The two attentions, the feed-forward network and their LayerNorms
        (arguments: see the class)."""
        super().__init__()
        kind = {"device": device, "dtype": dtype}
        self.d_model = d_model
        self.n_heads = n_heads
        self.self_attention = MultiHeadAttention(d_model, n_heads, dropout, **kind)
        self.norm1 = nn.LayerNorm(d_model, **kind)
        self.cross_attention = MultiHeadAttention(d_model, n_heads, dropout, **kind)
        self.norm2 = nn.LayerNorm(d_model, **kind)
        self.feed_forward = FeedForward(d_model, d_ff, dropout, **kind)
        self.norm3 = nn.LayerNorm(d_model, **kind)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """``x (batch, x_len, d_model)`` attending to itself (causally) and to
        ``memory (batch, m_len, d_model)``: ``(batch, x_len, d_model)``."""
        _check_sequence("x", x, self.d_model)
        _check_sequence("memory", memory, self.d_model)
        if x.size(0) != memory.size(0):
            raise ValueError(
                "x and memory must have the same batch size (one encoded sequence per "
                f"decoded one), got {x.size(0)} and {memory.size(0)}"
            )
        batch, x_len, _ = x.shape
        allowed = causal_mask(x_len, device=x.device)  # (x_len, x_len): i sees 0 … i
        if mask is not None:
            shape = (batch, self.n_heads, x_len, x_len)
            extra = check_mask(mask, shape, device=x.device)  # bool, broadcastable
            allowed = allowed & extra  # (…, x_len, x_len)
        attended, _ = self.self_attention(x, x, x, allowed)  # (batch, x_len, d_model)
        x = self.norm1(x + self.dropout(attended))  # (batch, x_len, d_model)
        # Queries from the decoder, keys and values from the encoder (memory).
        attended, _ = self.cross_attention(x, memory, memory, memory_mask)
        x = self.norm2(x + self.dropout(attended))  # (batch, x_len, d_model)
        changed = self.feed_forward(x)  # (batch, x_len, d_model)
        return self.norm3(x + self.dropout(changed))  # (batch, x_len, d_model)
