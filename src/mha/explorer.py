"""The attention explorer: change the heads, the mask, the sentence, the weights.

One function, :func:`attention_explorer`, builds it with one of two back-ends:

- **live** (a Python kernel is running): every change recomputes the
  attention with :class:`~mha.attention.MultiHeadAttention` and redraws it with
  :func:`~mha.plotting.display_attention`; a text box takes the reader's own sentence.
- **static** (the built web page, no kernel): every combination of settings
  is computed in advance by the same code and the controls switch between
  them in the browser (nested ``Stack`` widgets ``jslink``-ed to the controls).

The book is built with ``MHA_EXPLORER=static`` (the Makefile sets it), so
the page shows the static explorer; a reader running the notebook gets the
live one.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import html
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

import ipywidgets as widgets
import numpy
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg

from mha.example import MAX_LENGTH, SENTENCES, running_example
from mha.masks import causal_mask, padding_mask
from mha.plotting import _label_axes, digest, display_attention
from mha.text import PAD, tokenize
from mha.training import HEAD_COUNTS, trained_model

MASKS = ("none", "causal", "padding")
WEIGHTS = ("random", "trained")
MAX_PAD = 3  # the padding slider: 1 to 3 trailing <pad> tokens
GRIDS = {1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (2, 4)}  # rows × columns of maps
PANEL_INCHES = {1: 3.0, 2: 2.6, 4: 2.4, 8: 1.9}  # so that each frame fills about a page's width
_MASK_TEXT = {"none": "no mask", "causal": "causal mask", "padding": "padding mask"}


@dataclass(frozen=True)
class Settings:
    """One state of the explorer.

    Attributes:
        sentence: the text whose self-attention is shown.
        n_heads: number of heads, a divisor of d_model = 8.
        mask: ``"none"``, ``"causal"`` or ``"padding"``.
        n_pad: with the padding mask, how many trailing tokens are replaced
            by ``<pad>`` (and blocked as keys).
        weights: ``"random"`` (the running example's seeded layer) or
            ``"trained"`` (the previous-word model of the trained-heads chapter).
    """

    sentence: str = SENTENCES[0]
    n_heads: int = 4
    mask: str = "none"
    n_pad: int = 1
    weights: str = "random"

    def __post_init__(self):
        if self.n_heads not in HEAD_COUNTS:
            raise ValueError(f"n_heads must be one of {HEAD_COUNTS}, got {self.n_heads}")
        if self.mask not in MASKS:
            raise ValueError(f"mask must be one of {MASKS}, got {self.mask!r}")
        if self.weights not in WEIGHTS:
            raise ValueError(f"weights must be one of {WEIGHTS}, got {self.weights!r}")
        if not 0 <= self.n_pad < MAX_LENGTH:
            raise ValueError(f"n_pad must lie in [0, {MAX_LENGTH}), got {self.n_pad}")


def sentence_tokens(sentence: str) -> list[str]:
    """The tokens of a sentence the explorer can show, or a ValueError that says why not."""
    tokens = tokenize(sentence)
    if len(tokens) > MAX_LENGTH:
        raise ValueError(
            f"the sentence has {len(tokens)} words, but the positional encoding covers "
            f"at most {MAX_LENGTH}; shorten it"
        )
    return tokens


def attention_maps(settings: Settings) -> tuple[list[str], torch.Tensor]:
    """The tokens shown (with ``<pad>``) and the attention ``(n_heads, L, L)`` for ``settings``."""
    ex = running_example(settings.n_heads)
    tokens = sentence_tokens(settings.sentence)
    n_pad = min(settings.n_pad, len(tokens) - 1) if settings.mask == "padding" else 0
    tokens = tokens[: len(tokens) - n_pad] + [PAD] * n_pad
    ids = torch.tensor([ex.vocab.encode(tokens)])  # (1, L)
    mask = None
    if settings.mask == "causal":
        mask = causal_mask(len(tokens))  # (L, L)
    elif settings.mask == "padding":
        mask = padding_mask(ids, ex.vocab.pad_id)  # (1, 1, 1, L)
    model = trained_model(settings.n_heads) if settings.weights == "trained" else None
    with torch.no_grad():
        if model is not None:
            _, probs = model(ids, mask)  # (1, n_heads, L, L)
        else:
            X = ex.position(ex.embed(ids))  # (1, L, d_model)
            _, probs = ex.attention(X, X, X, mask)  # (1, n_heads, L, L)
    return tokens, probs[0]


def caption(settings: Settings, tokens: Sequence[str]) -> str:
    """Plain-text description of what a frame shows."""
    d_key = 8 // settings.n_heads
    heads = f"{settings.n_heads} head{'s' if settings.n_heads > 1 else ''} (d_key = {d_key})"
    mask = _MASK_TEXT[settings.mask]
    if settings.mask == "padding":
        mask += f", {tokens.count(PAD)} trailing <pad>"
    return f"“{settings.sentence}” · {heads} · {mask} · {settings.weights} weights"


class _Canvas:
    """A figure from :func:`~mha.plotting.display_attention` kept for redrawing fast.

    Everything but the maps themselves (labels, titles, colour bar) is drawn
    once per set of token labels and kept as a background; a redraw puts the
    new maps on top of it. Sentences of the same length whose labels need the
    same room share one figure: only their labels are swapped.
    """

    def __init__(self, n_heads: int, tokens: tuple[str, ...]):
        n_rows, n_cols = GRIDS[n_heads]
        blank = torch.zeros(n_heads, len(tokens), len(tokens))
        self.figure = display_attention(tokens, tokens, blank, n_heads, n_rows, n_cols,
                                        annotate=False, head_size=PANEL_INCHES[n_heads],
                                        dpi=80)
        self.canvas = FigureCanvasAgg(self.figure)
        self.images = [ax.images[0] for ax in self.figure.axes if ax.images]
        self.labelled = [(i % n_cols == 0, i // n_cols == n_rows - 1) for i in range(n_heads)]
        # Draw everything once without the maps and the token labels: the bare
        # background. Labels are drawn onto a copy of it for each set of tokens.
        for image in self.images:
            image.set_visible(False)
            _label_axes(image.axes, [], [])
        self.canvas.draw()
        self.bare = self.canvas.copy_from_bbox(self.figure.bbox)
        for image in self.images:
            image.set_visible(True)
        self.tokens = None

    def _relabel(self, tokens: tuple[str, ...]) -> None:
        self.canvas.restore_region(self.bare)
        for image, (left, bottom) in zip(self.images, self.labelled, strict=True):
            axes = image.axes
            _label_axes(axes, tokens if left else [], tokens if bottom else [])
            if left:
                axes.draw_artist(axes.yaxis)
            if bottom:
                axes.draw_artist(axes.xaxis)
        self.background = self.canvas.copy_from_bbox(self.figure.bbox)
        self.tokens = tokens

    def draw(self, tokens: tuple[str, ...], attention: torch.Tensor):
        """The figure with ``attention (n_heads, L, L)`` drawn in, as a PIL image."""
        from PIL import Image

        if tokens != self.tokens:
            self._relabel(tokens)
        self.canvas.restore_region(self.background)
        for image, matrix in zip(self.images, attention, strict=True):
            image.set_data(matrix.numpy())
            image.axes.draw_artist(image)
            for spine in image.axes.spines.values():
                image.axes.draw_artist(spine)
        return Image.fromarray(numpy.asarray(self.canvas.buffer_rgba())).convert("RGB")


@functools.lru_cache(maxsize=16)
def _canvas(n_heads: int, length: int, label_room: int) -> _Canvas:
    # Made with placeholder labels of the widest length; real labels are swapped in.
    return _Canvas(n_heads, ("M" * label_room,) * length)


def frame_png(settings: Settings) -> tuple[bytes, list[str]]:
    """The attention maps for ``settings`` as a small PNG, drawn by
    :func:`~mha.plotting.display_attention`."""
    from PIL import Image

    tokens, probs = attention_maps(settings)
    room = max(len(t) for t in tokens)
    image = _canvas(settings.n_heads, len(tokens), room).draw(tuple(tokens), probs)
    # 160 colours keep the colour bar smooth at under half the size of a
    # full-colour PNG; the octree method takes a few milliseconds.
    small = image.quantize(colors=160, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    small.save(buffer, format="PNG")
    return buffer.getvalue(), tokens


def frame_html(settings: Settings) -> str:
    """One frame: the figure (with alt text) and a caption stating the settings."""
    png, tokens = frame_png(settings)
    text = caption(settings, tokens)
    alt = (f"Attention maps, one per head, rows are query tokens and columns key tokens: {text}")
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<figure style="margin:0"><img src="data:image/png;base64,{data}" '
        f'alt="{html.escape(alt)}" style="max-width:100%;height:auto">'
        f'<figcaption style="font-size:0.9em">{html.escape(text)}</figcaption></figure>'
    )


class Explorer(widgets.VBox):
    """The explorer's widget tree.

    Attributes:
        mode: ``"live"`` or ``"static"``.
        n_frames: how many frames were drawn (static: all combinations).
        controls: the controls by setting name (``"n_heads"``, ``"mask"``, …).
        links: the browser-side links (``jslink``) from controls to Stacks.
        settings: the settings shown now (live mode).
        text, message, view: the live explorer's text box, message line and frame.
    """

    def __init__(self, children, mode: str, n_frames: int, controls: dict, links: list):
        super().__init__(children)
        self.mode = mode
        self.n_frames = n_frames
        self.controls = controls
        self.links = links

    def __repr__(self) -> str:
        # The digest of every frame makes a stored notebook's text output change
        # whenever a picture would, so nbval catches stale widget state.
        frames = [w.value for w in _leaves(self.children[-1]) if isinstance(w, widgets.HTML)]
        fingerprint = digest("".join(frames))
        return f"Explorer(mode={self.mode!r}, frames={self.n_frames}, digest={fingerprint})"


def _controls(sentences, head_counts, masks, weights, initial: Settings) -> dict:
    """The controls that have more than one option, by setting name."""
    style = {"description_width": "initial"}
    controls = {}
    if len(weights) > 1:
        controls["weights"] = widgets.ToggleButtons(
            options=list(weights), index=weights.index(initial.weights), description="Weights:",
            style=style)
    if len(sentences) > 1:
        controls["sentence"] = widgets.Dropdown(
            options=list(sentences), index=sentences.index(initial.sentence),
            description="Sentence:", style=style, layout=widgets.Layout(width="max-content"))
    if len(masks) > 1:
        controls["mask"] = widgets.ToggleButtons(
            options=list(masks), index=masks.index(initial.mask), description="Mask:", style=style)
    if "padding" in masks:
        controls["n_pad"] = widgets.SelectionSlider(
            options=list(range(1, MAX_PAD + 1)), value=initial.n_pad,
            description="Padding tokens:", style=style)
    if len(head_counts) > 1:
        controls["n_heads"] = widgets.SelectionSlider(
            options=list(head_counts), value=initial.n_heads, description="Heads:", style=style)
    return controls


def _arrange(controls: dict, links: list) -> list[widgets.Widget]:
    """Controls in display order; the padding slider only shows with the padding mask."""
    rows = []
    for name, control in controls.items():
        if name == "n_pad" and "mask" in controls:
            masks = list(controls["mask"].options)
            pages = [control if m == "padding" else widgets.HTML("") for m in masks]
            holder = widgets.Stack(pages, selected_index=masks.index(controls["mask"].value))
            links.append(widgets.jslink((controls["mask"], "index"), (holder, "selected_index")))
            rows.append(holder)
        else:
            rows.append(control)
    return rows


def _leaves(widget: widgets.Widget) -> list[widgets.Widget]:
    """The widgets at the ends of a tree of Stacks (the frames)."""
    if isinstance(widget, widgets.Stack):
        return [leaf for child in widget.children for leaf in _leaves(child)]
    return [widget]


def _first_settings(sentences, head_counts, masks, weights) -> Settings:
    n_heads = 4 if 4 in head_counts else head_counts[0]
    return Settings(sentences[0], n_heads, masks[0], 1, weights[0])


def static_explorer(sentences=SENTENCES, head_counts=HEAD_COUNTS, masks=MASKS, weights=WEIGHTS,
                    initial: Settings | None = None) -> Explorer:
    """Every combination precomputed; the controls switch frames in the browser."""
    initial = initial or _first_settings(sentences, head_counts, masks, weights)
    controls = _controls(sentences, head_counts, masks, weights, initial)
    levels = [(name, options) for name, options in (
        ("weights", weights), ("sentence", sentences), ("mask", masks),
        ("n_pad", tuple(range(1, MAX_PAD + 1))), ("n_heads", head_counts)) if name in controls]
    links = []

    def leaves(level: int, settings: Settings):
        """Every combination of settings the tree below ``level`` holds."""
        if level == len(levels):
            yield settings
            return
        name, options = levels[level]
        if name == "n_pad" and settings.mask != "padding":
            yield from leaves(level + 1, settings)
            return
        for option in options:
            yield from leaves(level + 1, replace(settings, **{name: option}))

    # Draw the frames grouped by figure layout (heads, sentence, padding), so
    # each kept figure is reused for all the frames that share it.
    every = list(leaves(0, initial))
    by_layout = sorted(every, key=lambda st: (st.n_heads, st.sentence, st.mask == "padding",
                                              st.n_pad))
    frames = {settings: frame_html(settings) for settings in by_layout}

    def build(level: int, settings: Settings) -> widgets.Widget:
        if level == len(levels):
            return widgets.HTML(frames[settings])
        name, options = levels[level]
        if name == "n_pad" and settings.mask != "padding":
            return build(level + 1, settings)
        children = [build(level + 1, replace(settings, **{name: option})) for option in options]
        stack = widgets.Stack(children, selected_index=controls[name].index)
        links.append(widgets.jslink((controls[name], "index"), (stack, "selected_index")))
        return stack

    view = build(0, initial)
    return Explorer([*_arrange(controls, links), view], "static", len(frames), controls, links)


def live_explorer(sentences=SENTENCES, head_counts=HEAD_COUNTS, masks=MASKS, weights=WEIGHTS,
                  initial: Settings | None = None) -> Explorer:
    """Every change recomputes with the real layer; also takes a typed sentence."""
    initial = initial or _first_settings(sentences, head_counts, masks, weights)
    controls = _controls(sentences, head_counts, masks, weights, initial)
    text = widgets.Text(placeholder="Type a sentence of your own and press Enter",
                        continuous_update=False, layout=widgets.Layout(width="30em"))
    message = widgets.HTML("")
    view = widgets.HTML(frame_html(initial))
    links = []
    explorer = Explorer([*_arrange(controls, links), text, message, view], "live", 1, controls,
                        links)
    explorer.text, explorer.message, explorer.view = text, message, view
    explorer.settings = initial

    def show(settings: Settings) -> None:
        try:
            view.value = frame_html(settings)
        except ValueError as error:
            message.value = _message(str(error))
            return
        explorer.settings = settings
        unknown = [t for t in tokenize(settings.sentence) if t not in running_example().vocab]
        message.value = _message(
            f"not in the vocabulary, shown as <unk>: {', '.join(unknown)}") if unknown else ""

    def on_control(change, name) -> None:
        if name == "sentence":
            with text.hold_trait_notifications(), _quiet(text, on_text):
                text.value = ""  # the drop-down's sentence replaces a typed one
        show(replace(explorer.settings, **{name: change["new"]}))

    def on_text(change) -> None:
        typed = change["new"]
        if not typed.strip():
            message.value = _message("type at least one word")
            return
        try:
            sentence_tokens(typed)
        except ValueError as error:
            message.value = _message(str(error))
            return
        show(replace(explorer.settings, sentence=typed))

    for name, control in controls.items():
        control.observe(lambda change, name=name: on_control(change, name), names="value")
    text.observe(on_text, names="value")
    return explorer


@contextlib.contextmanager
def _quiet(widget: widgets.Widget, handler):
    """Change ``widget`` without calling ``handler``."""
    widget.unobserve(handler, names="value")
    try:
        yield
    finally:
        widget.observe(handler, names="value")


def _message(text: str) -> str:
    return f'<p role="status" style="color:#8a3b00;margin:2px 0">{html.escape(text)}</p>'


def attention_explorer(
    sentences: Sequence[str] = SENTENCES,
    head_counts: Sequence[int] = HEAD_COUNTS,
    masks: Sequence[str] = MASKS,
    weights: Sequence[str] = WEIGHTS,
    mode: str | None = None,
) -> Explorer:
    """The attention explorer with the given options (a control appears only
    where there is more than one option).

    ``mode`` is ``"live"``, ``"static"`` or, by default, taken from the
    environment variable ``MHA_EXPLORER`` (``"live"`` when it is unset).
    """
    mode = mode or os.environ.get("MHA_EXPLORER", "live")
    build = {"live": live_explorer, "static": static_explorer}
    if mode not in build:
        raise ValueError(f"mode must be 'live' or 'static', got {mode!r}")
    sentences, head_counts = tuple(sentences), tuple(head_counts)
    masks, weights = tuple(masks), tuple(weights)
    for name, values, allowed in (("head_counts", head_counts, HEAD_COUNTS),
                                  ("masks", masks, MASKS), ("weights", weights, WEIGHTS)):
        if not values or any(v not in allowed for v in values):
            raise ValueError(f"{name} must be a non-empty subset of {allowed}, got {values}")
    if not sentences:
        raise ValueError("sentences must hold at least one sentence")
    for sentence in sentences:
        sentence_tokens(sentence)
    return build[mode](sentences, head_counts, masks, weights)
