"""What the explorer shows for each state of its controls: the tokens, the
attention maps and a caption. No widgets here (see :mod:`mha.explorer.live`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from mha._checks import check_choice, check_int
from mha._threads import one_thread
from mha.example import D_MODEL, DTYPE, MAX_LENGTH, SENTENCES, running_example
from mha.masks import causal_mask, padding_mask
from mha.text import PAD, tokenize
from mha.training import HEAD_COUNTS, PREVIOUS_WORD, load

MASKS = ("none", "causal", "padding")
WEIGHTS = ("random", "trained")
MAX_PAD = 3  # the padding slider: 1 to 3 trailing <pad> tokens
MASK_TEXT = {"none": "no mask", "causal": "causal mask", "padding": "padding mask"}


@dataclass(frozen=True)
class Settings:
    """One state of the explorer.

    Attributes:
        sentence: the text whose self-attention is shown.
        n_heads: number of heads, a divisor of d_model = 8.
        mask: ``"none"``, ``"causal"`` or ``"padding"``.
        n_pad: with the padding mask, how many trailing tokens are replaced
            by ``<pad>`` (and blocked as keys).
        weights: ``"random"`` (the running example's layer before training,
            seeded draws) or ``"trained"`` (the previous-word model trained
            with this many heads; with four, the running example's layer).
    """

    sentence: str = SENTENCES[0]
    n_heads: int = 4
    mask: str = "none"
    n_pad: int = 1
    weights: str = "random"

    def __post_init__(self):
        check_choice("n_heads", self.n_heads, HEAD_COUNTS)
        check_choice("mask", self.mask, MASKS)
        check_choice("weights", self.weights, WEIGHTS)
        check_int("n_pad", self.n_pad, minimum=0, maximum=MAX_LENGTH - 1)


def sentence_tokens(sentence: str) -> list[str]:
    """The tokens of a sentence the explorer can show, or a ValueError that says why not."""
    tokens = tokenize(sentence)
    if len(tokens) > MAX_LENGTH:
        raise ValueError(
            f"the sentence has {len(tokens)} words, but the positional encoding covers "
            f"at most {MAX_LENGTH}; shorten it"
        )
    return tokens


@functools.cache
def _layers(n_heads: int, weights: str):
    """The running example and, for trained weights, the shipped model (both float64)."""
    model = load(PREVIOUS_WORD, n_heads, dtype=DTYPE) if weights == "trained" else None
    return running_example(n_heads, weights="random"), model


def attention_maps(settings: Settings) -> tuple[list[str], torch.Tensor]:
    """The tokens shown (with ``<pad>``) and the attention ``(n_heads, L, L)`` for ``settings``."""
    ex, model = _layers(settings.n_heads, settings.weights)
    tokens = sentence_tokens(settings.sentence)
    n_pad = min(settings.n_pad, len(tokens) - 1) if settings.mask == "padding" else 0
    tokens = tokens[: len(tokens) - n_pad] + [PAD] * n_pad
    ids = torch.tensor([ex.vocab.encode(tokens)])  # (1, L)
    mask = None
    if settings.mask == "causal":
        mask = causal_mask(len(tokens))  # (L, L)
    elif settings.mask == "padding":
        mask = padding_mask(ids, ex.vocab.pad_id)  # (1, 1, 1, L)
    with torch.no_grad(), one_thread():
        if model is not None:
            _, probs = model(ids, mask)  # (1, n_heads, L, L)
        else:
            X = ex.position(ex.embed(ids))  # (1, L, d_model)
            _, probs = ex.attention(X, X, X, mask)  # (1, n_heads, L, L)
    return tokens, probs[0]


def caption(settings: Settings, tokens: Sequence[str]) -> str:
    """Plain-text description of what a frame shows."""
    d_key = D_MODEL // settings.n_heads
    plural = "s" if settings.n_heads > 1 else ""
    heads = f"{settings.n_heads} head{plural} (d_key = {d_key})"
    mask = MASK_TEXT[settings.mask]
    if settings.mask == "padding":
        mask += f", {tokens.count(PAD)} trailing <pad>"
    return f"“{settings.sentence}” · {heads} · {mask} · {settings.weights} weights"
