"""How the two layers of a model trained on :data:`~mha.training.agreement.FRONTED`
work together: what each first-layer head writes to the residual stream
(:func:`head_writes`), how much of a second-layer head's preference for the
subject each source of its keys gives (:func:`key_split`), and how much of
its row a head puts on some words (:func:`on_words`)."""

from __future__ import annotations

import torch

from mha.attention import split_heads
from mha.masks import causal_mask
from mha.training.agreement import FRONTED, NOUNS, PLURALS
from mha.training.task import Batch


def head_writes(layer: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """What each head of the causal attention ``layer`` adds to the residual
    stream ``x (batch, L, d_model)``: ``(batch, n_heads, L, d_model)``; their
    sum plus ``layer.Wo.bias`` is the layer's output."""
    _, probs = layer(x, x, x, causal_mask(x.size(1)))  # (batch, n_heads, L, L)
    V = split_heads(layer.Wv(x), layer.n_heads)  # (batch, n_heads, L, d_key)
    Wo = layer.Wo.weight.T.unflatten(0, (layer.n_heads, layer.d_key))
    return (probs @ V) @ Wo  # (batch, n_heads, L, d_model)


def key_split(model: torch.nn.Module, batches: list[Batch]) -> torch.Tensor:
    """Why a second-layer head of a two-layer model on a residual stream (a
    :class:`~mha.training.model.ToyModel`) prefers the subject to the first
    noun, at the verb.

    The score gap ``q · (k_subject - k_first_noun) / √d_key`` is split
    exactly into one term per source of the keys' stream ``x1``: ``x0``
    (word and position), then what each head of layer 1 wrote (the key
    biases cancel in the gap). ``batch.keys`` is where the answer's word
    stands (the subject), not an attention key.

    Returns:
        ``(n_sentences, n_heads of layer 2, 1 + n_heads of layer 1)``.
    """
    if not getattr(model, "residual", False) or len(model.layers) != 2:
        raise TypeError(
            "model must be a two-layer model on a residual stream, got a "
            f"{type(model).__name__} of {len(getattr(model, 'layers', ()))} layer(s), "
            f"residual={getattr(model, 'residual', None)}"
        )
    nouns = torch.tensor([FRONTED.vocab.stoi[w] for w in NOUNS + PLURALS])
    attn1, attn2 = model.layers
    parts = []
    for batch in batches:
        x0 = model.position(model.embed(batch.ids))  # (n, L, d_model)
        writes = head_writes(attn1, x0)  # (n, n_heads, L, d_model)
        x1 = x0 + writes.sum(dim=1) + attn1.Wo.bias  # (n, L, d_model)
        rows, verb = (batch.keys[..., 0] >= 0).nonzero(as_tuple=True)  # one each
        subject = batch.keys[rows, verb, 0]  # (n,): where the subject stands
        first = torch.isin(batch.ids, nouns).int().argmax(dim=1)  # (n,)
        q = split_heads(attn2.Wq(x1), attn2.n_heads)[
            rows, :, verb
        ]  # (n, n_heads, d_key)
        terms = []
        for x in (x0, *writes.unbind(dim=1)):  # each (n, L, d_model)
            k = split_heads(
                x @ attn2.Wk.weight.T, attn2.n_heads
            )  # (n, n_heads, L, d_key)
            gap = k[rows, :, subject] - k[rows, :, first]  # (n, n_heads, d_key)
            terms.append((q * gap).sum(dim=-1) / attn2.d_key**0.5)
        parts.append(torch.stack(terms, dim=-1))  # (n, n_heads, sources)
    return torch.cat(parts)


def on_words(
    model: torch.nn.Module, batches: list[Batch], layer: int, head: int, words
) -> tuple[float, float]:
    """How much of its row one head puts on ``words``, on average, at the
    subject and at the other nouns: ``(at the subject, at another noun)``."""
    ids = torch.tensor([FRONTED.vocab.stoi[w] for w in words])
    nouns = torch.tensor([FRONTED.vocab.stoi[w] for w in NOUNS + PLURALS])
    at_subject, at_other = [], []
    for batch in batches:
        with torch.no_grad():
            _, maps = model(batch.ids)
        share = (
            maps[layer][:, head] @ torch.isin(batch.ids, ids).to(maps[layer])[..., None]
        )  # (n, L, 1)
        rows, verb = (batch.keys[..., 0] >= 0).nonzero(as_tuple=True)
        is_noun = torch.isin(batch.ids, nouns)  # (n, L)
        is_subject = torch.zeros_like(is_noun)
        is_subject[rows, batch.keys[rows, verb, 0]] = True
        at_subject.append(share[..., 0][is_subject])
        at_other.append(share[..., 0][is_noun & ~is_subject])
    return torch.cat(at_subject).mean().item(), torch.cat(at_other).mean().item()
