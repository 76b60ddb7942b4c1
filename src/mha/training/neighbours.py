"""*Name both neighbours*: the pipeline of the previous-word task with two
readouts, one for the word at ``i - 1`` and one for the word at ``i + 1``. It
rewards two patterns at once, a line below the diagonal and a line above it;
one softmax row is one probability distribution, so one head cannot put all
of a row on both.
"""

from __future__ import annotations

import functools
from pathlib import Path

import torch
from torch import nn

from mha._checks import check_choice
from mha.attention import MultiHeadAttention
from mha.embedding import Embeddings, PositionalEncoding
from mha.example import D_MODEL, MAX_LENGTH, SENTENCES
from mha.text import Vocab
from mha.training.loop import (
    DATA,
    HEAD_COUNTS,
    IGNORE,
    TrainingRun,
    _check_batch,
    _check_dtype,
    _example_shares,
    _shipped_states,
    _test_sentences,
    _train,
)

NEIGHBOURS_LENGTHS = (
    3,
    8,
)  # at least 3 words, so that a middle word has both neighbours
NEIGHBOURS_SEEDS = (0, 1, 2, 3, 4)  # the seeds whose models are shipped
NEIGHBOURS_FILE = DATA / "neighbours.pt"


class NeighboursModel(nn.Module):
    """The pipeline of :class:`.PreviousWordModel` with two readouts: at every
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
        """The embeddings, the positional encoding, the attention layer and
        the two readouts (no dropout)."""
        super().__init__()
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.attention = MultiHeadAttention(d_model, n_heads, dropout=0.0, dtype=dtype)
        self.previous_readout = nn.Linear(d_model, vocab_size, dtype=dtype)
        self.next_readout = nn.Linear(d_model, vocab_size, dtype=dtype)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None):
        """``(logits, attn_probs)`` for ``ids (batch, seq_len)``; shapes: see the
        class."""
        x = self.position(self.embed(ids))  # (batch, seq_len, d_model)
        out, attn_probs = self.attention(x, x, x, mask)  # (batch, seq_len, d_model)
        previous, next_ = self.previous_readout(out), self.next_readout(out)
        logits = torch.stack([previous, next_], dim=2)  # (batch, seq_len, 2, vocab)
        return logits, attn_probs


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


@functools.cache
def train_neighbours(
    n_heads: int = 4,
    steps: int = 600,
    batch_size: int = 128,
    lr: float = 0.1,
    seed: int = 0,
) -> TrainingRun:
    """Train a :class:`.NeighboursModel` like :func:`.train_previous_word`
    trains its model (the same loop, random sentences of the same words), to
    name both neighbours of every word; each batch has one random length in
    ``NEIGHBOURS_LENGTHS``. Its ``accuracy`` is the ``"both"`` entry of
    :func:`.neighbours_accuracy`. Cached like :func:`.train_previous_word`."""
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


def save_trained_neighbours(
    path: str | Path | None = None,
) -> dict[tuple[int, int], dict[str, float]]:
    """Train a :class:`.NeighboursModel` for every head count and every seed of
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


def trained_neighbours(
    n_heads: int = 4, seed: int = 0, dtype: torch.dtype = torch.float32
) -> NeighboursModel:
    """The model :func:`.train_neighbours` gives with default settings and this
    ``seed``, loaded from the weights shipped with the package
    (``data/neighbours.pt``, made by :func:`.save_trained_neighbours`, ``make
    weights``). ``dtype`` as for :func:`.trained_model`."""
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


def neighbours_behaviour(model: NeighboursModel) -> dict[str, float]:
    """What a neighbours model has learned, in numbers that do not depend on
    the last digits of its weights.

    Returns:
        The three accuracies of :func:`.neighbours_accuracy`; ``previous_share``
        and ``next_share``, the attention of the head that looks most at the
        previous (next) word on that word, averaged over the running example's
        three sentences (:func:`.share_at_offset`); ``previous_head`` and
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
