"""mha.plotting.merge: one query's output as a weighted average of the values,
and the output projection as a sum over the heads."""

from __future__ import annotations

import math

import pytest
import torch
from figures import close, fits_the_column, texts
from refusal import refuses, row_ids

import mha
from mha import plotting
from mha.plotting.screens import COLUMN_WIDTH, PHONE_WIDTH


@pytest.fixture(scope="module")
def example():
    """The running example's heads: its weights, values and weighted values."""
    ex = mha.running_example()
    X, layer = ex.X, ex.attention
    Q, K, V = (mha.split_heads(w(X), 4) for w in (layer.Wq, layer.Wk, layer.Wv))
    probs = mha.attention_probs(mha.scaled_dot_product(Q, K))  # (3, 4, 6, 6)
    A = probs @ V  # (3, 4, 6, 2)
    return ex, probs, V, A


def test_weighted_values_figure_puts_the_output_at_the_weighted_average(gen):
    probs = torch.softmax(torch.randn(5, generator=gen), dim=0)
    values = torch.randn(5, 2, generator=gen)
    bars, plane = plotting.weighted_values_figure(
        probs, values, list("abcde"), "q"
    ).axes
    close([patch.get_width() for patch in bars.patches], probs)
    star = plane.collections[-1].get_offsets()[0]
    mean = [sum(probs[j] * values[j, f] for j in range(5)) for f in range(2)]
    close(star, torch.tensor(mean), atol=1e-6, rtol=0)


def labels_under_the_star(fig) -> list[str]:
    """The labels of the plane of ``fig`` (laid out) that cover its star."""
    ax = fig.axes[1]
    star = ax.collections[-1]
    x, y = ax.transData.transform(star.get_offsets()[0])
    radius = math.sqrt(star.get_sizes()[0]) / 2 * fig.dpi / 72  # pixels
    under = []
    for label in ax.texts:
        box = label.get_window_extent()
        nearest = min(max(x, box.x0), box.x1), min(max(y, box.y0), box.y1)
        if math.hypot(x - nearest[0], y - nearest[1]) <= radius:
            under.append(label.get_text())
    return under


@pytest.mark.slow
@pytest.mark.parametrize("head", range(4))
def test_weighted_values_labels_are_apart_and_off_the_star(example, head):
    """For every query of the head (sentence 0), in the desk's and the phone's
    layout: the figure fits, no word's label covers another's or the star.
    Each layout is drawn with its width given, as the figure function draws
    it for ``weighted_values_figure(...)`` and its ``phone`` (the function's
    own check that the desk's text needs a phone layout would lay the desk out
    once more; that it gives one: the test below)."""
    ex, probs, V, _ = example
    for query in range(6):
        args = (probs[0, head, query], V[0, head], ex.tokens[0], "q")
        desk = plotting.weighted_values_figure(*args, width=COLUMN_WIDTH)
        desk.phone = plotting.weighted_values_figure(*args, width=PHONE_WIDTH)
        fits_the_column(desk)  # also lays each layout out
        for fig in (desk, desk.phone):
            where = (head, query, tuple(fig.get_size_inches()))
            assert labels_under_the_star(fig) == [], where
            boxes = [label.get_window_extent() for label in fig.axes[1].texts]
            for i, a in enumerate(boxes):
                for b in boxes[:i]:
                    assert not a.overlaps(b), where


def test_weighted_values_figure_uses_the_books_axis_names(example):
    ex, probs, V, _ = example
    fig = plotting.weighted_values_figure(probs[0, 0, 2], V[0, 0], ex.tokens[0], "what")
    assert fig.axes[0].get_ylabel() == "key (attended to)"
    assert fig.axes[0].get_xlabel().startswith("attention probability")
    # Its text too small in a phone's column, it carries the phone's layout
    # (drawn as the test above draws it).
    assert fig.get_size_inches()[0] == COLUMN_WIDTH
    assert fig.phone.get_size_inches()[0] == PHONE_WIDTH


def test_head_contributions_figure_draws_a_row_per_head_and_their_sum(example):
    ex, _, _, A = example
    Wo = ex.attention.Wo
    pieces = torch.stack(
        [A[0, h, 2] @ Wo.weight[:, 2 * h : 2 * h + 2].T for h in range(4)]
    )
    output = Wo(mha.merge_heads(A))[0, 2]
    fig = plotting.head_contributions_figure(pieces, Wo.bias, output, token="what")
    fits_the_column(fig)
    top, bottom = fig.axes[:2]
    labels = ["head 0", "head 1", "head 2", "head 3", "bias"]
    assert texts(top.get_yticklabels()) == labels
    close(top.images[0].get_array(), torch.cat([pieces, Wo.bias[None]]).detach())
    close(bottom.images[0].get_array(), output[None].detach())
    assert "'what'" in top.get_title()


PROBS, VALUES = torch.full((5,), 0.2), torch.zeros(5, 2)
PIECES, BIAS = torch.ones(4, 8), torch.ones(8)

# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: plotting.weighted_values_figure(PROBS, VALUES[:, :1], list("abcde")), ValueError,
     "values", "(k_len, 2) = (5, 2)", "got (5, 1)"),
    (lambda: plotting.weighted_values_figure(-PROBS, VALUES, list("abcde")), ValueError,
     "probs", "probabilities in [0, 1]", "got values from -0.2 to -0.2"),
    (lambda: plotting.head_contributions_figure(PIECES, BIAS, torch.zeros(8)), ValueError,
     "output", "equal pieces.sum(0) + bias", "holds other numbers"),
    (lambda: plotting.head_contributions_figure(PIECES, BIAS[:4], PIECES.sum(0) + BIAS),
     ValueError, "bias", "d_model = 8 features like pieces", "got shape (4,)"),
    (lambda: plotting.head_contributions_figure(PIECES[0], BIAS, BIAS), ValueError, "pieces",
     "2-D", "got shape (8,)"),
    (lambda: plotting.head_contributions_figure(PIECES.tolist(), BIAS, BIAS), TypeError,
     "pieces", "torch.Tensor", "got list"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
