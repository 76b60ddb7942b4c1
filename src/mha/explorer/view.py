"""The explorer's widgets: controls, and the frames they switch between.

- **live** (a Python kernel is running): every change recomputes the frame
  with the real layer; a text box takes the reader's own sentence.
- **static** (the built web page, no kernel): every combination of settings
  is drawn in advance and the controls switch between the frames in the
  browser (nested ``Stack`` widgets ``jslink``-ed to the controls).
"""

from __future__ import annotations

import contextlib
import html
from dataclasses import replace

import ipywidgets as widgets

from mha.example import running_example
from mha.explorer.frames import frame_html
from mha.explorer.model import MAX_PAD, Settings, sentence_tokens
from mha.plotting.core import digest
from mha.text import tokenize

SETTING_NAMES = {
    "weights": "weights",
    "sentence": "sentence",
    "mask": "mask",
    "n_pad": "padding",
    "n_heads": "heads",
}


class Explorer(widgets.VBox):
    """The explorer's widget tree.

    Attributes:
        mode: ``"live"`` or ``"static"``.
        controls: the controls by setting name (``"n_heads"``, ``"mask"``, …).
        links: the browser-side links (``jslink``) from controls to Stacks.
        fingerprints: a fingerprint of what each frame shows (static: every
            frame; live: the frame shown now).
        text, message, view: the live explorer's text box, message line and
            frame (``None`` in a static explorer).
        settings: the settings shown now.
    """

    def __init__(
        self,
        children,
        mode: str,
        controls: dict,
        links: list,
        fingerprints: list[str],
        settings: Settings,
        text=None,
        message=None,
        view=None,
    ):
        super().__init__(children)
        self.mode = mode
        self.controls = controls
        self.links = links
        self.fingerprints = fingerprints
        self.settings = settings
        self.text, self.message, self.view = text, message, view

    def __repr__(self) -> str:
        # What GitHub, nbviewer and a notebook that has not run yet show in
        # place of the widget; the fingerprint of the frames makes a stored
        # notebook's text change whenever a frame would, so nbval catches
        # stale widget state.
        settings = ", ".join(SETTING_NAMES[name] for name in self.controls)
        return (
            f"Attention explorer ({len(self.fingerprints)} "
            f"view{'s' * (len(self.fingerprints) > 1)}; controls: {settings or 'none'}). "
            "Run this cell in Jupyter to use it; on the book's web page it works as is. "
            f"[content {digest(''.join(self.fingerprints))}]"
        )


def _controls(sentences, head_counts, masks, weights, initial: Settings) -> dict:
    """The controls that have more than one option, by setting name."""
    style = {"description_width": "initial"}
    controls = {}
    if len(weights) > 1:
        controls["weights"] = widgets.ToggleButtons(
            options=list(weights),
            index=weights.index(initial.weights),
            description="Weights:",
            style=style,
        )
    if len(sentences) > 1:
        controls["sentence"] = widgets.Dropdown(
            options=list(sentences),
            index=sentences.index(initial.sentence),
            description="Sentence:",
            style=style,
            layout=widgets.Layout(width="max-content"),
        )
    if len(masks) > 1:
        controls["mask"] = widgets.ToggleButtons(
            options=list(masks), index=masks.index(initial.mask), description="Mask:", style=style
        )
    if "padding" in masks:
        controls["n_pad"] = widgets.SelectionSlider(
            options=list(range(1, MAX_PAD + 1)),
            value=initial.n_pad,
            description="Padding tokens:",
            style=style,
        )
    if len(head_counts) > 1:
        controls["n_heads"] = widgets.SelectionSlider(
            options=list(head_counts), value=initial.n_heads, description="Heads:", style=style
        )
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


def _first_settings(sentences, head_counts, masks, weights) -> Settings:
    n_heads = 4 if 4 in head_counts else head_counts[0]
    return Settings(sentences[0], n_heads, masks[0], 1, weights[0])


def static_explorer(sentences, head_counts, masks, weights) -> Explorer:
    """Every combination precomputed; the controls switch frames in the browser."""
    initial = _first_settings(sentences, head_counts, masks, weights)
    controls = _controls(sentences, head_counts, masks, weights, initial)
    levels = [
        (name, options)
        for name, options in (
            ("weights", weights),
            ("sentence", sentences),
            ("mask", masks),
            ("n_pad", tuple(range(1, MAX_PAD + 1))),
            ("n_heads", head_counts),
        )
        if name in controls
    ]
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
    by_layout = sorted(
        every, key=lambda st: (st.n_heads, st.sentence, st.mask == "padding", st.n_pad)
    )
    frames = {settings: frame_html(settings) for settings in by_layout}

    def build(level: int, settings: Settings) -> widgets.Widget:
        if level == len(levels):
            return widgets.HTML(frames[settings][0])
        name, options = levels[level]
        if name == "n_pad" and settings.mask != "padding":
            return build(level + 1, settings)
        children = [build(level + 1, replace(settings, **{name: option})) for option in options]
        stack = widgets.Stack(children, selected_index=controls[name].index)
        links.append(widgets.jslink((controls[name], "index"), (stack, "selected_index")))
        return stack

    view = build(0, initial)
    fingerprints = [frames[settings][1] for settings in every]
    return Explorer(
        [*_arrange(controls, links), view], "static", controls, links, fingerprints, initial
    )


def live_explorer(sentences, head_counts, masks, weights) -> Explorer:
    """Every change recomputes with the real layer; also takes a typed sentence."""
    initial = _first_settings(sentences, head_counts, masks, weights)
    controls = _controls(sentences, head_counts, masks, weights, initial)
    text = widgets.Text(
        placeholder="Type a sentence of your own and press Enter",
        continuous_update=False,
        layout=widgets.Layout(width="30em"),
    )
    message = widgets.HTML("")
    page, fingerprint = frame_html(initial)
    view = widgets.HTML(page)
    links = []
    explorer = Explorer(
        [*_arrange(controls, links), text, message, view],
        "live",
        controls,
        links,
        [fingerprint],
        initial,
        text,
        message,
        view,
    )

    def show(settings: Settings) -> None:
        try:
            view.value, explorer.fingerprints[0] = frame_html(settings)
        except ValueError as error:
            message.value = _message(str(error))
            return
        explorer.settings = settings
        unknown = [t for t in tokenize(settings.sentence) if t not in running_example().vocab]
        message.value = (
            _message(f"not in the vocabulary, shown as <unk>: {', '.join(unknown)}")
            if unknown
            else ""
        )

    def on_control(change, name) -> None:
        if name == "sentence":
            with _quiet(text, on_text):
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


def leaves(widget: widgets.Widget) -> list[widgets.Widget]:
    """The widgets at the ends of a tree of Stacks (the frames)."""
    if isinstance(widget, widgets.Stack):
        return [leaf for child in widget.children for leaf in leaves(child)]
    return [widget]
