"""The book's figure: a matplotlib ``Figure`` made without pyplot that shows
itself as a PNG (and, where it needs one, a phone's layout) and says in text
what it draws (:func:`~mha.plotting.fingerprint.fingerprint`, which nbval
compares).

A notebook shows each figure once, as the cell's result, and nothing stays
open in pyplot's global state.
"""

from __future__ import annotations

import base64
import functools
import io

import numpy
from matplotlib.figure import Figure
from PIL import Image

from mha.plotting.fingerprint import fingerprint
from mha.plotting.screens import PHONE_SCREEN

#: The notebook output type that holds a figure's phone layout (a ``<source>``
#: of a ``<picture>``, the PNG in it as a ``data:`` URL); the book's build
#: reads it, Jupyter shows the desk's PNG.
PHONE_MIME = "application/vnd.mha.figure.phone+html"


def _png_base64(fig: Figure) -> str:
    return base64.b64encode(to_png(fig, dpi=2 * fig.dpi, colours=256)).decode()


def _size(fig: Figure) -> tuple[int, int]:
    width, height = (fig.get_size_inches() * fig.dpi).round().astype(int)
    return int(width), int(height)


class BookFigure(Figure):
    """A matplotlib Figure that shows itself as a PNG in Jupyter without pyplot
    (drawn at twice its resolution, for high-resolution screens).

    Its plain-text form is :func:`.fingerprint`: what the figure draws, at the
    precision a reader can see. A notebook stores both forms and nbval
    compares the text, so a stored picture that no longer matches what the
    code draws fails validation, while rendering differences between machines
    (antialiasing, the last bits of a float) do not.

    Attributes:
        phone: the same figure drawn for a phone's column (see
            :mod:`mha.plotting.screens`), or ``None`` when this one stays
            legible there. The notebook stores it too (:data:`PHONE_MIME`); its
            fingerprint is part of this figure's.
    """

    phone: Figure | None = None

    def _repr_png_(self) -> tuple[bytes, dict[str, int]]:
        # Drawn at twice the resolution and shown at the figure's own size, so
        # that it is sharp on high-resolution screens.
        width, height = _size(self)
        sharp = to_png(self, dpi=2 * self.dpi, colours=256)
        return sharp, {"width": width, "height": height}

    def _repr_mimebundle_(self, include=None, exclude=None) -> tuple[dict, dict]:
        width, height = _size(self)
        data = {"image/png": _png_base64(self), "text/plain": repr(self)}
        if self.phone is not None:
            phone_width, phone_height = _size(self.phone)
            data[PHONE_MIME] = (
                f'<source media="(max-width: {PHONE_SCREEN}px)" '
                f'srcset="data:image/png;base64,{_png_base64(self.phone)}" '
                f'width="{phone_width}" height="{phone_height}">'
            )
        return data, {"image/png": {"width": width, "height": height}}

    def __repr__(self) -> str:
        return fingerprint(self)


def to_png(fig: Figure, dpi: float | None = None, colours: int | None = None) -> bytes:
    """The figure as PNG bytes, without metadata; with ``colours``, reduced to
    that many colours (a quarter of the size for the book's flat-coloured plots).

    The palette holds :data:`SCALE_STEPS` even steps of each of the book's
    colour maps, so that a colour bar stays smooth (a quantizer's own palette
    made its 256 shades a dozen bands), and the figure's most frequent other
    colours exactly (its ground, text, frames and cells); every pixel takes
    the nearest."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    if colours is None:
        return buffer.getvalue()
    rgb = numpy.asarray(Image.open(buffer).convert("RGB"))
    height, width, _ = rgb.shape
    codes = rgb.reshape(-1, 3).astype(numpy.int64) @ numpy.array([1 << 16, 1 << 8, 1])
    found, where, counts = numpy.unique(codes, return_inverse=True, return_counts=True)
    found = numpy.stack([found >> 16, (found >> 8) & 255, found & 255], axis=1)
    kept = _scale_colours()
    kept = kept if colours >= 2 * len(kept) else kept[:0]
    frequent = found[numpy.argsort(-counts, kind="stable")[: colours - len(kept)]]
    palette = numpy.concatenate([frequent, kept])
    nearest = numpy.concatenate(  # a few thousand colours at a time
        [
            ((part[:, None, :] - palette[None]) ** 2).sum(-1).argmin(axis=1)
            for part in numpy.array_split(found, len(found) // 4096 + 1)
        ]
    )
    index = nearest.astype(numpy.uint8)[where.ravel()].reshape(height, width)
    image = Image.fromarray(index, mode="P")
    image.putpalette(palette.astype(numpy.uint8).ravel().tolist())
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


#: The even steps of each of the book's colour maps a figure's PNG keeps exactly.
SCALE_STEPS = 64


@functools.cache
def _scale_colours() -> numpy.ndarray:
    from matplotlib import colormaps

    from mha.plotting.palette import CMAP, SIGNED_CMAP

    steps = numpy.linspace(0.0, 1.0, SCALE_STEPS)
    return numpy.concatenate(
        [colormaps[name](steps, bytes=True)[:, :3] for name in (CMAP, SIGNED_CMAP)]
    ).astype(numpy.int64)
