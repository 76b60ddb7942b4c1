"""The running example: three sentences, d_model = 8, four heads.

Every chapter starts with ``ex = running_example()`` so that every chapter
prints the same numbers. The layers are seeded, in eval mode, and their
parameters do not require gradients (nothing is trained on this page), so
printed tensors carry no ``grad_fn``.

The example is drawn and computed in float64. Processors add numbers up in
different orders (AVX-512, AVX2 and ARM kernels), and even PyTorch's float32
random draws differ in their last bit from one to another: enough to flip a
printed digit now and then. float64 draws are the same everywhere, and float64
sums differ only near the sixteenth digit, so every number the book prints
is the same on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from mha.attention import MultiHeadAttention
from mha.embedding import Embeddings, PositionalEncoding
from mha.text import Vocab

#: The book's three sentences, in the order of the batch.
SENTENCES = (
    "I wonder what will come next!",
    "This is a basic example paragraph.",
    "Hello, what is a basic split?",
)
D_MODEL = 8
N_HEADS = 4
MAX_LENGTH = 10
DROPOUT = 0.1
SEED = 0
DTYPE = torch.float64


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
        attention: the seeded :class:`~mha.attention.MultiHeadAttention`
            (eval mode, float64).
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


def running_example(n_heads: int = N_HEADS, seed: int = SEED) -> RunningExample:
    """Build the running example, identical on every call with the same arguments.

    The attention layer's weights are drawn from their own seed, so they do
    not depend on the vocabulary's size; changing ``n_heads`` keeps the same
    ``Wq, Wk, Wv, Wo`` (their shapes do not depend on it) and only changes how
    their outputs are cut into heads. Everything is float64, whatever
    PyTorch's default dtype is.
    """
    vocab = Vocab.from_corpus(SENTENCES)
    ids, _ = vocab.encode_batch(SENTENCES)  # (3, 6): every sentence has six tokens
    torch.manual_seed(seed)
    embed = Embeddings(len(vocab), D_MODEL, dtype=DTYPE)
    position = PositionalEncoding(
        D_MODEL, dropout=DROPOUT, max_length=MAX_LENGTH, dtype=DTYPE
    )
    torch.manual_seed(seed + 1)
    attention = MultiHeadAttention(D_MODEL, n_heads, dropout=DROPOUT, dtype=DTYPE)
    for module in (embed, position, attention):
        module.eval().requires_grad_(False)
    X = position(embed(ids))  # (3, 6, 8)
    tokens = [vocab.decode(row) for row in ids]
    return RunningExample(SENTENCES, tokens, vocab, ids, embed, position, X, attention)
