"""Two toy tasks whose right attention patterns are known, their models,
the training loop they share, and their shipped weights.

*Copy the previous word*: the model is the book's pipeline with a readout on
top: embeddings → positional encoding →
:class:`~mha.attention.MultiHeadAttention` (self-attention) → a linear layer
giving, at every position, scores over the vocabulary. Its target at position
``i`` is the word at position ``i - 1`` (position 0 has no target). The only
way to solve it is for the attention of position ``i`` to land on position
``i - 1``: a line just below the diagonal of every map.

*Name both neighbours*: the same pipeline with two readouts, one for the word
at ``i - 1`` and one for the word at ``i + 1``. It rewards two patterns at
once, a line below the diagonal and a line above it; one softmax row is one
probability distribution, so one head cannot put all of a row on both.

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
from mha.embedding import Embeddings, PositionalEncoding
from mha.example import D_MODEL, MAX_LENGTH, SENTENCES
from mha.text import Vocab

IGNORE = -100  # target value that cross_entropy skips (position 0 has no previous word)
TRAIN_LENGTHS = (2, 8)  # sentences of 2 to 8 words; the running example has 6
NEIGHBOURS_LENGTHS = (
    3,
    8,
)  # at least 3 words, so that a middle word has both neighbours
HEAD_COUNTS = (1, 2, 4, 8)  # the divisors of d_model = 8
NEIGHBOURS_SEEDS = (0, 1, 2, 3, 4)  # the seeds whose neighbours models are shipped
WEIGHTS_FILE = Path(__file__).parent / "data" / "previous_word.pt"
NEIGHBOURS_FILE = Path(__file__).parent / "data" / "neighbours.pt"


class PreviousWordModel(nn.Module):
    """Embeddings, positional encoding, one attention layer and a readout.

    Shape:
        - ids: ``(batch, seq_len)``; mask (optional): as for
          :class:`~mha.attention.MultiHeadAttention`.
        - returns ``logits (batch, seq_len, vocab_size)`` and
          ``attn_probs (batch, n_heads, seq_len, seq_len)``.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = D_MODEL,
        n_heads: int = 4,
        max_length: int = MAX_LENGTH,
        dtype: torch.dtype | None = None,
    ):
        super().__init__()
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.attention = MultiHeadAttention(d_model, n_heads, dropout=0.0, dtype=dtype)
        self.readout = nn.Linear(d_model, vocab_size, dtype=dtype)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None):
        x = self.position(self.embed(ids))  # (batch, seq_len, d_model)
        out, attn_probs = self.attention(x, x, x, mask)  # (batch, seq_len, d_model)
        return self.readout(out), attn_probs  # (batch, seq_len, vocab_size)


class NeighboursModel(nn.Module):
    """The pipeline of :class:`PreviousWordModel` with two readouts: at every
    position, scores for the previous word and scores for the next word.

    Shape:
        - ids: ``(batch, seq_len)``; mask (optional): as for
          :class:`~mha.attention.MultiHeadAttention`.
        - returns ``logits (batch, seq_len, 2, vocab_size)``, the previous
          word's scores at index 0 of the third axis and the next word's at
          index 1, and ``attn_probs (batch, n_heads, seq_len, seq_len)``.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = D_MODEL,
        n_heads: int = 4,
        max_length: int = MAX_LENGTH,
        dtype: torch.dtype | None = None,
    ):
        super().__init__()
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.attention = MultiHeadAttention(d_model, n_heads, dropout=0.0, dtype=dtype)
        self.previous_readout = nn.Linear(d_model, vocab_size, dtype=dtype)
        self.next_readout = nn.Linear(d_model, vocab_size, dtype=dtype)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None):
        x = self.position(self.embed(ids))  # (batch, seq_len, d_model)
        out, attn_probs = self.attention(x, x, x, mask)  # (batch, seq_len, d_model)
        previous, next_ = self.previous_readout(out), self.next_readout(out)
        return torch.stack(
            [previous, next_], dim=2
        ), attn_probs  # (batch, seq_len, 2, vocab_size)


def _check_batch(
    batch_size: object, length: object, first_id: object, vocab_size: object
) -> None:
    check_int("batch_size", batch_size)
    check_int("length", length, minimum=2)
    check_int("first_id", first_id, minimum=0)
    check_int("vocab_size", vocab_size, minimum=first_id + 1)


def previous_word_batch(
    generator: torch.Generator,
    batch_size: int,
    length: int,
    first_id: int,
    vocab_size: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random word ids ``(batch_size, length)`` from ``[first_id, vocab_size)`` and
    their targets: each position's previous id, ``IGNORE`` at position 0."""
    _check_batch(batch_size, length, first_id, vocab_size)
    ids = torch.randint(first_id, vocab_size, (batch_size, length), generator=generator)
    targets = torch.full_like(ids, IGNORE)  # (batch_size, length)
    targets[:, 1:] = ids[:, :-1]
    return ids, targets


def neighbours_batch(
    generator: torch.Generator,
    batch_size: int,
    length: int,
    first_id: int,
    vocab_size: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random word ids ``(batch_size, length)`` from ``[first_id, vocab_size)`` and
    their targets ``(batch_size, length, 2)``: at ``[..., 0]`` each position's
    previous id, at ``[..., 1]`` its next id, ``IGNORE`` where there is none
    (the previous word of position 0, the next word of the last position)."""
    _check_batch(batch_size, length, first_id, vocab_size)
    ids = torch.randint(first_id, vocab_size, (batch_size, length), generator=generator)
    targets = torch.full((batch_size, length, 2), IGNORE)  # (batch_size, length, 2)
    targets[:, 1:, 0] = ids[:, :-1]
    targets[:, :-1, 1] = ids[:, 1:]
    return ids, targets


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
        ids, targets = (
            next_batch()
        )  # random sentences (batch, length) and their answers
        logits, _ = model(
            ids
        )  # a score for every word of the vocabulary, at every position
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
        model: the trained :class:`PreviousWordModel` or
            :class:`NeighboursModel`, in eval mode, gradients off.
        vocab: the vocabulary of the running example (its words are what is copied).
        losses: the training loss after every step.
        accuracy: :func:`previous_word_accuracy` of the trained model, or the
            ``"both"`` entry of :func:`neighbours_accuracy`.
    """

    model: nn.Module
    vocab: Vocab
    losses: list[float]
    accuracy: float


def _train(model_class, make_batch, lengths, n_heads, steps, batch_size, lr, seed):
    """Seed everything, build the model and train it with :func:`fit` on
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


@functools.cache
def train_previous_word(
    n_heads: int = 4,
    steps: int = 600,
    batch_size: int = 128,
    lr: float = 0.03,
    seed: int = 0,
) -> TrainingRun:
    """Train a :class:`PreviousWordModel` with :func:`fit` on random sentences
    of the running example's words, each batch of one random length in
    ``TRAIN_LENGTHS``.

    Runs in float32 (whatever PyTorch's default dtype is), seeded, on one CPU
    thread: repeatable on one machine, but not digit for digit on another
    processor (see the module's description). Cached: the same arguments
    return the same :class:`TrainingRun` (and model) for the rest of the session.
    """
    model, vocab, losses = _train(
        PreviousWordModel,
        previous_word_batch,
        TRAIN_LENGTHS,
        n_heads,
        steps,
        batch_size,
        lr,
        seed,
    )
    return TrainingRun(model, vocab, losses, previous_word_accuracy(model))


@functools.cache
def train_neighbours(
    n_heads: int = 4,
    steps: int = 600,
    batch_size: int = 128,
    lr: float = 0.1,
    seed: int = 0,
) -> TrainingRun:
    """Train a :class:`NeighboursModel` like :func:`train_previous_word`
    trains its model (the same loop, random sentences of the same words), to
    name both neighbours of every word; each batch has one random length in
    ``NEIGHBOURS_LENGTHS``. Its ``accuracy`` is the ``"both"`` entry of
    :func:`neighbours_accuracy`. Cached like :func:`train_previous_word`."""
    model, vocab, losses = _train(
        NeighboursModel,
        neighbours_batch,
        NEIGHBOURS_LENGTHS,
        n_heads,
        steps,
        batch_size,
        lr,
        seed,
    )
    return TrainingRun(model, vocab, losses, neighbours_accuracy(model)["both"])


def _test_sentences(make_batch, n_sentences: int, seed: int):
    check_int("n_sentences", n_sentences)
    check_int("seed", seed, minimum=0)
    vocab = Vocab.from_corpus(SENTENCES)
    generator = torch.Generator().manual_seed(seed)
    return make_batch(generator, n_sentences, 6, vocab.unk_id + 1, len(vocab))


def previous_word_accuracy(
    model: PreviousWordModel, n_sentences: int = 1000, seed: int = 1234
) -> float:
    """Share of positions 1 to 5 whose previous word ``model`` predicts right,
    on ``n_sentences`` fresh random sentences of six words (seeded)."""
    ids, targets = _test_sentences(previous_word_batch, n_sentences, seed)
    with torch.no_grad():
        predicted = model(ids)[0].argmax(dim=-1)  # (n_sentences, 6)
    return (predicted[:, 1:] == targets[:, 1:]).float().mean().item()


def neighbours_accuracy(
    model: NeighboursModel,
    n_sentences: int = 1000,
    seed: int = 1234,
    mask: torch.Tensor | None = None,
) -> dict[str, float]:
    """How often ``model`` names the neighbours right, on ``n_sentences`` fresh
    random sentences of six words (seeded), with ``mask`` (``(6, 6)`` or
    broadcastable, as for :class:`~mha.attention.MultiHeadAttention`) if given.

    Returns:
        A dict with ``previous``, the share of positions 1 to 5 whose
        previous word it predicts right, ``next``, the same for the next word
        of positions 0 to 4, and ``both``, their mean.
    """
    ids, targets = _test_sentences(neighbours_batch, n_sentences, seed)
    with torch.no_grad():
        predicted = model(ids, mask)[0].argmax(dim=-1)  # (n_sentences, 6, 2)
    previous = (predicted[:, 1:, 0] == targets[:, 1:, 0]).float().mean().item()
    next_ = (predicted[:, :-1, 1] == targets[:, :-1, 1]).float().mean().item()
    return {"previous": previous, "next": next_, "both": (previous + next_) / 2}


def save_trained(path: str | Path | None = None) -> dict[int, dict[str, float]]:
    """Train the default model for every head count, save their weights to
    ``path`` (by default the package's own ``data/previous_word.pt``) and
    return what each learned (:func:`behaviour`)."""
    path = WEIGHTS_FILE if path is None else Path(path)
    runs = {n: train_previous_word(n) for n in HEAD_COUNTS}
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({n: run.model.state_dict() for n, run in runs.items()}, path)
    return {n: behaviour(run.model) for n, run in runs.items()}


def save_trained_neighbours(
    path: str | Path | None = None,
) -> dict[tuple[int, int], dict[str, float]]:
    """Train a :class:`NeighboursModel` for every head count and every seed of
    ``NEIGHBOURS_SEEDS`` (default settings otherwise), save their weights to
    ``path`` (by default the package's own ``data/neighbours.pt``) and return
    what each learned, ``{(n_heads, seed): neighbours_behaviour(model)}``."""
    path = NEIGHBOURS_FILE if path is None else Path(path)
    models = {
        (n, seed): train_neighbours(n, seed=seed).model
        for n in HEAD_COUNTS
        for seed in NEIGHBOURS_SEEDS
    }
    # One tensor per weight and head count, the seeds stacked on its first axis:
    # a file a few times smaller than one state_dict per model.
    states = {
        n: {
            name: torch.stack(
                [models[n, seed].state_dict()[name] for seed in NEIGHBOURS_SEEDS]
            )
            for name in models[n, NEIGHBOURS_SEEDS[0]].state_dict()
        }
        for n in HEAD_COUNTS
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(states, path)
    return {key: neighbours_behaviour(model) for key, model in models.items()}


@functools.cache
def _shipped_states(path: Path = WEIGHTS_FILE) -> dict:
    return torch.load(path, weights_only=True)


def _check_dtype(dtype: object) -> torch.dtype:
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(
            f"dtype must be a floating-point torch.dtype such as torch.float64, "
            f"got {type(dtype).__name__} {dtype!r}"
        )
    return dtype


def trained_model(
    n_heads: int = 4, dtype: torch.dtype = torch.float32
) -> PreviousWordModel:
    """The model :func:`train_previous_word` gives with default settings, loaded
    from the weights shipped with the package (``data/previous_word.pt``).

    The file is made by :func:`save_trained` (``make weights``). The weights
    are float32, as trained; with ``dtype=torch.float64`` the model computes
    in float64, as the running example does, so that what the book prints
    from it is the same on every machine.
    """
    check_choice("n_heads", n_heads, HEAD_COUNTS)
    _check_dtype(dtype)
    model = PreviousWordModel(
        len(Vocab.from_corpus(SENTENCES)), D_MODEL, n_heads, dtype=torch.float32
    )
    model.load_state_dict(_shipped_states()[n_heads])
    return model.to(dtype).eval().requires_grad_(False)


def trained_neighbours(
    n_heads: int = 4, seed: int = 0, dtype: torch.dtype = torch.float32
) -> NeighboursModel:
    """The model :func:`train_neighbours` gives with default settings and this
    ``seed``, loaded from the weights shipped with the package
    (``data/neighbours.pt``, made by :func:`save_trained_neighbours`, ``make
    weights``). ``dtype`` as for :func:`trained_model`."""
    check_choice("n_heads", n_heads, HEAD_COUNTS)
    check_choice("seed", seed, NEIGHBOURS_SEEDS)
    _check_dtype(dtype)
    model = NeighboursModel(
        len(Vocab.from_corpus(SENTENCES)), D_MODEL, n_heads, dtype=torch.float32
    )
    stacked = _shipped_states(NEIGHBOURS_FILE)[n_heads]  # {name: (n_seeds, *shape)}
    index = NEIGHBOURS_SEEDS.index(seed)
    model.load_state_dict({name: weights[index] for name, weights in stacked.items()})
    return model.to(dtype).eval().requires_grad_(False)


def behaviour(model: PreviousWordModel) -> dict[str, float]:
    """What a previous-word model has learned, in numbers that do not depend
    on the last digits of its weights.

    Returns:
        ``accuracy``, from :func:`previous_word_accuracy`, and ``share``, the
        attention of its best head on the previous word, averaged over the
        running example's three sentences (:func:`previous_word_share`).
    """
    shares = _example_shares(model, -1)  # (n_heads,)
    return {"accuracy": previous_word_accuracy(model), "share": shares.max().item()}


def neighbours_behaviour(model: NeighboursModel) -> dict[str, float]:
    """What a neighbours model has learned, in numbers that do not depend on
    the last digits of its weights.

    Returns:
        The three accuracies of :func:`neighbours_accuracy`; ``previous_share``
        and ``next_share``, the attention of the head that looks most at the
        previous (next) word on that word, averaged over the running example's
        three sentences (:func:`share_at_offset`); ``previous_head`` and
        ``next_head``, which heads those are.
    """
    previous = _example_shares(model, -1)  # (n_heads,)
    next_ = _example_shares(model, 1)  # (n_heads,)
    return {
        **neighbours_accuracy(model),
        "previous_share": previous.max().item(),
        "next_share": next_.max().item(),
        "previous_head": int(previous.argmax()),
        "next_head": int(next_.argmax()),
    }


def _example_shares(model: nn.Module, offset: int) -> torch.Tensor:
    """Each head's :func:`share_at_offset`, averaged over the three sentences."""
    ids, _ = Vocab.from_corpus(SENTENCES).encode_batch(SENTENCES)  # (3, 6)
    with torch.no_grad():
        _, probs = model(ids)  # (3, n_heads, 6, 6)
    return torch.stack([share_at_offset(p, offset) for p in probs]).mean(
        dim=0
    )  # (n_heads,)


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


def previous_word_share(attention: torch.Tensor) -> torch.Tensor:
    """How much of each head's attention lands on the previous word.

    Args:
        attention: ``(n_heads, L, L)`` maps of one sentence.

    Returns:
        A tensor of shape ``(n_heads,)``, the mean over queries ``i = 1 … L-1`` of
        ``attention[h, i, i-1]``; 1 means a perfect previous-word head, and a
        head spreading its attention evenly over L keys scores about 1/L.
        The same as ``share_at_offset(attention, -1)``.
    """
    return share_at_offset(attention, -1)


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
