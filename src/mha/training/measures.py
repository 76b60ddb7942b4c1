"""What a trained model has learned, in numbers that do not depend on the last
digits of its weights: how often it answers right, where its heads look, and
what it loses without one of them (zeroed, :func:`without_head`, or replaced
by its average output, :func:`mean_ablated`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import torch
from torch import nn

from mha._checks import check_int
from mha.attention import MultiHeadAttention
from mha.training.task import IGNORE, Task, check_task


def _attention_layer(model: object, layer: int = 0) -> MultiHeadAttention:
    """``model`` itself if it is a layer, else its attention layer number
    ``layer`` (``model.layers``, or ``model.attention`` for ``layer=0``)."""
    if isinstance(model, MultiHeadAttention):
        layers = (model,)
    else:
        layers = getattr(model, "layers", None)
        if layers is None and hasattr(model, "attention"):
            layers = (model.attention,)
    if not layers or not all(isinstance(a, MultiHeadAttention) for a in layers):
        raise TypeError(
            "model must be a mha.MultiHeadAttention or a model whose `layers` are "
            f"(or whose `attention` is one), got {type(model).__name__}"
        )
    check_int("layer", layer, minimum=-len(layers), maximum=len(layers) - 1)
    return layers[layer]


def _maps(attn: torch.Tensor | tuple, layer: int) -> torch.Tensor:
    """One layer's maps ``(n, n_heads, L, L)`` from what a model returns:
    a tensor (one layer) or a tuple of one tensor per layer."""
    return attn[layer] if isinstance(attn, tuple | list) else attn


def _on(probs: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
    """The attention each head gives the key ``where`` points at.

    ``probs (n, n_heads, L, L)`` and ``where (n, L, n_answers)`` (``-1``: none)
    → ``(n, n_heads, L, n_answers)``.
    """
    index = where.clamp(min=0)[:, None].expand(-1, probs.size(1), -1, -1)
    return probs.gather(-1, index)  # (n, n_heads, L, n_answers)


def behaviour(
    task: Task,
    model: nn.Module,
    mask: torch.Tensor | None = None,
    split: str | None = None,
    layer: int = -1,
) -> dict:
    """What ``model`` has learned of ``task``, measured on the task's held-out
    sentences (:meth:`~mha.training.task.Task.test_batches`; with ``split``,
    those of one of its :attr:`~mha.training.task.Task.splits`), with ``mask``
    (as for :class:`~mha.attention.MultiHeadAttention`) if given. The
    attention measured is that of ``model.layers[layer]``, by default the
    last layer (for a one-layer model, its one layer).

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
    _attention_layer(model, layer)
    correct, answered, on_key, decoyed, on_decoy = [], [], [], [], []
    for batch in task.test_batches(split=split):
        with torch.no_grad():
            logits, attn = model(batch.ids, mask)  # (n, L, n_answers, vocab)
        probs = _maps(attn, layer)  # (n, n_heads, L, L)
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
def _replacing_head(
    attention: MultiHeadAttention,
    head: int,
    value: torch.Tensor | float | Callable[[], torch.Tensor],
) -> Iterator[None]:
    """Inside the block, ``head``'s ``d_key`` features of the merged heads are
    replaced by ``value`` (or by what ``value()`` returns, for each call)
    just before ``Wo`` mixes the heads."""
    features = slice(head * attention.d_key, (head + 1) * attention.d_key)

    def replace(module, inputs):
        (merged,) = inputs  # (batch, q_len, d_model): the heads' outputs side by side
        merged = merged.clone()
        merged[..., features] = value() if callable(value) else value  # (.., d_key)
        return (merged,)

    handle = attention.Wo.register_forward_pre_hook(replace)
    try:
        yield
    finally:
        handle.remove()


@contextlib.contextmanager
def without_head(model: nn.Module, head: int, layer: int = 0) -> Iterator[nn.Module]:
    """Inside the ``with`` block, ``model`` runs without one of its heads
    (*zero ablation*).

    The head's output, its ``d_key`` features of the merged heads, is set to
    zero just before ``Wo`` mixes the heads, as if the head had found nothing
    to pass on; its attention map is still computed and returned. This also
    removes what the head writes whatever it attends to (its value bias
    through ``Wo``): :func:`mean_ablated` keeps that. The model is unchanged
    after the block.

    Args:
        model: a :class:`~mha.attention.MultiHeadAttention`, or a model whose
            ``layers`` are (a :class:`~mha.training.model.ToyModel`).
        head: the head to remove, ``0 … n_heads - 1``.
        layer: which of ``model.layers`` it is in (``0``, the first).
    """
    attention = _attention_layer(model, layer)
    check_int("head", head, minimum=0, maximum=attention.n_heads - 1)
    with _replacing_head(attention, head, 0.0):
        yield model


def head_mean(
    model: nn.Module, task: Task, head: int, layer: int = 0, per_word: bool = False
) -> torch.Tensor:
    """The average output of one head: its ``d_key`` features of the merged
    heads (before ``Wo``), averaged over every position of the task's
    held-out sentences (:meth:`~mha.training.task.Task.test_batches`).

    Returns:
        ``(d_key,)``; with ``per_word=True``, ``(vocab_size, d_key)``, one
        average per word, over the positions that hold it (zeros for a word
        the sentences never hold).

    Arguments as for :func:`mean_ablated`.
    """
    check_task(task)
    attention = _attention_layer(model, layer)
    check_int("head", head, minimum=0, maximum=attention.n_heads - 1)
    if not isinstance(per_word, bool):
        raise TypeError(f"per_word must be a bool, got {type(per_word).__name__}")
    features = slice(head * attention.d_key, (head + 1) * attention.d_key)
    seen, words = [], []

    def record(module, inputs):
        (merged,) = inputs  # (batch, q_len, d_model)
        seen.append(merged[..., features].flatten(0, 1))  # (batch * q_len, d_key)

    handle = attention.Wo.register_forward_pre_hook(record)
    try:
        with torch.no_grad():
            for batch in task.test_batches():
                model(batch.ids)
                words.append(batch.ids.flatten())  # (batch * q_len,)
    finally:
        handle.remove()
    outputs, words = torch.cat(seen), torch.cat(words)  # (n, d_key), (n,)
    if not per_word:
        return outputs.mean(dim=0)  # (d_key,)
    sums = outputs.new_zeros(len(task.vocab), outputs.size(1))  # (vocab, d_key)
    sums.index_add_(0, words, outputs)
    counts = torch.bincount(words, minlength=len(task.vocab)).clamp(min=1)
    return sums / counts[:, None].to(sums.dtype)  # (vocab, d_key)


@contextlib.contextmanager
def mean_ablated(
    model: nn.Module, task: Task, head: int, layer: int = 0, per_word: bool = False
) -> Iterator[nn.Module]:
    """Inside the ``with`` block, one head of ``model`` writes its average
    output at every position, whatever it attends to (*mean ablation*).

    The head's ``d_key`` features of the merged heads are replaced, just
    before ``Wo``, by their mean over every position of ``task``'s held-out
    sentences (:func:`head_mean`, computed on entering the block, from the
    model as it is then); with ``per_word=True``, by their mean over the
    positions that hold the same word (at the verb, the head's average at
    the verb). Unlike zeroing (:func:`without_head`), the head still writes
    what it writes on average (its value bias through ``Wo`` among it): what
    is lost is only what it writes *differently* from one token (or one
    occurrence of a word) to the next. Its attention map is still computed
    and returned; the model is unchanged after the block.

    Args:
        model: a :class:`~mha.training.model.ToyModel` trained on ``task``.
        task: the :class:`~mha.training.task.Task` whose held-out sentences
            give the average.
        head: the head to ablate, ``0 … n_heads - 1``.
        layer: which of ``model.layers`` it is in (``0``, the first).
        per_word: average over the positions of each word apart.
    """
    mean = head_mean(model, task, head, layer, per_word)  # (d_key,) or (vocab, d_key)
    attention = _attention_layer(model, layer)
    if not per_word:
        with _replacing_head(attention, head, mean):
            yield model
        return
    ids = {}  # the words of the batch the model is reading

    def remember(module, inputs):
        ids["now"] = inputs[0]  # (batch, seq_len)

    handle = model.register_forward_pre_hook(remember)
    try:
        with _replacing_head(attention, head, lambda: mean[ids["now"]]):
            yield model
    finally:
        handle.remove()
