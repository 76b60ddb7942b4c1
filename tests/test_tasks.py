"""The tasks (mha.training.task, mha.training.agreement): what their batches
ask, how they read a sentence, and what they refuse (what the shipped models
learned is tested in test_shipped_models.py)."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

import pytest
import torch
from refusal import refuses, row_ids

from mha import training
from mha.training import agreement, composition, variants
from mha.training.task import IGNORE

TASKS = (training.PREVIOUS_WORD, training.NEIGHBOURS, training.AGREEMENT)


def _shipped(task, n_heads, seed=0):
    return training.load(task, n_heads, seed, torch.float64)


# --- What each task asks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "offsets"),
    [(training.PREVIOUS_WORD, (-1,)), (training.NEIGHBOURS, (-1, 1))],
)
def test_a_copying_task_asks_for_the_words_at_its_offsets(task, offsets, gen):
    batch = task.batch(gen, 50, 7)
    ids, targets, keys, decoys = batch.ids, batch.targets, batch.keys, batch.decoys
    assert ids.shape == (50, 7) and targets.shape == keys.shape == (50, 7, len(offsets))
    assert ids.min() >= 2 and ids.max() < len(task.vocab)  # no <pad>, no <unk>
    for a, offset in enumerate(offsets):
        for i in range(7):
            if 0 <= i + offset < 7:
                assert (keys[:, i, a] == i + offset).all()
                assert torch.equal(targets[:, i, a], ids[:, i + offset])
            else:
                assert (keys[:, i, a] == -1).all() and (
                    targets[:, i, a] == IGNORE
                ).all()
    assert (decoys == -1).all()


# One letter per word class: a sentence of the grammar is a string of this form.
CLASS = {"the": "D", "be": "V", **dict.fromkeys(agreement.ADJECTIVES, "A")}
CLASS |= dict.fromkeys(agreement.NOUNS, "N") | dict.fromkeys(agreement.PLURALS, "M")
CLASS |= dict.fromkeys(agreement.PREPOSITIONS, "P")
LEMMA = {
    w: i for forms in (agreement.NOUNS, agreement.PLURALS) for i, w in enumerate(forms)
}
GRAMMAR = re.compile(r"DA{0,3}[NM](PDA?[NM]){0,2}VA?")


def _sentences(task, batch):
    """Each sentence of ``batch``: its words, their classes (``CLASS``), the
    nouns' positions, and its targets, keys and decoys of the one answer."""
    rows = (batch.ids, batch.targets, batch.keys, batch.decoys)
    for ids, targets, keys, decoys in zip(*rows, strict=True):
        words = task.vocab.decode(ids)
        classes = "".join(CLASS[w] for w in words)
        nouns = [i for i, c in enumerate(classes) if c in "NM"]
        yield words, classes, nouns, targets[:, 0], keys[:, 0], decoys[:, 0]


def _check_the_verb(task, words, classes, answer, subject, decoy):
    """The one answer is at the verb, the form its subject's number says; its
    key is the subject, its decoy ``decoy`` where that noun's number differs."""
    targets, keys, decoys = answer
    verb = words.index("be")
    assert (targets != IGNORE).nonzero().flatten().tolist() == [verb]
    assert keys[verb] == subject
    plural = classes[subject] == "M"
    assert task.vocab.itos[targets[verb]] == ("are" if plural else "is")
    misleads = (classes[decoy] == "M") != plural
    assert decoys[verb] == (decoy if misleads else -1)


@pytest.mark.parametrize("held_out", [False, True])
def test_agreement_sentences_follow_the_grammar_and_the_verb_agrees(held_out, gen):
    task = training.AGREEMENT
    for length in range(3 if not held_out else 6, 16):
        batch = task.batch(gen, 40, length, held_out)
        for words, classes, nouns, *answer in _sentences(task, batch):
            assert GRAMMAR.fullmatch(classes), words
            subject, nearest = nouns[0], nouns[-1]
            _check_the_verb(task, words, classes, answer, subject, nearest)
            if held_out:
                assert len(nouns) > 1
            if len(nouns) > 1:  # held out: the pair of nouns training never sees
                first, last = LEMMA[words[subject]], LEMMA[words[nearest]]
                assert (last == (first + 1) % len(agreement.NOUNS)) == held_out, words


FRONTED_GRAMMAR = re.compile(r"(PDA?[NM]){0,2}DA{0,3}[NM](PDA?[NM]){0,2}VA?")


@pytest.mark.parametrize("held_out", [False, True, "fronted", "plain"])
def test_fronted_sentences_follow_their_grammar_and_the_verb_agrees(held_out, gen):
    """The subject is the one noun no preposition introduces; the decoy is the
    first noun when that is not the subject, else the nearest one; held-out
    sentences, and only they, pair a decoy with the noun after the subject's."""
    task = training.FRONTED
    lengths = range(3, 24) if held_out is False else task.test_lengths
    if isinstance(held_out, str):
        lengths = dict(task.splits)[held_out]
    kinds = Counter()
    for length in lengths:
        batch = task.batch(gen, 30, length, held_out)
        for words, classes, nouns, *answer in _sentences(task, batch):
            assert FRONTED_GRAMMAR.fullmatch(classes), words
            # The subject's determiner is the one "the" no preposition precedes.
            subject = next(i for i in nouns if classes[:i].rstrip("A")[-2:] != "PD")
            fronted = subject != nouns[0]
            kinds[fronted] += 1
            decoy = nouns[0] if fronted else nouns[-1]
            _check_the_verb(task, words, classes, answer, subject, decoy)
            if held_out == "fronted":
                assert fronted
            if held_out == "plain":
                assert not fronted and len(nouns) > 1
            if held_out is True:
                assert len(nouns) > 1
            lemma = LEMMA[words[subject]]
            for position in {nouns[0], nouns[-1]} - {subject}:  # the decoys
                paired = LEMMA[words[position]] == (lemma + 1) % len(agreement.NOUNS)
                assert paired == bool(held_out), words
    if held_out in (False, True):  # both kinds, in training and held out
        assert min(kinds.values()) > 50


def test_the_grammars_print_as_the_module_says():
    assert str(agreement.GRAMMAR) == (
        'sentence = "the" adjective{0,3}\n'
        '  NOUN phrase{0,2} "be" adjective?\n'
        'phrase = PREPOSITION "the" adjective? NOUN'
    )
    assert str(agreement.FRONTED_GRAMMAR).startswith('sentence = phrase{0,2} "the"')
    assert agreement.GRAMMAR.lengths == (3, 15) == training.AGREEMENT.lengths
    assert agreement.FRONTED_GRAMMAR.lengths == (3, 23) == training.FRONTED.lengths
    assert training.FRONTED.words == training.AGREEMENT.words  # the same 38 words
    assert len(training.FRONTED.words) == 38
    splits = dict(training.FRONTED.splits)
    assert splits["fronted"] == tuple(range(6, 16))
    assert splits["plain"] == tuple(range(6, 16))
    fronted = training.FRONTED.test_batches(split="fronted")
    assert [b.ids.size(1) for b in fronted] == list(range(6, 16))


def test_agreement_neither_position_nor_the_nearest_noun_gives_the_answer(gen):
    """The subject and the verb move around; the nearest noun's number is a
    coin toss; the subject's number too."""
    task = training.AGREEMENT
    subjects, verbs, plural, decoyed = Counter(), Counter(), [], []
    for length in task.test_lengths:
        batch = task.batch(gen, 200, length, held_out=True)
        verb = (batch.targets[..., 0] != IGNORE).nonzero()[:, 1]  # (200,)
        subjects.update(batch.keys[torch.arange(200), verb, 0].tolist())
        verbs.update(verb.tolist())
        plural.append(
            batch.targets[torch.arange(200), verb, 0] == task.vocab.stoi["are"]
        )
        decoyed.append(batch.decoys[torch.arange(200), verb, 0] >= 0)
    assert sorted(subjects) == [1, 2, 3, 4]
    assert sorted(verbs) == list(range(5, 14))
    assert 0.45 < torch.cat(plural).double().mean() < 0.55
    assert 0.45 < torch.cat(decoyed).double().mean() < 0.55


def test_a_task_reads_a_sentence_for_a_chapter():
    task = training.AGREEMENT
    model = _shipped(task, 4, seed=2)
    reading = task.read(model, "The keys to the old cabinet be old.")
    assert reading.tokens == ["the", "keys", "to", "the", "old", "cabinet", "be", "old"]
    assert reading.attention.shape == (4, 8, 8)
    assert reading.answers["verb"][6] == "are"
    tokens, ids = task.encode("the key to the cabinets be")
    assert ids.shape == (1, 6) and task.vocab.decode(ids[0]) == tokens


def test_task_data():
    assert training.NEIGHBOURS.weights_file.name == "neighbours.pt"
    assert training.NEIGHBOURS.weights_file.exists()
    assert training.PREVIOUS_WORD.vocab.itos[:2] == ["<pad>", "<unk>"]
    assert len(training.PREVIOUS_WORD.vocab) == 16  # the running example's words
    assert 30 <= len(training.AGREEMENT.words) <= 60  # a few dozen words
    assert "agreement" in repr(training.AGREEMENT)
    for task in TASKS:
        assert task.answers and task.asks and task.weights_file.exists()


@pytest.mark.parametrize(
    ("task", "split"), [(training.AGREEMENT, None), (training.FRONTED, "plain")]
)
def test_the_held_out_sentences_are_drawn_once_and_each_caller_gets_a_copy(task, split):
    """The same batches a fresh seeded draw gives, drawn on the first call only
    (a second task with a counting draw), and a caller's change to its copy
    reaches nobody else."""
    draws = []

    def counted(*args):
        draws.append(args[3])  # the length
        return task.draw(*args)

    counting = dataclasses.replace(task, draw=counted)
    first = counting.test_batches(seed=7, split=split)
    assert (
        draws
        and counting.test_batches(seed=7, split=split)
        and len(draws) == len(first)
    )
    generator = torch.Generator().manual_seed(7)
    held_out = True if split is None else split
    for batch in first:
        fresh = task.batch(generator, task.test_sentences, batch.ids.size(1), held_out)
        assert all(
            torch.equal(a, b)
            for a, b in zip(
                dataclasses.astuple(batch), dataclasses.astuple(fresh), strict=True
            )
        )
    first[0].ids.zero_()
    first[0].keys.fill_(3)
    again = counting.test_batches(seed=7, split=split)[0]
    assert again.ids.min() >= 2 and (again.keys != 3).any()  # no <pad>: untouched


@pytest.mark.parametrize(
    ("before", "after", "adjectives", "phrase_adjectives"),
    [(3, 0, 0, 0), (4, 1, 0, 0), (2, 1, 0, (2, 0, 1)), (0, 4, 5, 0), (0, 0, 2, 0)],
)
def test_a_probe_has_its_shape_and_fools_the_first_and_the_nearest_noun(
    before, after, adjectives, phrase_adjectives
):
    batch = agreement.probe(before, after, adjectives, phrase_adjectives, 60, seed=3)
    counts = phrase_adjectives
    if isinstance(counts, int):
        counts = (counts,) * (before + after)
    shape = "".join(f"PDA{{{n}}}[NM]" for n in counts[:before])
    shape += f"DA{{{adjectives}}}[NM]" + "".join(
        f"PDA{{{n}}}[NM]" for n in counts[before:]
    )
    vocab = training.FRONTED.vocab
    for ids, targets, keys, decoys in zip(*dataclasses.astuple(batch), strict=True):
        words = vocab.decode(ids)
        classes = "".join(CLASS[w] for w in words)
        assert re.fullmatch(shape + "V", classes), words
        verb = len(words) - 1
        nouns = [i for i, c in enumerate(classes) if c in "NM"]
        subject = nouns[before]
        assert keys[verb, 0] == subject and (keys[:verb] == -1).all()
        plural = classes[subject] == "M"
        assert vocab.itos[targets[verb, 0]] == ("are" if plural else "is")
        others = [i for i in nouns if i != subject]
        assert all(
            (classes[i] == "M") != plural for i in others
        )  # all the other number
        assert decoys[verb, 0] == (nouns[0] if before else -1)
    assert 0.3 < (batch.targets[:, -1, 0] == vocab.stoi["are"]).double().mean() < 0.7


# --- Bad input -------------------------------------------------------------------------------

A, G = training.AGREEMENT, torch.Generator().manual_seed(0)

BAD_INPUT = [
    (lambda: A.batch(G, 0, 6), ValueError, "n_sentences", "int >= 1", "got 0"),
    (lambda: A.batch(G, 2.0, 6), TypeError, "n_sentences", "an int", "got float 2.0"),
    (lambda: A.batch(G, 2, 16), ValueError, "length", "int in [3, 15]", "got 16"),
    (lambda: training.PREVIOUS_WORD.batch(G, 2, 1), ValueError, "length", "int in [2, 8]",
     "got 1"),
    (lambda: A.batch(0, 2, 6), TypeError, "generator", "a torch.Generator", "got int"),
    (lambda: A.test_batches(seed=-1), ValueError, "seed", "int >= 0", "got -1"),
    (lambda: A.encode("the keys to the fridge be"), ValueError, "sentence",
     "the agreement task's words", "got 'fridge'"),
    (lambda: training.PREVIOUS_WORD.encode("i wonder " * 6), ValueError, "sentence",
     "at most 10 words", "got 12"),
    (lambda: A.encode(3), TypeError, "text", "a str", "got int"),
    (lambda: A.read("model", "the keys be"), TypeError, "model", "torch.nn.Module",
     "got str"),
    (lambda: training.Task("t", "x", ("a",), ("w",), (2, 12), (6,), None), ValueError,
     "lengths[1]", "int in [2, 10]", "got 12"),
    (lambda: training.Task("t", "x", (), ("w",), (2, 4), (4,), None), ValueError,
     "answers and seeds", "not be empty", "got ()"),
    (lambda: training.Task("t", "x", ("a",), ("w",), (2, 4), (4,), None, depths=(3,)),
     ValueError, "depths[i]", "one of (1, 2)", "got 3"),
    (lambda: training.Task("t", "x", ("a",), ("w",), (2, 4), (4,), None,
                           head_counts=(3,)), ValueError, "head_counts[i]",
     "one of (1, 2, 4, 8)", "got 3"),
    (lambda: training.Task("t", "x", ("a",), ("w",), (2, 4), (4,), None,
                           train_batches=0), ValueError, "train_batches", "int >= 1",
     "got 0"),
    (lambda: training.Task("t", "x", ("a",), ("w",), (2, 4), (4,), None,
                           splits=(("s", (11,)),)), ValueError, "splits['s'] lengths",
     "int in [1, 10]", "got 11"),
    (lambda: A.batch(G, 2, 8, held_out="fronted"), ValueError, "held_out",
     "one of True, False", "got 'fronted'"),
    (lambda: training.FRONTED.batch(G, 2, 5, held_out="plain"), ValueError, "length",
     "one of [6, 7", "got 5"),
    (lambda: training.FRONTED.test_batches(split="front"), ValueError, "split",
     "one of ('fronted', 'plain')", "got 'front'"),
    (lambda: A.test_batches(split="fronted"), ValueError, "split", "one of ()",
     "got 'fronted'"),
    (lambda: agreement.probe(before=-1), ValueError, "before", "int >= 0", "got -1"),
    (lambda: agreement.probe(after=1.5), TypeError, "after", "an int", "got float 1.5"),
    (lambda: agreement.probe(adjectives=9), ValueError, "adjectives", "int in [0, 8]",
     "got 9"),
    (lambda: agreement.probe(2, phrase_adjectives=(1,)), ValueError,
     "phrase_adjectives", "tuple of before + after = 2 ints", "got (1,)"),
    (lambda: agreement.probe(1, phrase_adjectives=(9,)), ValueError,
     "phrase_adjectives[i]", "int in [0, 8]", "got 9"),
    (lambda: agreement.probe(7), ValueError, "before, after, adjectives",
     "at most 23 words", "got 24"),
    (lambda: agreement.probe(n_sentences=0), ValueError, "n_sentences", "int >= 1",
     "got 0"),
    (lambda: agreement.right("model", agreement.probe(1)), TypeError, "model",
     "torch.nn.Module", "got str"),
    (lambda: variants.load_variant("two layers"), ValueError, "variant",
     "one of ('one layer, residual', 'longer', 'shifted')", "got 'two layers'"),
    (lambda: variants.load_variant("shifted", seed=7), ValueError, "seed",
     "one of (0, 1, 2, 3, 4)", "got 7"),
    (lambda: variants.ShiftedPositions(8, 23, shift=-1), ValueError, "shift",
     "int >= 0", "got -1"),
    (lambda: variants.train_variant("deeper", 0), ValueError, "variant",
     "one of ('one layer, residual', 'longer', 'shifted')", "got 'deeper'"),
    (lambda: composition.key_split(_shipped(A, 4), []), TypeError, "model",
     "two-layer model on a residual stream", "got a ToyModel of 1 layer(s), residual=False"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
