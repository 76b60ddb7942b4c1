"""Drawing the explorer's frames fast: one figure per layout, redrawn in place,
sent as a small PNG with a caption."""

from __future__ import annotations

import base64
import functools
import html
import io
import warnings

import numpy
import torch
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.ft2font import FT2Font
from PIL import Image

from mha.explorer.model import Settings, attention_maps, caption
from mha.plotting.core import display_attention, label_axes
from mha.plotting.fingerprint import digest

GRIDS = {1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (2, 4)}  # rows × columns of maps
FRAME_INCHES = (
    7.2,
    4.6,
)  # every frame has this size, whatever the heads and the sentence
DPI = 100


class _Canvas:
    """A figure from :func:`~mha.plotting.core.display_attention` kept for redrawing fast.

    Everything but the maps themselves (labels, titles, colour bar) is drawn
    once per set of token labels and kept as a background; a redraw puts the
    new maps on top of it. Sentences of the same length whose labels need the
    same room share one figure: only their labels are swapped.
    """

    def __init__(self, n_heads: int, tokens: tuple[str, ...]):
        n_rows, n_cols = GRIDS[n_heads]
        blank = torch.zeros(n_heads, len(tokens), len(tokens))
        self.figure = display_attention(
            tokens,
            tokens,
            blank,
            n_heads,
            n_rows,
            n_cols,
            annotate=False,
            figsize=FRAME_INCHES,
            dpi=DPI,
        )
        self.canvas = FigureCanvasAgg(self.figure)
        self.images = [ax.images[0] for ax in self.figure.axes if ax.images]
        self.labelled = [
            (i % n_cols == 0, i // n_cols == n_rows - 1) for i in range(n_heads)
        ]
        # Draw everything once without the maps and the token labels: the bare
        # background. Labels are drawn onto a copy of it for each set of tokens.
        for image in self.images:
            image.set_visible(False)
            label_axes(image.axes, [], [])
        self.canvas.draw()
        self.bare = self.canvas.copy_from_bbox(self.figure.bbox)
        for image in self.images:
            image.set_visible(True)
        self.tokens: tuple[str, ...] | None = None
        self.background = None

    def _relabel(self, tokens: tuple[str, ...]) -> None:
        self.canvas.restore_region(self.bare)
        for image, (left, bottom) in zip(self.images, self.labelled, strict=True):
            axes = image.axes
            label_axes(axes, tokens if left else [], tokens if bottom else [])
            if left:
                axes.draw_artist(axes.yaxis)
            if bottom:
                axes.draw_artist(axes.xaxis)
        self.background = self.canvas.copy_from_bbox(self.figure.bbox)
        self.tokens = tokens

    def draw(self, tokens: tuple[str, ...], attention: torch.Tensor) -> Image.Image:
        """The figure with ``attention (n_heads, L, L)`` drawn in, as a PIL image."""
        if tokens != self.tokens:
            with warnings.catch_warnings():
                # Characters the font cannot draw come out as boxes; the
                # explorer says so in its message line instead.
                warnings.filterwarnings("ignore", "Glyph .* missing from font")
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


def frame_png(settings: Settings) -> tuple[bytes, list[str], torch.Tensor]:
    """The attention maps for ``settings`` as a small PNG, drawn by
    :func:`~mha.plotting.core.display_attention`; also the tokens and the maps."""
    tokens, probs = attention_maps(settings)
    room = max(len(t) for t in tokens)
    image = _canvas(settings.n_heads, len(tokens), room).draw(tuple(tokens), probs)
    # 160 colours keep the colour bar smooth at under half the size of a
    # full-colour PNG; the octree method takes a few milliseconds.
    small = image.quantize(
        colors=160, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    buffer = io.BytesIO()
    small.save(buffer, format="PNG")
    return buffer.getvalue(), tokens, probs


def frame_content(text: str, tokens: list[str], probs: torch.Tensor) -> str:
    """What a frame shows, as text at the precision a reader can see: its caption,
    its tokens and its maps rounded to two decimals."""
    maps = " ".join(f"{value:.2f}" for value in probs.flatten().tolist())
    return f"{text}\n{' '.join(tokens)}\n{maps}"


def frame_html(settings: Settings) -> tuple[str, str]:
    """One frame as HTML (the figure with alt text, and a caption stating the
    settings) and a fingerprint of what it shows."""
    png, tokens, probs = frame_png(settings)
    text = caption(settings, tokens)
    alt = f"Attention maps, one per head, rows are query tokens and columns key tokens: {text}"
    data = base64.b64encode(png).decode("ascii")
    width, height = (round(inches * DPI) for inches in FRAME_INCHES)
    page = (
        f'<figure class="mha-frame" style="margin:0">'
        f'<img src="data:image/png;base64,{data}" width="{width}" height="{height}" '
        f'alt="{html.escape(alt)}" style="max-width:100%;height:auto">'
        f"<figcaption>{html.escape(text)}</figcaption></figure>"
    )
    return page, digest(frame_content(text, tokens, probs))
