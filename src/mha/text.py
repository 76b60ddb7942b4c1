"""From text to token ids: a word tokenizer and a vocabulary.

The tokenizer lowercases, removes every punctuation character (commas
included) and splits on whitespace, so ``"Hello, what is a basic split?"``
becomes six tokens. The vocabulary keeps two special tokens in front:
``<pad>`` (id 0) fills the end of short sentences in a batch, ``<unk>``
(id 1) stands for any word the vocabulary has never seen.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

import torch

from mha._checks import check_int

#: The padding token, which fills the end of shorter sentences in a batch (masks block it).
PAD = "<pad>"
#: The unknown token, which stands for every word the vocabulary has not seen.
UNK = "<unk>"

_WHITESPACE = re.compile(r"\s+")


def _is_punctuation(char: str) -> bool:
    # Unicode categories P* (punctuation) and S* (symbols such as $ + < >).
    return unicodedata.category(char)[0] in "PS"


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lowercase words with all punctuation removed.

    Punctuation is deleted, not turned into a space, so ``"don't"`` becomes
    ``"dont"`` and ``"Hello,"`` becomes ``"hello"``.

    Raises:
        TypeError: ``text`` is not a ``str``.
        ValueError: ``text`` holds no word once punctuation is removed
            (empty, whitespace only, or punctuation only).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    kept = "".join(
        " " if ch.isspace() else ch for ch in text.lower() if not _is_punctuation(ch)
    )
    tokens = [token for token in _WHITESPACE.split(kept) if token]
    if not tokens:
        raise ValueError(
            f"text must contain at least one word (letters or digits), got {text!r}"
        )
    return tokens


def tokens_within(text: str, max_length: int, name: str = "sentence") -> list[str]:
    """``tokenize(text)``, for a model whose positions go up to ``max_length``.

    Raises:
        TypeError, ValueError: as :func:`tokenize`; and a ValueError naming
            ``name`` when ``text`` has more than ``max_length`` words.
    """
    tokens = tokenize(text)
    if len(tokens) > max_length:
        raise ValueError(
            f"{name} must have at most {max_length} words (the positions the "
            f"positional encoding covers), got {len(tokens)}"
        )
    return tokens


class Vocab:
    """A word ↔ id table with ``<pad>`` = 0 and ``<unk>`` = 1.

    Build one from sentences with `Vocab.from_corpus`; the remaining
    words get ids 2, 3, … in alphabetical order, so the table does not depend
    on the order of the sentences.

    Attributes:
        itos: list of tokens, ``itos[i]`` is the token with id ``i``.
        stoi: dict from token to id.
    """

    def __init__(self, words: Iterable[str]):
        if isinstance(words, str):
            raise TypeError(
                f"words must be a list of tokens, got a single str {words!r}; "
                "build a vocabulary from sentences with Vocab.from_corpus"
            )
        words = list(words)
        for word in words:
            if not isinstance(word, str) or not word:
                raise TypeError(f"words must be non-empty strings, got {word!r}")
        unique = sorted(set(words) - {PAD, UNK})
        self.itos: list[str] = [PAD, UNK, *unique]
        self.stoi: dict[str, int] = {token: i for i, token in enumerate(self.itos)}

    @classmethod
    def from_corpus(cls, sentences: Iterable[str]) -> Vocab:
        """A vocabulary holding every word of ``sentences`` (each tokenized)."""
        if isinstance(sentences, str):
            raise TypeError("sentences must be a list of strings, got a single str")
        return cls(word for sentence in sentences for word in tokenize(sentence))

    @property
    def pad_id(self) -> int:
        return self.stoi[PAD]

    @property
    def unk_id(self) -> int:
        return self.stoi[UNK]

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: object) -> bool:
        return token in self.stoi

    def __repr__(self) -> str:
        return f"Vocab(size={len(self)})"

    def encode(self, text: str | Sequence[str]) -> list[int]:
        """Ids of a sentence (tokenized first) or of a list of tokens.

        Words the vocabulary does not hold become ``<unk>``.
        """
        tokens = tokenize(text) if isinstance(text, str) else list(text)
        for i, token in enumerate(tokens):
            if not isinstance(token, str):
                raise TypeError(
                    f"text must be a str or a list of tokens (strs), got "
                    f"{type(token).__name__} {token!r} at text[{i}]"
                )
        return [self.stoi.get(token, self.unk_id) for token in tokens]

    def decode(self, ids: Iterable[int] | torch.Tensor) -> list[str]:
        """Tokens of a sequence of ids (``<pad>`` included, so shapes stay visible)."""
        if isinstance(ids, torch.Tensor):
            if ids.dim() != 1:
                raise ValueError(
                    f"ids must be one-dimensional, got shape {tuple(ids.shape)}"
                )
            ids = ids.tolist()
        return [
            self.itos[check_int(f"ids[{n}]", i, minimum=0, maximum=len(self) - 1)]
            for n, i in enumerate(ids)
        ]

    def encode_batch(
        self, sentences: Sequence[str], length: int | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Encode sentences of unequal length into one padded batch.

        Args:
            sentences: the sentences (strings).
            length: pad every row to this many tokens; by default the length
                of the longest sentence. Must be at least that long.

        Returns:
            A pair ``(ids, is_token)``. ``ids`` is a LongTensor of shape
            ``(batch, length)``, short rows filled with ``<pad>``; ``is_token``
            is a BoolTensor of the same shape, ``True`` where a real token
            stands and ``False`` on padding.
        """
        if isinstance(sentences, str) or len(sentences) == 0:
            raise ValueError(
                f"sentences must be a non-empty list of strings, got {sentences!r}"
            )
        rows = [self.encode(sentence) for sentence in sentences]
        longest = max(len(row) for row in rows)
        if length is None:
            length = longest
        elif length < longest:
            raise ValueError(
                f"length must be at least the longest sentence ({longest} tokens), got {length}"
            )
        shape = (len(rows), length)  # (batch, length)
        ids = torch.full(shape, self.pad_id, dtype=torch.long)  # (batch, length)
        is_token = torch.zeros(len(rows), length, dtype=torch.bool)  # (batch, length)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
            is_token[i, : len(row)] = True
        return ids, is_token
