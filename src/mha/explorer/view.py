"""The explorer's widgets: controls, and the frames they switch between.

- **live** (a Python kernel is running): every change recomputes the frame
  with the real layer; a text box takes the reader's own sentence.
- **static** (the built web page, no kernel): every combination of settings
  is drawn in advance and the controls switch between the frames in the
  browser (nested ``Stack`` widgets ``jslink``-ed to the controls).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import warnings
from dataclasses import replace

import ipywidgets as widgets

from mha.example import running_example
from mha.explorer.frames import frame_html, missing_glyphs
from mha.explorer.model import MAX_PAD, Settings, sentence_tokens
from mha.plotting.fingerprint import digest
from mha.text import tokenize

LABEL_WIDTH = "8em"  # room for the longest label, "Padding tokens:"
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

    def _repr_mimebundle_(self, **kwargs) -> dict:
        # Besides the widget: the first frame as plain HTML, which JupyterLab
        # (before the cell has run), GitHub and nbviewer show in its place.
        bundle = super()._repr_mimebundle_(**kwargs)
        first = next(
            w for w in leaves(self.children[-1]) if isinstance(w, widgets.HTML)
        )
        bundle["text/html"] = (
            f'{first.value}<p class="mha-message">{html.escape(self._note())}</p>'
        )
        bundle["text/plain"] = repr(self)  # whole: ipywidgets cuts it at 110 characters
        return bundle

    def _note(self) -> str:
        settings = ", ".join(SETTING_NAMES[name] for name in self.controls)
        return (
            f"Run this cell to use the attention explorer here (controls: {settings or 'none'}); "
            "on the book's web page it works without running anything."
        )

    def __repr__(self) -> str:
        # What GitHub, nbviewer and a notebook that has not run yet show in
        # place of the widget; the fingerprint of the frames makes a stored
        # notebook's text change whenever a frame would, so nbval catches
        # stale widget state.
        views = len(self.fingerprints)
        content = digest("".join(self.fingerprints))
        return f"{self._note()} [{views} view{'s' * (views > 1)}, content {content}]"


def _controls(
    sentences,
    head_counts,
    masks,
    weights,
    initial: Settings,
    always_sentence: bool = False,
) -> dict:
    """The controls that have more than one option (and the sentence drop-down
    with ``always_sentence``), by setting name."""
    style = {"description_width": LABEL_WIDTH}  # every control starts at one x
    controls = {}
    if len(weights) > 1:
        controls["weights"] = widgets.ToggleButtons(
            options=list(weights),
            index=weights.index(initial.weights),
            description="Weights:",
            style=style,
        )
    if len(sentences) > 1 or always_sentence:
        controls["sentence"] = widgets.Dropdown(
            options=list(sentences),
            index=sentences.index(initial.sentence),
            description="Sentence:",
            style=style,
            layout=widgets.Layout(width="max-content"),
        )
    if len(masks) > 1:
        controls["mask"] = widgets.ToggleButtons(
            options=list(masks),
            index=masks.index(initial.mask),
            description="Mask:",
            style=style,
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
            options=list(head_counts),
            value=initial.n_heads,
            description="Heads:",
            style=style,
        )
    return controls


def _arrange(controls: dict, links: list) -> list[widgets.Widget]:
    """Controls in display order; the padding slider only shows with the padding mask."""
    rows = []
    for name, control in controls.items():
        if name == "n_pad" and "mask" in controls:
            masks = list(controls["mask"].options)
            pages = [control if m == "padding" else widgets.HTML("") for m in masks]
            holder = widgets.Stack(
                pages, selected_index=masks.index(controls["mask"].value)
            )
            links.append(
                widgets.jslink((controls["mask"], "index"), (holder, "selected_index"))
            )
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
        children = [
            build(level + 1, replace(settings, **{name: option})) for option in options
        ]
        stack = widgets.Stack(children, selected_index=controls[name].index)
        links.append(
            widgets.jslink((controls[name], "index"), (stack, "selected_index"))
        )
        return stack

    view = build(0, initial)
    fingerprints = [frames[settings][1] for settings in every]
    return Explorer(
        [*_arrange(controls, links), view],
        "static",
        controls,
        links,
        fingerprints,
        initial,
    )


def live_explorer(sentences, head_counts, masks, weights) -> Explorer:
    """Every change recomputes with the real layer; also takes a typed sentence.

    The sentence drop-down always names the sentence shown: a typed sentence
    joins it as a "your sentence" entry (the text box holds it while it is
    shown), choosing a listed sentence empties the box, and emptying the box
    goes back to the last listed sentence chosen. Text the explorer cannot
    show gets a message and changes nothing.
    """
    initial = _first_settings(sentences, head_counts, masks, weights)
    controls = _controls(
        sentences, head_counts, masks, weights, initial, always_sentence=True
    )
    sentence = controls["sentence"]
    text = widgets.Text(
        placeholder="type a sentence of your own and press Enter",
        description="Or type:",
        continuous_update=False,
        style={"description_width": LABEL_WIDTH},
        layout=widgets.Layout(width="36em", max_width="100%"),
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
    listed = list(sentences)
    chosen = [initial.sentence]  # the last listed sentence chosen
    handlers = {}

    def show(settings: Settings) -> None:
        try:
            page, fingerprint = frame_html(settings)
        except ValueError as error:
            message.value = _message(str(error))
            return
        message.value = _message(_notes(settings.sentence))
        view.value, explorer.fingerprints[0] = page, fingerprint
        explorer.settings = settings

    def select(value: str, typed: str | None) -> None:
        """Show ``value`` in the sentence drop-down, with ``typed`` as an extra entry."""
        options = [(s, s) for s in listed]
        if typed is not None and typed not in listed:
            options.append((f"your sentence: {typed}", typed))
        with _quiet(sentence, handlers["sentence"]):
            sentence.options = options
            sentence.value = value

    def on_control(change, name) -> None:
        if name == "sentence":
            if change["new"] in listed:
                chosen[0] = change["new"]
            with _quiet(
                text, on_text
            ):  # the box holds the typed sentence, if that is shown
                text.value = "" if change["new"] in listed else change["new"]
        show(replace(explorer.settings, **{name: change["new"]}))

    def on_text(change) -> None:
        typed = change["new"].strip()
        if not typed:  # the box was cleared: back to the sentence chosen above
            select(chosen[0], None)
            show(replace(explorer.settings, sentence=chosen[0]))
            return
        try:
            sentence_tokens(typed)
        except ValueError as error:
            message.value = _message(
                f"{error}; the figure still shows the sentence above"
            )
            return
        select(typed, typed)
        show(replace(explorer.settings, sentence=typed))

    def on_enter(_widget) -> None:
        def if_still_empty() -> None:
            if not text.value.strip():
                message.value = _message(
                    "the box is empty: type a sentence, then press Enter "
                    "(the figure shows the sentence chosen above)"
                )

        # The browser sends this event just before the box's new text, if
        # any: look at the box once that text has had time to arrive.
        _soon(if_still_empty)

    for name, control in controls.items():
        handlers[name] = lambda change, name=name: on_control(change, name)
        control.observe(handlers[name], names="value")
    text.observe(on_text, names="value")
    # Enter on a box whose text has not changed sends no new value, only this
    # event; ipywidgets marks on_submit as deprecated in favour of observing
    # the value, which cannot see that case.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        text.on_submit(on_enter)
    return explorer


def _soon(callback, seconds: float = 0.2) -> None:
    """Call ``callback`` after ``seconds`` on the kernel's event loop (at once
    outside a kernel)."""
    try:
        asyncio.get_running_loop().call_later(seconds, callback)
    except RuntimeError:  # no running event loop
        callback()


def _notes(sentence: str) -> str:
    """What a reader should know about a sentence the figure shows: words the
    vocabulary lacks (shown as <unk>), characters the figure's font cannot draw."""
    vocab = running_example().vocab
    notes = []
    unknown = list(dict.fromkeys(t for t in tokenize(sentence) if t not in vocab))
    if unknown:
        notes.append(f"not in the vocabulary, shown as <unk>: {', '.join(unknown)}")
    missing = missing_glyphs(" ".join(tokenize(sentence)))
    if missing:
        notes.append(
            f"the figure's font cannot draw {' '.join(missing)} (shown as boxes)"
        )
    return "; ".join(notes)


@contextlib.contextmanager
def _quiet(widget: widgets.Widget, handler):
    """Change ``widget`` without calling ``handler``."""
    widget.unobserve(handler, names="value")
    try:
        yield
    finally:
        widget.observe(handler, names="value")


def _message(text: str) -> str:
    if not text:
        return ""
    return f'<p class="mha-message" role="status" style="margin:2px 0">{html.escape(text)}</p>'


def leaves(widget: widgets.Widget) -> list[widgets.Widget]:
    """The widgets at the ends of a tree of Stacks (the frames)."""
    if isinstance(widget, widgets.Stack):
        return [leaf for child in widget.children for leaf in leaves(child)]
    return [widget]
