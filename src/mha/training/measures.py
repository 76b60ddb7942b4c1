"""What a trained model has learned, in numbers that do not depend on the last
digits of its weights: how often it answers right, where its heads look, and
what it loses without one of them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
from torch import nn

from mha._checks import check_int
from mha.attention import MultiHeadAttention
from mha.training.task import IGNORE, Task, check_task


def _attention_layer(model: object) -> MultiHeadAttention:
    attention = getattr(model, "attention", model)
    if not isinstance(attention, MultiHeadAttention):
        raise TypeError(
            "model must be a mha.MultiHeadAttention or have one as its `attention`, "
            f"got {type(model).__name__}"
        )
    return attention


def _on(probs: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
    """The attention each head gives the key ``where`` points at.

    ``probs (n, n_heads, L, L)`` and ``where (n, L, n_answers)`` (``-1``: none)
    → ``(n, n_heads, L, n_answers)``.
    """
    index = where.clamp(min=0)[:, None].expand(-1, probs.size(1), -1, -1)
    return probs.gather(-1, index)  # (n, n_heads, L, n_answers)


def behaviour(task: Task, model: nn.Module, mask: torch.Tensor | None = None) -> dict:
    """What ``model`` has learned of ``task``, measured on the task's held-out
    sentences (:meth:`~mha.training.task.Task.test_batches`), with ``mask``
    (as for :class:`~mha.attention.MultiHeadAttention`) if given.

    Returns:
        A dict of

        - ``accuracy``: ``{answer: share of its positions answered right}``;
        - ``joint``: the share of positions where *every* answer is right at
          once, over the positions that have every answer (for a task of one
          answer, its accuracy);
        - ``share``: ``{answer: [one number per head]}``, the attention each
          head gives the key that holds the answer, averaged over the
          positions that have one: 1 for a head that always looks there;
        - ``head``: ``{answer: the head with the largest share}``, which head
          does what;

        and, for a task whose batches mark decoys (keys a wrong strategy
        would read), ``hard``, ``{answer: accuracy where a decoy would
        mislead}``, and ``decoy_share``, ``{answer: [per head]}``, the
        attention on the decoy at those positions.
    """
    check_task(task)
    _attention_layer(model)
    correct, answered, on_key, decoyed, on_decoy = [], [], [], [], []
    for batch in task.test_batches():
        with torch.no_grad():
            logits, probs = model(batch.ids, mask)  # (n, L, n_answers, vocab)
        correct.append((logits.argmax(dim=-1) == batch.targets).flatten(0, 1))
        answered.append((batch.targets != IGNORE).flatten(0, 1))
        on_key.append(_on(probs, batch.keys).transpose(1, 2).flatten(0, 1))
        decoyed.append((batch.decoys >= 0).flatten(0, 1))
        on_decoy.append(_on(probs, batch.decoys).transpose(1, 2).flatten(0, 1))
    # One row per position of every sentence: (positions, n_answers), and
    # (positions, n_heads, n_answers) for the attention.
    correct, answered, decoyed = (torch.cat(c) for c in (correct, answered, decoyed))
    on_key, on_decoy = torch.cat(on_key).double(), torch.cat(on_decoy).double()
    every = answered.all(dim=-1)  # (positions,): every answer asked here
    learned = {
        "accuracy": {},
        "joint": correct[every].all(dim=-1).double().mean().item(),
        "share": {},
        "head": {},
    }
    for a, name in enumerate(task.answers):
        asked = answered[:, a]
        learned["accuracy"][name] = correct[asked, a].double().mean().item()
        shares = on_key[asked, :, a].mean(dim=0)  # (n_heads,)
        learned["share"][name] = shares.tolist()
        learned["head"][name] = int(shares.argmax())
    if decoyed.any():
        learned["hard"], learned["decoy_share"] = {}, {}
        for a, name in enumerate(task.answers):
            misled = decoyed[:, a]
            learned["hard"][name] = correct[misled, a].double().mean().item()
            learned["decoy_share"][name] = on_decoy[misled, :, a].mean(dim=0).tolist()
    return learned


def share_at_offset(attention: torch.Tensor, offset: int) -> torch.Tensor:
    """How much of each head's attention lands ``offset`` positions away.

    Args:
        attention: ``(n_heads, L, L)`` maps of one sentence.
        offset: ``-1`` for the previous word, ``1`` for the next, ``0`` for
            the word itself.

    Returns:
        A tensor of shape ``(n_heads,)``, the mean of ``attention[h, i, i + offset]``
        over the queries ``i`` that have a key at ``i + offset``; 1 means
        that every such query puts all its attention there, and a head
        spreading its attention evenly over L keys scores 1/L.
    """
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(
            f"offset must be an int, got {type(offset).__name__} {offset!r}"
        )
    if not isinstance(attention, torch.Tensor) or attention.dim() != 3:
        got = (
            tuple(attention.shape)
            if isinstance(attention, torch.Tensor)
            else type(attention)
        )
        raise ValueError(f"attention must have shape (n_heads, L, L), got {got}")
    n_heads, q_len, k_len = attention.shape
    if q_len != k_len or q_len <= abs(offset):
        raise ValueError(
            f"attention must be square with L >= {abs(offset) + 1} for offset {offset}, "
            f"got {tuple(attention.shape)}"
        )
    return attention.diagonal(offset=offset, dim1=1, dim2=2).mean(dim=-1)  # (n_heads,)


@contextlib.contextmanager
def without_head(model: nn.Module, head: int) -> Iterator[nn.Module]:
    """Inside the ``with`` block, ``model`` runs without one of its heads.

    The head's output, its ``d_key`` features of the merged heads, is set to
    zero just before ``Wo`` mixes the heads, as if the head had found nothing
    to pass on; its attention map is still computed and returned. The model
    is unchanged after the block.

    Args:
        model: a :class:`~mha.attention.MultiHeadAttention`, or a model whose
            ``attention`` attribute is one (a :class:`~mha.training.model.ToyModel`).
        head: the head to remove, ``0 … n_heads - 1``.
    """
    attention = _attention_layer(model)
    check_int("head", head, minimum=0, maximum=attention.n_heads - 1)
    features = slice(head * attention.d_key, (head + 1) * attention.d_key)

    def zero_head(module, inputs):
        (merged,) = inputs  # (batch, q_len, d_model): the heads' outputs side by side
        merged = merged.clone()
        merged[..., features] = 0.0
        return (merged,)

    handle = attention.Wo.register_forward_pre_hook(zero_head)
    try:
        yield model
    finally:
        handle.remove()
