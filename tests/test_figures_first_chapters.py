"""Figures of the chapters on tokens, embeddings, Q/K/V and heads: they fit the
text column (at most 7.2 inches wide), their text is at least 9 points, the
positional-encoding legend leaves the plot its width, and the token grid has
one cell size in every chapter."""

import pytest
import torch
from matplotlib.text import Text

import mha
from mha import plotting

MAX_WIDTH = 7.2  # inches: the text column at 100 dpi
MIN_POINTS = 9


def all_texts(fig) -> list[Text]:
    """Every visible, non-empty text the figure draws (titles, ticks, labels,
    legends, annotations)."""
    fig.draw_without_rendering()
    return [
        t for t in fig.findobj(Text) if t.get_visible() and t.get_text() and t.get_figure() is fig
    ]


def assert_fits_the_column(fig) -> None:
    width, _ = fig.get_size_inches()
    assert width <= MAX_WIDTH + 1e-9
    small = {(t.get_text(), t.get_fontsize()) for t in all_texts(fig) if t.get_fontsize() < 9}
    assert not small, f"text smaller than {MIN_POINTS} points: {sorted(small)[:5]}"


@pytest.fixture
def qkv(ex):
    return tuple(layer(ex.X) for layer in (ex.attention.Wq, ex.attention.Wk, ex.attention.Wv))


def test_every_figure_of_these_chapters_fits_the_column(ex, qkv):
    Q, K, V = qkv
    ids, is_token = ex.vocab.encode_batch(["I wonder.", "What will come next?", "Hello!"])
    figures = [
        plotting.token_grid([ex.vocab.decode(row) for row in ids], is_token),
        plotting.positional_encoding_heatmap(mha.embedding.sinusoids(6, 8)),
        plotting.positional_encoding_curves(mha.embedding.sinusoids(50, 8), [0, 2, 4, 6]),
        plotting.qkv_heatmaps(Q[0], K[0], V[0], ex.tokens[0]),
        plotting.head_split_figure(Q[0], ex.tokens[0], 4, name="Q[0]"),
        plotting.head_split_figure(Q[0], ex.tokens[0], 2, name="Q[0]"),
    ]
    for fig in figures:
        assert_fits_the_column(fig)


def test_pe_curves_legend_sits_under_the_plot_and_uses_no_exponents():
    fig = plotting.positional_encoding_curves(mha.embedding.sinusoids(50, 8), [0, 2, 4, 6])
    fig.draw_without_rendering()
    (ax,) = fig.axes
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert [label.rsplit(" ", 1)[1] for label in labels] == ["6.28", "62.8", "628", "6283"]
    assert not any("e+" in label for label in labels)
    box, plot = legend.get_window_extent(), ax.get_window_extent()
    assert box.y1 <= plot.y0  # below the axes, not beside them
    assert plot.width >= 0.8 * fig.bbox.width  # the curves keep most of the width


def test_qkv_heatmaps_annotate_only_when_the_numbers_fit(ex, qkv, gen):
    Q, K, V = qkv
    fig = plotting.qkv_heatmaps(Q[0], K[0], V[0], ex.tokens[0])
    assert all(not ax.texts for ax in fig.axes)  # 8 features: cells too narrow for 9 pt
    q = torch.randn(3, 4, generator=gen)
    narrow = plotting.qkv_heatmaps(q, q, q, ["a", "b", "c"])
    assert sum(len(ax.texts) for ax in narrow.axes) == 3 * 12  # 4 features fit


def test_qkv_heatmaps_never_print_minus_zero(ex):
    q = torch.tensor([[-0.01, 0.02], [0.5, -0.04]])
    fig = plotting.qkv_heatmaps(q, q, q, ["a", "b"], annotate=True)
    shown = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert len(shown) == 12 and "-0.0" not in shown
    assert shown[:4] == ["0.0", "0.0", "0.5", "0.0"]


def test_token_grid_has_one_cell_size_whatever_the_batch(ex):
    def grid(sentences):
        ids, is_token = ex.vocab.encode_batch(sentences)
        return plotting.token_grid([ex.vocab.decode(row) for row in ids], is_token)

    four = grid(["I wonder.", "What will come next?", "Hello!"])  # 4 positions
    six = grid(list(mha.SENTENCES))  # 6 positions
    (w4, h4), (w6, h6) = four.get_size_inches(), six.get_size_inches()
    assert w6 - w4 == pytest.approx(2.0)  # two more cells of 1 inch
    assert h4 == h6
    assert w6 <= MAX_WIDTH
    long = grid(["a " * 12])  # 12 positions: cells shrink to stay in the column
    assert long.get_size_inches()[0] <= MAX_WIDTH + 1e-9
