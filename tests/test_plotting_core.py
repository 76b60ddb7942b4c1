"""mha.plotting.core: display_attention, the palette, and a figure's PNG."""

from __future__ import annotations

import io

import matplotlib
import pytest
import torch
from figures import fits_the_column, heatmaps, texts
from PIL import Image

import mha
from mha import plotting
from mha.plotting.screens import COLUMN_WIDTH

QUERIES = ["the", "cat", "sat"]
KEYS = ["a", "dog", "ran", "off"]


def maps(n_heads, gen, q_len=3, k_len=4):
    return torch.softmax(torch.randn(n_heads, q_len, k_len, generator=gen), dim=-1)


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
        drawn = torch.as_tensor(ax.images[0].get_array().data)
        torch.testing.assert_close(drawn, attention[head].detach(), check_dtype=False)
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


def test_the_figures_the_book_draws_fit_the_column(gen):
    """As the chapters call it (the running example's six tokens, four heads or
    one, values printed) and as the explorer does (a fixed size, eight heads)."""
    tokens = ["hello", "what", "is", "a", "basic", "split"]
    for n_heads, n_rows, n_cols in [(4, 2, 2), (1, 1, 1)]:
        attention = maps(n_heads, gen, 6, 6)
        fig = mha.display_attention(
            tokens, tokens, attention, n_heads, n_rows, n_cols, title="a title"
        )
        assert heatmaps(fig)[0].texts  # the values are printed
        fits_the_column(fig)
    # A fixed size, as the explorer's pictures had: one layout, for the desk.
    explorer = mha.display_attention(
        tokens, tokens, maps(8, gen, 6, 6), 8, 2, 4, figsize=(COLUMN_WIDTH, 4.6)
    )
    assert explorer.phone is None
    fits_the_column(explorer, phone=False)


def test_the_colour_map_gets_lighter_steadily_so_it_reads_in_greyscale():
    rgb = torch.tensor(
        matplotlib.colormaps[plotting.CMAP](torch.linspace(0, 1, 256).numpy())
    )
    luminance = rgb[:, :3] @ torch.tensor([0.2126, 0.7152, 0.0722], dtype=rgb.dtype)
    assert (luminance.diff() > 0).all() and luminance[-1] - luminance[0] > 0.7


def test_to_png_gives_png_bytes_without_the_software_name(gen):
    png = plotting.to_png(mha.display_attention(QUERIES, KEYS, maps(1, gen), 1, 1, 1))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and b"Software" not in png


def test_a_figure_shows_itself_at_twice_its_resolution(gen):
    fig = mha.display_attention(QUERIES, KEYS, maps(1, gen), 1, 1, 1)
    png, size = fig._repr_png_()  # what Jupyter shows, and at which size
    width, height = (fig.get_size_inches() * fig.dpi).round()
    assert size == {"width": width, "height": height}
    sharp_width, sharp_height = Image.open(io.BytesIO(png)).size
    assert abs(sharp_width - 2 * width) <= 1 and abs(sharp_height - 2 * height) <= 1


ATTENTION = torch.full((4, 2, 3), 1 / 3)

# Each row, a test (see conftest.py): the call, its error, and what the message
# names: the argument, what was expected, what was given.
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
