"""mha.training.induction: what the repeat task asks, the sentences that test
a model outside it, corrupting and patching a run; and what the shipped
models do (by behaviour, never by their digits)."""

from __future__ import annotations

import pytest
import torch
from refusal import refuses, row_ids

from mha import training
from mha.training import induction
from mha.training.loop import new_model
from mha.training.task import IGNORE

TASK = training.INDUCTION


def _shipped(seed=0):
    return training.load(TASK, 2, seed, torch.float64, n_layers=2)


def _check_repeats(batch, start=0):
    """Every answer is the letter after the earlier occurrence, at its key,
    one key per position of the second copy but its last."""
    rows = zip(batch.ids, batch.targets[..., 0], batch.keys[..., 0], strict=True)
    for ids, targets, keys in rows:
        asked = (targets != IGNORE).nonzero().flatten()
        n = len(asked) + 1  # the segment's length
        assert torch.equal(asked, torch.arange(start + n, start + 2 * n - 1))
        assert torch.equal(ids[start + n : start + 2 * n], ids[start : start + n])
        assert torch.equal(keys[asked], asked - n + 1)
        assert torch.equal(targets[asked], ids[asked + 1])
        assert torch.equal(ids[keys[asked] - 1], ids[asked])  # the earlier occurrence


def test_the_task_repeats_a_segment_of_varying_length(gen):
    batch = TASK.batch(gen, 300, 16)
    assert batch.ids.min() >= 2 and batch.ids.max() < len(TASK.vocab)  # letters only
    _check_repeats(batch)
    lengths = (batch.targets[..., 0] != IGNORE).sum(dim=1) + 1
    assert set(lengths.tolist()) == set(range(3, 9))  # 3 to 8 letters, all drawn


@pytest.mark.parametrize(
    ("length", "shortest", "longest", "start"),
    [(24, 9, 12, 0), (24, 3, 8, 8), (16, 3, 6, 4)],
)
def test_probes_repeat_where_asked(length, shortest, longest, start):
    batch = induction.probe(length, shortest, longest, start, n_sentences=100)
    assert batch.ids.shape == (100, length)
    _check_repeats(batch, start)
    sizes = (batch.targets[..., 0] != IGNORE).sum(dim=1) + 1
    assert sizes.min() >= shortest and sizes.max() <= longest


def test_a_probe_without_repeat_asks_where_a_letter_occurred_once_before():
    batch = induction.probe(16, 0, 0, n_sentences=200)
    ids, targets, keys = batch.ids, batch.targets[..., 0], batch.keys[..., 0]
    for s in range(200):
        for i in range(16):
            earlier = (ids[s, :i] == ids[s, i]).nonzero().flatten()
            if len(earlier) == 1 and i < 15:
                assert (
                    keys[s, i] == earlier[0] + 1
                    and targets[s, i] == ids[s, earlier[0] + 1]
                )
            else:
                assert targets[s, i] == IGNORE and keys[s, i] == -1


def test_ambiguous_marks_a_letter_seen_twice_before():
    ids = torch.tensor([[2, 3, 2, 4, 2, 3, 5]])
    assert induction.ambiguous(ids).tolist() == [[False] * 4 + [True, False, False]]


def test_a_corrupted_sentence_loses_the_earlier_occurrence_only(gen):
    batch = TASK.batch(gen, 200, 16)
    ids, query, answer = induction.corrupted(batch, gen)
    rows = torch.arange(200)
    changed = ids != batch.ids
    assert (changed.sum(dim=1) == 1).all()  # one letter each
    key = batch.keys[rows, query, 0]
    assert changed[rows, key - 1].all()  # the earlier occurrence of the query's letter
    assert (batch.targets[rows, query, 0] == answer).all() and (answer != IGNORE).all()
    assert ids.min() >= 2 and ids.max() < len(TASK.vocab)


def test_patching_with_the_run_itself_changes_nothing_and_leaves_the_model_as_it_was(
    gen,
):
    model = _shipped()
    batch = TASK.batch(gen, 50, 16)
    corrupt, _, _ = induction.corrupted(batch, gen)
    before, _ = model(corrupt)
    with induction.patched(model, corrupt, head=1):
        same, _ = model(corrupt)
    with induction.patched(model, batch.ids, head=1):
        other, _ = model(corrupt)
    after, _ = model(corrupt)
    assert torch.allclose(same, before) and torch.equal(after, before)
    assert not torch.allclose(other, before)


def test_patching_a_head_makes_it_write_the_clean_runs_output(gen):
    model = _shipped()
    clean = TASK.batch(gen, 20, 16).ids
    corrupt = TASK.batch(gen, 20, 16).ids
    seen = []

    def record(module, inputs):
        seen.append(inputs[0])  # (n, L, d_model): the heads' outputs side by side

    hook = model.layers[0].Wo.register_forward_pre_hook(record)
    model(clean)
    hook.remove()
    with induction.patched(model, clean, head=0):
        hook = model.layers[0].Wo.register_forward_pre_hook(record)  # after the patch's
        try:
            model(corrupt)
        finally:
            hook.remove()
    clean_in, patched_in = seen
    assert torch.equal(patched_in[..., :4], clean_in[..., :4])  # head 0's features
    assert not torch.allclose(
        patched_in[..., 4:], clean_in[..., 4:]
    )  # head 1's: its own


# --- The shipped models ---------------------------------------------------------------


@pytest.mark.parametrize("seed", TASK.seeds)
def test_every_shipped_seed_has_a_previous_letter_head_and_induction_heads(seed):
    model = _shipped(seed)
    held_out = TASK.test_batches()[0]
    found = induction.measure(model, held_out)
    assert found["right"] > 0.99 and 0.6 < found["right_ambiguous"] < 0.9
    assert min(found["share"]) > 0.7  # both layer-2 heads on the answer
    _, maps = model(held_out.ids)
    back = training.share_at_offset(maps[0].mean(dim=0), -1)
    assert back.max() > 0.8  # one layer-1 head one letter back
    head = int(back.argmax())
    with training.mean_ablated(model, TASK, head, layer=0):
        assert training.behaviour(TASK, model)["joint"] < 0.4
    corrupt, query, answer = induction.corrupted(
        held_out, torch.Generator().manual_seed(0)
    )
    assert induction.right_at(model, corrupt, query, answer) < 0.3
    with induction.patched(model, held_out.ids, head):
        assert induction.right_at(model, corrupt, query, answer) > 0.9
    with induction.patched(model, held_out.ids, 1 - head):
        assert induction.right_at(model, corrupt, query, answer) < 0.3


def test_the_shipped_models_fail_on_a_repeat_that_starts_late():
    late = induction.probe(24, 3, 8, start=8)
    right = [induction.measure(_shipped(seed), late)["right"] for seed in TASK.seeds]
    assert max(right) < 0.75 and min(right) < 0.2


BAD_INPUT = [
    (lambda: induction.probe(16, 3, 9), ValueError, "length", "start + 2 * longest = 18",
     "got 16"),
    (lambda: induction.probe(16, 5, 4), ValueError, "shortest", "int in [1, 4]", "got 5"),
    (lambda: induction.corrupted("abc", torch.Generator()), TypeError, "batch", "Batch",
     "got str"),
    (lambda: induction.patched(_shipped(), torch.zeros(3), 0).__enter__(), ValueError,
     "clean", "(n, L)", "got (3,)"),
    (lambda: induction.patched(_shipped(), torch.zeros(1, 3).long(), 2).__enter__(),
     ValueError, "head", "int in [0, 1]", "got 2"),
    (lambda: induction.repeated(5), TypeError, "segment", "str of letters", "got int"),
    (lambda: TASK.batch(torch.Generator(), 2, 16, held_out="long"), ValueError,
     "held_out", "True, False", "got 'long'"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


def test_patching_into_one_path_of_layer_2():
    """Nothing patched through a path that reads nothing new; on the shipped
    seed 0 the answer returns through the keys only."""
    model, held_out = _shipped(), TASK.test_batches()[0]
    corrupt, query, answer = induction.corrupted(
        held_out, torch.Generator().manual_seed(0)
    )
    bad = induction.right_at(model, corrupt, query, answer)
    same = [
        induction.right_patched_into(model, corrupt, corrupt, query, answer, 1, path)
        for path in "QKV"
    ]
    assert same == [bad] * 3
    through = {
        path: induction.right_patched_into(
            model, held_out.ids, corrupt, query, answer, 1, path
        )
        for path in "QKV"
    }
    assert through["K"] > 0.85 and max(through["Q"], through["V"]) < 0.3
    with pytest.raises(ValueError, match="path must be one of 'Q', 'K', 'V', got 'X'"):
        induction.right_patched_into(model, corrupt, corrupt, query, answer, 1, "X")


def test_measure_reads_a_one_layer_model_s_maps_too():
    """A one-layer model returns its maps as one tensor, not a tuple of layers:
    the share on the answer's key is read from it (chapter 13's control)."""
    torch.manual_seed(0)
    one = training.ToyModel(
        len(training.INDUCTION.vocab), n_heads=2, max_length=32, causal=True
    ).eval()
    batch = induction.probe(16, 3, 8, n_sentences=20)
    found = induction.measure(one, batch)
    assert len(found["share"]) == 2 and 0 <= found["right"] <= 1
    with torch.no_grad():
        _, maps = one(batch.ids)  # (20, 2, 16, 16)
    at = (batch.keys[..., 0] >= 0).nonzero()[0].tolist()  # one asked position
    on_key = maps[at[0], :, at[1], batch.keys[at[0], at[1], 0]]
    assert on_key.shape == (2,)


def test_a_one_layer_model_of_the_next_letter_cannot_see_it():
    """The answer at a position is the letter after it: a model without the
    causal mask would read it there. Every new model of the task is causal."""
    for n_layers in (1, 2):
        model = new_model(TASK, n_heads=2, n_layers=n_layers)
        assert model.causal
    assert not new_model(training.PREVIOUS_WORD).causal  # one layer: the book's
