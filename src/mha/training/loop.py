"""The training loop both toy tasks share, and what is measured on their models.

Training runs in float32, seeded and on one CPU thread: a few seconds for
the default settings, and the same numbers on every run on one machine. On
another processor the kernels sum in another order, the last bits of float32
differ, and training amplifies them: the same seed gives visibly different
weights that have learned the same thing (the same accuracy, the same
pattern in the maps). So trained models are judged by their behaviour, never
by equality with a file.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from mha._checks import check_choice, check_int, check_number
from mha._threads import one_thread
from mha.attention import MultiHeadAttention
from mha.example import D_MODEL, SENTENCES
from mha.text import Vocab

IGNORE = -100  # the target cross_entropy skips (a position with nothing to predict)
HEAD_COUNTS = (1, 2, 4, 8)  # the divisors of d_model = 8
DATA = Path(__file__).resolve().parents[1] / "data"  # the shipped weights


def _check_batch(
    batch_size: object, length: object, first_id: object, vocab_size: object
) -> None:
    check_int("batch_size", batch_size)
    check_int("length", length, minimum=2)
    check_int("first_id", first_id, minimum=0)
    check_int("vocab_size", vocab_size, minimum=first_id + 1)


def fit(
    model: nn.Module,
    next_batch: Callable[[], tuple[torch.Tensor, torch.Tensor]],
    steps: int,
    lr: float,
) -> list[float]:
    """The training loop of both tasks: ``steps`` steps of Adam, the learning
    rate rising to ``lr`` and falling back to almost zero (a one-cycle
    schedule). ``next_batch()`` returns a fresh ``(ids, targets)``;
    ``model(ids)`` returns ``(logits, attn_probs)``, the logits shaped like the
    targets plus a last axis over the vocabulary. Returns the loss after
    every step."""
    check_int("steps", steps)
    check_number("lr", lr)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=lr, total_steps=steps
    )
    losses = []
    for _ in range(steps):
        # Random sentences (batch, length) and their answers.
        ids, targets = next_batch()
        # A score for every word of the vocabulary, at every position.
        logits, _ = model(ids)
        loss = F.cross_entropy(
            logits.flatten(0, -2), targets.flatten(), ignore_index=IGNORE
        )
        optimizer.zero_grad()  # forget the previous step's gradients
        loss.backward()  # the gradient of the loss with respect to every weight
        optimizer.step()  # move every weight a small step against its gradient
        schedule.step()  # the learning rate of the next step
        losses.append(loss.item())
    return losses


@dataclass
class TrainingRun:
    """A trained model and how it got there.

    Attributes:
        model: the trained :class:`.PreviousWordModel` or
            :class:`.NeighboursModel`, in eval mode, gradients off.
        vocab: the vocabulary of the running example (its words are what is copied).
        losses: the training loss after every step.
        accuracy: :func:`.previous_word_accuracy` of the trained model, or the
            ``"both"`` entry of :func:`.neighbours_accuracy`.
    """

    model: nn.Module
    vocab: Vocab
    losses: list[float]
    accuracy: float


def _train(model_class, make_batch, lengths, n_heads, steps, batch_size, lr, seed):
    """Seed everything, build the model and train it with :func:`.fit` on
    batches of random sentences, each batch of one random length in
    ``lengths`` (both ends included), in float32 and on one thread."""
    check_choice("n_heads", n_heads, HEAD_COUNTS)
    check_int("batch_size", batch_size)
    check_int("seed", seed, minimum=0)
    vocab = Vocab.from_corpus(SENTENCES)
    first_word = vocab.unk_id + 1  # sample real words only: no <pad>, no <unk>
    with one_thread(), torch.enable_grad():
        torch.manual_seed(seed)
        model = model_class(len(vocab), D_MODEL, n_heads, dtype=torch.float32)
        generator = torch.Generator().manual_seed(seed + 1)

        def next_batch():
            low, high = lengths
            length = int(torch.randint(low, high + 1, (1,), generator=generator))
            return make_batch(generator, batch_size, length, first_word, len(vocab))

        losses = fit(model, next_batch, steps, lr)
        model.eval().requires_grad_(False)
    return model, vocab, losses


def _test_sentences(make_batch, n_sentences: int, seed: int):
    check_int("n_sentences", n_sentences)
    check_int("seed", seed, minimum=0)
    vocab = Vocab.from_corpus(SENTENCES)
    generator = torch.Generator().manual_seed(seed)
    return make_batch(generator, n_sentences, 6, vocab.unk_id + 1, len(vocab))


@functools.cache
def _shipped_states(path: Path) -> dict:
    return torch.load(path, weights_only=True)


def _check_dtype(dtype: object) -> torch.dtype:
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(
            f"dtype must be a floating-point torch.dtype such as torch.float64, "
            f"got {type(dtype).__name__} {dtype!r}"
        )
    return dtype


def _example_shares(model: nn.Module, offset: int) -> torch.Tensor:
    """Each head's :func:`.share_at_offset`, averaged over the three sentences."""
    ids, _ = Vocab.from_corpus(SENTENCES).encode_batch(SENTENCES)  # (3, 6)
    with torch.no_grad():
        _, probs = model(ids)  # (3, n_heads, 6, 6)
    shares = torch.stack([share_at_offset(p, offset) for p in probs])  # (3, n_heads)
    return shares.mean(dim=0)  # (n_heads,)


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
            ``attention`` attribute is one (both tasks' models).
        head: the head to remove, ``0 … n_heads - 1``.
    """
    attention = getattr(model, "attention", model)
    if not isinstance(attention, MultiHeadAttention):
        raise TypeError(
            "model must be a mha.MultiHeadAttention or have one as its `attention`, "
            f"got {type(model).__name__}"
        )
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
