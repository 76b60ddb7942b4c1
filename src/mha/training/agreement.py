"""*Subject–verb agreement*: a task in a small synthetic language whose answer
needs a relation every reader knows. In *the keys to the old cabinet be old*
the verb *be* must become *are*, because its subject, *keys*, is plural; the
nearer noun, *cabinet*, is singular and must be ignored.

The grammar, in full::

    sentence    = "the" adjective{0,3} NOUN phrase{0,2} "be" adjective?
    phrase      = PREPOSITION "the" adjective? NOUN

with 8 adjectives, 10 nouns in the singular and the plural, 6 prepositions;
every choice is uniform and independent, a noun's number included. So the
subject sits anywhere from position 1 to 4, the nouns of the phrases after
it, and the verb anywhere from position 2 to 13: neither the verb's position
nor the subject's tells where to look, and following the nearest noun gives
the wrong form half the time it differs from the subject.

Held out: a sentence whose nearest noun is the noun after its subject's in
``NOUNS`` (*key* then *cabinet*, *cabinet* then *door*, …, *drawer* then
*key*) is never drawn for training; the held-out sentences are all of that
kind, with at least one phrase.
"""

from __future__ import annotations

import torch

from mha.text import Vocab
from mha.training.task import IGNORE, Batch, Task

ADJECTIVES = ("old", "new", "red", "small", "big", "heavy", "dusty", "wooden")
NOUNS = (
    "key",
    "cabinet",
    "door",
    "box",
    "table",
    "lamp",
    "book",
    "chair",
    "window",
    "drawer",
)
PLURALS = tuple(noun + ("es" if noun.endswith("x") else "s") for noun in NOUNS)
PREPOSITIONS = ("to", "near", "on", "by", "under", "behind")
VERB = "be"
FORMS = ("is", "are")  # singular, plural
WORDS = ("the", *ADJECTIVES, *NOUNS, *PLURALS, *PREPOSITIONS, VERB, *FORMS)


def _shapes() -> dict[int, list[tuple[int, tuple[int, ...], int]]]:
    """Every sentence shape by length: (adjectives before the subject, one
    0/1 per phrase for its adjective, 0/1 for an adjective after the verb)."""
    shapes: dict[int, list] = {}
    for before in range(4):
        for n_phrases in range(3):
            for phrases in _bits(n_phrases):
                for after in (0, 1):
                    length = 3 + before + sum(3 + b for b in phrases) + after
                    shapes.setdefault(length, []).append((before, phrases, after))
    return shapes


def _bits(n: int) -> list[tuple[int, ...]]:
    """Every tuple of ``n`` zeros and ones."""
    return [tuple((k >> i) & 1 for i in range(n)) for k in range(2**n)]


SHAPES = _shapes()  # {length: [shape, ...]}, lengths 3 to 15


def _pick(generator: torch.Generator, n: int) -> int:
    """A uniform random integer in ``[0, n)``."""
    return int(torch.randint(n, (1,), generator=generator))


def _noun(index: int, plural: bool) -> str:
    return PLURALS[index] if plural else NOUNS[index]


def sentence(
    generator: torch.Generator, length: int, held_out: bool = False
) -> tuple[list[str], int, int, int]:
    """One random sentence of ``length`` words.

    Returns:
        ``(words, verb, subject, nearest)``: the words, the positions of the
        verb and of its subject, and the position of the noun nearest before
        the verb (the subject itself when there is no phrase).
    """
    shapes = SHAPES[length]
    if held_out:
        shapes = [shape for shape in shapes if shape[1]] or shapes
    before, phrases, after = shapes[_pick(generator, len(shapes))]
    adjectives = torch.randperm(len(ADJECTIVES), generator=generator)[:before]
    words = ["the", *(ADJECTIVES[i] for i in adjectives)]
    subject, nearest = len(words), len(words)
    noun = _pick(generator, len(NOUNS))
    words.append(_noun(noun, bool(_pick(generator, 2))))
    for k, adjective in enumerate(phrases):
        words += [PREPOSITIONS[_pick(generator, len(PREPOSITIONS))], "the"]
        if adjective:
            words.append(ADJECTIVES[_pick(generator, len(ADJECTIVES))])
        if k < len(phrases) - 1:  # any other noun
            other = (noun + 1 + _pick(generator, len(NOUNS) - 1)) % len(NOUNS)
        elif held_out:  # the nearest noun: the pair training never sees
            other = (noun + 1) % len(NOUNS)
        else:  # the nearest noun: any pair but the held-out one
            other = (noun + 2 + _pick(generator, len(NOUNS) - 2)) % len(NOUNS)
        nearest = len(words)
        words.append(_noun(other, bool(_pick(generator, 2))))
    verb = len(words)
    words.append(VERB)
    if after:
        words.append(ADJECTIVES[_pick(generator, len(ADJECTIVES))])
    return words, verb, subject, nearest


def draw(
    vocab: Vocab,
    generator: torch.Generator,
    n_sentences: int,
    length: int,
    held_out: bool = False,
) -> Batch:
    """A :class:`~mha.training.task.Batch` of :func:`sentence`: the answer,
    *is* or *are*, at the verb; its key, the subject; the nearest noun as the
    decoy where its number differs from the subject's."""
    ids = torch.empty(n_sentences, length, dtype=torch.long)
    targets = torch.full((n_sentences, length, 1), IGNORE)
    keys = torch.full((n_sentences, length, 1), -1)
    decoys = torch.full((n_sentences, length, 1), -1)
    for row in range(n_sentences):
        words, verb, subject, nearest = sentence(generator, length, held_out)
        plural = words[subject] in PLURALS
        ids[row] = torch.tensor(vocab.encode(words))
        targets[row, verb, 0] = vocab.stoi[FORMS[plural]]
        keys[row, verb, 0] = subject
        if (words[nearest] in PLURALS) != plural:
            decoys[row, verb, 0] = nearest
    return Batch(ids, targets, keys, decoys)


#: *Subject–verb agreement*, the verb's form from its subject across distracting nouns.
AGREEMENT = Task(
    name="agreement",
    asks="the form of the verb, is or are, which agrees with its subject",
    answers=("verb",),
    words=WORDS,
    lengths=(min(SHAPES), max(SHAPES)),
    test_lengths=tuple(range(6, max(SHAPES) + 1)),
    draw=draw,
    test_sentences=100,
    seeds=(0, 1, 2, 3, 4),
    max_length=max(SHAPES),
)
