"""Training a task's toy model, and the shipped weights.

Training runs in float32, seeded and on one CPU thread: a few seconds for
the default settings, and the same numbers on every run on one machine. On
another processor the kernels sum in another order, the last bits of float32
differ, and training amplifies them: the same seed gives visibly different
weights that have learned the same thing (the same accuracy, the same
pattern in the maps). So trained models are judged by their behaviour, never
by equality with a file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from mha._checks import check_choice, check_int, check_number
from mha._threads import one_thread
from mha.defaults import D_MODEL
from mha.training.measures import behaviour
from mha.training.model import HEAD_COUNTS, ToyModel
from mha.training.task import IGNORE, Task, check_task


def fit(
    model: nn.Module,
    next_batch: Callable[[], tuple[torch.Tensor, torch.Tensor]],
    steps: int,
    lr: float,
) -> list[float]:
    """The training loop of every task: ``steps`` steps of Adam, the learning
    rate rising to ``lr`` and falling back to almost zero (a one-cycle
    schedule). ``next_batch()`` returns a fresh ``(ids, targets)``;
    ``model(ids)`` returns ``(logits, attn_probs)``, the logits shaped like the
    targets plus a last axis over the vocabulary. Returns the loss after
    every step."""
    check_int("steps", steps)
    check_number("lr", lr)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=lr, total_steps=steps
    )
    losses = []
    for _ in range(steps):
        # Random sentences (batch, length) and their answers.
        ids, targets = next_batch()
        # A score for every word of the vocabulary, for every answer at every position.
        logits, _ = model(ids)
        loss = F.cross_entropy(
            logits.flatten(0, -2), targets.flatten(), ignore_index=IGNORE
        )
        optimizer.zero_grad()  # forget the previous step's gradients
        loss.backward()  # the gradient of the loss with respect to every weight
        optimizer.step()  # move every weight a small step against its gradient
        schedule.step()  # the learning rate of the next step
        losses.append(loss.item())
    return losses


@dataclass
class TrainingRun:
    """A trained model and how it got there.

    Attributes:
        task: the :class:`~mha.training.task.Task` it was trained on.
        model: the trained :class:`~mha.training.model.ToyModel`, in eval
            mode, gradients off.
        losses: the training loss after every step.
        accuracy: the ``"joint"`` accuracy of
            :func:`~mha.training.measures.behaviour`: every answer right at the
            same position, on held-out sentences.
    """

    task: Task
    model: ToyModel
    losses: list[float]
    accuracy: float


def new_model(
    task: Task,
    n_heads: int = 4,
    dtype: torch.dtype = torch.float32,
    n_layers: int = 1,
    d_key: int | None = None,
) -> ToyModel:
    """A freshly initialised :class:`~mha.training.model.ToyModel` for
    ``task`` (drawn from PyTorch's global random generator): one layer, the
    book's pipeline; or two on a residual stream, causal in both, as in
    Elhage et al. (2021). A task that asks for the next word
    (``task.next_word``) gets a causal model at any depth."""
    check_task(task)
    if d_key is None:  # the convention: heads of d_model // n_heads features
        check_choice("n_heads", n_heads, HEAD_COUNTS)
    check_choice("n_layers", n_layers, (1, 2))
    deep = n_layers > 1
    return ToyModel(
        len(task.vocab),
        len(task.answers),
        D_MODEL,
        n_heads,
        task.max_length,
        dtype,
        d_key=d_key,
        n_layers=n_layers,
        residual=deep,
        causal=deep or task.next_word,
    )


def training_batches(
    task: Task, generator: torch.Generator, batch_size: int
) -> Callable[[], tuple[torch.Tensor, torch.Tensor]]:
    """The training batches of ``task`` for :func:`fit`: each call gives
    ``(ids, targets)`` of ``batch_size`` sentences of one random length in
    ``task.lengths``, freshly drawn or, where the task has ``train_batches``,
    one of that many batches drawn once (a fixed training set, in random
    order); drawn from ``generator``."""
    low, high = task.lengths

    def fresh_batch():
        length = int(torch.randint(low, high + 1, (1,), generator=generator))
        batch = task.batch(generator, batch_size, length)
        return batch.ids, batch.targets

    if task.train_batches is None:
        return fresh_batch
    fixed = [fresh_batch() for _ in range(task.train_batches)]

    def next_batch():
        return fixed[int(torch.randint(len(fixed), (1,), generator=generator))]

    return next_batch


@functools.cache
def train(
    task: Task,
    n_heads: int = 4,
    seed: int = 0,
    steps: int | None = None,
    batch_size: int | None = None,
    lr: float | None = None,
    n_layers: int = 1,
    d_key: int | None = None,
) -> TrainingRun:
    """Train a model for ``task`` with :func:`fit` on its random sentences, each
    batch of one random length in ``task.lengths``; ``steps``, ``batch_size``
    and ``lr`` default to the task's; the model is :func:`new_model`'s, of
    ``n_layers`` layers; ``d_key``, each head's width, is ``d_model //
    n_heads`` unless given.

    Runs in float32 (whatever PyTorch's default dtype is), seeded, on one CPU
    thread: repeatable on one machine, but not digit for digit on another
    processor (see the module's description). Cached: the same arguments
    return the same :class:`TrainingRun` (and model) for the rest of the session.
    """
    check_task(task)
    check_int("seed", seed, minimum=0)
    steps = task.steps if steps is None else steps
    batch_size = check_int(
        "batch_size", task.batch_size if batch_size is None else batch_size
    )
    lr = task.lr if lr is None else lr
    with one_thread(), torch.enable_grad():
        torch.manual_seed(seed)
        model = new_model(task, n_heads, n_layers=n_layers, d_key=d_key)
        generator = torch.Generator().manual_seed(seed + 1)
        next_batch = training_batches(task, generator, batch_size)
        losses = fit(model, next_batch, steps, lr)
        model.eval().requires_grad_(False)
    return TrainingRun(task, model, losses, behaviour(task, model)["joint"])


def _key(
    n_layers: int, n_heads: int, d_key: int | None = None
) -> int | tuple[int, ...]:
    """Where a model's weights sit in a task's file: a one-layer model's under
    its head count (as in the files made before two-layer models), a
    two-layer model's under ``(2, n_heads)``, and a one-layer model whose
    heads have a width of their own (``task.layouts``) under ``(1, n_heads,
    d_key)``."""
    if d_key is not None:
        return (n_layers, n_heads, d_key)
    return n_heads if n_layers == 1 else (n_layers, n_heads)


def save(
    task: Task,
    path: str | Path | None = None,
    kinds: list[tuple[int, int, int | None]] | None = None,
) -> dict[tuple[int, int, int | None, int], dict]:
    """Train a model for every depth in ``task.depths``, every head count in
    ``task.head_counts``, every layout in ``task.layouts`` and every seed
    of ``task.seeds`` (the task's settings otherwise), save their weights to
    ``path`` (by default ``task.weights_file``, in the package) and return
    what each learned, ``{(n_layers, n_heads, d_key, seed): behaviour(task,
    model)}`` (``d_key`` ``None`` where it is ``d_model // n_heads``).

    With ``kinds``, a list of ``(n_layers, n_heads, d_key)`` of the task's,
    only those are trained and replaced; the file's other models are kept
    (a layout added to a task, without retraining the models shipped before,
    which on another processor would come out different)."""
    check_task(task)
    path = task.weights_file if path is None else Path(path)
    every = [(depth, n, None) for depth in task.depths for n in task.head_counts]
    every += [(1, n, d_key) for n, d_key in task.layouts]
    if kinds is None:
        kinds, kept = every, {}
    else:
        for i, kind in enumerate(kinds):
            check_choice(f"kinds[{i}]", kind, every)
        kept = torch.load(path, weights_only=True) if path.exists() else {}
    models = {
        (*kind, seed): train(task, kind[1], seed, n_layers=kind[0], d_key=kind[2]).model
        for kind in kinds
        for seed in task.seeds
    }
    # One tensor per weight and kind of model, the seeds stacked on its first
    # axis: a file a few times smaller than one state_dict per model.
    states = kept | {
        _key(*kind): {
            name: torch.stack(
                [models[(*kind, seed)].state_dict()[name] for seed in task.seeds]
            )
            for name in models[(*kind, task.seeds[0])].state_dict()
        }
        for kind in kinds
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(states, path)
    return {key: behaviour(task, model) for key, model in models.items()}


@functools.cache
def _shipped_states(path: Path) -> dict:
    if not path.exists():
        raise FileNotFoundError(
            f"{path.name} is not in the package's data folder; make it with `make weights`"
        )
    return torch.load(path, weights_only=True)


def load(
    task: Task,
    n_heads: int = 4,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
    n_layers: int = 1,
    d_key: int | None = None,
) -> ToyModel:
    """The model :func:`train` gives for ``task`` with its default settings
    and this ``seed`` (and ``n_layers``; and ``d_key``, for one of
    ``task.layouts`` or the conventional ``d_model // n_heads``), loaded from
    the weights shipped with the package (``task.weights_file``, made by
    :func:`save`: ``make weights``).

    The weights are float32, as trained; with ``dtype=torch.float64`` the
    model computes in float64, as the running example does, so that what the
    book prints from it is the same on every machine. The model is in eval
    mode, gradients off.
    """
    check_task(task)
    check_choice("seed", seed, task.seeds)
    if d_key is not None and n_heads * d_key == D_MODEL:  # the convention's width
        d_key = None
    if d_key is None:
        check_choice("n_layers", n_layers, task.depths)
        check_choice("n_heads", n_heads, task.head_counts)
    elif (n_layers, n_heads, d_key) not in [(1, *layout) for layout in task.layouts]:
        shipped = ", ".join(f"n_heads={n}, d_key={k}" for n, k in task.layouts)
        raise ValueError(
            f"n_heads={n_heads}, d_key={d_key}, n_layers={n_layers} is not a shipped "
            f"layout of task {task.name!r}; one layer with "
            f"{shipped or 'no width of its own'}, or d_key=None for the head "
            f"counts {task.head_counts}"
        )
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(
            f"dtype must be a floating-point torch.dtype such as torch.float64, "
            f"got {type(dtype).__name__} {dtype!r}"
        )
    # {name: (n_seeds, ...)}
    stacked = _shipped_states(task.weights_file)[_key(n_layers, n_heads, d_key)]
    index = task.seeds.index(seed)
    model = new_model(task, n_heads, n_layers=n_layers, d_key=d_key)
    model.load_state_dict({name: weights[index] for name, weights in stacked.items()})
    return model.to(dtype).eval().requires_grad_(False)
