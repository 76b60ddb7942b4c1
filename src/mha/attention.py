"""Multi-head attention, and the named steps it is made of.

The chapters call the steps one at a time; :class:`MultiHeadAttention` chains
them. Shapes use ``batch``, ``n_heads``, ``q_len`` (queries), ``k_len``
(keys and values), ``d_model`` and ``d_key = d_model // n_heads``.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from mha._checks import check_heads, check_tensor
from mha.masks import check_mask


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Cut the feature axis into ``n_heads`` slices and move heads forward.

    ``(batch, seq_len, d_model)`` → ``(batch, n_heads, seq_len, d_key)``.
    """
    check_tensor("x", x, 3, "(batch, seq_len, d_model)")
    batch, seq_len, d_model = x.shape
    check_heads(d_model, n_heads)
    x = x.reshape(batch, seq_len, n_heads, d_model // n_heads)  # (batch, seq_len, n_heads, d_key)
    return x.permute(0, 2, 1, 3)  # (batch, n_heads, seq_len, d_key)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Undo :func:`split_heads`: put the heads side by side again.

    ``(batch, n_heads, seq_len, d_key)`` → ``(batch, seq_len, n_heads * d_key)``.
    """
    check_tensor("x", x, 4, "(batch, n_heads, seq_len, d_key)")
    batch, n_heads, seq_len, d_key = x.shape
    x = x.permute(0, 2, 1, 3)  # (batch, seq_len, n_heads, d_key)
    return x.reshape(batch, seq_len, n_heads * d_key)  # (batch, seq_len, d_model)


def scaled_dot_product(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Attention scores ``Q Kᵀ / √d_key``.

    ``Q (batch, n_heads, q_len, d_key)``, ``K (batch, n_heads, k_len, d_key)``
    → ``(batch, n_heads, q_len, k_len)``. Scaling ``Q`` before the product
    gives the same numbers as scaling the product, on a smaller tensor.
    """
    check_tensor("Q", Q, 4, "(batch, n_heads, q_len, d_key)")
    check_tensor("K", K, 4, "(batch, n_heads, k_len, d_key)")
    if Q.shape[:2] != K.shape[:2] or Q.size(-1) != K.size(-1):
        raise ValueError(
            "Q (batch, n_heads, q_len, d_key) and K (batch, n_heads, k_len, d_key) must agree "
            f"on batch, n_heads and d_key, got {tuple(Q.shape)} and {tuple(K.shape)}"
        )
    Q = Q / math.sqrt(Q.size(-1))  # (batch, n_heads, q_len, d_key)
    return Q @ K.transpose(-2, -1)  # (batch, n_heads, q_len, k_len)


def _allowed_keys(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``mask`` checked against ``scores`` and returned as bool (True = may attend)."""
    if isinstance(mask, torch.Tensor) and mask.device != scores.device:
        raise ValueError(f"mask is on {mask.device} but the scores are on {scores.device}")
    return check_mask(mask, tuple(scores.shape))


def attention_probs(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the keys, after blocking the keys the mask forbids.

    Args:
        scores: ``(batch, n_heads, q_len, k_len)``.
        mask: broadcastable to ``scores``; ``True``/1 = may attend,
            ``False``/0 = blocked (see :mod:`mha.masks`).

    Returns:
        ``(batch, n_heads, q_len, k_len)``; each row sums to 1 and blocked
        entries are exactly 0. A query whose every key is blocked gets a row of
        zeros (it attends to nothing) instead of NaN.
    """
    check_tensor("scores", scores, 4, "(batch, n_heads, q_len, k_len)")
    if mask is None:
        return torch.softmax(scores, dim=-1)  # (batch, n_heads, q_len, k_len)
    allowed = _allowed_keys(scores, mask)  # bool, broadcastable to scores
    scores = scores.masked_fill(~allowed, float("-inf"))  # (batch, n_heads, q_len, k_len)
    probs = torch.softmax(scores, dim=-1)  # (batch, n_heads, q_len, k_len)
    no_key = ~allowed.any(dim=-1, keepdim=True)  # queries whose every key is blocked
    if no_key.any():
        probs = probs.masked_fill(no_key, 0.0)  # their rows: 0 instead of NaN
    return probs


def attention_probs_(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """:func:`attention_probs` computed in place, overwriting ``scores``.

    For inference only (``scores`` must not need gradients): it saves
    allocating a second ``(batch, n_heads, q_len, k_len)`` tensor, which is
    what makes long sequences slow. Exactly the same result as
    :func:`attention_probs`.
    """
    if scores.requires_grad:
        raise ValueError("scores must not require gradients: attention_probs_ overwrites them")
    check_tensor("scores", scores, 4, "(batch, n_heads, q_len, k_len)")
    no_key = None
    if mask is not None:
        allowed = _allowed_keys(scores, mask)  # bool, broadcastable to scores
        scores.masked_fill_(~allowed, float("-inf"))
        no_key = ~allowed.any(dim=-1, keepdim=True)  # queries whose every key is blocked
    # PyTorch has no public in-place softmax; its ATen operator `_softmax.out`
    # writes the very same numbers as torch.softmax into the tensor it is given.
    torch.ops.aten._softmax.out(scores, -1, False, out=scores)
    if no_key is not None and no_key.any():
        scores.masked_fill_(no_key, 0.0)  # their rows: 0 instead of NaN
    return scores


class MultiHeadAttention(nn.Module):
    """Multi-head attention as in *Attention Is All You Need*.

    Args:
        d_model: size of each input and output vector.
        n_heads: number of heads; must divide ``d_model``. Each head works on
            ``d_key = d_model // n_heads`` features.
        dropout: dropout probability on the attention probabilities
            (active only in training mode; call ``.eval()`` for repeatable numbers).

    Attributes:
        Wq, Wk, Wv, Wo: ``nn.Linear(d_model, d_model)`` with bias; each computes
            ``x Wᵀ + b``.

    Shape:
        - query: ``(batch, q_len, d_model)``
        - key, value: ``(batch, k_len, d_model)``
        - mask: broadcastable to ``(batch, n_heads, q_len, k_len)``, ``True``/1 =
          may attend, ``False``/0 = blocked; or ``None``.
        - output: ``(batch, q_len, d_model)``
        - attn_probs: ``(batch, n_heads, q_len, k_len)``, one map per head,
          taken before dropout (every row sums to 1, or is all zeros if
          the mask blocks all of its keys).
    """

    def __init__(self, d_model: int = 512, n_heads: int = 8, dropout: float = 0.1):
        super().__init__()
        check_heads(d_model, n_heads)
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout}")
        self.d_model = d_model
        self.n_heads = n_heads
        self.d_key = d_model // n_heads
        self.Wq = nn.Linear(d_model, d_model)
        self.Wk = nn.Linear(d_model, d_model)
        self.Wv = nn.Linear(d_model, d_model)
        self.Wo = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(p=dropout)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        self._check_inputs(query, key, value)
        Q = split_heads(self.Wq(query), self.n_heads)  # (batch, n_heads, q_len, d_key)
        K = split_heads(self.Wk(key), self.n_heads)  # (batch, n_heads, k_len, d_key)
        V = split_heads(self.Wv(value), self.n_heads)  # (batch, n_heads, k_len, d_key)
        scores = scaled_dot_product(Q, K)  # (batch, n_heads, q_len, k_len)
        if scores.requires_grad:
            attn_probs = attention_probs(scores, mask)  # (batch, n_heads, q_len, k_len)
        else:  # inference: the softmax in place, as PyTorch's own fast path does
            attn_probs = attention_probs_(scores, mask)  # (batch, n_heads, q_len, k_len)
        A = self.dropout(attn_probs) @ V  # (batch, n_heads, q_len, d_key)
        output = self.Wo(merge_heads(A))  # (batch, q_len, d_model)
        return output, attn_probs

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, n_heads={self.n_heads}, d_key={self.d_key}"

    def _check_inputs(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> None:
        weight = self.Wq.weight
        for name, x, length in (("query", query, "q_len"), ("key", key, "k_len"),
                                ("value", value, "k_len")):
            shape_text = f"(batch, {length}, d_model={self.d_model})"
            check_tensor(name, x, 3, shape_text)
            if x.size(-1) != self.d_model:
                raise ValueError(f"{name} must have shape {shape_text}, got {tuple(x.shape)}")
            if x.device != weight.device:
                raise ValueError(
                    f"{name} is on device {x.device} but the layer's weights are on "
                    f"{weight.device}; move one of them with .to()"
                )
            if x.dtype != weight.dtype:
                raise TypeError(
                    f"{name} has dtype {x.dtype} but the layer's weights have dtype "
                    f"{weight.dtype}; convert the input with .to({weight.dtype}) or the layer "
                    f"with .to({x.dtype})"
                )
        if not query.size(0) == key.size(0) == value.size(0):
            raise ValueError(
                "query, key and value must have the same batch size, got "
                f"{query.size(0)}, {key.size(0)} and {value.size(0)}"
            )
        if key.size(1) != value.size(1):
            raise ValueError(
                "key and value must have the same length (one value per key), got "
                f"k_len={key.size(1)} for key and {value.size(1)} for value"
            )
