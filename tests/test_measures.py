"""mha.training.measures: behaviour, share_at_offset and without_head, on
models whose answers and maps are known by construction."""

from __future__ import annotations

import pytest
import torch
from refusal import refuses, row_ids
from torch import nn

import mha
from mha import training
from mha.training.agreement import NOUNS


class Stub(nn.Module):
    """A model that answers and looks as told: ``answer(ids)`` gives the
    predicted ids ``(n, L, n_answers)``, ``look(ids)`` the maps
    ``(n, n_heads, L, L)``. It has an ``attention`` layer only to be
    recognised as a model with heads."""

    def __init__(self, vocab_size, n_heads, answer, look):
        super().__init__()
        self.attention = mha.MultiHeadAttention(8, n_heads, dropout=0.0)
        self.vocab_size, self.answer, self.look = vocab_size, answer, look

    def forward(self, ids, mask=None):
        logits = nn.functional.one_hot(self.answer(ids), self.vocab_size).double()
        return logits, self.look(ids)


def neighbours_stub():
    """Always right about the previous word; right about the next word only at
    even positions. Head 0 looks one back, head 1 evenly at every key."""

    def answer(ids):
        n, length = ids.shape
        previous = torch.cat([ids[:, :1], ids[:, :-1]], dim=1)
        following = torch.cat([ids[:, 1:], ids[:, :1]], dim=1)
        wrong = (following + 1 - 2) % (len(training.NEIGHBOURS.vocab) - 2) + 2
        odd = torch.arange(length) % 2 == 1
        return torch.stack([previous, following.where(~odd, wrong)], dim=-1)

    def look(ids):
        n, length = ids.shape
        back = torch.diag(torch.ones(length - 1), -1)
        back[0, 0] = 1.0
        even = torch.full((length, length), 1 / length)
        return torch.stack([back, even]).expand(n, -1, -1, -1).double()

    return Stub(len(training.NEIGHBOURS.vocab), 2, answer, look)


def test_behaviour_counts_each_answer_and_their_joint_accuracy():
    learned = training.behaviour(training.NEIGHBOURS, neighbours_stub())
    # Six-word sentences: "previous" asked at positions 1-5, "next" at 0-4 (right
    # at 0, 2, 4), both at 1-4 (right at 2 and 4 only).
    assert learned["accuracy"] == {"previous": 1.0, "next": pytest.approx(3 / 5)}
    assert learned["joint"] == pytest.approx(2 / 4)
    assert learned["share"]["previous"] == pytest.approx([1.0, 1 / 6])
    assert learned["share"]["next"] == pytest.approx([0.0, 1 / 6])
    assert learned["head"] == {"previous": 0, "next": 1}
    assert "hard" not in learned and "decoy_share" not in learned  # no decoys


def test_behaviour_of_a_model_that_follows_the_nearest_noun():
    """Reading the verb's form off the nearest noun is right wherever it agrees
    with the subject, and wrong wherever it is a decoy, by construction."""
    task = training.AGREEMENT
    vocab = task.vocab
    plural_ids = torch.tensor([vocab.stoi[w] for w in training.agreement.PLURALS])
    noun_ids = torch.tensor(
        [vocab.stoi[w] for w in (*NOUNS, *training.agreement.PLURALS)]
    )

    def nearest_noun(ids):  # (n, L): for each position, the last noun before it
        is_noun = torch.isin(ids, noun_ids)
        position = torch.arange(ids.size(1)).expand_as(ids)
        marked = torch.where(is_noun, position, -1)
        return marked.cummax(dim=1).values.roll(1, dims=1).clamp(min=0)

    def answer(ids):
        noun = ids.gather(1, nearest_noun(ids))  # (n, L)
        form = torch.where(
            torch.isin(noun, plural_ids), vocab.stoi["are"], vocab.stoi["is"]
        )
        return form[..., None]  # (n, L, 1)

    def look(ids):
        maps = nn.functional.one_hot(
            nearest_noun(ids), ids.size(1)
        ).double()  # (n, L, L)
        return maps[:, None]  # (n, 1, L, L)

    learned = training.behaviour(task, Stub(len(vocab), 1, answer, look))
    assert learned["hard"] == {"verb": 0.0}
    assert learned["decoy_share"] == {"verb": [1.0]}
    hard_share = 1 - learned["accuracy"]["verb"]  # the share of decoyed sentences
    assert 0.35 < hard_share < 0.55  # the nearest noun's number is a coin toss
    # Every held-out sentence has a phrase: the nearest noun is never the subject.
    assert learned["share"]["verb"] == [0.0]


def test_share_at_offset_of_known_maps():
    length = 5
    back = torch.diag(torch.ones(length - 1), -1)  # every query on the key before it
    ahead = torch.diag(torch.ones(length - 1), 1)  # every query on the key after it
    uniform = torch.full((length, length), 1.0 / length)
    maps = torch.stack([back, ahead, uniform])
    torch.testing.assert_close(
        training.share_at_offset(maps, -1), torch.tensor([1.0, 0.0, 1.0 / length])
    )
    torch.testing.assert_close(
        training.share_at_offset(maps, 1), torch.tensor([0.0, 1.0, 1.0 / length])
    )


def test_without_head_zeroes_that_heads_features_before_wo():
    torch.manual_seed(0)
    layer = mha.MultiHeadAttention(8, 4, dropout=0.0, dtype=torch.float64).eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    with training.without_head(layer, 2):
        out, probs = layer(x, x, x)
    Q, K, V = (mha.split_heads(w(x), 4) for w in (layer.Wq, layer.Wk, layer.Wv))
    A = mha.attention_probs(mha.scaled_dot_product(Q, K)) @ V  # (2, 4, 5, 2)
    A[:, 2] = 0.0
    torch.testing.assert_close(out, layer.Wo(mha.merge_heads(A)))
    torch.testing.assert_close(probs, layer(x, x, x)[1])  # the maps are still computed
    assert not layer.Wo._forward_pre_hooks  # the hook is gone after the block


def _heads_by_hand():
    """An untrained four-head toy model on the previous-word task's held-out
    batch, and its heads' outputs before ``Wo`` computed by hand, ``A (n,
    n_heads, seq_len, d_key)``: ``(task, model, layer, batch, A)``."""
    task = training.PREVIOUS_WORD
    torch.manual_seed(0)
    model = training.ToyModel(len(task.vocab), n_heads=4, dtype=torch.float64).eval()
    layer = model.attention
    (batch,) = task.test_batches()
    x = model.position(model.embed(batch.ids))  # (n, 6, 8)
    Q, K, V = (mha.split_heads(w(x), 4) for w in (layer.Wq, layer.Wk, layer.Wv))
    A = mha.attention_probs(mha.scaled_dot_product(Q, K)) @ V  # (n, 4, 6, 2)
    return task, model, layer, batch, A


def test_mean_ablation_writes_the_heads_average_output_at_every_position():
    """The head's features before Wo become their mean over every position of
    the task's held-out sentences; zeroing differs from it by exactly that
    mean through Wo; the other heads and the maps are untouched."""
    task, model, layer, batch, A = _heads_by_hand()
    mean = A[:, 1].mean(dim=(0, 1))  # (d_key,): head 1, every position
    torch.testing.assert_close(training.head_mean(model, task, 1), mean)
    with training.mean_ablated(model, task, 1) as ablated:
        assert ablated is model
        logits, probs = model(batch.ids)
    expected = A.clone()
    expected[:, 1] = mean
    out = layer.Wo(mha.merge_heads(expected))  # (n, 6, 8)
    torch.testing.assert_close(logits[:, :, 0], model.readouts[0](out))
    torch.testing.assert_close(probs, model(batch.ids)[1])
    with training.without_head(model, 1):
        zeroed, _ = model(batch.ids)
    w_o = layer.Wo.weight[:, 2:4]  # (d_model, d_key): head 1's columns of Wo
    shift = model.readouts[0].weight @ (w_o @ mean)  # (vocab,)
    torch.testing.assert_close(
        logits[:, :, 0] - zeroed[:, :, 0], shift.expand_as(zeroed[:, :, 0])
    )
    assert not layer.Wo._forward_pre_hooks  # the hooks are gone after the blocks


def test_mean_ablation_per_word_writes_each_words_own_average():
    task, model, layer, batch, A = _heads_by_hand()
    means = training.head_mean(model, task, 2, per_word=True)  # (vocab, d_key)
    assert means.shape == (len(task.vocab), 2)
    for word in (2, 9):  # two words, averaged by hand
        here = batch.ids == word  # (n, 6)
        torch.testing.assert_close(means[word], A[:, 2][here].mean(dim=0))
    torch.testing.assert_close(means[0], torch.zeros(2, dtype=torch.float64))  # <pad>
    with training.mean_ablated(model, task, 2, per_word=True):
        logits, _ = model(batch.ids)
    expected = A.clone()
    expected[:, 2] = means[batch.ids]  # (n, 6, d_key): each position its word's mean
    out = layer.Wo(mha.merge_heads(expected))
    torch.testing.assert_close(logits[:, :, 0], model.readouts[0](out))
    assert not model._forward_pre_hooks and not layer.Wo._forward_pre_hooks


def test_ablations_reach_the_layer_asked_for_in_a_two_layer_model():
    task = training.PREVIOUS_WORD
    torch.manual_seed(0)
    model = training.ToyModel(
        len(task.vocab), dtype=torch.float64, n_layers=2, residual=True, causal=True
    ).eval()
    (batch,) = task.test_batches()
    logits, attn = model(batch.ids)
    with training.without_head(model, 0, layer=1):
        second, attn_second = model(batch.ids)
        assert model.layers[1].Wo._forward_pre_hooks
        assert not model.layers[0].Wo._forward_pre_hooks
    torch.testing.assert_close(
        attn_second[1], attn[1]
    )  # layer 1 unchanged: its inputs too
    assert not torch.allclose(second, logits)
    with training.mean_ablated(model, task, 3, layer=0):
        first, attn_first = model(batch.ids)
    torch.testing.assert_close(attn_first[0], attn[0])
    assert not torch.allclose(
        attn_first[1], attn[1]
    )  # layer 2 reads what layer 1 wrote
    # The last layer's attention is what behaviour measures by default.
    learned = training.behaviour(task, model)
    assert learned == training.behaviour(task, model, layer=1)
    assert learned != training.behaviour(task, model, layer=0)


LAYER = mha.MultiHeadAttention(8, 4, dropout=0.0)


def _enter(model, head, layer=0):
    with training.without_head(model, head, layer):
        pass


def _mean(model, head, layer=0, task=training.PREVIOUS_WORD):
    with training.mean_ablated(model, task, head, layer):
        pass


BAD_INPUT = [
    (lambda: training.share_at_offset(torch.rand(4, 4), -1), ValueError, "attention",
     "(n_heads, L, L)", "got (4, 4)"),
    (lambda: training.share_at_offset(torch.rand(2, 3, 4), -1), ValueError, "attention",
     "square with L >= 2", "got (2, 3, 4)"),
    (lambda: training.share_at_offset(torch.rand(2, 3, 3), 3), ValueError, "attention",
     "L >= 4 for offset 3", "got (2, 3, 3)"),
    (lambda: training.share_at_offset(torch.rand(2, 3, 3), 1.0), TypeError, "offset",
     "an int", "got float 1.0"),
    (lambda: training.share_at_offset([[0.5]], -1), ValueError, "attention",
     "(n_heads, L, L)", "got <class 'list'>"),
    (lambda: _enter(LAYER, 4), ValueError, "head", "int in [0, 3]", "got 4"),
    (lambda: _enter(LAYER, -1), ValueError, "head", "int in [0, 3]", "got -1"),
    (lambda: _enter(LAYER, "0"), TypeError, "head", "an int", "got str '0'"),
    (lambda: _enter(nn.Linear(2, 2), 0), TypeError, "model", "mha.MultiHeadAttention",
     "got Linear"),
    (lambda: training.behaviour(training.NEIGHBOURS, nn.Linear(2, 2)), TypeError, "model",
     "whose `layers` are", "got Linear"),
    (lambda: _enter(training.ToyModel(16), 0, layer=1), ValueError, "layer",
     "int in [-1, 0]", "got 1"),
    (lambda: _mean(training.ToyModel(16, n_layers=2), 4), ValueError, "head", "int in [0, 3]",
     "got 4"),
    (lambda: _mean(training.ToyModel(16, n_layers=2), 0, layer=2), ValueError, "layer",
     "int in [-2, 1]", "got 2"),
    (lambda: _mean(training.ToyModel(16, n_layers=2), 0, task="previous_word"), TypeError,
     "task", "mha.training.Task", "got str"),
    (lambda: training.head_mean(training.ToyModel(16), training.PREVIOUS_WORD, 0,
                                per_word=1), TypeError, "per_word", "a bool", "got int"),
    (lambda: training.behaviour(training.FRONTED, training.ToyModel(40), split="x"),
     ValueError, "split", "one of ('fronted', 'plain')", "got 'x'"),
    (lambda: training.behaviour("neighbours", LAYER), TypeError, "task", "mha.training.Task",
     "got str 'neighbours'"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
