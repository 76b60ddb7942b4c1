"""The toy model every task trains, attention only (:class:`ToyModel`), and
its reading of one sentence (:func:`read`): every layer's maps and output,
and each readout's answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from mha._checks import check_int
from mha.attention import MultiHeadAttention, divisors
from mha.defaults import D_MODEL, MAX_LENGTH
from mha.embedding import Embeddings, PositionalEncoding
from mha.masks import causal_mask, check_mask
from mha.text import Vocab

HEAD_COUNTS = tuple(divisors(D_MODEL))  # the head counts a layer of width 8 accepts


class ToyModel(nn.Module):
    """Embeddings, positional encoding, ``n_layers`` self-attention layers and
    one linear readout per answer giving, at every position, a score for
    every word: attention only, no feed-forward network and no LayerNorm.

    With one layer and the defaults, the book's pipeline: everything a
    readout sees has passed through attention. With ``residual=True`` the
    layers write to a *residual stream*: the stream starts as the embedding
    plus the position code, ``x0``, and each layer *adds* its output,
    ``x1 = x0 + attn1(x0)``, ``x2 = x1 + attn2(x1)``; the readouts read the
    last. So what the first layer writes at a token, the second layer's
    queries, keys and values can read there (the models of Elhage et al.,
    2021, *A Mathematical Framework for Transformer Circuits*). With
    ``causal=True`` every layer adds the causal mask
    (:func:`~mha.masks.causal_mask`): each token attends to itself and the
    tokens before it, as in those models and GPT.

    Args:
        vocab_size: number of words (and of scores per readout).
        n_answers: number of readouts (one per answer of the task).
        d_model, n_heads: as for :class:`~mha.attention.MultiHeadAttention`.
        max_length: the longest sentence the positional encoding covers.
        dtype: precision of the weights.
        d_key: each head's width, as for
            :class:`~mha.attention.MultiHeadAttention` (by default
            ``d_model // n_heads``).
        n_layers: how many attention layers, each of ``n_heads`` heads.
        residual: whether each layer adds its output to its input.
        causal: whether every layer adds the causal mask to the one given.

    Attributes:
        layers: ``nn.ModuleList`` of the
            :class:`~mha.attention.MultiHeadAttention` layers, in order.
        readouts: ``nn.ModuleList`` of the readouts, one per answer.
        residual, causal: as given.

    Shape:
        - ids: ``(batch, seq_len)``; mask (optional): as for
          :class:`~mha.attention.MultiHeadAttention`, used by every layer
          (with ``causal``, a key is allowed where both masks allow it).
        - returns ``logits (batch, seq_len, n_answers, vocab_size)``, the
          scores of readout ``a`` at ``[:, :, a]``, and the maps ``(batch,
          n_heads, seq_len, seq_len)``: for several layers, a tuple of one
          per layer, the first layer's first.
    """

    def __init__(
        self,
        vocab_size: int,
        n_answers: int = 1,
        d_model: int = D_MODEL,
        n_heads: int = 4,
        max_length: int = MAX_LENGTH,
        dtype: torch.dtype | None = None,
        d_key: int | None = None,
        n_layers: int = 1,
        residual: bool = False,
        causal: bool = False,
    ):
        """Build the embeddings, the positional encoding, ``n_layers``
        attention layers (no dropout) and ``n_answers`` readouts of
        ``vocab_size`` scores each."""
        super().__init__()
        check_int("n_answers", n_answers)
        check_int("n_layers", n_layers)
        for name, value in (("residual", residual), ("causal", causal)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
        self.residual, self.causal = residual, causal
        self.embed = Embeddings(vocab_size, d_model, dtype=dtype)
        self.position = PositionalEncoding(
            d_model, dropout=0.0, max_length=max_length, dtype=dtype
        )
        self.layers = nn.ModuleList(
            MultiHeadAttention(d_model, n_heads, dropout=0.0, d_key=d_key, dtype=dtype)
            for _ in range(n_layers)
        )
        self.readouts = nn.ModuleList(
            nn.Linear(d_model, vocab_size, dtype=dtype) for _ in range(n_answers)
        )

    def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None):
        """ids ``(batch, seq_len)`` → logits ``(batch, seq_len, n_answers,
        vocab_size)`` and the maps, ``(batch, n_heads, seq_len, seq_len)``
        (a tuple of one per layer for several layers)."""
        if self.causal:  # each token sees itself and the tokens before it
            mask = self.with_causal(mask, ids)
        x = self.position(self.embed(ids))  # (batch, seq_len, d_model)
        maps = []
        for attention in self.layers:
            out, probs = attention(x, x, x, mask)  # (batch, seq_len, d_model)
            x = x + out if self.residual else out  # (batch, seq_len, d_model)
            maps.append(probs)  # (batch, n_heads, seq_len, seq_len)
        # Each readout gives one score per word of the vocabulary.
        scores = [readout(x) for readout in self.readouts]  # (batch, seq_len, vocab)
        logits = torch.stack(scores, dim=2)  # (batch, seq_len, n_answers, vocab)
        return logits, maps[0] if len(maps) == 1 else tuple(maps)  # one map per layer

    def with_causal(self, mask: torch.Tensor | None, ids: torch.Tensor) -> torch.Tensor:
        """The causal mask for ``ids (batch, seq_len)``, and ``mask`` too where
        given: a key is allowed where both allow it."""
        length = ids.size(1)
        allowed = causal_mask(length, device=ids.device)  # (seq_len, seq_len)
        if mask is None:
            return allowed
        shape = (ids.size(0), self.layers[0].n_heads, length, length)
        return allowed & check_mask(mask, shape, device=ids.device)

    @property
    def attention(self) -> MultiHeadAttention:
        """The attention layer of a one-layer model, ``layers[0]``."""
        if len(self.layers) != 1:
            raise TypeError(
                f"model.attention is the layer of a one-layer model; this one has "
                f"{len(self.layers)}: use model.layers[i]"
            )
        return self.layers[0]


@dataclass(frozen=True)
class Reading:
    """A model's reading of one sentence (:func:`read`).

    Attributes:
        tokens: the sentence's tokens.
        probs: per layer, its attention maps ``(n_heads, L, L)``.
        outputs: per layer, its output ``(L, d_model)`` (before the residual
            stream adds it).
        logits: per readout, its scores ``(L, vocab_size)``.
        answers: for each answer, the word the model gives at every position
            (one per token; read only where the task asks).
        blocked: ``(L, L)``, ``True`` where a query may not see a key (the
            mask, and the causal mask of a causal model).
    """

    tokens: list[str]
    probs: tuple[torch.Tensor, ...]
    outputs: tuple[torch.Tensor, ...]
    logits: tuple[torch.Tensor, ...]
    answers: dict[str, list[str]]
    blocked: torch.Tensor

    @property
    def attention(self) -> torch.Tensor | tuple[torch.Tensor, ...]:
        """The maps, ready for :func:`~mha.plotting.core.display_attention`:
        ``(n_heads, L, L)`` for one layer, a tuple of one per layer for several."""
        return self.probs[0] if len(self.probs) == 1 else self.probs


def read(
    model: nn.Module,
    vocab: Vocab,
    tokens: Sequence[str],
    mask: torch.Tensor | None = None,
    answers: Sequence[str] | None = None,
) -> Reading:
    """What ``model`` makes of one sentence, ``tokens`` (words of ``vocab``):
    its own forward pass, each layer's maps and output taken on the way.

    Args:
        model: a :class:`ToyModel`, or a model like it (``layers``,
            ``readouts``, ``model(ids, mask) -> (logits, maps)``).
        vocab: the words it reads.
        tokens: the sentence, ``<pad>`` included if any.
        mask: as for the model, ``(L, L)`` or broadcastable to ``(1, 1, L,
            L)``: the same for every head.
        answers: the name of each readout's answer (by default ``"answer
            0"``, ``"answer 1"``, …); only the readouts named are read.
    """
    if not isinstance(model, nn.Module) or not hasattr(model, "layers"):
        raise TypeError(
            "model must be a trained torch.nn.Module with layers and readouts, such "
            f"as mha.training.load(task), got {type(model).__name__}"
        )
    n_readouts = len(model.readouts)
    if answers is None:
        answers = [f"answer {i}" for i in range(n_readouts)]
    elif isinstance(answers, str) or len(answers) > n_readouts:
        raise ValueError(
            f"answers must name at most the model's {n_readouts} readouts, got {answers!r}"
        )
    weight = next(model.parameters())
    ids = torch.tensor([vocab.encode(list(tokens))], device=weight.device)  # (1, L)
    length = ids.size(1)
    allowed = torch.ones(length, length, dtype=torch.bool, device=ids.device)
    if mask is not None:
        allowed = check_mask(mask, (1, 1, length, length), device=ids.device)
        allowed = torch.broadcast_to(allowed, (1, 1, length, length))[0, 0]  # (L, L)
    if getattr(model, "causal", False):
        allowed = allowed & causal_mask(length, device=ids.device)  # (L, L)
    seen: list[tuple[torch.Tensor, torch.Tensor]] = []
    hooks = [
        layer.register_forward_hook(lambda _m, _i, out: seen.append(out))
        for layer in dict.fromkeys(model.layers)  # (a layer used twice: hooked once)
    ]
    try:
        with torch.no_grad():
            logits, _ = model(ids, mask)  # (1, L, n_answers, vocab)
    finally:
        for hook in hooks:
            hook.remove()
    scores = tuple(logits[0].unbind(1))[: len(answers)]  # per answer: (L, vocab)
    return Reading(
        list(tokens),
        tuple(probs[0] for _, probs in seen),
        tuple(out[0] for out, _ in seen),
        scores,
        {
            name: vocab.decode(s.argmax(dim=-1))
            for name, s in zip(answers, scores, strict=True)
        },
        ~allowed,
    )
