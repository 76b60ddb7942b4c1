"""mha.plotting.core: display_attention, the palette, and the fingerprint that
nbval compares in place of a figure's pixels."""

from __future__ import annotations

import difflib

import matplotlib
import pytest
import torch

import mha
from mha import plotting

QUERIES = ["the", "cat", "sat"]
KEYS = ["a", "dog", "ran", "off"]


def maps(n_heads, gen, q_len=3, k_len=4):
    return torch.softmax(torch.randn(n_heads, q_len, k_len, generator=gen), dim=-1)


def heatmaps(fig):
    """The axes that hold an image (the colour bar holds none)."""
    return [ax for ax in fig.axes if ax.images]


def texts(labels):
    return [label.get_text() for label in labels]


@pytest.mark.parametrize(
    ("n_heads", "n_rows", "n_cols"), [(1, 1, 1), (4, 2, 2), (8, 2, 4)]
)
def test_one_heatmap_per_head_in_a_grid_labelled_on_its_edges(
    gen, n_heads, n_rows, n_cols
):
    attention = maps(n_heads, gen).requires_grad_()
    fig = mha.display_attention(QUERIES, KEYS, attention, n_heads, n_rows, n_cols)
    panels = heatmaps(fig)
    assert len(panels) == n_heads and len(fig.axes) == n_heads + 1  # and a colour bar
    xs = sorted({round(ax.get_position().x0, 6) for ax in panels})
    ys = sorted({round(ax.get_position().y0, 6) for ax in panels}, reverse=True)
    for head, ax in enumerate(panels):
        row, col = divmod(head, n_cols)  # filled row by row
        where = (
            ys.index(round(ax.get_position().y0, 6)),
            xs.index(round(ax.get_position().x0, 6)),
        )
        assert where == (row, col)
        assert str(head) in ax.get_title()
        shown = torch.as_tensor(ax.images[0].get_array().data)
        torch.testing.assert_close(shown, attention[head].detach(), check_dtype=False)
        assert texts(ax.get_yticklabels()) == (QUERIES if col == 0 else [])
        assert texts(ax.get_xticklabels()) == (KEYS if row == n_rows - 1 else [])
        assert ax.images[0].get_clim() == (0.0, 1.0)


def test_values_are_printed_in_small_maps_only_unless_asked(gen):
    attention = maps(2, gen)
    printed = heatmaps(mha.display_attention(QUERIES, KEYS, attention, 2, 1, 2))[1]
    values = [float(text.get_text()) for text in printed.texts]  # row by row
    torch.testing.assert_close(
        torch.tensor(values), attention[1].flatten(), atol=0.005, rtol=0
    )
    assert not heatmaps(
        mha.display_attention(QUERIES, KEYS, attention, 2, 1, 2, annotate=False)
    )[0].texts
    nine = [str(i) for i in range(9)]  # 81 cells: more than 64
    large = mha.display_attention(nine, nine, maps(1, gen, 9, 9), 1, 1, 1)
    assert not heatmaps(large)[0].texts


def test_the_colour_map_gets_lighter_steadily_so_it_reads_in_greyscale():
    rgb = torch.tensor(
        matplotlib.colormaps[plotting.CMAP](torch.linspace(0, 1, 256).numpy())
    )
    luminance = rgb[:, :3] @ torch.tensor([0.2126, 0.7152, 0.0722], dtype=rgb.dtype)
    assert (luminance.diff() > 0).all() and luminance[-1] - luminance[0] > 0.7


def test_to_png_gives_png_bytes_without_the_software_name(gen):
    png = plotting.to_png(mha.display_attention(QUERIES, KEYS, maps(1, gen), 1, 1, 1))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and b"Software" not in png


# --- the fingerprint ----------------------------------------------------------------


@pytest.fixture
def figure(gen):
    """``figure(**changes)``: the same attention figure, with some arguments changed."""
    attention = maps(4, gen)

    def make(
        attention=attention, tokens=QUERIES, n_heads=4, title="sentence 0", **kwargs
    ):
        grid = {4: (2, 2), 2: (1, 2)}[n_heads]
        return mha.display_attention(
            tokens, KEYS, attention[:n_heads], n_heads, *grid, title=title, **kwargs
        )

    make.attention = attention
    return make


def changed(attention, delta):
    attention = attention.clone()
    attention[1, 2, 3] += delta
    return attention


def diff(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.ndiff(before.splitlines(), after.splitlines())
        if line[0] in "-+"
    ]


def test_what_a_figure_draws_changes_its_fingerprint(figure):
    base = repr(figure())
    assert base == plotting.fingerprint(figure())  # a repeatable function of the figure
    others = {
        "another head count": figure(n_heads=2),
        "one value changed by 0.05": figure(attention=changed(figure.attention, 0.05)),
        "another title": figure(title="sentence 1"),
        "another token label": figure(tokens=["the", "dog", "sat"]),
    }
    for what, fig in others.items():
        assert repr(fig) != base, what
    # Without printed values (as in the explorer) the image alone shows the change.
    unprinted = repr(figure(annotate=False))
    assert (
        repr(figure(attention=changed(figure.attention, 0.05), annotate=False))
        != unprinted
    )
    causal, padding = torch.ones(4, 4).tril(), torch.tensor([[1, 1, 1, 0]]).expand(4, 4)
    tokens = KEYS
    assert repr(plotting.mask_figure(causal, tokens, tokens)) != repr(
        plotting.mask_figure(padding, tokens, tokens)
    )
    losses = [2.0 / step for step in range(1, 41)]
    curve = repr(plotting.training_curve(losses))
    assert repr(plotting.training_curve([*losses[:-1], losses[-1] * 1.1])) != curve
    assert repr(plotting.training_curve([v * (1 + 1e-9) for v in losses])) == curve


def test_pixel_differences_alone_keep_the_fingerprint(figure):
    base = figure()
    fingerprint = repr(base)
    assert repr(figure(attention=changed(figure.attention, 1e-9))) == fingerprint
    crisp_rc = {
        "lines.antialiased": False,
        "patch.antialiased": False,
        "text.antialiased": False,
    }
    with matplotlib.rc_context(crisp_rc):
        crisp = figure()
    assert plotting.to_png(crisp) != plotting.to_png(base)
    assert repr(crisp) == fingerprint
    assert plotting.to_png(base, dpi=50) != plotting.to_png(base, dpi=100)
    assert repr(base) == fingerprint  # after rendering at two resolutions


def test_the_fingerprint_names_what_it_covers_so_a_change_reads_as_a_diff(figure):
    text = repr(figure())
    for shown in ("sentence 0", *QUERIES, *KEYS, "head 0", "head 3", "key", "query"):
        assert shown in text, shown
    title_change = diff(text, repr(figure(title="sentence 1")))
    assert any("sentence 0" in line for line in title_change if line[0] == "-")
    assert any("sentence 1" in line for line in title_change if line[0] == "+")
    label_change = diff(text, repr(figure(tokens=["the", "dog", "sat"])))
    assert any("the | cat | sat" in line for line in label_change if line[0] == "-")
    assert any("the | dog | sat" in line for line in label_change if line[0] == "+")
    # A change in the data alone shows in the digest line only.
    (before, after) = diff(
        text, repr(figure(attention=changed(figure.attention, 0.05)))
    )
    assert before.startswith("-  drawn") and after.startswith("+  drawn")


ATTENTION = torch.full((4, 2, 3), 1 / 3)

BAD_INPUT = [
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, 4, 1, 3), ValueError,
     "n_rows * n_cols", "equal n_heads", "got 1 * 3 = 3 panels for n_heads=4"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, 2, 1, 2), ValueError,
     "attention", "n_heads=2 maps on its first axis", "got shape (4, 2, 3)"),
    (lambda: mha.display_attention(list("abc"), list("xyz"), ATTENTION, 4, 2, 2), ValueError,
     "query_tokens and key_tokens", "label the 2 rows and 3 columns", "got 3 query and 3 key"),
    (lambda: mha.display_attention(["a"], ["x"], ATTENTION[0], 1, 1, 1), ValueError,
     "attention", "3-D", "got shape (2, 3)"),
    (lambda: mha.display_attention(["a"], ["x"], [[[1.0]]], 1, 1, 1), TypeError, "attention",
     "torch.Tensor", "got list"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, 4.0, 2, 2), TypeError,
     "n_heads", "an int", "got float 4.0"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "name", "expected", "given"), BAD_INPUT)
def test_bad_input_is_refused_with_a_clear_message(
    fails_with, call, error, name, expected, given
):
    fails_with(call, error, name, expected, given)
