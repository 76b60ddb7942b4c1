"""The static explorer: what the book's web page shows, with no kernel behind it.

Every state of the controls is drawn in advance. The web page gets plain
HTML: real form controls (radio buttons drawn as a row of buttons, a
drop-down, sliders), a figure with the first frame, and the list of every
frame. One small script shared by the book's explorers (``explorer.js``)
switches frames as the controls change, and fetches the frames next to the
one shown while the page is idle. Each frame is two images (see
:mod:`~mha.explorer.frames`), written out as files when the book is built.

A notebook stores three forms of it: this page (under :data:`MIME`, which
only the book's build reads), the first frame with a note (``text/html``,
what GitHub, nbviewer and JupyterLab show before the cell has run) and a
fingerprint of every frame (``text/plain``, what nbval compares).
"""

from __future__ import annotations

import dataclasses
import html
import json

from mha.explorer import frames
from mha.explorer.choices import Choices, Control, note, summary
from mha.plotting.fingerprint import digest

#: The notebook output type of the web page's form.
MIME = "application/vnd.mha.explorer.page+html"


class StaticExplorer:
    """The explorer as the book's web page shows it.

    Attributes:
        mode: ``"static"``.
        controls: the controls by setting name (``"n_heads"``, ``"mask"``, …).
        settings: the settings shown first.
        frames: every frame, by its key (:meth:`~mha.explorer.choices.Choices.key`).
        fingerprints: a fingerprint of what each frame shows.
    """

    mode = "static"

    def __init__(self, choices: Choices):
        self.choices = choices
        self.controls = choices.controls()
        self.settings = choices.initial()
        self.frames = {choices.key(s): frames.draw(s) for s in choices.every_settings()}
        self.fingerprints = [frame.fingerprint for frame in self.frames.values()]

    def __repr__(self) -> str:
        return summary(list(self.controls), self.fingerprints)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        first = self.frames[self.choices.key(self.settings)]
        return {
            "text/plain": repr(self),
            "text/html": (
                f'{first.html()}<p class="mha-message">'
                f"{html.escape(note(list(self.controls)))}</p>"
            ),
            MIME: self.page(),
        }

    def page(self) -> str:
        """The explorer's HTML for the web page, every frame's images in it as
        ``data:`` URLs (the book's build writes them out as files)."""
        images: dict[str, int] = {}  # data URL: its place in the list

        def place(url: str) -> int:
            return images.setdefault(url, len(images))

        listed = {}
        # Drawn layout by layout, so each kept figure serves every frame it can.
        for key, frame in sorted(
            self.frames.items(), key=lambda item: (item[1].layout, item[1].tokens)
        ):
            background, maps = frame.layers()
            listed[key] = [
                place(frames.data_url(background, "webp")),
                place(frames.data_url(maps, "webp")),
                frame.caption,
            ]
        listed = {key: listed[key] for key in self.frames}  # in the order of the states
        urls = list(images)
        first_key = self.choices.key(self.settings)
        background, maps, text = listed[first_key]
        first = self.frames[first_key]
        ids = f"mha-{digest(repr(self))[:8]}"
        data = {
            "controls": list(self.controls),
            "initial": dataclasses.asdict(self.settings),  # with the fixed settings
            "images": urls,
            "frames": listed,
        }
        width, height = frames.SIZE
        return (
            f'<div class="mha-explorer" data-alt="{html.escape(frames.ALT)}">'
            f'<form class="mha-controls" aria-label="Settings of the attention explorer">'
            + "".join(
                _control_html(control, control.index(self.settings), ids)
                for control in self.controls.values()
            )
            + "</form>"
            f'<figure class="mha-frame"><div class="mha-picture">'
            f'<img class="mha-background" src="{urls[background]}" width="{width}" '
            f'height="{height}" alt="{html.escape(first.alt)}">'
            f'<img class="mha-maps" src="{urls[maps]}" width="{width}" '
            f'height="{height}" alt="">'
            f'</div><figcaption aria-live="polite">{html.escape(text)}</figcaption>'
            "</figure>"
            f'<script type="application/json" class="mha-frames">{_json(data)}</script>'
            "</div>"
        )


def _json(data) -> str:
    """JSON that can stand inside a <script> element."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace(
        "<", "\\u003c"
    )


def _control_html(control: Control, chosen: int, ids: str) -> str:
    """One row of the form: the control's label and the control, showing
    option ``chosen``; form values are the options' positions."""
    label = html.escape(control.label)
    texts = [html.escape(str(option)) for option in control.options]
    if control.kind == "buttons":
        buttons = "".join(
            f'<label class="mha-button"><input type="radio" name="{control.name}" '
            f'value="{i}"{" checked" if i == chosen else ""}'
            f"{_reveals(control, option)}><span>{text}</span></label>"
            for i, (option, text) in enumerate(zip(control.options, texts, strict=True))
        )
        return (
            f'<fieldset class="mha-row"><legend class="mha-label">{label}</legend>'
            f'<span class="mha-buttons">{buttons}</span></fieldset>'
        )
    field = f"{ids}-{control.name}"
    head = f'<label class="mha-label" for="{field}">{label}</label>'
    if control.kind == "menu":
        options = "".join(
            f'<option value="{i}"{" selected" if i == chosen else ""}>{text}</option>'
            for i, text in enumerate(texts)
        )
        return (
            f'<div class="mha-row">{head}<select id="{field}" name="{control.name}">'
            f"{options}</select></div>"
        )
    revealed = " mha-revealed" if control.name == "n_pad" else ""
    labels = html.escape(_json([str(option) for option in control.options]))
    return (
        f'<div class="mha-row{revealed}">{head}'
        f'<input type="range" id="{field}" name="{control.name}" min="0" '
        f'max="{len(texts) - 1}" step="1" value="{chosen}" '
        f'aria-valuetext="{texts[chosen]}" data-labels="{labels}">'
        f'<output for="{field}" class="mha-readout">{texts[chosen]}</output></div>'
    )


def _reveals(control: Control, option) -> str:
    """The padding mask's button shows the padding slider (the style sheet
    hides it while another mask is chosen)."""
    return (
        ' data-reveals="n_pad"' if (control.name, option) == ("mask", "padding") else ""
    )
