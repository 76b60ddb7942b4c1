"""The running example: three sentences, d_model = 8, four heads.

Every chapter starts with ``ex = running_example()`` so that every chapter
prints the same numbers. Its layer is a *trained* one: the embeddings and the
attention layer of the model the book trains to copy the previous word
(:data:`~mha.training.task.PREVIOUS_WORD`, four heads, shipped with the
package), so its attention maps mean something from the first one on. With
``weights="random"`` the layers are seeded random draws instead, the layer
before any training. Either way the layers are in eval mode and their
parameters do not require gradients (nothing is trained on this page), so
printed tensors carry no ``grad_fn``.

The example computes in float64. Processors add numbers up in different
orders (AVX-512, AVX2 and ARM kernels): float64 sums differ only near the
sixteenth digit, so every number the book prints is the same on every
machine. The trained weights are read from a file, the random ones drawn in
float64 (PyTorch's float32 draws differ in their last bit between processors).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from mha._checks import check_choice, check_int
from mha.attention import MultiHeadAttention
from mha.defaults import (
    D_MODEL,
    DROPOUT,
    DTYPE,
    MAX_LENGTH,
    N_HEADS,
    SEED,
    SENTENCES,
)
from mha.embedding import Embeddings, PositionalEncoding
from mha.text import Vocab
from mha.training import PREVIOUS_WORD, load

__all__ = ["SENTENCES", "WEIGHTS", "RunningExample", "running_example"]

#: The two layers the running example can hold, trained or random.
WEIGHTS = ("trained", "random")


@dataclass(frozen=True)
class RunningExample:
    """Everything the chapters share.

    Attributes:
        sentences: the three sentences.
        tokens: their tokens, one list per sentence.
        vocab: the vocabulary built from the sentences.
        ids: token ids, LongTensor ``(3, 6)``.
        embed: the :class:`~mha.embedding.Embeddings` table.
        position: the :class:`~mha.embedding.PositionalEncoding`.
        X: embedded and position-encoded input, ``(3, 6, 8)``, float64.
        attention: the :class:`~mha.attention.MultiHeadAttention` (eval
            mode, float64), trained or random.
    """

    sentences: tuple[str, ...]
    tokens: list[list[str]]
    vocab: Vocab
    ids: torch.Tensor
    embed: Embeddings
    position: PositionalEncoding
    X: torch.Tensor
    attention: MultiHeadAttention

    @property
    def d_model(self) -> int:
        return self.attention.d_model

    @property
    def n_heads(self) -> int:
        return self.attention.n_heads

    @property
    def d_key(self) -> int:
        return self.attention.d_key


def running_example(
    n_heads: int = N_HEADS, weights: str = "trained", seed: int = SEED
) -> RunningExample:
    """Build the running example, identical on every call with the same arguments.

    Args:
        n_heads: how the layer's outputs are cut into heads. The weights do
            not depend on it (their shapes are the same for every head
            count): another ``n_heads`` keeps the same ``Wq, Wk, Wv, Wo``,
            which were trained with four heads.
        weights: ``"trained"``, the embeddings and attention layer of the
            shipped previous-word model (four heads, seed 0), or
            ``"random"``, seeded draws: the layer before training.
        seed: the seed of the random draws (``weights="random"`` only).

    Everything is float64, whatever PyTorch's default dtype is; the position
    code and the layer apply dropout 0.1 in training mode (the example is in
    eval mode).
    """
    check_choice("weights", weights, WEIGHTS)
    check_int("seed", seed, minimum=0)
    vocab = Vocab.from_corpus(SENTENCES)
    ids, _ = vocab.encode_batch(SENTENCES)  # (3, 6): every sentence has six tokens
    torch.manual_seed(seed)
    embed = Embeddings(len(vocab), D_MODEL, dtype=DTYPE)
    position = PositionalEncoding(
        D_MODEL, dropout=DROPOUT, max_length=MAX_LENGTH, dtype=DTYPE
    )
    torch.manual_seed(seed + 1)
    attention = MultiHeadAttention(D_MODEL, n_heads, dropout=DROPOUT, dtype=DTYPE)
    if weights == "trained":
        model = load(PREVIOUS_WORD, n_heads=N_HEADS, dtype=DTYPE)
        embed.load_state_dict(model.embed.state_dict())
        attention.load_state_dict(model.attention.state_dict())
    for module in (embed, position, attention):
        module.eval().requires_grad_(False)
    X = position(embed(ids))  # (3, 6, 8)
    tokens = [vocab.decode(row) for row in ids]
    return RunningExample(SENTENCES, tokens, vocab, ids, embed, position, X, attention)
