"""Attention masks: builders, a checker, and converters to PyTorch's conventions.

**The package's convention** (the one the book uses throughout): a mask is
broadcastable to ``(batch, n_heads, q_len, k_len)``; ``True`` (or 1) means the
query *may attend* to that key, ``False`` (or 0) means it is *blocked*.

PyTorch's own functions use other conventions, which is why converters exist:

===========================================  =================================
function and argument                         meaning of the values
===========================================  =================================
``nn.MultiheadAttention(attn_mask=bool)``     ``True`` = blocked
``nn.MultiheadAttention(attn_mask=float)``    added to the scores (0 / -inf)
``nn.MultiheadAttention(key_padding_mask)``   ``True`` = blocked key, ``(batch, k_len)``
``F.scaled_dot_product_attention(bool)``      ``True`` = may attend (like ours)
===========================================  =================================
"""

from __future__ import annotations

import torch

from mha._checks import check_int


def causal_mask(length: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Look-ahead mask: position ``i`` may attend to positions ``0 … i`` only.

    Returns:
        BoolTensor ``(length, length)``, lower triangle (diagonal included) ``True``.
    """
    check_int("length", length)
    ones = torch.ones(length, length, dtype=torch.bool, device=device)
    return ones.tril()  # (q_len, k_len)


def padding_mask(ids: torch.Tensor, pad_id: int = 0) -> torch.Tensor:
    """Block the keys that are padding tokens.

    Args:
        ids: token ids ``(batch, k_len)``.
        pad_id: the id of ``<pad>``.

    Returns:
        A BoolTensor of shape ``(batch, 1, 1, k_len)``, ``False`` where ``ids == pad_id``.
    """
    if not isinstance(ids, torch.Tensor):
        raise TypeError(
            f"ids must be a tensor of token ids (batch, k_len), got {type(ids).__name__}"
        )
    if ids.dim() != 2:
        raise ValueError(
            f"ids must be a tensor of shape (batch, k_len), got {tuple(ids.shape)}"
        )
    if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
        raise TypeError(f"ids must be integer token ids, got dtype {ids.dtype}")
    return (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, k_len)


def lengths_mask(
    lengths: torch.Tensor | list[int], k_len: int | None = None
) -> torch.Tensor:
    """Block the keys past each sequence's length.

    Args:
        lengths: number of real tokens of each sequence, ``(batch,)``.
        k_len: total length of the padded batch; by default ``max(lengths)``.

    Returns:
        A BoolTensor of shape ``(batch, 1, 1, k_len)``, ``True`` on the first
        ``lengths[b]`` keys of sequence ``b``.
    """
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1 or lengths.numel() == 0 or lengths.is_floating_point():
        raise ValueError(
            f"lengths must be a non-empty 1-D list of ints, got shape {tuple(lengths.shape)} "
            f"and dtype {lengths.dtype}"
        )
    longest = int(lengths.max())
    k_len = longest if k_len is None else check_int("k_len", k_len, minimum=0)
    if int(lengths.min()) < 0 or k_len < longest:
        raise ValueError(
            f"lengths must lie in [0, k_len={k_len}], got values from "
            f"{int(lengths.min())} to {longest}"
        )
    positions = torch.arange(k_len, device=lengths.device)  # (k_len,)
    allowed = positions[None, :] < lengths[:, None]  # (batch, k_len)
    return allowed[:, None, None, :]  # (batch, 1, 1, k_len)


def check_mask(
    mask: torch.Tensor,
    shape: tuple[int, int, int, int],
    device: torch.device | None = None,
) -> torch.Tensor:
    """Validate a mask in the package's convention and return it as bool.

    Accepted: bool, integer or floating tensors holding only 0 and 1, either
    2-D ``(q_len, k_len)`` or 4-D and broadcastable to ``shape`` =
    ``(batch, n_heads, q_len, k_len)``, allowing at least one entry. A 2-D
    mask is always read as ``(q_len, k_len)``: a ``(batch, k_len)`` padding
    mask must be given as ``(batch, 1, 1, k_len)`` (see :func:`padding_mask`).
    With ``device``, the mask must be on that device (the scores' device).
    """
    if not isinstance(mask, torch.Tensor):
        raise TypeError(
            f"mask must be a torch.Tensor or None, got {type(mask).__name__}"
        )
    if device is not None and mask.device != device:
        raise ValueError(
            f"mask is on {mask.device} but the scores are on {device}; "
            "move it with mask.to(scores.device)"
        )
    if mask.dim() not in (2, 4):
        hint = (
            " A 3-D mask is ambiguous (is the first axis the batch or the heads?): "
            "add the head axis with mask.unsqueeze(1) to get (batch, 1, q_len, k_len)."
            if mask.dim() == 3
            else ""
        )
        raise ValueError(
            "mask must be 2-D (q_len, k_len) or 4-D (batch, n_heads, q_len, k_len) with "
            f"size-1 axes allowed, got shape {tuple(mask.shape)}.{hint}"
        )
    full = (1, 1, *mask.shape) if mask.dim() == 2 else tuple(mask.shape)
    if any(m not in (1, s) for m, s in zip(full, shape, strict=True)):
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to "
            f"(batch, n_heads, q_len, k_len) = {tuple(shape)}"
        )
    if mask.is_complex():
        raise TypeError(f"mask must be bool, integer or float, got dtype {mask.dtype}")
    if mask.dtype == torch.bool:
        allowed = mask
    else:
        allowed = mask == 1
        odd = ~allowed & (mask != 0)  # neither 0 nor 1
        if odd.any():
            value = mask[odd][0].item()
            hint = (
                "An additive mask of 0 and -inf is PyTorch's convention; convert it "
                "with `mask == 0`."
                if value < 0
                else "A mask says which keys a query may attend to, not how much: "
                "make it bool, e.g. `mask > 0`."
            )
            raise ValueError(
                "mask must hold only 0/False (blocked) and 1/True (may attend), "
                f"got the value {value} (dtype {mask.dtype}). {hint}"
            )
    if not allowed.any():
        raise ValueError(
            f"mask blocks every key for every query (all {mask.numel()} entries are 0/False), "
            "so nothing could be attended to. If it is an additive mask in PyTorch's "
            "convention (0 = allowed), convert it with `mask == 0`."
        )
    return allowed


def to_sdpa_mask(mask: torch.Tensor) -> torch.Tensor:
    """For ``F.scaled_dot_product_attention(attn_mask=...)``: bool, ``True`` = may attend.

    Same convention as ours, so only the dtype changes; the shape is kept.
    """
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a torch.Tensor, got {type(mask).__name__}")
    full = (1, 1, *mask.shape) if mask.dim() == 2 else tuple(mask.shape)
    return check_mask(mask, full)


def to_additive_mask(
    mask: torch.Tensor, dtype: torch.dtype | None = None
) -> torch.Tensor:
    """A float mask to *add* to the scores: 0 where allowed, ``-inf`` where blocked.

    ``dtype`` must be the scores' dtype; by default PyTorch's default dtype.
    """
    allowed = to_sdpa_mask(mask)
    additive = torch.zeros(allowed.shape, dtype=dtype, device=allowed.device)
    return additive.masked_fill(~allowed, float("-inf"))


def to_nn_attn_mask(
    mask: torch.Tensor, shape: tuple[int, int, int, int]
) -> torch.Tensor:
    """For ``nn.MultiheadAttention(attn_mask=...)``: bool, ``True`` = blocked.

    Args:
        mask: a mask in the package's convention.
        shape: ``(batch, n_heads, q_len, k_len)`` of the attention it is used in.

    Returns:
        ``(q_len, k_len)`` when the mask is the same for every sequence and
        head, otherwise ``(batch * n_heads, q_len, k_len)`` (PyTorch's layout).
    """
    allowed = check_mask(mask, shape)
    batch, n_heads, q_len, k_len = shape
    if allowed.dim() == 2 or allowed.shape[:2] == (1, 1):
        one = allowed.reshape(allowed.shape[-2:])  # (q_len or 1, k_len or 1)
        return ~one.expand(q_len, k_len)  # (q_len, k_len)
    full = allowed.expand(*shape)  # (batch, n_heads, q_len, k_len)
    return ~full.reshape(batch * n_heads, q_len, k_len)  # (batch * n_heads, ...)


def to_key_padding_mask(mask: torch.Tensor) -> torch.Tensor:
    """For ``nn.MultiheadAttention(key_padding_mask=...)``: ``(batch, k_len)``, ``True`` = pad.

    Args:
        mask: a padding mask in the package's convention, ``(batch, 1, 1, k_len)``
            (as from :func:`padding_mask`) or ``(batch, k_len)`` (as
            ``Vocab.encode_batch`` returns it).
    """
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a torch.Tensor, got {type(mask).__name__}")
    if mask.dim() == 4 and mask.shape[1:3] == (1, 1):
        mask = mask[:, 0, 0, :]  # (batch, k_len)
    if mask.dim() != 2:
        raise ValueError(
            "mask must be a padding mask of shape (batch, 1, 1, k_len) or (batch, k_len), "
            f"got shape {tuple(mask.shape)}"
        )
    return ~check_mask(mask, (1, 1, *mask.shape))  # (batch, k_len)
