"""Drawing the explorer's frames fast: one figure per layout, redrawn in place.

A frame is drawn in two layers of one size: the *background* (titles, token
labels, colour bar: everything but the maps), which every frame of a layout
(head count and tokens) shares, and the *maps* on a transparent ground. The
book's web page fetches a layout's background once and a small maps layer
per frame; Jupyter shows the two as one picture.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import warnings
from dataclasses import dataclass

import numpy
import torch
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.ft2font import FT2Font
from PIL import Image

from mha.explorer.model import Settings, attention_maps, caption
from mha.plotting.core import display_attention
from mha.plotting.fingerprint import digest

GRIDS = {1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (2, 4)}  # rows × columns of maps
FRAME_INCHES = (7.2, 4.6)  # every frame has this size, whatever the heads and tokens
DPI = 100
SIZE = tuple(
    round(inches * DPI) for inches in FRAME_INCHES
)  # (width, height) in pixels
KEPT_BACKGROUNDS = 16  # per canvas: the sets of token labels drawn last
ALT = "Attention maps, one per head, rows are query tokens and columns key tokens: "


class Canvas:
    """A figure from :func:`~mha.plotting.core.display_attention` kept for
    redrawing fast, for every frame of one head count, length and label width.

    The figure is drawn once without its maps and token labels (``bare``) and
    once with nothing at all (``clear``, transparent). A background is the
    bare figure with one set of token labels drawn in (kept for the sets used
    last); the maps are drawn onto the clear figure (a layer) or onto a
    background (the whole picture).
    """

    def __init__(self, n_heads: int, length: int, label_room: int):
        n_rows, n_cols = GRIDS[n_heads]
        # Placeholder labels of the widest length; the real ones are swapped in.
        tokens = ("M" * label_room,) * length
        blank = torch.zeros(n_heads, length, length)
        self.figure = display_attention(
            tokens, tokens, blank, n_heads, n_rows, n_cols, annotate=False,
            figsize=FRAME_INCHES, dpi=DPI,
        )  # fmt: skip
        self.canvas = FigureCanvasAgg(self.figure)
        for image in self.figure.maps:
            image.set_visible(False)
        self.figure.label([], [])
        self.canvas.draw()
        self.bare = self.canvas.copy_from_bbox(self.figure.bbox)
        self.canvas.get_renderer().clear()
        self.clear = self.canvas.copy_from_bbox(self.figure.bbox)
        for image in self.figure.maps:
            image.set_visible(True)
        self.labelled: dict[tuple[str, ...], object] = {}  # tokens: a background

    def _image(self, mode: str) -> Image.Image:
        return Image.fromarray(numpy.asarray(self.canvas.buffer_rgba())).convert(mode)

    def _background(self, tokens: tuple[str, ...]):
        """The figure without its maps, labelled with ``tokens`` (a saved region)."""
        if tokens not in self.labelled:
            self.canvas.restore_region(self.bare)
            with warnings.catch_warnings():
                # Characters the font cannot draw come out as boxes; the live
                # explorer says so in its message line instead.
                warnings.filterwarnings("ignore", "Glyph .* missing from font")
                for axis in self.figure.label(tokens, tokens):
                    axis.axes.draw_artist(axis)
            if len(self.labelled) >= KEPT_BACKGROUNDS:  # typed sentences add up
                del self.labelled[next(iter(self.labelled))]
            self.labelled[tokens] = self.canvas.copy_from_bbox(self.figure.bbox)
        return self.labelled[tokens]

    def _maps_onto(self, ground, attention: torch.Tensor) -> None:
        self.canvas.restore_region(ground)
        for image, matrix in zip(self.figure.maps, attention, strict=True):
            image.set_data(matrix.numpy())
            image.axes.draw_artist(image)
            for spine in image.axes.spines.values():
                image.axes.draw_artist(spine)

    def background(self, tokens: tuple[str, ...]) -> Image.Image:
        """The figure without its maps, labelled with ``tokens`` (RGB)."""
        self.canvas.restore_region(self._background(tokens))
        return self._image("RGB")

    def maps(self, attention: torch.Tensor) -> Image.Image:
        """The heatmaps of ``attention (n_heads, L, L)`` and their frames, on a
        transparent ground (RGBA)."""
        self._maps_onto(self.clear, attention)
        return self._image("RGBA")

    def picture(self, tokens: tuple[str, ...], attention: torch.Tensor) -> Image.Image:
        """The whole picture: the maps on the background (RGB)."""
        self._maps_onto(self._background(tokens), attention)
        return self._image("RGB")


KEPT_CANVASES = 16
_canvases: dict[tuple[int, int, int], Canvas] = {}  # the figures used last


def _canvas(layout: tuple[int, int, int]) -> Canvas:
    """The kept figure of ``layout`` (heads, length, label width), made if need be."""
    if layout not in _canvases:
        if len(_canvases) >= KEPT_CANVASES:
            del _canvases[next(iter(_canvases))]
        _canvases[layout] = Canvas(*layout)
    _canvases[layout] = _canvases.pop(layout)  # the one used last goes last
    return _canvases[layout]


@dataclass(frozen=True, eq=False)
class Frame:
    """What the explorer shows for one state of its controls (drawn on demand).

    Attributes:
        settings: the state.
        tokens: the tokens shown (with ``<pad>``).
        attention: the maps, ``(n_heads, L, L)``.
    """

    settings: Settings
    tokens: tuple[str, ...]
    attention: torch.Tensor

    @property
    def caption(self) -> str:
        return caption(self.settings, self.tokens)

    @property
    def alt(self) -> str:
        return ALT + self.caption

    @property
    def fingerprint(self) -> str:
        """A digest of what the frame shows at the precision a reader can see
        (its caption, its tokens and its maps at two decimals), never of the
        picture's pixels."""
        maps = " ".join(f"{value:.2f}" for value in self.attention.flatten().tolist())
        return digest(f"{self.caption}\n{' '.join(self.tokens)}\n{maps}")

    @property
    def layout(self) -> tuple[int, int, int]:
        """Heads, length and widest label, the three things the frame's figure depends on."""
        return self.settings.n_heads, len(self.tokens), max(len(t) for t in self.tokens)

    @property
    def quick(self) -> bool:
        """Whether the figure of its layout is kept, so that drawing the frame
        takes milliseconds (making a figure takes a tenth of a second or more)."""
        return self.layout in _canvases

    def _canvas(self) -> Canvas:
        return _canvas(self.layout)

    def layers(self) -> tuple[Image.Image, Image.Image]:
        """The two layers of the picture: the background (RGB) and the maps (RGBA)."""
        canvas = self._canvas()
        return canvas.background(self.tokens), canvas.maps(self.attention)

    def picture(self) -> Image.Image:
        """The two layers as one picture (RGB)."""
        return self._canvas().picture(self.tokens, self.attention)

    def html(self, format: str = "png") -> str:
        """The picture (see :func:`data_url` for ``format``), with alt text and a
        caption stating the settings."""
        return (
            f'<figure class="mha-frame" style="margin:0">'
            f'<img src="{data_url(self.picture(), format)}" width="{SIZE[0]}" '
            f'height="{SIZE[1]}" alt="{html.escape(self.alt)}" '
            f'style="max-width:100%;height:auto">'
            f"<figcaption>{html.escape(self.caption)}</figcaption></figure>"
        )


def draw(settings: Settings) -> Frame:
    """The frame of ``settings``, drawn by :func:`~mha.plotting.core.display_attention`."""
    tokens, attention = attention_maps(settings)
    return Frame(settings, tuple(tokens), attention)


def data_url(image: Image.Image, format: str) -> str:
    """``image`` as a ``data:`` URL, in one of three forms:

    - ``"png"``: cut down to 160 colours first (the colour bar stays smooth;
      half the bytes), for a notebook's stored picture;
    - ``"webp"``: the same colours, lossless WebP (a third fewer bytes again,
      slower to make), for the web page; an image with transparency keeps
      all its colours;
    - ``"fast"``: lossless WebP of every colour, the quickest to make (a few
      milliseconds, twice the bytes), for the live explorer.
    """
    if image.mode == "RGB" and format != "fast":
        image = image.quantize(
            colors=160, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
        image = image if format == "png" else image.convert("RGB")
    buffer = io.BytesIO()
    if format == "png":
        image.save(buffer, format="PNG")
    else:
        effort = {"webp": (2, 100), "fast": (0, 0)}[format]
        image.save(
            buffer, format="WEBP", lossless=True, method=effort[0], quality=effort[1]
        )
    kind = "png" if format == "png" else "webp"
    return f"data:image/{kind};base64,{base64.b64encode(buffer.getvalue()).decode()}"


@functools.cache
def _drawable() -> frozenset[int]:
    """The characters the figures' font has glyphs for."""
    path = font_manager.findfont(font_manager.FontProperties())
    return frozenset(FT2Font(path).get_charmap())


def missing_glyphs(text: str) -> list[str]:
    """The characters of ``text`` the figures' font cannot draw, each once."""
    return list(
        dict.fromkeys(c for c in text if not c.isspace() and ord(c) not in _drawable())
    )
