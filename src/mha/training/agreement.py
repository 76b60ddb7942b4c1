"""*Subject–verb agreement*: tasks in a small synthetic language whose answer
needs a relation every reader knows. In *the keys to the old cabinet be old*
the verb *be* must become *are*, because its subject, *keys*, is plural; the
nearer noun, *cabinet*, is singular and must be ignored.

The grammar, in full (:data:`GRAMMAR`, printed by ``print(GRAMMAR)``)::

    sentence = phrase{0,F} "the" adjective{0,3}
      NOUN phrase{0,2} "be" adjective?
    phrase = PREPOSITION "the" adjective? NOUN

with 8 adjectives, 10 nouns in the singular and the plural, 6 prepositions;
every choice is uniform and independent, a noun's number included. Two
tasks use it:

- :data:`AGREEMENT`, with ``F = 0``: the subject is always the first noun,
  at positions 1 to 4, the nouns of the phrases after it, and the verb
  anywhere from position 2 to 13. Neither the verb's position nor the
  subject's tells where to look, and following the nearest noun gives the
  wrong form half the time it differs from the subject.
- :data:`FRONTED`, with ``F = 2``: up to two phrases may also stand before
  the subject (*near the box by the doors the red lamp be*), so the first
  noun is not always the subject either; the subject is the one noun that
  no preposition introduces. Its sentences have 3 to 23 words; its
  held-out sentences, like :data:`AGREEMENT`'s, 6 to 15 (the longest that
  :data:`AGREEMENT`'s models can read).

Held out: the *decoys* are the nouns a wrong strategy would follow, the
first noun when it is not the subject and the nearest noun before the verb
(the last phrase's). A sentence in which a decoy is the noun after its
subject's in ``NOUNS`` (*key* then *cabinet*, *cabinet* then *door*, …,
*drawer* then *key*) is never drawn for training; the held-out sentences
are all of that kind, with at least one phrase. :data:`FRONTED` has two
held-out splits (:attr:`~mha.training.task.Task.splits`): ``"fronted"``,
sentences with a phrase before the subject, and ``"plain"``, the others (a
phrase after the subject, none before).

Outside the grammar: :func:`probe` builds sentences of one shape each, also
shapes the grammar never makes (three phrases before the subject, two
adjectives in a phrase), every other noun of the subject's opposite number;
:func:`right` says how many verbs a model gets right.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch

from mha._checks import check_int
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

#: The shape of a sentence, as (one 0/1 per phrase before the subject for its
#: adjective, adjectives before the subject, one 0/1 per phrase after it, 0/1
#: for an adjective after the verb).
Shape = tuple[tuple[int, ...], int, tuple[int, ...], int]


def _bits(n: int) -> list[tuple[int, ...]]:
    """Every tuple of ``n`` zeros and ones."""
    return [tuple((k >> i) & 1 for i in range(n)) for k in range(2**n)]


def _phrases(most: int) -> list[tuple[int, ...]]:
    """Every run of 0 to ``most`` phrases: one 0/1 per phrase for its adjective."""
    return [phrases for n in range(most + 1) for phrases in _bits(n)]


def _pick(generator: torch.Generator, n: int) -> int:
    """A uniform random integer in ``[0, n)``."""
    return int(torch.randint(n, (1,), generator=generator))


def _noun(index: int, plural: bool) -> str:
    return PLURALS[index] if plural else NOUNS[index]


@dataclass(frozen=True)
class Grammar:
    """The grammar of the module's description with at most ``fronted``
    phrases before the subject, and the draw of its tasks (a
    :data:`~mha.training.task.Draw`: ``grammar(vocab, generator, n_sentences,
    length, held_out)`` returns a :class:`~mha.training.task.Batch`).

    ``held_out`` is ``False`` (training sentences), ``True`` (held-out
    sentences of every kind), ``"fronted"`` or ``"plain"`` (held-out
    sentences with, or without, a phrase before the subject).
    """

    fronted: int = 0

    def __str__(self) -> str:
        before = f"phrase{{0,{self.fronted}}} " if self.fronted else ""
        return (
            f'sentence = {before}"the" adjective{{0,3}}\n'
            '  NOUN phrase{0,2} "be" adjective?\n'
            'phrase = PREPOSITION "the" adjective? NOUN'
        )

    @functools.cached_property
    def shapes(self) -> dict[int, list[Shape]]:
        """Every sentence :data:`Shape` by length."""
        shapes: dict[int, list[Shape]] = {}
        for fronted in _phrases(self.fronted):
            for before in range(4):
                for phrases in _phrases(2):
                    for after in (0, 1):
                        length = 3 + before + after
                        length += sum(3 + b for b in (*fronted, *phrases))
                        shape = (fronted, before, phrases, after)
                        shapes.setdefault(length, []).append(shape)
        return dict(sorted(shapes.items()))

    @property
    def lengths(self) -> tuple[int, int]:
        """The shortest and the longest sentence."""
        return min(self.shapes), max(self.shapes)

    def split_lengths(self, held_out: bool | str) -> tuple[int, ...]:
        """The lengths of the held-out sentences of one kind (see the class)."""
        return tuple(
            length
            for length, shapes in self.shapes.items()
            if any(self._kind(shape, held_out) for shape in shapes)
        )

    @staticmethod
    def _kind(shape: Shape, held_out: bool | str) -> bool:
        """Whether a sentence of ``shape`` may be drawn as ``held_out`` asks."""
        fronted, _, phrases, _ = shape
        if held_out is False:
            return True
        if held_out is True:
            return bool(fronted or phrases)
        if held_out == "fronted":
            return bool(fronted)
        if held_out == "plain":
            return bool(phrases) and not fronted
        raise ValueError(
            f"held_out must be False, True, 'fronted' or 'plain', got {held_out!r}"
        )

    def sentence(
        self, generator: torch.Generator, length: int, held_out: bool | str = False
    ) -> tuple[list[str], int, int, int]:
        """One random sentence of ``length`` words.

        Returns:
            The words, the positions of the verb and of its subject, and the
            position of the noun a wrong strategy would follow (the first
            noun when it is not the subject, otherwise the noun nearest before
            the verb; the subject itself when there is no phrase), as
            ``(words, verb, subject, decoy)``.

        Raises:
            ValueError: the grammar has no sentence of ``length`` words in the
                split ``held_out`` names.
        """
        shapes = [s for s in self.shapes.get(length, []) if self._kind(s, held_out)]
        if not shapes:
            raise ValueError(
                f"length must be one of {list(self.split_lengths(held_out))} for "
                f"held_out={held_out!r} sentences, got {length}"
            )
        fronted, before, phrases, after = shapes[_pick(generator, len(shapes))]
        adjectives = torch.randperm(len(ADJECTIVES), generator=generator)[:before]
        noun = _pick(generator, len(NOUNS))
        subject_words = ["the", *(ADJECTIVES[i] for i in adjectives)]
        subject_words.append(_noun(noun, bool(_pick(generator, 2))))
        # The phrases after the subject are drawn first, then those before it
        # (so that a grammar without the latter draws what it always drew).
        # The decoys: the last phrase's noun after it, the first before it.
        last = len(phrases) - 1
        tail = [
            self._phrase(generator, a, noun, k == last, held_out)
            for k, a in enumerate(phrases)
        ]
        head = [
            self._phrase(generator, a, noun, k == 0, held_out)
            for k, a in enumerate(fronted)
        ]
        words = [word for phrase in (*head, subject_words, *tail) for word in phrase]
        subject = sum(map(len, head)) + len(subject_words) - 1
        verb = len(words)
        if head:  # the first noun
            decoy = len(head[0]) - 1
        else:  # the nearest noun
            decoy = verb - 1 if tail else subject
        words.append(VERB)
        if after:
            words.append(ADJECTIVES[_pick(generator, len(ADJECTIVES))])
        return words, verb, subject, decoy

    @staticmethod
    def _phrase(
        generator: torch.Generator,
        adjective: int,
        noun: int,
        decoy: bool,
        held_out: bool | str,
    ) -> list[str]:
        """A phrase whose noun is not the subject's, ``noun``; a decoy's noun
        is the one after it in ``NOUNS`` exactly when ``held_out``."""
        words = [PREPOSITIONS[_pick(generator, len(PREPOSITIONS))], "the"]
        if adjective:
            words.append(ADJECTIVES[_pick(generator, len(ADJECTIVES))])
        if not decoy:  # any other noun
            other = (noun + 1 + _pick(generator, len(NOUNS) - 1)) % len(NOUNS)
        elif held_out:  # the pair training never sees
            other = (noun + 1) % len(NOUNS)
        else:  # any pair but the held-out one
            other = (noun + 2 + _pick(generator, len(NOUNS) - 2)) % len(NOUNS)
        return [*words, _noun(other, bool(_pick(generator, 2)))]

    def __call__(
        self,
        vocab: Vocab,
        generator: torch.Generator,
        n_sentences: int,
        length: int,
        held_out: bool | str = False,
    ) -> Batch:
        """A :class:`~mha.training.task.Batch` of :meth:`sentence`: the
        answer, *is* or *are*, at the verb; its key, the subject; the decoy
        where its number differs from the subject's."""
        ids, verbs, answers, subjects, decoys = [], [], [], [], []
        for _ in range(n_sentences):
            words, verb, subject, decoy = self.sentence(generator, length, held_out)
            plural = words[subject] in PLURALS
            ids.append(vocab.encode(words))
            verbs.append(verb)
            answers.append(vocab.stoi[FORMS[plural]])
            subjects.append(subject)
            # the decoy, where its number differs from the subject's
            decoys.append(decoy if (words[decoy] in PLURALS) != plural else -1)
        return _at_verbs(ids, verbs, answers, subjects, decoys)


def _at_verbs(ids: list, verbs: list, answers: list, subjects: list, decoys: list):
    """The :class:`~mha.training.task.Batch` of sentences ``ids`` (lists of
    word ids, all of one length) whose only answer is at their verb (one
    value per sentence in each list: the verb's position, its form's id,
    the subject's position, the decoy's or -1)."""
    ids = torch.tensor(ids)  # (n_sentences, length)
    n_sentences, length = ids.shape
    at_verb = (torch.arange(n_sentences), torch.tensor(verbs), 0)
    targets = torch.full((n_sentences, length, 1), IGNORE)
    keys = torch.full((n_sentences, length, 1), -1)
    decoy_keys = torch.full((n_sentences, length, 1), -1)
    targets[at_verb] = torch.tensor(answers)
    keys[at_verb] = torch.tensor(subjects)
    decoy_keys[at_verb] = torch.tensor(decoys)
    return Batch(ids, targets, keys, decoy_keys)


#: The grammar of :data:`AGREEMENT`, the subject first.
GRAMMAR = Grammar(fronted=0)
SHAPES = GRAMMAR.shapes  # {length: [shape, ...]}, lengths 3 to 15
#: The grammar of :data:`FRONTED`, up to two phrases before the subject.
FRONTED_GRAMMAR = Grammar(fronted=2)

TEST_LENGTHS = tuple(range(6, max(SHAPES) + 1))  # held-out sentences: 6 to 15 words

#: *Subject–verb agreement*, the verb's form from its subject across distracting nouns.
AGREEMENT = Task(
    name="agreement",
    asks="the form of the verb, is or are, which agrees with its subject",
    answers=("verb",),
    words=WORDS,
    lengths=GRAMMAR.lengths,
    test_lengths=TEST_LENGTHS,
    draw=GRAMMAR,
    test_sentences=100,
    seeds=(0, 1, 2, 3, 4),
    max_length=max(SHAPES),
)

#: Agreement when phrases may also stand before the subject, so that the first
#: noun is not always the subject (*by the door the red lamps be* → *are*).
FRONTED = Task(
    name="fronted",
    asks="the form of the verb, is or are, which agrees with its subject, "
    "also after phrases before it",
    answers=("verb",),
    words=WORDS,
    lengths=FRONTED_GRAMMAR.lengths,
    test_lengths=TEST_LENGTHS,
    draw=FRONTED_GRAMMAR,
    test_sentences=100,
    seeds=(0, 1, 2, 3, 4),
    steps=1500,
    lr=0.02,
    train_batches=300,
    max_length=max(FRONTED_GRAMMAR.shapes),
    splits=(("fronted", TEST_LENGTHS), ("plain", TEST_LENGTHS)),
    depths=(1, 2),
    head_counts=(4,),
)


def probe(
    before: int = 0,
    after: int = 0,
    adjectives: int = 0,
    phrase_adjectives: int | tuple[int, ...] = 0,
    n_sentences: int = 100,
    seed: int = 0,
) -> Batch:
    """Sentences of one fixed shape, inside the grammar or outside it, to test
    what a model learned: ``before`` phrases, then the subject with
    ``adjectives`` adjectives, ``after`` phrases and the verb (*on the box by
    the lamps near the door the keys to the chair be*). Every phrase has
    ``phrase_adjectives`` adjectives or, for a tuple, phrase ``i`` (those
    before the subject first) has ``phrase_adjectives[i]``.

    Every noun but the subject has the other number, so a model that follows
    the first noun, or the nearest one before the verb, gets every sentence
    wrong (with ``before`` or ``after`` at least 1 respectively). Nouns,
    adjectives, prepositions and the subject's number are drawn uniformly,
    seeded by ``seed``; the training grammar has ``before`` at most 2 (0 for
    :data:`AGREEMENT`), ``after`` at most 2, ``adjectives`` at most 3 and
    ``phrase_adjectives`` at most 1.

    Returns:
        A :class:`~mha.training.task.Batch` for the vocabulary of
        :data:`AGREEMENT` and :data:`FRONTED`: the answer at the verb, its
        key the subject, its decoy the first noun (the subject if
        ``before`` is 0).

    Raises:
        ValueError: an argument out of range, or a sentence longer than
            :data:`FRONTED`'s ``max_length`` (23 words).
    """
    check_int("before", before, minimum=0)
    check_int("after", after, minimum=0)
    check_int("adjectives", adjectives, minimum=0, maximum=len(ADJECTIVES))
    if isinstance(phrase_adjectives, int) and not isinstance(phrase_adjectives, bool):
        phrase_adjectives = (phrase_adjectives,) * (before + after)
    if not isinstance(phrase_adjectives, tuple) or len(phrase_adjectives) != (
        before + after
    ):
        raise ValueError(
            f"phrase_adjectives must be an int or a tuple of before + after = "
            f"{before + after} ints, got {phrase_adjectives!r}"
        )
    for count in phrase_adjectives:
        check_int("phrase_adjectives[i]", count, minimum=0, maximum=len(ADJECTIVES))
    check_int("n_sentences", n_sentences)
    check_int("seed", seed, minimum=0)
    length = 3 * (before + after) + sum(phrase_adjectives) + 2 + adjectives + 1
    if length > FRONTED.max_length:
        raise ValueError(
            f"before, after, adjectives and phrase_adjectives must make a sentence "
            f"of at most {FRONTED.max_length} words, got {length}"
        )
    generator = torch.Generator().manual_seed(seed)
    vocab = FRONTED.vocab

    def some_adjectives(n: int) -> list[str]:
        chosen = torch.randperm(len(ADJECTIVES), generator=generator)[:n]
        return [ADJECTIVES[i] for i in chosen]

    def phrase(noun: int, plural: bool, n_adjectives: int) -> list[str]:
        other = (noun + 1 + _pick(generator, len(NOUNS) - 1)) % len(NOUNS)
        preposition = PREPOSITIONS[_pick(generator, len(PREPOSITIONS))]
        words = [preposition, "the", *some_adjectives(n_adjectives)]
        return [*words, _noun(other, not plural)]

    ids, answers, subjects, decoys = [], [], [], []
    for _ in range(n_sentences):
        noun, plural = _pick(generator, len(NOUNS)), bool(_pick(generator, 2))
        subject = ["the", *some_adjectives(adjectives), _noun(noun, plural)]
        counts = phrase_adjectives
        head = [w for n in counts[:before] for w in phrase(noun, plural, n)]
        tail = [w for n in counts[before:] for w in phrase(noun, plural, n)]
        ids.append(vocab.encode([*head, *subject, *tail, VERB]))
        answers.append(vocab.stoi[FORMS[plural]])
        subjects.append(len(head) + len(subject) - 1)
        decoys.append(
            2 + counts[0] if before else -1
        )  # the first noun, if not the subject
    return _at_verbs(ids, [length - 1] * n_sentences, answers, subjects, decoys)


def right(model: torch.nn.Module, batch: Batch) -> float:
    """The share of ``batch``'s verbs whose form ``model`` gets right."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(
            f"model must be a trained torch.nn.Module, got {type(model).__name__}"
        )
    with torch.no_grad():
        logits, _ = model(batch.ids)  # (n, L, n_answers, vocab)
    asked = batch.targets != IGNORE  # (n, L, n_answers)
    said = logits.argmax(dim=-1)  # (n, L, n_answers)
    return (said == batch.targets)[asked].double().mean().item()
