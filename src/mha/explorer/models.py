"""What an explorer explores: the models, the package's own computation of
what they show, and their weights as the data the page computes with.

A :class:`Network` is one set of weights with everything the page needs to
run it: the vocabulary, the embeddings, the position code, the attention
layers in order (each reading the last one's output, or the residual stream
``x + attn(x)``; causal in every layer where the model always is, as
`~mha.training.model.TwoLayerModel`), and the readouts, if any.
:func:`networks` makes them from what a chapter or a reader hands the
explorer; :func:`reading` is the
package's forward pass for one setting (the numbers the page must match);
:func:`weights_data` is what the page receives.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from mha._checks import check_choice
from mha._threads import one_thread
from mha.attention import MultiHeadAttention
from mha.defaults import DTYPE, SENTENCES
from mha.example import WEIGHTS, RunningExample, running_example
from mha.masks import causal_mask, padding_mask
from mha.text import PAD, Vocab, tokenize
from mha.training import HEAD_COUNTS, PREVIOUS_WORD, TwoLayerModel, load
from mha.training.loop import TrainingRun
from mha.training.task import IGNORE, Task

MASKS = ("none", "causal", "padding")
MAX_PAD = 3  # the padding slider: 1 to 3 trailing words replaced by <pad>


@dataclass(frozen=True, eq=False)
class Network:
    """One set of weights the explorer runs.

    Attributes:
        vocab: the words it reads (``<pad>`` and ``<unk>`` first).
        embed, position: its `mha.embedding.Embeddings` and
            `mha.embedding.PositionalEncoding`.
        layers: its attention layers, in order.
        residual: whether each layer adds its output to its input
            (``x + attn(x)``) rather than replacing it.
        causal: whether every layer is causal whatever the mask chosen
            (`~mha.training.model.TwoLayerModel`): the mask then blocks a key where
            it or the causal mask does.
        readouts: its readouts (``nn.Linear(d_model, vocab_size)``), none
            for a layer alone.
        answers: the name of each readout's answer.
        at: for each readout, the word where its answer is read (``"be"``
            for agreement), or ``None``: at every position.
        model: the model whose ``forward`` gives the logits, or ``None``
            (the running example's layer, which has no readout).
        task: the task it was trained on, if known (its sentences start
            the explorer).
    """

    vocab: Vocab
    embed: nn.Module
    position: nn.Module
    layers: tuple[MultiHeadAttention, ...]
    residual: bool = False
    readouts: tuple[nn.Linear, ...] = ()
    answers: tuple[str, ...] = ()
    at: tuple[str | None, ...] = ()
    model: nn.Module | None = None
    causal: bool = False
    task: Task | None = None

    @property
    def n_heads(self) -> int:
        return self.layers[0].n_heads

    @property
    def max_length(self) -> int:
        return self.position.max_length


@dataclass(frozen=True)
class Reading:
    """What the package computes for one setting (:func:`reading`).

    Attributes:
        tokens: the tokens shown, ``<pad>`` included.
        probs: per layer, the attention ``(n_heads, L, L)``.
        outputs: per layer, its output ``(L, d_model)``.
        logits: per readout, ``(L, vocab_size)``.
        blocked: ``(L, L)``, True where the mask blocks a key.
    """

    tokens: list[str]
    probs: list[torch.Tensor]
    outputs: list[torch.Tensor]
    logits: list[torch.Tensor]
    blocked: torch.Tensor

    def answers(self, network: Network) -> list[list[str]]:
        """Each readout's answer (its highest-scoring word) at every position."""
        return [network.vocab.decode(scores.argmax(dim=-1)) for scores in self.logits]


def padded(tokens: Sequence[str], mask: str, n_pad: int) -> list[str]:
    """With the padding mask, the last ``n_pad`` words replaced by ``<pad>``
    (at most all but the first)."""
    n_pad = min(n_pad, len(tokens) - 1) if mask == "padding" else 0
    return list(tokens[: len(tokens) - n_pad]) + [PAD] * n_pad


def reading(network: Network, tokens: Sequence[str], mask: str = "none") -> Reading:
    """The package's forward pass of ``network`` on ``tokens`` (``<pad>``
    included) under ``mask`` (``"none"``, ``"causal"`` or ``"padding"``, which
    blocks the ``<pad>`` keys): through the model's own ``forward`` where it
    has one, each layer's output and maps taken on the way by a hook. A
    causal network's model adds the causal mask itself (``blocked`` says so)."""
    check_choice("mask", mask, MASKS)
    ids = torch.tensor([network.vocab.encode(list(tokens))])  # (1, L)
    length = ids.size(1)
    allowed = None
    if mask == "causal":
        allowed = causal_mask(length)  # (L, L)
    elif mask == "padding":
        allowed = padding_mask(ids, network.vocab.pad_id)  # (1, 1, 1, L)
    seen: list[tuple[torch.Tensor, torch.Tensor]] = []
    hooks = [
        layer.register_forward_hook(lambda _m, _i, out: seen.append(out))
        for layer in dict.fromkeys(network.layers)  # (a layer used twice: hooked once)
    ]
    try:
        with torch.no_grad(), one_thread():
            if network.model is not None:
                logits, _ = network.model(ids, allowed)  # (1, L, n_answers, vocab)
                logits = list(logits[0].unbind(1))  # per answer: (L, vocab)
            else:
                x = network.position(network.embed(ids))  # (1, L, d_model)
                for layer in network.layers:
                    out, _ = layer(x, x, x, allowed)  # (1, L, d_model)
                    x = x + out if network.residual else out
                logits = []
    finally:
        for hook in hooks:
            hook.remove()
    if allowed is None:
        allowed = torch.ones(length, length, dtype=torch.bool)
    allowed = torch.broadcast_to(allowed, (1, 1, length, length))[0, 0]  # (L, L)
    if network.causal:
        allowed = allowed & causal_mask(length)  # (L, L)
    blocked = ~allowed  # (L, L)
    return Reading(
        list(tokens),
        [probs[0] for _, probs in seen],
        [out[0] for out, _ in seen],
        logits,
        blocked,
    )


# --- What the explorer is given ----------------------------------------------------


@functools.cache
def _running_example(n_heads: int, weights: str) -> Network:
    """The running example's layer (``"random"``: the layer before training, cut
    into ``n_heads``) or, ``"trained"``, the previous-word model's layer
    trained with ``n_heads`` (with four, the running example's layer)."""
    if weights == "trained":
        model = load(PREVIOUS_WORD, n_heads, dtype=DTYPE)
        return Network(PREVIOUS_WORD.vocab, model.embed, model.position, _layers(model))
    return _of_example(running_example(n_heads, weights="random"))


def _of_example(ex: RunningExample) -> Network:
    return Network(ex.vocab, ex.embed, ex.position, (ex.attention,))


def _layers(model: nn.Module) -> tuple[MultiHeadAttention, ...]:
    """A model's attention layers in order: ``model.layers``, or the one
    ``model.attention`` of a one-layer model."""
    layers = getattr(model, "layers", None)
    return tuple(layers) if layers is not None else (model.attention,)


def _of_model(model: nn.Module, vocab: Vocab, task: Task | None) -> Network:
    answers = task.answers if task is not None else ()
    readouts = tuple(getattr(model, "readouts", ()))
    answers = answers or tuple(f"answer {i}" for i in range(len(readouts)))
    at = _read_at(task) if task is not None else (None,) * len(readouts)
    return Network(
        vocab, model.embed, model.position, _layers(model),
        bool(getattr(model, "residual", False)), readouts, answers, at, model,
        causal=isinstance(model, TwoLayerModel), task=task,
    )  # fmt: skip


@functools.cache
def _read_at(task: Task) -> tuple[str | None, ...]:
    """For each answer of ``task``, the one word where it is asked (the verb
    *be* of agreement), or ``None`` where it is asked at many words."""
    batch = task.batch(torch.Generator().manual_seed(0), 64, max(task.test_lengths))
    found = []
    for a in range(len(task.answers)):
        words = set(batch.ids[batch.targets[:, :, a] != IGNORE].tolist())
        found.append(task.vocab.itos[words.pop()] if len(words) == 1 else None)
    return tuple(found)


@functools.cache
def _of_task(task: Task, n_heads: int, seed: int = 0) -> Network:
    return _of_model(load(task, n_heads, seed, dtype=DTYPE), task.vocab, task)


def _is_model(value: object) -> bool:
    return isinstance(value, nn.Module) and all(
        hasattr(value, name) for name in ("embed", "position")
    )


WHAT = (
    "None (the running example's layer), a mha.training.Task (its shipped models), "
    "a TrainingRun, a RunningExample, a model with embed, position and layers "
    "(with vocab=), or a dict of these by label"
)


def networks(
    model: object,
    vocab: Vocab | Task | None,
    weights: Sequence[str],
    head_counts: Sequence[int],
    seed: int = 0,
) -> tuple[str | None, dict[str, dict[int, Network]]]:
    """The explorer's networks, ``{option: {n_heads: Network}}``, and the label
    of the control that chooses the option (``None`` when there is one).

    ``model`` is one of: ``None``, the running example's layer, one option per
    entry of ``weights`` (``"trained"``, ``"random"``); a `mha.training.task.Task`,
    its shipped models trained with ``seed`` for each of ``head_counts``; a
    `mha.training.loop.TrainingRun` (``training.train(...)``), a
    `mha.example.RunningExample`, or a model with ``embed``, ``position``,
    ``layers`` (or one ``attention``) and optional ``readouts``, given with its
    ``vocab`` (a `mha.text.Vocab`, or the `mha.training.task.Task` it was trained
    on, which also names its answers): that model alone; or a dict
    ``{label: one of these}``, one option each.
    """
    if isinstance(model, Mapping):
        if not model or not all(isinstance(k, str) and k for k in model):
            raise ValueError(
                f"model as a dict must map labels (non-empty str) to models, got {model!r}"
            )
        found = {}
        for label, value in model.items():
            _, options = networks(value, vocab, ("trained",), head_counts, seed)
            found[label] = next(iter(options.values()))
        counts = {tuple(sorted(f)) for f in found.values()}
        if len(counts) > 1:
            raise ValueError(
                "model's entries must offer the same head counts, got "
                + ", ".join(f"{k}: {sorted(v)}" for k, v in found.items())
            )
        return ("Model:" if len(found) > 1 else None), found
    if model is None:
        _check_subset("weights", weights, WEIGHTS)
        counts = _check_subset("head_counts", head_counts, HEAD_COUNTS)
        label = "Weights:" if len(weights) > 1 else None
        return label, {
            w: {n: _running_example(n, w) for n in counts}
            for w in dict.fromkeys(weights)
        }
    if isinstance(model, Task):
        counts = _check_subset("head_counts", head_counts, HEAD_COUNTS)
        check_choice("seed", seed, model.seeds)
        return None, {model.name: {n: _of_task(model, n, seed) for n in counts}}
    if isinstance(model, TrainingRun):
        network = _of_model(model.model, model.task.vocab, model.task)
    elif isinstance(model, RunningExample):
        network = _of_example(model)
    elif _is_model(model):
        if isinstance(vocab, Task):
            network = _of_model(model, vocab.vocab, vocab)
        elif isinstance(vocab, Vocab):
            network = _of_model(model, vocab, None)
        else:
            raise TypeError(
                "vocab must be the model's mha.Vocab or the mha.training.Task it was "
                f"trained on when model is a {type(model).__name__}, got "
                f"{type(vocab).__name__}"
            )
    else:
        raise TypeError(f"model must be {WHAT}; got {type(model).__name__}")
    return None, {"model": {network.n_heads: network}}


def _check_subset(name: str, values: Sequence, allowed: Sequence) -> tuple:
    if isinstance(values, str):
        raise TypeError(f"{name} must be a list of {allowed}, got the str {values!r}")
    values = tuple(dict.fromkeys(values))
    if not values or any(v not in allowed for v in values):
        raise ValueError(
            f"{name} must be a non-empty subset of {allowed}, got {values}"
        )
    return values


def example_sentences(network: Network, count: int = 3) -> list[str]:
    """Sentences to start from: the book's three where the network knows
    their words, else ``count`` of its task's held-out sentences (seeded;
    the task it was trained on, else the first whose words are its words)."""
    if all(t in network.vocab for s in SENTENCES for t in tokenize(s)):
        return list(SENTENCES)
    task = network.task or next(
        (t for t in _tasks() if t.vocab.itos == network.vocab.itos), None
    )  # the task whose words these are
    if task is None:
        raise ValueError(
            "sentences must be given for a model that does not know the book's "
            "sentences' words"
        )
    generator = torch.Generator().manual_seed(0)
    lengths = sorted(task.test_lengths)[:: max(1, len(task.test_lengths) // count)]
    found = []
    for length in lengths[:count]:
        ids = task.batch(generator, 1, length, held_out=True).ids[0]
        found.append(" ".join(task.vocab.decode(ids)))
    return found


def _tasks() -> list[Task]:
    from mha import training

    return [v for v in vars(training).values() if isinstance(v, Task)]


# --- The data the page receives ------------------------------------------------------


def _tensor(t: torch.Tensor) -> dict:
    """A tensor as ``{shape, dtype, data}``: its values in little-endian
    binary, base64, as float32 where that loses nothing (weights trained in
    float32), else float64."""
    t = t.detach().to("cpu", torch.float64).contiguous()
    if not torch.isfinite(t).all():
        raise ValueError("the model's weights must be finite numbers, got inf or NaN")
    single = t.to(torch.float32)
    exact = torch.equal(single.to(torch.float64), t)
    values = single if exact else t
    data = values.numpy().astype("<f4" if exact else "<f8").tobytes()
    return {
        "shape": list(t.shape),
        "dtype": "float32" if exact else "float64",
        "data": base64.b64encode(data).decode("ascii"),
    }


def decoded(t: dict) -> torch.Tensor:
    """A tensor of ``_tensor``'s form back as float64, as the page reads it."""
    import numpy

    dtype = {"float32": "<f4", "float64": "<f8"}[t["dtype"]]
    values = numpy.frombuffer(base64.b64decode(t["data"]), dtype=dtype)
    return torch.from_numpy(values.astype("float64")).reshape(t["shape"])


def _linear(layer: nn.Linear) -> tuple[dict, dict]:
    return _tensor(layer.weight), _tensor(layer.bias)


def weights_data(network: Network) -> dict:
    """What the page computes with: the vocabulary, the sizes, every weight
    and, for a network causal in every layer, ``"causal": True``."""
    layers = []
    for layer in network.layers:
        entry = {}
        for name in ("Wq", "Wk", "Wv", "Wo"):
            entry[name], entry["b" + name[1]] = _linear(getattr(layer, name))
        layers.append(entry)
    readouts = []
    for readout, name, at in zip(
        network.readouts, network.answers, network.at, strict=True
    ):
        W, b = _linear(readout)
        readouts.append({"name": name, "at": at, "W": W, "b": b})
    return {
        "vocab": list(network.vocab.itos),
        "dModel": network.layers[0].d_model,
        "maxLength": network.max_length,
        "embed": _tensor(network.embed.lut.weight),
        "pe": _tensor(network.position.pe[0]),
        "layers": layers,
        "residual": network.residual,
        "readouts": readouts,
        **({"causal": True} if network.causal else {}),  # absent: not causal
    }
