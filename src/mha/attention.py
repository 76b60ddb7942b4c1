"""Multi-head attention, and the named steps it is made of.

The chapters call the steps one at a time; :class:`MultiHeadAttention` chains
them. Shapes use ``batch``, ``n_heads``, ``q_len`` (queries), ``k_len`` (keys
and values), ``d_model`` and ``d_key``, the width of one head: by the paper's
and PyTorch's convention ``d_model // n_heads``, but any width will do (the
steps then see ``n_heads * d_key`` features where they say ``d_model``).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from mha._checks import check_int, check_probability, check_tensor
from mha.masks import check_mask

__all__ = [
    "MultiHeadAttention",
    "attention_probs",
    "check_heads",
    "divisors",
    "merge_heads",
    "scaled_dot_product",
    "split_heads",
]


def divisors(n: int) -> list[int]:
    """The positive divisors of ``n`` in increasing order. For ``n = d_model``,
    the head counts a layer of that width accepts: ``divisors(8)`` is
    ``[1, 2, 4, 8]``."""
    check_int("n", n)
    return [k for k in range(1, n + 1) if n % k == 0]


def check_heads(d_model: int, n_heads: int) -> None:
    """``n_heads`` must divide ``d_model`` when each head's width is left to
    the convention ``d_key = d_model // n_heads``."""
    check_int("d_model", d_model)
    check_int("n_heads", n_heads)
    if d_model % n_heads:
        raise ValueError(
            f"n_heads must divide d_model so that every head gets d_model / n_heads "
            f"features: d_model={d_model} is not divisible by n_heads={n_heads} "
            f"(allowed n_heads: {', '.join(map(str, divisors(d_model)))}; or give "
            f"each head its width with d_key)"
        )


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Cut the feature axis into ``n_heads`` slices and move the heads forward.

    ``(batch, seq_len, d_model)`` → ``(batch, n_heads, seq_len, d_key)``.
    """
    check_tensor("x", x, "(batch, seq_len, d_model)", dims=3)
    batch, seq_len, d_model = x.shape
    check_heads(d_model, n_heads)
    d_key = d_model // n_heads
    x = x.reshape(batch, seq_len, n_heads, d_key)  # (batch, seq_len, n_heads, d_key)
    return x.transpose(1, 2)  # (batch, n_heads, seq_len, d_key)


def scaled_dot_product(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Attention scores ``Q Kᵀ / √d_key``, one per query and key.

    ``Q (batch, n_heads, q_len, d_key)`` and ``K (batch, n_heads, k_len, d_key)``
    → ``(batch, n_heads, q_len, k_len)``.
    """
    check_tensor("Q", Q, "(batch, n_heads, q_len, d_key)", dims=4)
    check_tensor("K", K, "(batch, n_heads, k_len, d_key)", dims=4)
    if Q.shape[:2] != K.shape[:2] or Q.size(-1) != K.size(-1):
        raise ValueError(
            "Q (batch, n_heads, q_len, d_key) and K (batch, n_heads, k_len, d_key) "
            "must agree on batch, n_heads and d_key, "
            f"got {tuple(Q.shape)} and {tuple(K.shape)}"
        )
    d_key = Q.size(-1)
    Q = Q / math.sqrt(d_key)  # (batch, n_heads, q_len, d_key): divides every score
    return Q @ K.transpose(-2, -1)  # (batch, n_heads, q_len, k_len)


def attention_probs(
    scores: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """Softmax over the keys, after blocking the keys the mask forbids.

    Args:
        scores: ``(batch, n_heads, q_len, k_len)``.
        mask: broadcastable to ``scores``; ``True``/1 = may attend,
            ``False``/0 = blocked (see `mha.masks.check_mask`).

    Returns:
        ``(batch, n_heads, q_len, k_len)``; each row sums to 1 and blocked
        entries are 0. A query whose every key is blocked gets a row of zeros
        (it attends to nothing) instead of NaN.
    """
    check_tensor("scores", scores, "(batch, n_heads, q_len, k_len)", dims=4)
    if mask is None:
        return scores.softmax(dim=-1)  # (batch, n_heads, q_len, k_len)
    allowed = check_mask(mask, tuple(scores.shape), device=scores.device)  # bool
    scores = scores.masked_fill(~allowed, float("-inf"))  # blocked keys: -inf
    probs = scores.softmax(dim=-1)  # (batch, n_heads, q_len, k_len)
    no_key = ~allowed.any(dim=-1, keepdim=True)  # (..., q_len, 1): all keys blocked
    if no_key.any():  # softmax gave NaN there: such a query attends to nothing
        probs = probs.masked_fill(no_key, 0.0)
    return probs


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Undo `split_heads`: lay the heads side by side again.

    ``(batch, n_heads, seq_len, d_key)`` → ``(batch, seq_len, n_heads * d_key)``.
    """
    check_tensor("x", x, "(batch, n_heads, seq_len, d_key)", dims=4)
    batch, n_heads, seq_len, d_key = x.shape
    x = x.transpose(1, 2)  # (batch, seq_len, n_heads, d_key)
    return x.reshape(batch, seq_len, n_heads * d_key)  # (batch, seq_len, d_model)


class MultiHeadAttention(nn.Module):
    """Multi-head attention as in *Attention Is All You Need*.

    Args:
        d_model: size of each input and output vector.
        n_heads: number of heads.
        dropout: dropout probability on the attention probabilities; 0.0 by
            default, as in ``nn.MultiheadAttention`` (when above 0, active only
            in training mode: call ``.eval()`` for repeatable numbers).
        d_key: the width of each head's queries, keys and values. ``None``
            (the default) follows the paper's and PyTorch's convention,
            ``d_model // n_heads``, which needs ``n_heads`` to divide
            ``d_model`` and gives the layer PyTorch's shapes. Any other width
            is allowed (T5 calls it ``d_kv``): ``Wq``, ``Wk``, ``Wv`` then
            map ``d_model`` to ``n_heads * d_key`` features and ``Wo`` maps
            them back.
        device, dtype: where and in which precision the weights are made, as
            for ``nn.Linear``.

    Attributes:
        Wq, Wk, Wv: ``nn.Linear(d_model, n_heads * d_key)`` with bias; each
            computes ``x Wᵀ + b``. Wo: ``nn.Linear(n_heads * d_key, d_model)``.
            By default ``n_heads * d_key = d_model``.

    Shape:
        - query: ``(batch, q_len, d_model)``.
        - key, value: ``(batch, k_len, d_model)``.
        - mask: ``None`` (every query may attend to every key), or a tensor
          in the package's convention: ``True``/1 = may attend, ``False``/0 =
          blocked; bool, integer or float holding only 0 and 1; either 2-D
          ``(q_len, k_len)``, the same for every sequence and head, or 4-D
          and broadcastable to ``(batch, n_heads, q_len, k_len)`` (a padding
          mask is ``(batch, 1, 1, k_len)``). 3-D masks are refused as
          ambiguous. See `mha.masks` for builders and for converters to
          PyTorch's conventions.
        - output: ``(batch, q_len, d_model)``.
        - attn_probs: ``(batch, n_heads, q_len, k_len)``, one map per head,
          taken before dropout. Every row sums to 1, or is all zeros when
          the mask blocks all of that query's keys.

    Raises:
        TypeError: an input is not a floating-point tensor, or its dtype is
            not the weights' dtype; the mask is not a tensor.
        ValueError: ``n_heads`` does not divide ``d_model`` and ``d_key`` is
            not given; an input is not
            3-D with ``d_model`` features, or on another device than the
            weights; batch sizes differ, or key and value lengths differ; the
            mask has another shape, holds values other than 0 and 1, or
            blocks every key of every query.
    """

    def __init__(
        self,
        d_model: int = 512,
        n_heads: int = 8,
        dropout: float = 0.0,
        d_key: int | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ):
        """The four projections ``Wq, Wk, Wv, Wo`` and the dropout (arguments:
        see the class)."""
        super().__init__()
        if d_key is None:  # the convention: n_heads divides d_model
            check_heads(d_model, n_heads)
            d_key = d_model // n_heads
        else:
            check_int("d_model", d_model)
            check_int("n_heads", n_heads)
            check_int("d_key", d_key)
        check_probability("dropout", dropout)
        self.d_model = d_model
        self.n_heads = n_heads
        self.d_key = d_key
        width = n_heads * d_key  # all heads side by side; d_model by convention
        self.Wq = nn.Linear(d_model, width, device=device, dtype=dtype)
        self.Wk = nn.Linear(d_model, width, device=device, dtype=dtype)
        self.Wv = nn.Linear(d_model, width, device=device, dtype=dtype)
        self.Wo = nn.Linear(width, d_model, device=device, dtype=dtype)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(output, attn_probs)``: ``output (batch, q_len, d_model)`` for
        ``query (batch, q_len, d_model)`` attending to ``key``, ``value``
        ``(batch, k_len, d_model)`` where ``mask`` allows; ``attn_probs (batch,
        n_heads, q_len, k_len)``."""
        self._check_inputs(query, key, value)
        Q = split_heads(self.Wq(query), self.n_heads)  # (batch, n_heads, q_len, d_key)
        K = split_heads(self.Wk(key), self.n_heads)  # (batch, n_heads, k_len, d_key)
        V = split_heads(self.Wv(value), self.n_heads)  # (batch, n_heads, k_len, d_key)
        scores = scaled_dot_product(Q, K)  # (batch, n_heads, q_len, k_len)
        attn_probs = attention_probs(scores, mask)  # (batch, n_heads, q_len, k_len)
        A = self.dropout(attn_probs) @ V  # (batch, n_heads, q_len, d_key)
        output = self.Wo(merge_heads(A))  # (batch, q_len, d_model)
        return output, attn_probs

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, n_heads={self.n_heads}, d_key={self.d_key}"

    def _check_inputs(
        self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor
    ) -> None:
        for name, x, length in (
            ("query", query, "q_len"),
            ("key", key, "k_len"),
            ("value", value, "k_len"),
        ):
            self._check_input(name, x, length)
        if not query.size(0) == key.size(0) == value.size(0):
            raise ValueError(
                "query, key and value must have the same batch size, got "
                f"{query.size(0)}, {key.size(0)} and {value.size(0)}"
            )
        if key.size(1) != value.size(1):
            raise ValueError(
                "key and value must have the same length (one value per key), "
                f"got k_len={key.size(1)} for key and {value.size(1)} for value"
            )

    def _check_input(self, name: str, x: torch.Tensor, length: str) -> None:
        """``x``, the argument ``name``, must be a floating-point tensor
        ``(batch, length, d_model)`` on the weights' device, in their dtype."""
        weight = self.Wq.weight
        shape_text = f"(batch, {length}, d_model={self.d_model})"
        check_tensor(name, x, shape_text, dims=3)
        if x.size(-1) != self.d_model:
            raise ValueError(
                f"{name} must have shape {shape_text}, got {tuple(x.shape)}"
            )
        if x.device != weight.device:
            raise ValueError(
                f"{name} is on device {x.device} but the layer's weights are "
                f"on {weight.device}; move one of them with .to()"
            )
        if x.dtype != weight.dtype:
            raise TypeError(
                f"{name} has dtype {x.dtype} but the layer's weights have dtype "
                f"{weight.dtype}; convert the input with .to({weight.dtype}) or the layer "
                f"with .to({x.dtype})"
            )
