"""What the shipped models learned, judged by behaviour (accuracies, where
heads look), never by their digits: on held-out sentences of their tasks,
outside the training grammar, and in the two-layer models' controls
(mha.training.variants, mha.training.composition); nothing here retrains them."""

from __future__ import annotations

import pytest
import torch

import mha
from mha import training
from mha.training import agreement, composition, variants
from mha.training.task import IGNORE


def _shipped(task, n_heads, seed=0):
    return training.load(task, n_heads, seed, torch.float64)


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


def _two_layers(seed):
    return training.load(training.FRONTED, 4, seed, torch.float64, n_layers=2)


@pytest.mark.parametrize("seed", training.FRONTED.seeds)
def test_the_two_layer_models_find_the_subject_before_and_after_phrases(seed):
    """Held out, fronted and plain: at least 98 % right, also where the first
    (or nearest) noun misleads; a second-layer head looks at the subject."""
    model = _two_layers(seed)
    for split in ("fronted", "plain"):
        learned = training.behaviour(training.FRONTED, model, split=split)
        assert learned["accuracy"]["verb"] > 0.98 and learned["hard"]["verb"] > 0.98
        assert max(learned["share"]["verb"]) > 0.5
        assert max(learned["decoy_share"]["verb"]) < 0.4


@pytest.mark.parametrize("seed", training.FRONTED.seeds)
def test_one_layer_cannot_find_the_subject_after_a_fronted_phrase(seed):
    """Trained on the new grammar, one layer gets 64-81 % of either kind;
    chapter 7's models (the subject always first) follow the first noun."""
    one = training.load(training.FRONTED, 4, seed, torch.float64)
    for split in ("fronted", "plain"):
        learned = training.behaviour(training.FRONTED, one, split=split)
        assert 0.55 < learned["accuracy"]["verb"] < 0.85
    for n_heads in (4, 8):
        first = training.load(training.AGREEMENT, n_heads, seed, torch.float64)
        fronted = training.behaviour(training.FRONTED, first, split="fronted")
        plain = training.behaviour(training.FRONTED, first, split="plain")
        assert fronted["accuracy"]["verb"] < 0.6 and fronted["hard"]["verb"] < 0.15
        assert max(fronted["decoy_share"]["verb"]) > 0.45  # a head on the first noun
        assert plain["accuracy"]["verb"] > 0.95


def test_chapter_7s_heads_follow_the_first_noun_in_fronted_sentences():
    model = _shipped(training.AGREEMENT, 4, seed=2)
    learned = training.behaviour(training.FRONTED, model, split="fronted")
    assert min(learned["decoy_share"]["verb"][:2]) > 0.85  # heads 0 and 1


def _without_layer_one_in(model, reads, ids):
    """The model's logits when layer 2 reads, for ``reads`` ("q", "k", "v"),
    the stream without layer 1's writes (x0)."""
    causal = mha.causal_mask(ids.size(1))
    x0 = model.position(model.embed(ids))
    x1 = x0 + model.layers[0](x0, x0, x0, causal)[0]
    q, k, v = (x0 if name in reads else x1 for name in "qkv")
    out2, _ = model.layers[1](q, k, v, causal)
    return model.readouts[0](x1 + out2)  # (n, L, vocab)


@pytest.mark.parametrize("seed", training.FRONTED.seeds)
def test_layer_two_reads_layer_one_through_its_keys(seed):
    """K-composition: without layer 1 in layer 2's keys the subject is lost on
    fronted sentences; without it in the queries, nothing changes."""
    model = _two_layers(seed)
    for reads, low, high in (("k", 0.0, 0.85), ("q", 0.97, 1.0), ("qkv", 0.0, 0.85)):
        right = total = 0
        for batch in training.FRONTED.test_batches(split="fronted"):
            said = _without_layer_one_in(model, reads, batch.ids).argmax(dim=-1)
            asked = batch.targets[..., 0] != IGNORE
            right += (said == batch.targets[..., 0])[asked].sum().item()
            total += asked.sum().item()
        assert low <= right / total <= high, (reads, right / total)


# --- Outside the training grammar ----------------------------------------------------------


def test_a_probe_is_seeded_and_right_counts_the_verbs():
    first, again = agreement.probe(3, seed=5), agreement.probe(3, seed=5)
    assert torch.equal(first.ids, again.ids)
    assert not torch.equal(first.ids, agreement.probe(3, seed=6).ids)

    class Says(torch.nn.Module):  # answers "are" everywhere
        def forward(self, ids):
            logits = torch.zeros(*ids.shape, 1, len(training.FRONTED.vocab))
            logits[..., training.FRONTED.vocab.stoi["are"]] = 1.0
            return logits, None

    plural = (first.targets[:, -1, 0] == training.FRONTED.vocab.stoi["are"]).double()
    assert agreement.right(Says(), first) == pytest.approx(plural.mean().item())


def test_the_shipped_two_layer_models_generalise_after_the_subject_not_before_it():
    """Three phrases after the subject, or five adjectives: every seed right;
    four phrases before it: every seed below 60 %."""
    after = agreement.probe(after=3, n_sentences=200)
    adjectives = agreement.probe(adjectives=5, after=1, n_sentences=200)
    before = agreement.probe(before=4, n_sentences=200)
    for seed in training.FRONTED.seeds:
        model = _two_layers(seed)
        assert agreement.right(model, after) > 0.9
        assert agreement.right(model, adjectives) > 0.9
        assert agreement.right(model, before) < 0.6


@pytest.mark.parametrize("variant", variants.VARIANTS)
def test_the_shipped_controls_load_and_learned_what_the_chapter_says(variant):
    """The matched one layer is no better than one layer alone; trained twice as
    long, two layers still fail past two phrases before the subject on every
    seed; with shifted positions too, seeds 0, 1, 3 and 4 do not."""
    past_two = [
        agreement.probe(**shape, n_sentences=200)
        for shape in (
            {"before": 3},
            {"before": 3, "phrase_adjectives": 1},
            {"before": 4},
        )
    ]
    for seed in training.FRONTED.seeds:
        model = variants.load_variant(variant, seed)
        assert len(model.layers) == 2 and model.residual and model.causal
        assert not model.training
        fronted = training.behaviour(training.FRONTED, model, split="fronted")["joint"]
        worst = min(agreement.right(model, batch) for batch in past_two)
        if variant == "one layer, residual":
            assert 0.6 < fronted < 0.85
            assert not model.layers[1].Wo.weight.any()
            continue
        assert fronted > 0.97
        if variant == "longer":
            assert worst < 0.9
        elif seed != 2:
            assert worst > 0.95


def test_shifted_positions_shift_while_training_only():
    torch.manual_seed(0)
    codes = variants.ShiftedPositions(8, max_length=5, shift=3)
    x = torch.zeros(200, 5, 8)
    table = mha.embedding.sinusoids(8, 8)  # (positions, d_model)
    assert torch.equal(codes.eval()(x)[0], table[:5])
    shifted = codes.train()(x)  # (200, 5, 8)
    offsets = [
        next(k for k in range(4) if torch.allclose(row, table[k : k + 5]))
        for row in shifted
    ]
    assert sorted(set(offsets)) == [0, 1, 2, 3]


def test_the_key_split_adds_up_to_the_score_gap():
    model = _two_layers(0)
    batches = training.FRONTED.test_batches(split="fronted")[:2]
    parts = composition.key_split(model, batches)  # (n, n_heads, sources)
    assert parts.shape == (200, 4, 5)
    total = []
    for batch in batches:
        x0 = model.position(model.embed(batch.ids))
        attn1, attn2 = model.layers
        x1 = x0 + attn1(x0, x0, x0, mha.causal_mask(batch.ids.size(1)))[0]
        rows, verb = (batch.keys[..., 0] >= 0).nonzero(as_tuple=True)
        subject = batch.keys[rows, verb, 0]
        first = torch.tensor(
            [next(i for i, w in enumerate(training.FRONTED.vocab.decode(ids))
                  if w in agreement.NOUNS + agreement.PLURALS) for ids in batch.ids]
        )  # fmt: skip
        q = attn2.Wq(x1)[rows, verb].view(-1, 4, 2)
        k = attn2.Wk(x1)
        gap = (k[rows, subject] - k[rows, first]).view(-1, 4, 2)
        total.append((q * gap).sum(-1) / 2**0.5)
    torch.testing.assert_close(parts.sum(dim=-1), torch.cat(total))
