"""What an explorer offers: its controls, and every state they can be in.

No widgets and no HTML here. The live explorer (:mod:`~mha.explorer.live`)
makes ipywidgets of these controls, the static one (:mod:`~mha.explorer.static`)
HTML form controls; both show the frame of :class:`~mha.explorer.model.Settings`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from mha.example import SENTENCES
from mha.explorer.model import MASKS, MAX_PAD, WEIGHTS, Settings, sentence_tokens
from mha.plotting.fingerprint import digest
from mha.training import HEAD_COUNTS

# The order of the controls, top to bottom, and the word a note uses for each.
NAMES = {
    "weights": "weights",
    "sentence": "sentence",
    "mask": "mask",
    "n_pad": "padding",
    "n_heads": "heads",
}
PAD_COUNTS = tuple(range(1, MAX_PAD + 1))


@dataclass(frozen=True)
class Control:
    """One control of an explorer.

    Attributes:
        name: the field of :class:`~mha.explorer.model.Settings` it sets.
        label: what it says, e.g. ``"Heads:"``.
        kind: ``"buttons"`` (one of a few words), ``"menu"`` (one of a few
            sentences) or ``"slider"`` (one of a few numbers, in order).
        options: the values it offers, in order.
    """

    name: str
    label: str
    kind: str
    options: tuple

    def index(self, settings: Settings) -> int:
        """The position of ``settings``' value among the options."""
        return self.options.index(getattr(settings, self.name))


@dataclass(frozen=True)
class Choices:
    """The options of an explorer (a control appears only where there is more
    than one), checked: each a non-empty subset of what the explorer can show."""

    sentences: Sequence[str] = SENTENCES
    head_counts: Sequence[int] = HEAD_COUNTS
    masks: Sequence[str] = MASKS
    weights: Sequence[str] = WEIGHTS

    def __post_init__(self):
        for name in ("sentences", "head_counts", "masks", "weights"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name, values, allowed in (
            ("head_counts", self.head_counts, HEAD_COUNTS),
            ("masks", self.masks, MASKS),
            ("weights", self.weights, WEIGHTS),
        ):
            if not values or any(v not in allowed for v in values):
                raise ValueError(
                    f"{name} must be a non-empty subset of {allowed}, got {values}"
                )
        if not self.sentences:
            raise ValueError(
                f"sentences must hold at least one sentence, got {self.sentences!r}"
            )
        for sentence in self.sentences:
            try:
                sentence_tokens(sentence)
            except (TypeError, ValueError) as error:
                raise type(error)(
                    f"sentences must be ones the explorer can show: {error}"
                ) from None

    def controls(self, always_sentence: bool = False) -> dict[str, Control]:
        """The controls by setting name, top to bottom: those with more than one
        option, the padding slider with the padding mask, and the sentence
        drop-down with ``always_sentence`` (the live explorer adds typed ones)."""
        every = [
            Control("weights", "Weights:", "buttons", self.weights),
            Control("sentence", "Sentence:", "menu", self.sentences),
            Control("mask", "Mask:", "buttons", self.masks),
            Control("n_pad", "Padding tokens:", "slider", PAD_COUNTS),
            Control("n_heads", "Heads:", "slider", self.head_counts),
        ]

        def offered(control: Control) -> bool:
            if control.name == "n_pad":
                return "padding" in self.masks
            return len(control.options) > 1 or (
                control.name == "sentence" and always_sentence
            )

        return {control.name: control for control in every if offered(control)}

    def initial(self) -> Settings:
        """What the explorer shows first: the first option of each control, and
        four heads if they are offered."""
        n_heads = 4 if 4 in self.head_counts else self.head_counts[0]
        return Settings(self.sentences[0], n_heads, self.masks[0], 1, self.weights[0])

    @staticmethod
    def applies(name: str, settings: Settings) -> bool:
        """Whether the control ``name`` changes what ``settings`` show (the
        padding slider only does with the padding mask)."""
        return name != "n_pad" or settings.mask == "padding"

    def every_settings(self) -> list[Settings]:
        """Every state of the controls, each once."""
        everything = []
        for weights, sentence, mask, n_heads in itertools.product(
            self.weights, self.sentences, self.masks, self.head_counts
        ):
            settings = Settings(sentence, n_heads, mask, 1, weights)
            pads = PAD_COUNTS if mask == "padding" else (1,)
            everything += [replace(settings, n_pad=n_pad) for n_pad in pads]
        return everything

    def key(self, settings: Settings) -> str:
        """The positions of ``settings``' values among the controls' options,
        joined by dots, ``-`` for a control that does not apply: ``"0.2.-.1"``."""
        return ".".join(
            str(control.index(settings)) if self.applies(name, settings) else "-"
            for name, control in self.controls().items()
        )


def note(controls: Sequence[str]) -> str:
    """What a notebook shows in an explorer's place before its cell has run."""
    names = ", ".join(NAMES[name] for name in controls)
    return (
        f"Run this cell to use the attention explorer here (controls: {names or 'none'}); "
        "on the book's web page it works without running anything."
    )


def summary(controls: Sequence[str], fingerprints: Sequence[str]) -> str:
    """An explorer's text form: :func:`note` and a fingerprint of what its
    frames show, so that a stored notebook's text changes whenever a frame
    would (nbval compares it)."""
    views = len(fingerprints)
    content = digest("".join(fingerprints))
    return f"{note(controls)} [{views} view{'s' * (views > 1)}, content {content}]"
