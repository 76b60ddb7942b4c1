"""What the plotting tests read off a figure, and the rule every figure of the
book keeps: it fits the text column."""

from __future__ import annotations

import torch
from matplotlib.text import Text

from mha.plotting.core import COLUMN_WIDTH, SMALLEST_TEXT


def fits_the_column(fig) -> None:
    """``fig`` is at most as wide as the page's text column and draws no text
    smaller than the book's smallest (both set in :mod:`mha.plotting.core`)."""
    width, _ = fig.get_size_inches()
    assert width <= COLUMN_WIDTH + 1e-9, f"{width:.2f} inches wide"
    fig.draw_without_rendering()  # lays the figure out: every text in its place
    small = sorted(
        {
            (text.get_text(), text.get_fontsize())
            for text in fig.findobj(Text)
            if text.get_visible()
            and text.get_text()
            and text.get_figure() is fig
            and text.get_fontsize() < SMALLEST_TEXT
        }
    )
    assert not small, f"text smaller than {SMALLEST_TEXT} points: {small[:5]}"


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
