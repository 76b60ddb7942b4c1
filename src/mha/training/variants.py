"""The controls shipped beside :data:`~mha.training.agreement.FRONTED`'s
models in ``fronted.pt`` (:data:`VARIANTS`): a matched one layer, and two
layers trained twice as long, with and without :class:`ShiftedPositions`;
how they are trained (:func:`train_variant`), saved and loaded."""

from __future__ import annotations

import torch

from mha._checks import check_choice, check_int
from mha._threads import one_thread
from mha.defaults import D_MODEL
from mha.embedding import PositionalEncoding
from mha.training.agreement import FRONTED
from mha.training.loop import fit, new_model, training_batches
from mha.training.measures import behaviour
from mha.training.model import ToyModel


class ShiftedPositions(PositionalEncoding):
    """The sinusoidal position codes, each sentence's shifted by a random
    offset in ``[0, shift]`` while the module is training (position ``i``
    gets the code of ``i + offset``), unshifted in eval mode: a model trained
    with it cannot tell where a word stands from its code alone, only how
    far apart two words are."""

    def __init__(self, d_model: int, max_length: int, shift: int):
        """Codes for ``max_length + shift`` positions (no dropout): a
        sentence of ``max_length`` words shifted by up to ``shift``."""
        check_int("shift", shift, minimum=0)
        super().__init__(d_model, dropout=0.0, max_length=max_length + shift)
        self.shift = shift

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (batch, seq_len, d_model)`` plus each sentence's codes, shifted
        by a random offset while training."""
        if not self.training:
            return super().forward(x)
        n, length, _ = x.shape  # (batch, seq_len, d_model)
        offsets = torch.randint(self.shift + 1, (n, 1))  # (batch, 1)
        return (
            x + self.pe[0, offsets + torch.arange(length)]
        )  # (batch, seq_len, d_model)


#: The models shipped in ``fronted.pt`` beside
#: :data:`~mha.training.agreement.FRONTED`'s, each of two layers on a
#: residual stream, causal in both (:func:`~mha.training.loop.new_model`),
#: trained on its sentences:
#:
#: - ``"one layer, residual"``: its recipe, the second layer writing nothing
#:   (one causal layer on a residual stream; only the second layer differs);
#: - ``"longer"``: twice its steps;
#: - ``"shifted"``: twice its steps, with :class:`ShiftedPositions` (shift
#:   :data:`SHIFT`) while training; unshifted codes after.
VARIANTS = ("one layer, residual", "longer", "shifted")
#: The largest offset of :class:`ShiftedPositions` in the ``"shifted"`` models.
SHIFT = 10


def train_variant(variant: str, seed: int) -> ToyModel:
    """Train one of :data:`VARIANTS` as :func:`~mha.training.loop.train` trains
    :data:`~mha.training.agreement.FRONTED`'s two-layer models (the same seeds, the same fixed set
    of training batches, the same learning rate), in eval mode after."""
    check_choice("variant", variant, VARIANTS)
    check_int("seed", seed, minimum=0)
    task = FRONTED
    steps = task.steps if variant == "one layer, residual" else 2 * task.steps
    with one_thread(), torch.enable_grad():
        torch.manual_seed(seed)
        model = new_model(task, 4, n_layers=2)
        if variant == "one layer, residual":  # layer 2 writes nothing, ever
            torch.nn.init.zeros_(model.layers[1].Wo.weight)
            torch.nn.init.zeros_(model.layers[1].Wo.bias)
            model.layers[1].requires_grad_(False)
        if variant == "shifted":
            model.position = ShiftedPositions(D_MODEL, task.max_length, SHIFT)
        generator = torch.Generator().manual_seed(seed + 1)
        fit(model, training_batches(task, generator, task.batch_size), steps, task.lr)
    model.position = PositionalEncoding(D_MODEL, 0.0, task.max_length)
    return model.eval().requires_grad_(False)


def save_variants(
    variants: tuple[str, ...] = VARIANTS, path=None
) -> dict[tuple[str, int], float]:
    """Train ``variants`` (of :data:`VARIANTS`) for :data:`~mha.training.agreement.FRONTED`'s seeds
    and add them to its weights file (made first by
    :func:`~mha.training.loop.save`); returns each model's share right on
    held-out fronted sentences."""
    for variant in variants:
        check_choice("variants[i]", variant, VARIANTS)
    path = FRONTED.weights_file if path is None else path
    right_on, states = {}, {}
    for variant in variants:
        models = [train_variant(variant, seed) for seed in FRONTED.seeds]
        states[variant] = {
            name: torch.stack([m.state_dict()[name] for m in models])
            for name in models[0].state_dict()
        }
        for seed, model in zip(FRONTED.seeds, models, strict=True):
            right_on[variant, seed] = behaviour(FRONTED, model, split="fronted")[
                "joint"
            ]
    # The file as it is now (another process may have added to it meanwhile).
    torch.save(torch.load(path, weights_only=True) | states, path)
    return right_on


def load_variant(
    variant: str, seed: int = 0, dtype: torch.dtype = torch.float64
) -> torch.nn.Module:
    """One of :data:`VARIANTS` for ``seed``, from the weights shipped in
    ``fronted.pt`` (:func:`save_variants`), in ``dtype`` (by default
    float64, as the chapters print), eval mode."""
    check_choice("variant", variant, VARIANTS)
    check_choice("seed", seed, FRONTED.seeds)
    stacked = torch.load(FRONTED.weights_file, weights_only=True).get(variant)
    if stacked is None:
        raise FileNotFoundError(
            f"{FRONTED.weights_file.name} holds no {variant!r} models; make them "
            "with `python scripts/weights.py fronted`"
        )
    model = new_model(FRONTED, 4, n_layers=2)
    index = FRONTED.seeds.index(seed)
    model.load_state_dict({name: w[index] for name, w in stacked.items()})
    return model.to(dtype).eval().requires_grad_(False)
