"""*Repeat the sequence*: random letters whose first part comes again, the
task on which a two-layer model learns an induction head (Olsson et al.,
2022).

A sentence of ``L`` letters starts with a segment of ``n`` letters (``n``
drawn uniformly from 3 to ``L // 2`` for each sentence), repeated right after
it; random letters fill the rest. At every position of the second copy but
its last, the answer is the next letter, which the model can only know from
the first copy: the letter after the earlier occurrence of the current one.
The key that holds it is that letter's position in the first copy. Every
letter is drawn uniformly and independently, so a segment may hold a letter
twice: its next letter is then ambiguous, and no model answers every
position right. Repeats of varying length keep a model from finding the
answer at a fixed distance back (with one length, a model learns that
distance instead).
"""

from __future__ import annotations

import contextlib
import string
from collections.abc import Iterator

import torch
from torch import nn

from mha._checks import check_int
from mha.text import Vocab
from mha.training.measures import _attention_layer, _replacing_head
from mha.training.task import IGNORE, Batch, Task

LETTERS = tuple(string.ascii_lowercase[:16])  # the task's words
SHORTEST = 3  # the shortest repeated segment
TRAINED = 8  # the longest segment of training (half its sentences' 16 letters)


def draw_repeats(
    vocab: Vocab,
    generator: torch.Generator,
    n_sentences: int,
    length: int,
    held_out: bool = False,
) -> Batch:
    """The draw of :data:`INDUCTION` (a :data:`~mha.training.task.Draw`):
    ``n_sentences`` sentences of ``length`` letters as the module describes.
    Random, so ``held_out=True`` draws what training draws; ``held_out="long"``
    draws segments longer than any of training (``TRAINED + 1`` letters to
    ``length // 2``), in sentences longer than training's."""
    first = vocab.unk_id + 1  # real words only
    ids = torch.randint(first, len(vocab), (n_sentences, length), generator=generator)
    shortest = TRAINED + 1 if held_out == "long" else SHORTEST
    longest = length // 2
    if longest < shortest:
        raise ValueError(
            f"length must be at least {2 * shortest} for held_out={held_out!r}, got {length}"
        )
    sizes = torch.randint(shortest, longest + 1, (n_sentences,), generator=generator)
    targets = torch.full((n_sentences, length, 1), IGNORE)
    keys = torch.full((n_sentences, length, 1), -1)
    for s, n in enumerate(sizes.tolist()):
        ids[s, n : 2 * n] = ids[s, :n]
        where = torch.arange(n, 2 * n - 1)  # the second copy but its last
        targets[s, where, 0] = ids[s, where + 1]
        keys[s, where, 0] = where - n + 1  # the letter after the earlier occurrence
    return Batch(ids, targets, keys, torch.full_like(keys, -1))


def probe(
    length: int,
    shortest: int,
    longest: int,
    start: int = 0,
    n_sentences: int = 500,
    seed: int = 0,
) -> Batch:
    """Sentences to test a model outside its training: ``length`` random
    letters, a segment of ``shortest`` to ``longest`` letters starting at
    ``start`` and repeated right after it (``longest=0``: no repeat at all).
    Answers as :data:`INDUCTION`'s, in the second copy; with no repeat, at
    every position whose letter occurred exactly once before, by chance: the
    letter after that occurrence (what an induction head would copy)."""
    check_int("length", length, minimum=2)
    check_int("longest", longest, minimum=0)
    check_int("start", start, minimum=0)
    check_int("n_sentences", n_sentences)
    if longest:
        check_int("shortest", shortest, minimum=1, maximum=longest)
        if start + 2 * longest > length:
            raise ValueError(
                f"length must hold start + 2 * longest = {start + 2 * longest} "
                f"letters, got {length}"
            )
    generator = torch.Generator().manual_seed(seed)
    vocab, first = INDUCTION.vocab, 2  # letters: ids 2, 3, ...
    ids = torch.randint(first, len(vocab), (n_sentences, length), generator=generator)
    targets = torch.full((n_sentences, length, 1), IGNORE)
    keys = torch.full((n_sentences, length, 1), -1)
    if not longest:
        for i in range(1, length - 1):
            earlier = ids[:, :i] == ids[:, i : i + 1]  # (n, i)
            once = earlier.sum(dim=1) == 1  # (n,)
            at = earlier.int().argmax(dim=1) + 1  # (n,): after the occurrence
            keys[once, i, 0] = at[once]
            targets[once, i, 0] = ids[once, at[once]]
        return Batch(ids, targets, keys, torch.full_like(keys, -1))
    sizes = torch.randint(shortest, longest + 1, (n_sentences,), generator=generator)
    for s, n in enumerate(sizes.tolist()):
        ids[s, start + n : start + 2 * n] = ids[s, start : start + n]
        where = torch.arange(start + n, start + 2 * n - 1)
        targets[s, where, 0] = ids[s, where + 1]
        keys[s, where, 0] = where - n + 1
    return Batch(ids, targets, keys, torch.full_like(keys, -1))


def ambiguous(ids: torch.Tensor) -> torch.Tensor:
    """``(n, L)``: ``True`` where a position's letter occurred more than once
    before it (which of the letters after those occurrences comes next, the
    letter alone cannot tell)."""
    before = torch.ones(ids.size(-1), ids.size(-1), dtype=torch.bool).tril(-1)
    same = ids[..., :, None] == ids[..., None, :]  # (n, L, L)
    return (same & before).sum(dim=-1) > 1


def measure(model: nn.Module, batch: Batch) -> dict:
    """What ``model`` does on ``batch``'s answers: ``right``, the share
    answered right where the letter's earlier occurrence is unique;
    ``right_ambiguous``, where it is not; ``share``, per layer-2 head, the
    attention on the answer's key where it is unique (the induction stripe:
    1 for a head that always looks there)."""
    with torch.no_grad():
        logits, maps = model(batch.ids)  # (n, L, 1, vocab), per layer (n, H, L, L)
    last = maps[-1] if isinstance(maps, tuple) else maps  # the last layer's
    asked = batch.targets[..., 0] != IGNORE  # (n, L)
    twice = ambiguous(batch.ids)
    right = logits[..., 0, :].argmax(dim=-1) == batch.targets[..., 0]  # (n, L)
    keys = batch.keys[..., 0].clamp(min=0)  # (n, L)
    index = keys[:, None, :, None].expand(-1, last.size(1), -1, -1)
    on_key = last.gather(-1, index)[..., 0].transpose(1, 2)  # (n, L, H)
    unique = asked & ~twice
    return {
        "right": right[unique].double().mean().item(),
        "right_ambiguous": right[asked & twice].double().mean().item(),
        "share": on_key[unique].mean(dim=0).tolist(),
    }


def repeated(segment: str, before: str = "", after: str = "") -> str:
    """A sentence of letters: ``before``, ``segment`` twice, ``after``
    (each a string of letters, spaces optional), as the explorer and
    :meth:`~mha.training.task.Task.read` take it."""
    for name, text in (("segment", segment), ("before", before), ("after", after)):
        if not isinstance(text, str):
            raise TypeError(
                f"{name} must be a str of letters, got {type(text).__name__}"
            )
    letters = [c for c in before + segment + segment + after if not c.isspace()]
    return " ".join(letters)


#: *Continue the repeat*: a two-layer model's second copy predicted from the first.
INDUCTION = Task(
    name="induction",
    asks="in the second copy of a repeated segment, the next letter",
    answers=("next",),
    words=LETTERS,
    lengths=(2 * TRAINED, 2 * TRAINED),
    test_lengths=(2 * TRAINED,),
    draw=draw_repeats,
    seeds=(0, 1, 2, 3, 4),
    steps=3000,
    batch_size=64,
    lr=0.03,
    max_length=32,
    depths=(2,),
    head_counts=(2,),
    next_word=True,
)


def corrupted(
    batch: Batch, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each sentence of ``batch`` with one letter of its first copy changed
    so that the earlier occurrence of one query's letter is gone: the
    *corrupted* run of :func:`patched`.

    For each sentence one position ``i`` of its second copy that has an
    answer is drawn; its answer stands at key ``k`` in the first copy, after
    the earlier occurrence of ``i``'s letter at ``k - 1``, and that letter
    is replaced by another letter (drawn uniformly from the others).

    Returns:
        ``(ids, query, answer)``: the corrupted ids ``(n, L)``, each
        sentence's query position ``(n,)`` and the id of the clean answer
        there ``(n,)``.
    """
    if not isinstance(batch, Batch):
        raise TypeError(
            f"batch must be a mha.training.task.Batch, got {type(batch).__name__}"
        )
    asked = batch.targets[..., 0] != IGNORE  # (n, L)
    if not asked.any(dim=1).all():
        raise ValueError("batch must have an answer in every sentence")
    choice = torch.rand(asked.shape, generator=generator).masked_fill(~asked, -1.0)
    query = choice.argmax(dim=1)  # (n,): one asked position each
    rows = torch.arange(len(query))
    answer = batch.targets[rows, query, 0]  # (n,)
    before = batch.keys[rows, query, 0] - 1  # (n,): the earlier occurrence
    ids = batch.ids.clone()
    n_words = len(LETTERS)
    shift = torch.randint(1, n_words, (len(query),), generator=generator)
    first = 2  # the first letter's id (after <pad> and <unk>)
    ids[rows, before] = first + (ids[rows, before] - first + shift) % n_words
    return ids, query, answer


@contextlib.contextmanager
def patched(
    model: nn.Module, clean: torch.Tensor, head: int, layer: int = 0
) -> Iterator[nn.Module]:
    """Inside the ``with`` block, one head of ``model`` writes what it wrote
    when the model read ``clean`` (*activation patching*): whatever the
    model reads then (a *corrupted* batch of the same shape), that head's
    ``d_key`` features of the merged heads, just before ``Wo``, are the
    clean run's, at every position. The rest of the model computes as
    usual, so what comes back of the clean answer is what flows through
    that head's output. The model is unchanged after the block.

    Args:
        model: a :class:`~mha.training.model.ToyModel`.
        clean: ``(n, L)`` ids of the clean run.
        head: the head patched, ``0 … n_heads - 1``.
        layer: which of ``model.layers`` it is in (``0``, the first).
    """
    attention = _attention_layer(model, layer)
    check_int("head", head, minimum=0, maximum=attention.n_heads - 1)
    if not isinstance(clean, torch.Tensor) or clean.dim() != 2:
        raise ValueError(
            f"clean must be ids of shape (n, L), got "
            f"{tuple(clean.shape) if isinstance(clean, torch.Tensor) else type(clean).__name__}"
        )
    features = slice(head * attention.d_key, (head + 1) * attention.d_key)
    seen = []

    def record(module, inputs):
        seen.append(inputs[0][..., features].clone())  # (n, L, d_key)

    handle = attention.Wo.register_forward_pre_hook(record)
    try:
        with torch.no_grad():
            model(clean)
    finally:
        handle.remove()
    clean_output = seen[0]

    def value() -> torch.Tensor:
        return clean_output

    with _replacing_head(attention, head, value):
        yield model


def right_at(
    model: nn.Module, ids: torch.Tensor, query: torch.Tensor, answer: torch.Tensor
) -> float:
    """The share of sentences ``ids (n, L)`` where ``model``'s answer at
    position ``query`` (one per sentence) is ``answer``."""
    with torch.no_grad():
        logits, _ = model(ids)  # (n, L, 1, vocab)
    said = logits[torch.arange(len(query)), query, 0].argmax(dim=-1)  # (n,)
    return (said == answer).double().mean().item()


def right_patched_into(
    model: nn.Module,
    clean: torch.Tensor,
    corrupt: torch.Tensor,
    query: torch.Tensor,
    answer: torch.Tensor,
    head: int,
    path: str,
) -> float:
    """:func:`right_at` on ``corrupt`` with ``head`` of layer 1 patched from
    ``clean`` (:func:`patched`) only where layer 2 reads it through ``path``:
    its queries (``"Q"``), keys (``"K"``) or values (``"V"``) read the
    patched stream, the rest of layer 2 and the readout the corrupted one.
    For a two-layer :class:`~mha.training.model.ToyModel` on a residual
    stream."""
    if path not in ("Q", "K", "V"):
        raise ValueError(f"path must be one of 'Q', 'K', 'V', got {path!r}")
    if len(getattr(model, "layers", ())) != 2 or not getattr(model, "residual", False):
        raise TypeError(
            "model must be a two-layer ToyModel on a residual stream, got "
            f"{type(model).__name__}"
        )
    first, second = model.layers

    def stream(patch: bool) -> torch.Tensor:  # x1 of the corrupted run: (n, L, d_model)
        seen = []
        hook = first.register_forward_hook(lambda m, i, out: seen.append(out[0]))
        try:
            with torch.no_grad(), contextlib.ExitStack() as stack:
                if patch:
                    stack.enter_context(patched(model, clean, head, layer=0))
                model(corrupt)
        finally:
            hook.remove()
        return model.position(model.embed(corrupt)) + seen[-1]

    own, fixed = stream(False), stream(True)
    q, k, v = (fixed if name == path else own for name in ("Q", "K", "V"))
    with torch.no_grad():
        out, _ = second(q, k, v, model.with_causal(None, corrupt))  # (n, L, d_model)
        logits = model.readouts[0](own + out)  # (n, L, vocab)
    said = logits[torch.arange(len(query)), query].argmax(dim=-1)  # (n,)
    return (said == answer).double().mean().item()
