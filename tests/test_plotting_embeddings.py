"""mha.plotting.embeddings: columns of the positional encoding as curves, and
one matrix cut into heads."""

from __future__ import annotations

import pytest
import torch
from figures import close, fits_the_column, texts
from refusal import refuses, row_ids

import mha
from mha import plotting
from mha.embedding import sinusoids


@pytest.fixture(scope="module")
def ex():
    return mha.running_example()


@pytest.fixture(scope="module")
def qkv(ex):
    """Q, K and V of the running example, ``(3, 6, 8)`` each."""
    return tuple(w(ex.X) for w in (ex.attention.Wq, ex.attention.Wk, ex.attention.Wv))


def test_positional_encoding_curves_draw_the_chosen_columns_in_distinct_styles():
    table = sinusoids(50, 8)
    (ax,) = plotting.positional_encoding_curves(table, [0, 3, 6]).axes
    for line, dim in zip(ax.lines, [0, 3, 6], strict=True):
        close(line.get_ydata(), table[:, dim])
    styles = [
        (line.get_color(), line.get_linestyle(), line.get_marker()) for line in ax.lines
    ]
    assert all(len({style[k] for style in styles}) == 3 for k in range(3))


def test_positional_encoding_curves_legend_sits_under_the_plot_without_exponents():
    fig = plotting.positional_encoding_curves(sinusoids(50, 8), [0, 2, 4, 6])
    fits_the_column(fig)
    (ax,) = fig.axes
    legend = ax.get_legend()
    labels = texts(legend.get_texts())
    wavelengths = [label.rsplit(" ", 1)[1] for label in labels]
    assert wavelengths == ["6.28", "62.8", "628", "6283"]
    assert not any("e+" in label for label in labels)
    box, plot = legend.get_window_extent(), ax.get_window_extent()
    assert box.y1 <= plot.y0  # below the axes, not beside them
    assert plot.width >= 0.8 * fig.bbox.width  # the curves keep most of the width


Z = torch.zeros(6, 8)

# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.positional_encoding_curves(Z, [8]), ValueError, "dims[i]", "in [0, 7]",
     "got 8"),
    (lambda: plotting.positional_encoding_curves(Z, []), ValueError, "dims", "1 to 8 columns",
     "got 0"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
