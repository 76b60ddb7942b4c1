"""mha.training.loop and mha.training.model: the toy model, the loop, seeded
training and the shipped weights' loading. Trained weights are judged by what
they do (tests/test_tasks.py), never by equality with retrained weights:
training amplifies the last-bit differences between processors."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from refusal import refuses, row_ids

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


def test_the_one_layer_model_names_its_layer_and_has_no_residual_stream():
    model = training.ToyModel(16)
    assert tuple(model.layers) == (model.attention,)
    assert (model.residual, model.causal) == (False, False)
    assert any(name.startswith("layers.0.") for name in model.state_dict())


def test_a_model_of_several_layers_has_no_one_attention_layer():
    model = training.ToyModel(16, n_layers=2)
    with pytest.raises(TypeError, match="this one has 2: use model.layers"):
        _ = model.attention


def test_the_two_layer_model_adds_each_layer_to_the_residual_stream():
    """x0 = embed + position, x1 = x0 + attn1(x0), x2 = x1 + attn2(x1), both
    layers causal; the readouts read x2; one map per layer."""
    torch.manual_seed(0)
    model = training.ToyModel(
        16, 2, n_heads=4, max_length=7, dtype=torch.float64,
        n_layers=2, residual=True, causal=True,
    )  # fmt: skip
    assert model.residual is True and len(model.layers) == 2
    assert all(isinstance(layer, mha.MultiHeadAttention) for layer in model.layers)
    ids = torch.randint(2, 16, (3, 7))
    logits, attn = model(ids)
    assert logits.shape == (3, 7, 2, 16)
    assert isinstance(attn, tuple) and [a.shape for a in attn] == [(3, 4, 7, 7)] * 2
    causal = mha.causal_mask(7)
    x0 = model.position(model.embed(ids))
    out1, probs1 = model.layers[0](x0, x0, x0, causal)
    x1 = x0 + out1
    out2, probs2 = model.layers[1](x1, x1, x1, causal)
    x2 = x1 + out2
    for a, readout in enumerate(model.readouts):
        torch.testing.assert_close(logits[:, :, a], readout(x2))
    torch.testing.assert_close(attn[0], probs1)
    torch.testing.assert_close(attn[1], probs2)
    assert bool((attn[1][..., ~causal] == 0).all())  # nothing from later tokens
    # A padding mask is applied together with the causal one.
    padding = torch.ones(3, 1, 1, 7, dtype=torch.bool)
    padding[0, ..., 5:] = False
    _, padded = model(ids, padding)
    assert bool((padded[0][0][..., 5:] == 0).all())
    torch.testing.assert_close(padded[1][1:], attn[1][1:])


def test_layers_without_a_residual_stream_each_read_the_last_one_s_output():
    """Not causal, no residual stream: x1 = attn1(x0), x2 = attn2(x1), the
    mask given (if any) used by both."""
    torch.manual_seed(1)
    model = training.ToyModel(16, n_heads=2, dtype=torch.float64, n_layers=2)
    ids = torch.randint(2, 16, (2, 5))
    mask = mha.causal_mask(5)
    logits, (first, second) = model(ids, mask)
    x0 = model.position(model.embed(ids))
    x1, probs1 = model.layers[0](x0, x0, x0, mask)
    x2, probs2 = model.layers[1](x1, x1, x1, mask)
    torch.testing.assert_close(logits[:, :, 0], model.readouts[0](x2))
    assert torch.equal(first, probs1) and torch.equal(second, probs2)


def test_a_reading_is_the_model_s_own_forward_pass_layer_by_layer():
    """read: each layer's maps and output as the forward pass computes them,
    each named readout's scores and answers, and the keys blocked."""
    torch.manual_seed(2)
    task = training.NEIGHBOURS
    model = training.ToyModel(
        len(task.vocab), 2, dtype=torch.float64, n_layers=2, residual=True, causal=True
    )
    tokens = ["hello", "this", "is", "a", "<pad>"]
    padding = mha.padding_mask(torch.tensor([task.vocab.encode(tokens)]), 0)
    found = training.read(model, task.vocab, tokens, padding, ("previous", "next"))
    ids = torch.tensor([task.vocab.encode(tokens)])
    with torch.no_grad():
        logits, maps = model(ids, padding)
        x0 = model.position(model.embed(ids))
        allowed = model.with_causal(padding, ids)
        out1, _ = model.layers[0](x0, x0, x0, allowed)
        out2, _ = model.layers[1](x0 + out1, x0 + out1, x0 + out1, allowed)
    assert found.tokens == tokens
    assert [torch.equal(a, b[0]) for a, b in zip(found.probs, maps, strict=True)] == [
        True,
        True,
    ]
    assert torch.equal(found.outputs[0], out1[0]) and torch.equal(
        found.outputs[1], out2[0]
    )
    assert torch.equal(found.logits[1], logits[0, :, 1])
    assert found.answers["next"] == task.vocab.decode(logits[0, :, 1].argmax(-1))
    assert found.attention == found.probs  # several layers: a tuple of maps
    blocked = ~(mha.causal_mask(5) & padding[0, 0])  # causal, and the <pad> key
    assert torch.equal(found.blocked, blocked)
    # Only the readouts named are read; a one-layer model's maps are one tensor.
    alone = training.read(
        training.ToyModel(len(task.vocab), 2), task.vocab, tokens, answers=()
    )
    assert alone.logits == () and alone.answers == {}
    assert alone.attention.shape == (4, 5, 5)


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


def _tiny_task(**changes) -> training.Task:
    """A task of three words, two seeds and five steps: quick to save and load
    (``changes``: other settings)."""
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
    return dataclasses.replace(task, **changes)


def test_save_writes_what_load_reads(tmp_path, monkeypatch):
    task = _tiny_task()
    monkeypatch.setattr(
        training.Task, "weights_file", property(lambda t: tmp_path / "w.pt")
    )
    learned = loop.save(task)
    assert set(learned) == {
        (1, n, None, s) for n in training.HEAD_COUNTS for s in (0, 1)
    }
    for n_heads, seed in ((1, 0), (8, 1)):
        loaded = training.load(task, n_heads, seed)
        trained = training.train(task, n_heads, seed).model
        for (name, a), b in zip(
            loaded.state_dict().items(), trained.state_dict().values(), strict=True
        ):
            assert torch.equal(a, b), name
        assert learned[1, n_heads, None, seed] == training.behaviour(task, loaded)


def test_save_and_load_two_layer_models_beside_one_layer_ones(tmp_path, monkeypatch):
    task = _tiny_task(train_batches=2, depths=(1, 2), head_counts=(2,))
    monkeypatch.setattr(
        training.Task, "weights_file", property(lambda t: tmp_path / "w.pt")
    )
    learned = loop.save(task)
    assert set(learned) == {(d, 2, None, s) for d in (1, 2) for s in (0, 1)}
    assert set(torch.load(tmp_path / "w.pt", weights_only=True)) == {2, (2, 2)}
    for n_layers in (1, 2):
        loaded = training.load(task, 2, 1, n_layers=n_layers)
        trained = training.train(task, 2, 1, n_layers=n_layers).model
        assert len(loaded.layers) == len(trained.layers) == n_layers
        assert loaded.residual is loaded.causal is (n_layers == 2)
        for (name, a), b in zip(
            loaded.state_dict().items(), trained.state_dict().values(), strict=True
        ):
            assert torch.equal(a, b), name
    with pytest.raises(ValueError, match="n_heads must be one of \\(2,\\)"):
        training.load(task, 4, 0)


def test_save_and_load_models_whose_heads_have_a_width_of_their_own(
    tmp_path, monkeypatch
):
    """A task's layouts ((n_heads, d_key) pairs) are trained, saved and loaded
    beside its conventional head counts, under their own keys."""
    task = _tiny_task(head_counts=(2,), layouts=((8, 2), (1, 2)))
    monkeypatch.setattr(
        training.Task, "weights_file", property(lambda t: tmp_path / "w.pt")
    )
    learned = loop.save(task)
    assert set(learned) == {
        (1, n, k, s) for n, k in ((2, None), (8, 2), (1, 2)) for s in (0, 1)
    }
    assert set(torch.load(tmp_path / "w.pt", weights_only=True)) == {
        2,
        (1, 8, 2),
        (1, 1, 2),
    }
    loaded = training.load(task, 8, 1, d_key=2)
    assert (loaded.attention.n_heads, loaded.attention.d_key) == (8, 2)
    assert loaded.attention.Wq.weight.shape == (16, 8)  # 8 heads of 2 on d_model 8
    trained = training.train(task, 8, 1, d_key=2).model
    for (name, a), b in zip(
        loaded.state_dict().items(), trained.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b), name
    assert learned[1, 8, 2, 1] == training.behaviour(task, loaded)
    conventional = training.load(task, 2, 0, d_key=4)  # 2 x 4 = d_model: head_counts'
    assert torch.equal(
        conventional.attention.Wq.weight, training.load(task, 2, 0).attention.Wq.weight
    )
    with pytest.raises(ValueError, match="n_heads=4, d_key=4, n_layers=1 is not a"):
        training.load(task, 4, 0, d_key=4)


def test_a_fixed_training_set_is_drawn_once():
    """With train_batches, training draws that many batches and no more."""
    drawn, copy = [], training.task.CopyAt((-1,))

    def counting(vocab, generator, n_sentences, length, held_out=False):
        drawn.append(held_out)
        return copy(vocab, generator, n_sentences, length, held_out)

    task = _tiny_task(
        lengths=(3, 3), test_lengths=(3,), draw=counting, steps=6, batch_size=4,
        train_batches=2,
    )  # fmt: skip
    run = training.train(task, 2, seed=0)
    assert len(run.losses) == 6
    assert drawn == [False, False, True]  # the training set, then the held-out batch
    fresh = training.train(dataclasses.replace(task, train_batches=None), 2, seed=0)
    assert len(fresh.losses) == 6 and drawn[3:] == [False] * 6 + [True]


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
    (lambda: training.train(P, n_layers=3), ValueError, "n_layers", "one of (1, 2)",
     "got 3"),
    (lambda: training.load(P, n_layers=2), ValueError, "n_layers", "one of (1,)",
     "got 2"),
    (lambda: training.load(training.FRONTED, 8, n_layers=2), ValueError, "n_heads",
     "one of (4,)", "got 8"),
    (lambda: training.ToyModel(16, causal=True)(torch.zeros(1, 3, dtype=torch.long),
                                                 torch.ones(2, 3, 3)), ValueError, "mask",
     "(q_len, k_len)", "(2, 3, 3)"),
    (lambda: training.ToyModel(16, n_layers=0), ValueError, "n_layers", "int >= 1",
     "got 0"),
    (lambda: training.ToyModel(16, residual=1), TypeError, "residual", "a bool",
     "got int"),
    (lambda: training.read("model", P.vocab, ["the"]), TypeError, "model",
     "torch.nn.Module with layers and readouts", "got str"),
    (lambda: training.read(training.ToyModel(16), P.vocab, ["the"], answers=("a", "b")),
     ValueError, "answers", "at most the model's 1 readouts", "('a', 'b')"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


def test_every_shipped_layout_loads_with_its_head_width():
    """Each (n_heads, d_key) a task lists is in its weights file, for every seed."""
    for task in (training.PREVIOUS_WORD, training.NEIGHBOURS):
        for n_heads, d_key in task.layouts:
            for seed in task.seeds:
                layer = training.load(task, n_heads, seed, d_key=d_key).attention
                assert (layer.n_heads, layer.d_key) == (n_heads, d_key)
                assert layer.Wq.weight.shape == (n_heads * d_key, 8)
    assert len(training.NEIGHBOURS.layouts) == 14
