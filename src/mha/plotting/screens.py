"""The two screens a figure is drawn for: the page's text column on a desk, and a phone's.

A figure on the page is shown at its own size, or shrunk to the column when
the column is narrower, and its text shrinks with it. A figure drawn for the
desk (:data:`COLUMN_WIDTH` wide) shown in a phone's column of
:data:`PHONE_COLUMN` CSS pixels keeps only half its size, and its 9-point
labels become 6 pixels tall. So a figure function draws a second, narrower
layout for phones when the desk's would not stay legible there
(:func:`for_every_screen`); the site shows it on narrow screens (a
``<picture>`` source), Jupyter and the wide site the desk's.
"""

from __future__ import annotations

import functools
import inspect
import math

from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, LogLocator

#: The width of the page's text column in inches, at the figures' 100 dpi. A
#: figure at most this wide is shown at its own size, its text as drawn.
COLUMN_WIDTH = 7.2
#: The width of a figure's phone layout in inches, so that its 9-point text
#: stays 9 CSS pixels or more in a phone's column of 328 px (a 360 px screen) and up.
PHONE_WIDTH = 4.5
#: The phone's text column the rule is checked at, in CSS pixels.
PHONE_COLUMN = 360
#: The smallest text a reader should have to read, in CSS pixels.
SMALLEST_PX = 9.0
#: The smallest text a figure draws, in points (tick labels, legends, the
#: numbers printed in cells).
SMALLEST_TEXT = 9
#: The widest screen, in CSS pixels, that shows a figure's phone layout (the
#: desk's 9-point text is 9 px or more in any wider column).
PHONE_SCREEN = 575


def _tick_labels(axis) -> tuple[set, list]:
    """(every tick label of ``axis``, those drawn: ticks inside its view)."""
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-9
    every, drawn = set(), []
    for locs, ticks in (
        (axis.get_majorticklocs(), axis.get_major_ticks()),
        (axis.get_minorticklocs(), axis.get_minor_ticks()),
    ):
        for i, tick in enumerate(ticks):
            labels = (tick.label1, tick.label2)
            every.update(labels)
            if i < len(locs) and low - slack <= locs[i] <= high + slack:
                drawn += labels
    return every, drawn


def texts(fig: Figure) -> list[Text]:
    """Every piece of text ``fig`` draws: titles, labels, legends, the numbers
    in cells, and the labels of the ticks inside the axes' limits (a tick
    outside them keeps a label that is never drawn)."""
    fig.draw_without_rendering()  # lays the figure out and makes the tick labels final
    every, drawn = set(), []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels, shown = _tick_labels(axis)
            every |= labels
            drawn += shown
    found = [t for t in fig.findobj(Text) if t not in every] + drawn
    return [
        text
        for text in found
        if text.get_visible()
        and text.get_text().strip()
        and (text.axes is None or text.axes.get_visible())
    ]


def smallest_text(fig: Figure) -> float:
    """The size of the smallest text ``fig`` draws, in points (0 if it draws none)."""
    return min((t.get_fontsize() for t in texts(fig)), default=0.0)


def css_px(points: float, fig: Figure, column: float = PHONE_COLUMN) -> float:
    """How tall, in CSS pixels, text of ``points`` points in ``fig`` is when
    the figure is shown in a column ``column`` CSS pixels wide (at its own
    size, or shrunk to the column)."""
    width = fig.get_size_inches()[0] * fig.dpi
    return points * fig.dpi / 72 * min(1.0, column / width)


def shown_px(fig: Figure, column: float = PHONE_COLUMN) -> float:
    """How tall, in CSS pixels, the smallest text of ``fig`` is when the figure
    is shown in a column ``column`` CSS pixels wide."""
    return css_px(smallest_text(fig), fig, column)


def legible(fig: Figure, column: float = PHONE_COLUMN) -> bool:
    """Whether every text of ``fig`` is at least :data:`SMALLEST_PX` tall in a
    column of ``column`` CSS pixels."""
    return shown_px(fig, column) >= SMALLEST_PX


def for_every_screen(draw):
    """Make a figure function draw its phone layout too, when it needs one.

    ``draw`` takes a keyword argument ``width``: the figure's width in inches,
    ``None`` for its desk layout. Called without ``width``, the function
    returns the desk's figure; if that one's text would be smaller than
    :data:`SMALLEST_PX` in a phone's column, the figure also carries, as its
    ``phone`` attribute, the same call drawn :data:`PHONE_WIDTH` wide. Called
    with a ``width`` (or a ``figsize``), it draws that one layout only.
    """
    parameters = inspect.signature(draw).parameters
    if "width" not in parameters:
        raise TypeError(f"{draw.__name__} must take a keyword argument width")

    @functools.wraps(draw)
    def figure(*args, **kwargs):
        fig = draw(*args, **kwargs)
        fixed = kwargs.get("width") is not None or kwargs.get("figsize") is not None
        if not fixed and not legible(fig):
            fig.phone = draw(*args, **{**kwargs, "width": PHONE_WIDTH})
        return fig

    return figure


#: Powers of ten as a reader says them, for the labels of a log axis.
_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def plain_number(value: float) -> str:
    """A tick's value written plainly: ``0.01``, ``0.5``, ``100``, ``10k``, ``2M``.

    Matplotlib writes a log axis's labels as 10 with a raised exponent, the
    exponent at 70% of the label's size (6 px on a phone); these stay at the
    label's own size."""
    for size, prefix in _PREFIXES:
        if value >= size:
            return f"{value / size:g}{prefix}"
    return f"{value:g}"


def plain_log_labels(axis) -> None:
    """Label a log ``axis`` (base 10) with :func:`plain_number` at its powers
    of ten, and at 2 and 5 times them too when it spans less than a decade
    and a half (so that it always has labels)."""

    def minor(value: float, _) -> str:
        low, high = sorted(axis.get_view_interval())
        if low <= 0 or math.log10(high / low) >= 1.5:
            return ""
        mantissa = round(value / 10 ** math.floor(math.log10(value) + 1e-9), 6)
        return plain_number(value) if mantissa in (2, 5) else ""

    axis.set_major_locator(LogLocator(base=10))
    axis.set_major_formatter(FuncFormatter(lambda value, _: plain_number(value)))
    axis.set_minor_formatter(FuncFormatter(minor))
