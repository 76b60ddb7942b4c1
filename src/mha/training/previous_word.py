"""*Copy the previous word*: the model is the book's pipeline with a readout on
top: embeddings → positional encoding →
:class:`~mha.attention.MultiHeadAttention` (self-attention) → a linear layer
giving, at every position, scores over the vocabulary. Its target at position
``i`` is the word at position ``i - 1`` (position 0 has no target). The only
way to solve it is for the attention of position ``i`` to land on position
``i - 1``: a line just below the diagonal of every map.
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
    share_at_offset,
)

TRAIN_LENGTHS = (2, 8)  # sentences of 2 to 8 words; the running example has 6
WEIGHTS_FILE = DATA / "previous_word.pt"


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
        """The embeddings, the positional encoding, the attention layer and
        the readout (no dropout)."""
        super().__init__()
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.attention = MultiHeadAttention(d_model, n_heads, dropout=0.0, dtype=dtype)
        self.readout = nn.Linear(d_model, vocab_size, dtype=dtype)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None):
        """``(logits, attn_probs)`` for ``ids (batch, seq_len)``; shapes: see the
        class."""
        x = self.position(self.embed(ids))  # (batch, seq_len, d_model)
        out, attn_probs = self.attention(x, x, x, mask)  # (batch, seq_len, d_model)
        return self.readout(out), attn_probs  # (batch, seq_len, vocab_size)


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


@functools.cache
def train_previous_word(
    n_heads: int = 4,
    steps: int = 600,
    batch_size: int = 128,
    lr: float = 0.03,
    seed: int = 0,
) -> TrainingRun:
    """Train a :class:`.PreviousWordModel` with :func:`.fit` on random sentences
    of the running example's words, each batch of one random length in
    ``TRAIN_LENGTHS``.

    Runs in float32 (whatever PyTorch's default dtype is), seeded, on one CPU
    thread: repeatable on one machine, but not digit for digit on another
    processor (see the module's description). Cached: the same arguments
    return the same :class:`.TrainingRun` (and model) for the rest of the session.
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


def previous_word_accuracy(
    model: PreviousWordModel, n_sentences: int = 1000, seed: int = 1234
) -> float:
    """Share of positions 1 to 5 whose previous word ``model`` predicts right,
    on ``n_sentences`` fresh random sentences of six words (seeded)."""
    ids, targets = _test_sentences(previous_word_batch, n_sentences, seed)
    with torch.no_grad():
        predicted = model(ids)[0].argmax(dim=-1)  # (n_sentences, 6)
    return (predicted[:, 1:] == targets[:, 1:]).float().mean().item()


def save_trained(path: str | Path | None = None) -> dict[int, dict[str, float]]:
    """Train the default model for every head count, save their weights to
    ``path`` (by default the package's own ``data/previous_word.pt``) and
    return what each learned (:func:`.behaviour`)."""
    path = WEIGHTS_FILE if path is None else Path(path)
    runs = {n: train_previous_word(n) for n in HEAD_COUNTS}
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({n: run.model.state_dict() for n, run in runs.items()}, path)
    return {n: behaviour(run.model) for n, run in runs.items()}


def trained_model(
    n_heads: int = 4, dtype: torch.dtype = torch.float32
) -> PreviousWordModel:
    """The model :func:`.train_previous_word` gives with default settings, loaded
    from the weights shipped with the package (``data/previous_word.pt``).

    The file is made by :func:`.save_trained` (``make weights``). The weights
    are float32, as trained; with ``dtype=torch.float64`` the model computes
    in float64, as the running example does, so that what the book prints
    from it is the same on every machine.
    """
    check_choice("n_heads", n_heads, HEAD_COUNTS)
    _check_dtype(dtype)
    model = PreviousWordModel(
        len(Vocab.from_corpus(SENTENCES)), D_MODEL, n_heads, dtype=torch.float32
    )
    model.load_state_dict(_shipped_states(WEIGHTS_FILE)[n_heads])
    return model.to(dtype).eval().requires_grad_(False)


def behaviour(model: PreviousWordModel) -> dict[str, float]:
    """What a previous-word model has learned, in numbers that do not depend
    on the last digits of its weights.

    Returns:
        ``accuracy``, from :func:`.previous_word_accuracy`, and ``share``, the
        attention of its best head on the previous word, averaged over the
        running example's three sentences (:func:`.previous_word_share`).
    """
    shares = _example_shares(model, -1)  # (n_heads,)
    return {"accuracy": previous_word_accuracy(model), "share": shares.max().item()}


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
