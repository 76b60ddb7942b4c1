"""The live explorer: ipywidgets in a running notebook, where every change of
a control recomputes the frame with the real layer, and a text box takes the
reader's own sentence."""

from __future__ import annotations

import asyncio
import contextlib
import html
import warnings
from dataclasses import replace

import ipywidgets as widgets

from mha.example import running_example
from mha.explorer import frames
from mha.explorer.choices import Choices, Control, note, summary
from mha.explorer.model import Settings, sentence_tokens
from mha.text import tokenize

LABEL_WIDTH = "8em"  # room for the longest label, "Padding tokens:"
KEPT_FRAMES = 128  # frames kept drawn: going back to a setting shows it at once
WARM_AFTER = 0.5  # seconds without a change before the next frames are drawn
TYPING_PAUSE = 0.1  # seconds without a key before the typed text's frame is drawn


def _widget(control: Control, settings: Settings) -> widgets.ValueWidget:
    """An ipywidget for ``control``, showing ``settings``."""
    style = {"description_width": LABEL_WIDTH}  # every control starts at one x
    common = {"options": list(control.options), "description": control.label}
    if control.kind == "buttons":
        return widgets.ToggleButtons(
            **common, index=control.index(settings), style=style
        )
    if control.kind == "menu":
        return widgets.Dropdown(
            **common, index=control.index(settings), style=style,
            layout=widgets.Layout(width="max-content"),
        )  # fmt: skip
    return widgets.SelectionSlider(
        **common, value=getattr(settings, control.name), style=style
    )


class LiveExplorer(widgets.VBox):
    """The explorer in a running notebook.

    The sentence drop-down always names the sentence shown: a typed sentence
    (shown on Enter) joins it as a "your sentence" entry (the text box holds
    it while it is shown), choosing a listed sentence empties the box, and
    Enter on an emptied box goes back to the last listed sentence chosen.
    Text the explorer cannot show gets a message and changes nothing. While
    the reader types, the frame of the text so far is drawn whenever they
    pause, so that Enter shows it at once.

    Attributes:
        mode: ``"live"``.
        controls: the control widgets by setting name (``"n_heads"``, ``"mask"``, …).
        text, message, view: the text box, the message line and the frame.
        settings: the settings shown now.
        fingerprints: a fingerprint of what the frame shown now shows.
    """

    mode = "live"

    def __init__(self, choices: Choices):
        self.settings = choices.initial()
        self.controls = {
            name: _widget(control, self.settings)
            for name, control in choices.controls(always_sentence=True).items()
        }
        self.text = widgets.Text(
            placeholder="type a sentence of your own and press Enter",
            description="Or type:",
            continuous_update=True,  # the kernel sees the text as it is typed
            style={"description_width": LABEL_WIDTH},
            layout=widgets.Layout(width="36em", max_width="100%"),
        )
        self.message = widgets.HTML("")
        self._drawn: dict[Settings, tuple[str, str]] = {}  # settings: html, fingerprint
        self._shows = 0  # how many frames have been shown (a newer one stops warming)
        page, fingerprint = self._frame(self.settings)
        self.view = widgets.HTML(page)
        self.fingerprints = [fingerprint]
        super().__init__([*self.controls.values(), self.text, self.message, self.view])
        self._choices = choices
        self._listed = list(choices.sentences)
        self._chosen = self.settings.sentence  # the last listed sentence chosen
        self._quiet = False  # True while the explorer itself sets its controls
        self._show_padding()
        self._warm_soon()
        for name, control in self.controls.items():
            control.observe(
                lambda change, name=name: self._on_control(name, change), "value"
            )
        self.text.observe(self._on_typing, "value")
        # Enter is the reader's "show this"; ipywidgets marks on_submit as
        # deprecated in favour of observing the value, which changes with
        # every key here.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            self.text.on_submit(self._on_enter)

    # -- what the notebook stores ---------------------------------------------------

    def _repr_mimebundle_(self, **kwargs) -> dict:
        # Besides the widget: the frame as plain HTML, which GitHub, nbviewer
        # and JupyterLab (before the cell has run) show in its place.
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/html"] = (
            f'{self.view.value}<p class="mha-message">'
            f"{html.escape(note(list(self.controls)))}</p>"
        )
        bundle["text/plain"] = repr(self)  # whole: ipywidgets cuts it at 110 characters
        return bundle

    def __repr__(self) -> str:
        return summary(list(self.controls), self.fingerprints)

    # -- the reader's actions ---------------------------------------------------------

    def _on_control(self, name: str, change) -> None:
        if self._quiet:
            return
        if name == "sentence":
            if change["new"] in self._listed:
                self._chosen = change["new"]
            with self._quietly():  # the box holds the typed sentence, if that is shown
                self.text.value = "" if change["new"] in self._listed else change["new"]
        self._show(replace(self.settings, **{name: change["new"]}))

    def _on_typing(self, change) -> None:
        """A key in the text box: once the reader pauses, draw the frame of
        the text so far (it is shown on Enter)."""
        if self._quiet:
            return
        typed = change["new"].strip()

        def draw() -> None:
            if self.text.value.strip() == typed:  # no key since
                with contextlib.suppress(ValueError):
                    self._frame(replace(self.settings, sentence=typed))

        if typed:
            _soon(draw, TYPING_PAUSE)

    def _on_enter(self, _widget) -> None:
        typed = self.text.value.strip()
        if not typed:
            if self.settings.sentence not in self._listed:  # back to the one chosen
                self._select(self._chosen, None)
                self._show(replace(self.settings, sentence=self._chosen))
            self._say(
                "the box is empty: type a sentence, then press Enter "
                "(the figure shows the sentence chosen above)"
            )
            return
        try:
            sentence_tokens(typed)
        except ValueError as error:
            self._say(f"{error}; the figure still shows the sentence above")
            return
        self._select(typed, typed)
        self._show(replace(self.settings, sentence=typed))

    # -- showing --------------------------------------------------------------------

    def _show(self, settings: Settings) -> None:
        try:
            page, fingerprint = self._frame(settings)
        except ValueError as error:
            self._say(str(error))
            return
        self._say(_notes(settings.sentence))
        self.view.value = page
        self.settings, self.fingerprints = settings, [fingerprint]
        self._show_padding()
        self._warm_soon()

    def _frame(self, settings: Settings) -> tuple[str, str]:
        """The frame of ``settings`` as HTML, and its fingerprint (drawn once)."""
        if settings not in self._drawn:
            self._keep(frames.draw(settings))
        return self._drawn[settings]

    def _keep(self, frame: frames.Frame) -> None:
        if len(self._drawn) >= KEPT_FRAMES:
            del self._drawn[next(iter(self._drawn))]
        self._drawn[frame.settings] = frame.html("fast"), frame.fingerprint

    def _warm_soon(self) -> None:
        """Once the reader has looked at a frame for a moment, draw the frames
        one change away, one at a time (the next change then shows at once);
        a change meanwhile stops it."""
        self._shows += 1
        shows = self._shows
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # not in a kernel: nobody to look at the frames
            return

        waiting = None

        def step() -> None:
            nonlocal waiting
            if shows != self._shows:
                return
            if waiting is None:
                waiting = [frames.draw(s) for s in self._next_settings()]
            waiting = [frame for frame in waiting if frame.settings not in self._drawn]
            if waiting:
                # The quick ones first: a figure to make takes longer, and a
                # change arriving meanwhile would wait for it.
                self._keep(min(waiting, key=lambda frame: not frame.quick))
                _soon(step, 0.01)

        _soon(step, WARM_AFTER)

    def _next_settings(self) -> list[Settings]:
        """Every setting one change of a control away from the one shown."""
        options = {name: c.options for name, c in self._choices.controls().items()}
        options["sentence"] = self._listed
        return [
            replace(self.settings, **{name: option})
            for name, values in options.items()
            if Choices.applies(name, self.settings)
            for option in values
            if option != getattr(self.settings, name)
        ]

    def _show_padding(self) -> None:
        """The padding slider shows with the padding mask only."""
        if "n_pad" in self.controls:
            shown = Choices.applies("n_pad", self.settings)
            self.controls["n_pad"].layout.display = None if shown else "none"

    def _select(self, value: str, typed: str | None) -> None:
        """Show ``value`` in the sentence drop-down, with ``typed`` as an extra entry."""
        options = [(s, s) for s in self._listed]
        if typed is not None and typed not in self._listed:
            options.append((f"your sentence: {typed}", typed))
        with self._quietly():
            self.controls["sentence"].options = options
            self.controls["sentence"].value = value

    def _say(self, text: str) -> None:
        self.message.value = (
            f'<p class="mha-message" role="status" style="margin:2px 0">'
            f"{html.escape(text)}</p>"
            if text
            else ""
        )

    @contextlib.contextmanager
    def _quietly(self):
        """Set controls without reacting to it."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False


def _soon(callback, seconds: float) -> None:
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
    missing = frames.missing_glyphs(" ".join(tokenize(sentence)))
    if missing:
        notes.append(
            f"the figure's font cannot draw {' '.join(missing)} (shown as boxes)"
        )
    return "; ".join(notes)
