"""What an explorer explores: the models, the package's own computation of
what they show, and their weights as the data the page computes with.

A :class:`Network` is one model with everything the page needs to run it:
the vocabulary, the model (a `~mha.training.model.ToyModel`: embeddings,
position code, attention layers on a residual stream or not, causal or not,
readouts), and the answers of the readouts it shows, if any.
:func:`networks` makes them from what a chapter or a reader hands the
explorer; :func:`reading` is the package's reading of one setting
(`mha.training.model.read`, the numbers the page must match);
:func:`weights_data` is what the page receives.
"""

from __future__ import annotations

import base64
import copy
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
from mha.interop import from_torch
from mha.masks import causal_mask, padding_mask
from mha.text import PAD, Vocab, tokenize
from mha.training import HEAD_COUNTS, PREVIOUS_WORD, ToyModel, load
from mha.training.loop import TrainingRun
from mha.training.model import Reading, read
from mha.training.task import IGNORE, Task

MASKS = ("none", "causal", "padding")
MAX_PAD = 3  # the padding slider: 1 to 3 trailing words replaced by <pad>


@dataclass(frozen=True, eq=False)
class Network:
    """One model the explorer runs.

    Attributes:
        vocab: the words it reads (``<pad>`` and ``<unk>`` first).
        model: a `~mha.training.model.ToyModel`, or a model like it
            (``embed``, ``position``, ``layers``, ``readouts``, ``residual``,
            ``causal``, ``model(ids, mask) -> (logits, maps)``).
        answers: the name of each readout's answer the explorer shows, the
            first ``len(answers)`` readouts (none for the running example's
            layer).
        at: for each answer, the word where it is read (``"be"`` for
            agreement), or ``None``: at every position.
        task: the task it was trained on, if known (its sentences start
            the explorer).
    """

    vocab: Vocab
    model: nn.Module
    answers: tuple[str, ...] = ()
    at: tuple[str | None, ...] = ()
    task: Task | None = None

    @property
    def embed(self) -> nn.Module:
        return self.model.embed

    @property
    def position(self) -> nn.Module:
        return self.model.position

    @property
    def layers(self) -> tuple[MultiHeadAttention, ...]:
        """Its attention layers, in order."""
        return tuple(self.model.layers)

    @property
    def readouts(self) -> tuple[nn.Linear, ...]:
        """The readouts shown (``nn.Linear(d_model, vocab_size)``), one per answer."""
        return tuple(self.model.readouts)[: len(self.answers)]

    @property
    def residual(self) -> bool:
        """Whether each layer adds its output to its input (``x + attn(x)``)."""
        return bool(getattr(self.model, "residual", False))

    @property
    def causal(self) -> bool:
        """Whether every layer is causal whatever the mask chosen (the mask
        then blocks a key where it or the causal mask does)."""
        return bool(getattr(self.model, "causal", False))

    @property
    def n_heads(self) -> int:
        return self.layers[0].n_heads

    @property
    def max_length(self) -> int:
        return self.position.max_length


def padded(tokens: Sequence[str], mask: str, n_pad: int) -> list[str]:
    """With the padding mask, the last ``n_pad`` words replaced by ``<pad>``
    (at most all but the first)."""
    n_pad = min(n_pad, len(tokens) - 1) if mask == "padding" else 0
    return list(tokens[: len(tokens) - n_pad]) + [PAD] * n_pad


def reading(network: Network, tokens: Sequence[str], mask: str = "none") -> Reading:
    """The package's reading (`mha.training.model.read`) of ``tokens``
    (``<pad>`` included) by ``network`` under ``mask`` (``"none"``,
    ``"causal"`` or ``"padding"``, which blocks the ``<pad>`` keys); a causal
    network's model adds the causal mask itself (``blocked`` says so)."""
    check_choice("mask", mask, MASKS)
    allowed = None
    if mask == "causal":
        allowed = causal_mask(len(tokens))  # (L, L)
    elif mask == "padding":
        ids = torch.tensor([network.vocab.encode(list(tokens))])  # (1, L)
        allowed = padding_mask(ids, network.vocab.pad_id)  # (1, 1, 1, L)
    with one_thread():
        return read(network.model, network.vocab, tokens, allowed, network.answers)


# --- What the explorer is given ----------------------------------------------------


@functools.cache
def _running_example(n_heads: int, weights: str) -> Network:
    """The running example's layer (``"random"``: the layer before training, cut
    into ``n_heads``) or, ``"trained"``, the previous-word model's layer
    trained with ``n_heads`` (with four, the running example's layer); no
    readout shown."""
    if weights == "trained":
        return Network(PREVIOUS_WORD.vocab, load(PREVIOUS_WORD, n_heads, dtype=DTYPE))
    return _of_example(running_example(n_heads, weights="random"))


def _of_example(ex: RunningExample, layer: MultiHeadAttention | None = None) -> Network:
    """The running example's layer, or ``layer`` in its place, in a one-layer
    model on the running example's embeddings and positions (no readout shown)."""
    layer = ex.attention if layer is None else layer
    with torch.random.fork_rng(devices=[]):  # the reader's random draws untouched
        model = ToyModel(len(ex.vocab), 1, ex.d_model, layer.n_heads, dtype=DTYPE)
    model.embed, model.position = ex.embed, ex.position
    model.layers = nn.ModuleList([layer])
    return Network(ex.vocab, model.eval().requires_grad_(False))


def _of_layer(layer: MultiHeadAttention | nn.MultiheadAttention) -> Network:
    """A layer the reader built, on the running example's embeddings and
    positions; a copy in float64, the reader's layer untouched."""
    if isinstance(layer, nn.MultiheadAttention):
        layer = from_torch(layer)
    ex = running_example()
    if layer.d_model != ex.d_model or layer.n_heads * layer.d_key != ex.d_model:
        raise ValueError(
            f"model as a layer must read the running example's d_model={ex.d_model} "
            f"features in heads of d_model // n_heads, got d_model={layer.d_model}, "
            f"n_heads={layer.n_heads}, d_key={layer.d_key}"
        )
    return _of_example(ex, copy.deepcopy(layer).to(DTYPE))


def _of_model(model: nn.Module, vocab: Vocab, task: Task | None) -> Network:
    n_readouts = len(model.readouts)
    answers = task.answers if task is not None else ()
    answers = answers or tuple(f"answer {i}" for i in range(n_readouts))
    at = _read_at(task) if task is not None else (None,) * n_readouts
    return Network(vocab, model, answers, at, task)


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
    """The task's shipped model of ``n_heads`` (its fewest layers shipped)."""
    model = load(task, n_heads, seed, dtype=DTYPE, n_layers=min(task.depths))
    return _of_model(model, task.vocab, task)


def _is_model(value: object) -> bool:
    return isinstance(value, nn.Module) and all(
        hasattr(value, name) for name in ("embed", "position", "layers", "readouts")
    )


WHAT = (
    "None (the running example's layer), a mha.training.Task (its shipped models), "
    "a TrainingRun, a RunningExample, a layer of width 8 (mha.MultiHeadAttention "
    "or nn.MultiheadAttention), a model with embed, position, layers and "
    "readouts such as mha.training.ToyModel (with vocab=), or a dict of these by label"
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
    ``layers`` and ``readouts`` (a `mha.training.model.ToyModel`), given with its
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
    elif isinstance(model, (MultiHeadAttention, nn.MultiheadAttention)):
        network = _of_layer(model)
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
