"""What the plotting tests read off a figure, and the rule every figure of the
book keeps: it fits the text column, and its text stays legible on a phone."""

from __future__ import annotations

import torch

from mha.plotting.screens import (
    COLUMN_WIDTH,
    PHONE_WIDTH,
    SMALLEST_PX,
    SMALLEST_TEXT,
    css_px,
    texts as drawn_texts,
)


def _whole_and_readable(fig, widest: float) -> list:
    """Check ``fig`` fits ``widest`` inches with whole, large enough text;
    the texts it draws (it is laid out once for all the checks)."""
    width, _ = fig.get_size_inches()
    assert width <= widest + 1e-9, f"{width:.2f} inches wide"
    drawn = drawn_texts(fig)  # (lays the figure out: every text in its place)
    small = sorted(
        {
            (t.get_text(), t.get_fontsize())
            for t in drawn
            if t.get_fontsize() < SMALLEST_TEXT
        }
    )
    assert not small, f"text smaller than {SMALLEST_TEXT} points: {small[:5]}"
    box = fig.bbox
    cut = [
        t.get_text()
        for t in drawn
        if not (
            (extent := t.get_window_extent()).x0 >= box.x0 - 1
            and extent.x1 <= box.x1 + 1
            and extent.y0 >= box.y0 - 1
            and extent.y1 <= box.y1 + 1
        )
    ]
    assert not cut, f"text cut off at the figure's edge: {cut[:5]}"
    return drawn


def fits_the_column(fig, phone: bool = True) -> None:
    """``fig`` is at most as wide as the page's text column, draws no text
    smaller than the book's smallest or cut off at its edges, and (unless
    ``phone`` is false) reads on a phone: its own text, or its phone layout's
    (``fig.phone``, at most ``PHONE_WIDTH`` wide), is at least ``SMALLEST_PX``
    CSS pixels tall in a phone's column (all set in :mod:`mha.plotting.screens`)."""
    drawn = _whole_and_readable(fig, COLUMN_WIDTH)
    if not phone:
        return
    phone = getattr(fig, "phone", None)
    if phone is not None:
        drawn = _whole_and_readable(phone, PHONE_WIDTH)
    smallest = min((t.get_fontsize() for t in drawn), default=0.0)
    shown = css_px(smallest, fig if phone is None else phone)
    assert shown >= SMALLEST_PX, f"text {shown:.1f} px tall on a phone"


def heatmaps(fig) -> list:
    """The axes that hold an image (a colour bar holds none)."""
    return [ax for ax in fig.axes if ax.images]


def shown(ax) -> torch.Tensor:
    """The values of the axes' image, as float64."""
    return torch.as_tensor(ax.images[0].get_array().data, dtype=torch.float64)


def close(got, want: torch.Tensor, **tol) -> None:
    """What a figure drew (a list, an array) equals ``want``."""
    torch.testing.assert_close(
        torch.as_tensor(got, dtype=torch.float64), want.double(), **tol
    )


def texts(labels) -> list[str]:
    """The strings of matplotlib texts (tick labels, legend entries)."""
    return [label.get_text() for label in labels]
