"""A key-value cache: causal self-attention one new position at a time.

A model that generates text runs its layers once per new token. Under a causal
mask, the keys and values of the earlier positions never change (position ``i``
sees positions ``0 … i`` only), so a layer can keep them and compute, at each
step, only the new position's query, key and value. :class:`KVCache` does that
for one :class:`~mha.attention.MultiHeadAttention`, with the same steps as its
``forward``; its outputs equal the layer's on the whole sequence with
``causal_mask``.
"""

from __future__ import annotations

import torch

from mha._checks import check_int
from mha.attention import (
    MultiHeadAttention,
    attention_probs,
    merge_heads,
    scaled_dot_product,
    split_heads,
)
from mha.masks import causal_mask

__all__ = ["KVCache"]


class KVCache:
    """The keys and values one causal self-attention layer has computed so far.

    Args:
        layer: the layer, in evaluation mode (no dropout): generation.
        max_length: the most positions the cache may hold, e.g. the length of
            the model's position table; ``None``: no limit.

    Attributes:
        K, V: ``(batch, n_heads, length, d_key)``, the keys and values of
            every position so far; ``None`` before the first step.

    Shape (of :meth:`step`):
        - x: ``(batch, new, d_model)``, the inputs of the next ``new``
          positions (the prompt at once, then one position per step).
        - output: ``(batch, new, d_model)``.
        - attn_probs: ``(batch, n_heads, new, length)``: the new positions'
          rows of the causal attention map over every position so far.
    """

    def __init__(self, layer: MultiHeadAttention, max_length: int | None = None):
        """An empty cache for ``layer`` (arguments: see the class)."""
        if not isinstance(layer, MultiHeadAttention):
            raise TypeError(
                f"layer must be an mha.MultiHeadAttention, got {type(layer).__name__}"
            )
        if layer.training and layer.dropout.p > 0:
            raise ValueError(
                f"layer is in training mode with dropout={layer.dropout.p}: a cache "
                "is for generation; call layer.eval() first"
            )
        self.layer = layer
        self.max_length = (
            None if max_length is None else check_int("max_length", max_length)
        )
        self.K: torch.Tensor | None = None
        self.V: torch.Tensor | None = None

    @property
    def length(self) -> int:
        """How many positions the cache holds."""
        return 0 if self.K is None else self.K.size(2)

    def step(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(output, attn_probs)`` of the next positions, ``x (batch, new,
        d_model)``, each attending to every position so far and to itself;
        their keys and values join the cache."""
        self._check(x)
        layer, n_heads = self.layer, self.layer.n_heads
        Q = split_heads(layer.Wq(x), n_heads)  # (batch, n_heads, new, d_key)
        K = split_heads(layer.Wk(x), n_heads)  # (batch, n_heads, new, d_key)
        V = split_heads(layer.Wv(x), n_heads)  # (batch, n_heads, new, d_key)
        if self.K is not None:  # the earlier positions' keys and values, unchanged
            K = torch.cat([self.K, K], dim=2)  # (batch, n_heads, length, d_key)
            V = torch.cat([self.V, V], dim=2)  # (batch, n_heads, length, d_key)
        self.K, self.V = K, V
        new, length = x.size(1), K.size(2)
        mask = causal_mask(length)[-new:]  # (new, length): the last rows of the mask
        scores = scaled_dot_product(Q, K)  # (batch, n_heads, new, length)
        attn_probs = attention_probs(scores, mask)  # (batch, n_heads, new, length)
        A = attn_probs @ V  # (batch, n_heads, new, d_key)
        output = layer.Wo(merge_heads(A))  # (batch, new, d_model)
        return output, attn_probs

    def _check(self, x: torch.Tensor) -> None:
        self.layer._check_input(
            "x", x, "new"
        )  # (batch, new, d_model), the weights' dtype
        if x.size(1) == 0:
            raise ValueError(
                f"x must hold at least one new position, got {tuple(x.shape)}"
            )
        if self.K is not None and x.size(0) != self.K.size(0):
            raise ValueError(
                f"x must continue the cache's {self.K.size(0)} sequences, "
                f"got a batch of {x.size(0)}"
            )
        if self.max_length is not None and self.length + x.size(1) > self.max_length:
            raise ValueError(
                f"the cache holds at most max_length={self.max_length} positions: "
                f"{self.length} so far plus x's {x.size(1)} is too many"
            )
