"""The tasks (mha.training.task, mha.training.agreement): what their batches
ask, and what the shipped models learned, judged by behaviour (accuracies,
where heads look), never by their digits; nothing here retrains them."""

from __future__ import annotations

import re
from collections import Counter

import pytest
import torch

import mha
from mha import training
from mha.training import agreement
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


@pytest.mark.parametrize("held_out", [False, True])
def test_agreement_sentences_follow_the_grammar_and_the_verb_agrees(held_out, gen):
    task = training.AGREEMENT
    for length in range(3 if not held_out else 6, 16):
        batch = task.batch(gen, 40, length, held_out)
        rows = (batch.ids, batch.targets, batch.keys, batch.decoys)
        for ids, targets, keys, decoys in zip(*rows, strict=True):
            words = task.vocab.decode(ids)
            classes = "".join(CLASS[w] for w in words)
            assert GRAMMAR.fullmatch(classes), words
            verb = words.index("be")
            nouns = [i for i, c in enumerate(classes) if c in "NM"]
            subject, nearest = nouns[0], nouns[-1]
            assert (targets[:, 0] != IGNORE).nonzero().flatten().tolist() == [verb]
            assert keys[verb, 0] == subject
            plural = classes[subject] == "M"
            assert task.vocab.itos[targets[verb, 0]] == ("are" if plural else "is")
            misleads = (classes[nearest] == "M") != plural
            assert decoys[verb, 0] == (nearest if misleads else -1)
            if held_out:
                assert len(nouns) > 1
            if len(nouns) > 1:  # held out: the pair of nouns training never sees
                first, last = LEMMA[words[subject]], LEMMA[words[nearest]]
                assert (last == (first + 1) % len(agreement.NOUNS)) == held_out, words


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


# --- The shipped weights: what they learned -------------------------------------------------


@pytest.mark.parametrize("n_heads", training.HEAD_COUNTS)
def test_the_previous_word_models_learned_what_their_width_allows(n_heads):
    """1, 2 and 4 heads copy the previous word, with a head that looks at it;
    8 heads of d_key = 1 cannot find the previous word."""
    learned = training.behaviour(
        training.PREVIOUS_WORD, _shipped(training.PREVIOUS_WORD, n_heads)
    )
    if n_heads == 8:
        assert learned["accuracy"]["previous"] < 0.7
    else:
        assert learned["accuracy"]["previous"] > 0.99
        assert max(learned["share"]["previous"]) > 0.8


@pytest.mark.parametrize("n_heads", training.HEAD_COUNTS)
def test_only_several_heads_of_several_features_name_both_neighbours(n_heads):
    """The joint accuracy (both neighbours right at one position): about 7 %
    with one head, 100 % with two, 92-100 % with four, 7-18 % with eight."""
    for seed in training.NEIGHBOURS.seeds:
        learned = training.behaviour(
            training.NEIGHBOURS, _shipped(training.NEIGHBOURS, n_heads, seed)
        )
        shares = learned["share"]
        if n_heads in (2, 4):
            assert learned["joint"] > 0.9
            assert learned["head"]["previous"] != learned["head"]["next"]
            assert min(max(shares["previous"]), max(shares["next"])) > 0.8
        else:
            assert learned["joint"] < 0.25
            assert max(max(shares["previous"]), max(shares["next"])) < 0.6


def test_one_head_names_one_neighbour_or_the_other_rarely_both():
    for seed in training.NEIGHBOURS.seeds:
        learned = training.behaviour(
            training.NEIGHBOURS, _shipped(training.NEIGHBOURS, 1, seed)
        )
        previous, next_ = learned["accuracy"].values()
        assert learned["joint"] < 0.1 < 0.25 < min(previous, next_)
        assert previous + next_ < 1.2  # where one is right, the other mostly is not


def test_the_chapters_neighbours_model_heads_and_ablation():
    task, model = training.NEIGHBOURS, _shipped(training.NEIGHBOURS, 4)
    learned = training.behaviour(task, model)
    assert learned["head"] == {"previous": 3, "next": 1}
    with training.without_head(model, 3):
        without_previous = training.behaviour(task, model)["accuracy"]
    with training.without_head(model, 1):
        without_next = training.behaviour(task, model)["accuracy"]
    assert without_previous["previous"] < 0.3 < 0.9 < without_previous["next"]
    assert without_next["next"] < 0.3 < 0.9 < without_next["previous"]
    # The model is unchanged afterwards.
    assert training.behaviour(task, model) == learned


def test_the_causal_mask_hides_the_next_word():
    task = training.NEIGHBOURS
    masked = training.behaviour(task, _shipped(task, 4), mask=mha.causal_mask(6))
    assert masked["accuracy"]["next"] < 0.15 and masked["accuracy"]["previous"] > 0.9


@pytest.mark.parametrize("seed", training.AGREEMENT.seeds)
@pytest.mark.parametrize("n_heads", [2, 4, 8])
def test_the_agreement_models_find_the_verbs_form_in_held_out_sentences(n_heads, seed):
    learned = training.behaviour(
        training.AGREEMENT, _shipped(training.AGREEMENT, n_heads, seed)
    )
    assert learned["accuracy"]["verb"] > 0.93
    assert learned["hard"]["verb"] > 0.9  # also where the nearest noun misleads


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_agreement_verb_looks_at_its_subject_not_the_nearest_noun(seed):
    learned = training.behaviour(
        training.AGREEMENT, _shipped(training.AGREEMENT, 4, seed)
    )
    head = learned["head"]["verb"]
    assert learned["share"]["verb"][head] > 0.75
    assert learned["decoy_share"]["verb"][head] < 0.15


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
]  # fmt: skip
