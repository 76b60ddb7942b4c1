"""mha.training.loop and mha.training.model: the toy model, the loop, seeded
training and the shipped weights' loading. Trained weights are judged by what
they do (tests/test_tasks.py), never by equality with retrained weights:
training amplifies the last-bit differences between processors."""

from __future__ import annotations

import pytest
import torch

import mha
from mha import training
from mha.training import loop


def test_head_counts_are_the_divisors_of_d_model():
    assert training.HEAD_COUNTS == (1, 2, 4, 8)
    for n in training.HEAD_COUNTS:  # each a layer accepts
        mha.MultiHeadAttention(mha.example.D_MODEL, n)


@pytest.mark.parametrize("n_answers", [1, 2])
def test_the_toy_model_gives_scores_per_answer_and_a_map_per_head(n_answers):
    model = training.ToyModel(16, n_answers, n_heads=4, dtype=torch.float64)
    ids = torch.randint(2, 16, (3, 6))
    logits, probs = model(ids)
    assert logits.shape == (3, 6, n_answers, 16)
    assert probs.shape == (3, 4, 6, 6)
    # Each readout reads the attention's output, and nothing else (no residual).
    x = model.position(model.embed(ids))
    out, _ = model.attention(x, x, x)
    for a, readout in enumerate(model.readouts):
        torch.testing.assert_close(logits[:, :, a], readout(out))


def test_fit_returns_one_loss_per_step_and_lowers_it():
    torch.manual_seed(0)
    model = training.ToyModel(16, 2, n_heads=2, dtype=torch.float32)
    generator = torch.Generator().manual_seed(1)

    def next_batch():
        batch = training.NEIGHBOURS.batch(generator, 32, 5)
        return batch.ids, batch.targets

    with torch.enable_grad():
        losses = training.fit(model, next_batch, steps=30, lr=0.05)
    assert len(losses) == 30
    assert sum(losses[-5:]) < sum(losses[:5])


def test_train_is_seeded_cached_and_leaves_a_model_in_eval_mode():
    run = training.train(training.PREVIOUS_WORD, 2, seed=3, steps=40)
    assert run is training.train(training.PREVIOUS_WORD, 2, seed=3, steps=40)
    assert run.task is training.PREVIOUS_WORD and len(run.losses) == 40
    assert run.model.attention.Wq.weight.dtype == torch.float32
    assert not run.model.training
    assert not any(p.requires_grad for p in run.model.parameters())
    assert run.losses[-1] < run.losses[0]
    assert (
        run.accuracy == training.behaviour(training.PREVIOUS_WORD, run.model)["joint"]
    )
    training.train.cache_clear()  # a fresh run: the same seed, the same weights
    again = training.train(training.PREVIOUS_WORD, 2, seed=3, steps=40)
    assert again is not run and again.losses == run.losses
    other = training.train(training.PREVIOUS_WORD, 2, seed=4, steps=40)
    assert other.losses != run.losses


def test_save_writes_what_load_reads(tmp_path, monkeypatch):
    task = training.Task(
        name="tiny",
        asks="the previous word",
        answers=("previous",),
        words=("a", "b", "c"),
        lengths=(2, 4),
        test_lengths=(4,),
        draw=training.task.CopyAt((-1,)),
        test_sentences=20,
        seeds=(0, 1),
        steps=5,
    )
    monkeypatch.setattr(
        training.Task, "weights_file", property(lambda t: tmp_path / "w.pt")
    )
    learned = loop.save(task)
    assert set(learned) == {(n, s) for n in training.HEAD_COUNTS for s in (0, 1)}
    for n_heads, seed in ((1, 0), (8, 1)):
        loaded = training.load(task, n_heads, seed)
        trained = training.train(task, n_heads, seed).model
        for (name, a), b in zip(
            loaded.state_dict().items(), trained.state_dict().values(), strict=True
        ):
            assert torch.equal(a, b), name
        assert learned[n_heads, seed] == training.behaviour(task, loaded)


@pytest.mark.parametrize("task", [training.PREVIOUS_WORD, training.AGREEMENT])
def test_the_float64_model_predicts_what_the_float32_model_predicts(task):
    model32 = training.load(task, 4)
    model64 = training.load(task, 4, dtype=torch.float64)
    assert model32.attention.Wq.weight.dtype == torch.float32
    assert all(p.dtype == torch.float64 for p in model64.parameters())
    for model in (model32, model64):
        assert not model.training
        assert not any(p.requires_grad for p in model.parameters())
    batch = task.test_batches()[0]
    logits32, probs32 = model32(batch.ids)
    logits64, probs64 = model64(batch.ids)
    asked = batch.targets != training.task.IGNORE
    assert torch.equal(logits32.argmax(-1)[asked], logits64.argmax(-1)[asked])
    torch.testing.assert_close(probs64.float(), probs32, atol=1e-4, rtol=0)


def test_a_missing_weights_file_says_how_to_make_it(tmp_path, monkeypatch):
    monkeypatch.setattr(
        training.Task, "weights_file", property(lambda t: tmp_path / "none.pt")
    )
    with pytest.raises(FileNotFoundError, match="make weights"):
        training.load(training.PREVIOUS_WORD)


P = training.PREVIOUS_WORD

BAD_INPUT = [
    (lambda: training.load(P, 3), ValueError, "n_heads", "one of (1, 2, 4, 8)", "got 3"),
    (lambda: training.load(P, 4, seed=1), ValueError, "seed", "one of (0,)", "got 1"),
    (lambda: training.load(training.NEIGHBOURS, 4, seed=7), ValueError, "seed",
     "one of (0, 1, 2, 3, 4)", "got 7"),
    (lambda: training.load(P, 4, dtype=torch.int64), TypeError, "dtype",
     "floating-point torch.dtype", "got dtype torch.int64"),
    (lambda: training.load(P, 4, dtype="float64"), TypeError, "dtype",
     "floating-point torch.dtype", "got str 'float64'"),
    (lambda: training.load("previous_word"), TypeError, "task", "mha.training.Task",
     "got str 'previous_word'"),
    (lambda: training.train(P, n_heads=3), ValueError, "n_heads", "one of (1, 2, 4, 8)",
     "got 3"),
    (lambda: training.train(P, seed=-1), ValueError, "seed", "int >= 0", "got -1"),
    (lambda: training.train(P, batch_size=0), ValueError, "batch_size", "int >= 1", "got 0"),
    (lambda: training.train(P, steps=0), ValueError, "steps", "int >= 1", "got 0"),
    (lambda: training.train(P, lr=0.0), ValueError, "lr", "positive number", "got 0.0"),
    (lambda: training.train(P, lr="0.1"), TypeError, "lr", "a number", "got str '0.1'"),
    (lambda: loop.save(None), TypeError, "task", "mha.training.Task", "got NoneType"),
    (lambda: training.fit(training.ToyModel(16), lambda: None, 0, 0.1), ValueError, "steps",
     "int >= 1", "got 0"),
    (lambda: training.ToyModel(16, n_answers=0), ValueError, "n_answers", "int >= 1",
     "got 0"),
    (lambda: training.ToyModel(16, n_heads=3), ValueError, "n_heads", "divide d_model",
     "n_heads=3"),
]  # fmt: skip
