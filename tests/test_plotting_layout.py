"""What every figure of the book respects, whatever it draws: it fits the text
column (at most 7.2 inches wide at 100 dpi), its text is at least 9 points,
nothing covers its labels; and the figures of the chapters on heads, scores
and merging that depend on it."""

import math

import pytest
import torch
from matplotlib.text import Text

import mha
from mha import plotting
from mha.plotting import (
    head_contributions_figure,
    merge_heads_figure,
    softmax_saturation_figure,
    weighted_values_figure,
)

MAX_WIDTH = 7.2  # inches: the text column at 100 dpi
MIN_POINTS = 9


def all_texts(fig) -> list[Text]:
    """Every visible, non-empty text the figure draws (titles, ticks, labels,
    legends, annotations)."""
    fig.draw_without_rendering()
    return [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text() and t.get_figure() is fig
    ]


def assert_fits_the_column(fig) -> None:
    width, _ = fig.get_size_inches()
    assert width <= MAX_WIDTH + 1e-9
    small = {
        (t.get_text(), t.get_fontsize()) for t in all_texts(fig) if t.get_fontsize() < 9
    }
    assert not small, f"text smaller than {MIN_POINTS} points: {sorted(small)[:5]}"


@pytest.fixture
def ex():
    return mha.running_example()


@pytest.fixture
def qkv(ex):
    return tuple(
        layer(ex.X) for layer in (ex.attention.Wq, ex.attention.Wk, ex.attention.Wv)
    )


def test_every_figure_of_these_chapters_fits_the_column(ex, qkv):
    Q, K, V = qkv
    ids, is_token = ex.vocab.encode_batch(
        ["I wonder.", "What will come next?", "Hello!"]
    )
    figures = [
        plotting.token_grid([ex.vocab.decode(row) for row in ids], is_token),
        plotting.positional_encoding_heatmap(mha.embedding.sinusoids(6, 8)),
        plotting.positional_encoding_curves(
            mha.embedding.sinusoids(50, 8), [0, 2, 4, 6]
        ),
        plotting.qkv_heatmaps(Q[0], K[0], V[0], ex.tokens[0]),
        plotting.head_split_figure(Q[0], ex.tokens[0], 4, name="Q[0]"),
        plotting.head_split_figure(Q[0], ex.tokens[0], 2, name="Q[0]"),
    ]
    for fig in figures:
        assert_fits_the_column(fig)


def test_pe_curves_legend_sits_under_the_plot_and_uses_no_exponents():
    fig = plotting.positional_encoding_curves(
        mha.embedding.sinusoids(50, 8), [0, 2, 4, 6]
    )
    fig.draw_without_rendering()
    (ax,) = fig.axes
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert [label.rsplit(" ", 1)[1] for label in labels] == [
        "6.28",
        "62.8",
        "628",
        "6283",
    ]
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


@pytest.fixture(scope="module")
def example():
    ex = mha.running_example()
    X, layer = ex.X, ex.attention
    Q, K, V = (mha.split_heads(w(X), 4) for w in (layer.Wq, layer.Wk, layer.Wv))
    probs = mha.attention_probs(mha.scaled_dot_product(Q, K))  # (3, 4, 6, 6)
    A = probs @ V  # (3, 4, 6, 2)
    return ex, probs, V, A


def saturation(n_keys: int = 10):
    gen = torch.Generator().manual_seed(0)
    d_keys = [2, 8, 32, 128, 512]
    score_std, max_prob = torch.zeros(3, 5), torch.zeros(3, 5)
    for i, d in enumerate(d_keys):
        s = torch.randn(500, n_keys, d, generator=gen) @ torch.randn(
            500, d, 1, generator=gen
        )
        s = s.squeeze(-1)  # (500, n_keys)
        for j, t in enumerate([s, s / math.sqrt(d), s / d]):
            score_std[j, i] = t.std()
            max_prob[j, i] = t.softmax(-1).amax(-1).mean()
    return d_keys, score_std, max_prob


def text_box(fig, text):
    fig.draw_without_rendering()
    return text.get_window_extent()


def test_figures_fit_the_text_column(example):
    ex, probs, V, A = example
    merged = mha.merge_heads(A)
    figures = [
        softmax_saturation_figure(*saturation()),
        weighted_values_figure(probs[0, 0, 2], V[0, 0], ex.tokens[0], "what"),
        merge_heads_figure(A[0, :, 2], merged[0, 2], token="what"),
    ]
    for fig in figures:
        assert fig.get_size_inches()[0] <= MAX_WIDTH + 1e-9


def test_saturation_notes_are_off_the_curves():
    fig = softmax_saturation_figure(*saturation())
    fig.draw_without_rendering()
    ax = fig.axes[1]
    for text in ax.texts:
        box = text_box(fig, text).padded(8)  # pixels of clear space around the note
        for line in ax.get_lines()[
            :3
        ]:  # the three curves, straight between their points
            points = torch.tensor(
                ax.transData.transform(line.get_xydata())
            )  # (n, 2) pixels
            steps = torch.linspace(0, 1, 50)[:, None, None]
            on_line = (points[:-1] + steps * (points[1:] - points[:-1])).reshape(-1, 2)
            assert not any(box.contains(x, y) for x, y in on_line.tolist()), (
                text.get_text()
            )


def test_weighted_values_labels_are_not_under_the_star(example):
    ex, probs, V, _ = example
    for query in range(6):  # every query of head 0, sentence 0
        fig = weighted_values_figure(probs[0, 0, query], V[0, 0], ex.tokens[0], "q")
        fig.draw_without_rendering()
        ax = fig.axes[1]
        star = ax.collections[-1]
        x, y = ax.transData.transform(star.get_offsets()[0])
        radius = math.sqrt(star.get_sizes()[0]) / 2 * fig.dpi / 72  # pixels
        for label in ax.texts:
            box = text_box(fig, label)
            nearest_x = min(max(x, box.x0), box.x1)
            nearest_y = min(max(y, box.y0), box.y1)
            assert math.hypot(x - nearest_x, y - nearest_y) > radius, (
                query,
                label.get_text(),
            )


def test_weighted_values_uses_the_books_axis_names(example):
    ex, probs, V, _ = example
    fig = weighted_values_figure(probs[0, 0, 2], V[0, 0], ex.tokens[0], "what")
    assert fig.axes[0].get_ylabel() == "key (attended to)"
    assert fig.axes[0].get_xlabel().startswith("attention probability")


def test_head_contributions_rows_and_sum(example):
    ex, _, _, A = example
    Wo = ex.attention.Wo
    pieces = torch.stack(
        [A[0, h, 2] @ Wo.weight[:, 2 * h : 2 * h + 2].T for h in range(4)]
    )
    output = Wo(mha.merge_heads(A))[0, 2]
    fig = head_contributions_figure(pieces, Wo.bias, output, token="what")
    assert fig.get_size_inches()[0] <= MAX_WIDTH + 1e-9
    top, bottom = fig.axes[:2]
    assert [t.get_text() for t in top.get_yticklabels()] == [
        "head 0",
        "head 1",
        "head 2",
        "head 3",
        "bias",
    ]
    assert top.images[0].get_array().shape == (5, 8)
    assert bottom.images[0].get_array().shape == (1, 8)
    assert "'what'" in top.get_title()
    assert all(t.get_fontsize() >= 9 for t in top.texts + bottom.texts)


def test_head_contributions_bad_input(example):
    ex, _, _, A = example
    pieces = torch.randn(4, 8)
    bias = torch.randn(8)
    with pytest.raises(ValueError, match="output must equal pieces.sum"):
        head_contributions_figure(pieces, bias, torch.zeros(8))
    with pytest.raises(ValueError, match="bias must have d_model = 8 features"):
        head_contributions_figure(pieces, bias[:4], pieces.sum(0) + bias)
    with pytest.raises(ValueError, match="pieces must be 2-D"):
        head_contributions_figure(pieces[0], bias, bias)
    with pytest.raises(TypeError, match="pieces must be a torch.Tensor"):
        head_contributions_figure(pieces.tolist(), bias, bias)
