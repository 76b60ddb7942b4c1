"""mha.plotting.core: display_attention, the palette, and a figure's PNG."""

from __future__ import annotations

import base64
import io
import re

import matplotlib
import pytest
import torch
from figures import fits_the_column, heatmaps, texts
from matplotlib.colors import to_hex, to_rgb
from PIL import Image
from refusal import refuses, row_ids

import mha
from mha import plotting
from mha.plotting.figure import PHONE_MIME, BookFigure
from mha.plotting.palette import (
    BLOCKED_FACE,
    BLOCKED_HATCH,
    CMAP,
    HEAD_COLOURS,
    head_colour,
)
from mha.plotting.screens import (
    COLUMN_WIDTH,
    PHONE_SCREEN,
    PHONE_WIDTH,
    SMALLEST_PX,
    css_px,
)

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


@pytest.mark.parametrize(
    ("given", "n_heads", "grid"),
    [
        ({}, 1, (1, 1)),
        ({}, 2, (1, 2)),
        ({}, 4, (2, 2)),
        ({}, 6, (2, 3)),
        ({}, 8, (2, 4)),
        ({"n_rows": 1}, 4, (1, 4)),
        ({"n_cols": 1}, 4, (4, 1)),
    ],
)
def test_the_head_count_and_grid_follow_from_the_maps_when_not_given(
    gen, given, n_heads, grid
):
    fig = mha.display_attention(QUERIES, KEYS, maps(n_heads, gen), **given)
    panels = heatmaps(fig)
    assert len(panels) == n_heads
    xs = {round(ax.get_position().x0, 6) for ax in panels}
    ys = {round(ax.get_position().y0, 6) for ax in panels}
    assert (len(ys), len(xs)) == grid


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

# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, 4, 1, 3), ValueError,
     "n_rows * n_cols", "equal n_heads", "got 1 * 3 = 3 panels for n_heads=4"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, n_rows=3), ValueError,
     "n_rows * n_cols", "equal n_heads", "got 3 * 1 = 3 panels for n_heads=4"),
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
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, 4, 2, 2,
                                   mask=[[True]]), TypeError,
     "mask", "torch.Tensor (True or 1 = may attend)", "got list"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, 4, 2, 2,
                                   mask=torch.ones(3, 2, 2, 3, dtype=torch.bool)), ValueError,
     "mask", "broadcastable to (n_heads, q_len, k_len) = (4, 2, 3)", "got shape (3, 2, 2, 3)"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, 4, 2, 2,
                                   mask=torch.eye(2, 3).bool()), ValueError,
     "mask", "block only keys that get no weight", "holds 0.333"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, title=5), TypeError,
     "title", "a string", "got int 5"),
    (lambda: mha.display_attention([1, 2], list("xyz"), ATTENTION), TypeError,
     "query_tokens", "a list of strings", "got int 1 at position 0"),
    (lambda: mha.display_attention("ab", list("xyz"), ATTENTION), TypeError,
     "query_tokens", "mha.tokenize(...)", "got the string 'ab'"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION, dpi=0), ValueError,
     "dpi", "a positive number", "got 0"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), ATTENTION,
                                   mask=torch.full((2, 3), 0.5)), ValueError,
     "mask", "only 0 and 1", "got the value 0.5"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), torch.full((1, 2, 3), torch.nan)),
     ValueError, "attention", "probabilities", "got NaN in row 0 of head 0"),
    (lambda: mha.display_attention(["a", "b"], list("xyz"), torch.arange(6.0).view(1, 2, 3)),
     ValueError, "attention", "summing to 1", "row 0 of head 0 summing to 3"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


# --- Blocked keys, head colours, the phone's layout ------------------------------------

TOKENS = ["i", "wonder", "what", "will", "come", "next"]


def causal_maps(n_heads, gen):
    scores = torch.randn(n_heads, 6, 6, generator=gen)
    return torch.softmax(scores.masked_fill(~mha.causal_mask(6), float("-inf")), -1)


def test_blocked_keys_are_grey_hatched_and_unnumbered_and_named_in_the_legend(gen):
    fig = mha.display_attention(
        TOKENS, TOKENS, causal_maps(4, gen), 4, 2, 2, mask=mha.causal_mask(6)
    )
    for ax in heatmaps(fig):
        drawn = torch.as_tensor(ax.images[0].get_array().filled(float("nan")))
        blocked = ~mha.causal_mask(6)
        assert drawn[blocked].isnan().all() and not drawn[~blocked].isnan().any()
        assert len(ax.patches) == int(blocked.sum())  # one patch per blocked key
        for patch in ax.patches:
            assert patch.get_hatch() == BLOCKED_HATCH
            assert to_hex(patch.get_facecolor()) == BLOCKED_FACE
        # Numbers only in the cells that may attend: 21 of 36.
        assert len(ax.texts) == 21
    (legend,) = fig.legends
    assert texts(legend.get_texts()) == ["blocked"]
    # The grey is none of the colour map's: the map never draws a blocked key.
    rgb = matplotlib.colormaps[CMAP](torch.linspace(0, 1, 256).numpy())[:, :3]
    grey = torch.tensor(to_rgb(BLOCKED_FACE), dtype=torch.float64)
    assert (torch.tensor(rgb) - grey).abs().sum(dim=1).min() > 0.2


def test_without_a_mask_nothing_is_blocked_and_no_legend(gen):
    fig = mha.display_attention(TOKENS, TOKENS, causal_maps(4, gen), 4, 2, 2)
    assert not fig.legends and not any(ax.patches for ax in heatmaps(fig))


def test_every_head_has_its_colour_in_every_figure(gen):
    maps = mha.display_attention(TOKENS, TOKENS, causal_maps(4, gen), 4, 2, 2)
    for head, ax in enumerate(heatmaps(maps)):
        assert to_hex(ax.title.get_color()) == head_colour(head).lower()
        assert {to_hex(s.get_edgecolor()) for s in ax.spines.values()} == {
            head_colour(head).lower()
        }
    assert HEAD_COLOURS[:4] == ("#0072B2", "#D55E00", "#009E73", "#CC79A7")


@pytest.mark.parametrize("layout", ["desk", "phone"])
def test_every_map_s_frame_is_inside_the_figure(gen, layout):
    """Each head's coloured frame (its axes' spines, 2 points wide) is drawn
    whole: the phone's layout put the right-hand maps' right edge on the
    figure's, which cut half their frame off."""
    fig = mha.display_attention(TOKENS, TOKENS, causal_maps(4, gen), 4, 2, 2)
    fig = fig.phone if layout == "phone" else fig
    width, height = fig.get_size_inches()
    for ax in heatmaps(fig):
        box = ax.get_position()
        half = max(s.get_linewidth() for s in ax.spines.values()) / 72 / 2  # inches
        assert box.x0 * width - half >= 0 and box.x1 * width + half <= width, box
        assert box.y0 * height - half >= 0 and box.y1 * height + half <= height, box


def test_four_maps_get_a_phone_layout_without_numbers_and_one_map_needs_none(gen):
    fig = mha.display_attention(TOKENS, TOKENS, causal_maps(4, gen), 4, 2, 2)
    phone = fig.phone
    assert phone is not None
    assert phone.get_size_inches()[0] == pytest.approx(PHONE_WIDTH)
    fits_the_column(fig)  # and the phone's text is 9 px or more in 360 px
    assert all(ax.texts for ax in heatmaps(fig))  # the desk prints values
    assert not any(ax.texts for ax in heatmaps(phone))  # they would not fit
    bar = [ax for ax in phone.axes if not ax.images or ax not in heatmaps(phone)][0]
    width, height = bar.get_position().width, bar.get_position().height
    assert width > height  # the colour bar lies under the maps
    one = mha.display_attention(TOKENS, TOKENS, causal_maps(1, gen), 1, 1, 1)
    assert one.phone is None
    fits_the_column(one)  # legible on a phone as it is
    fixed = mha.display_attention(
        TOKENS, TOKENS, causal_maps(4, gen), 4, 2, 2, width=COLUMN_WIDTH
    )
    assert fixed.phone is None  # a width asked for: that layout only


def test_the_notebook_gets_the_desk_png_and_the_phone_s_as_a_picture_source(gen):
    fig = mha.display_attention(TOKENS, TOKENS, causal_maps(4, gen), 4, 2, 2)
    data, metadata = fig._repr_mimebundle_()
    assert set(data) == {"image/png", "text/plain", PHONE_MIME}
    assert data["text/plain"] == repr(fig)
    width, height = (fig.get_size_inches() * 100).round()
    assert metadata == {"image/png": {"width": int(width), "height": int(height)}}
    source = data[PHONE_MIME]
    media = re.search(r'media="\(max-width: (\d+)px\)"', source)
    assert int(media.group(1)) == PHONE_SCREEN
    png = base64.b64decode(re.search(r"base64,([^\"]+)", source).group(1))
    width, height = Image.open(io.BytesIO(png)).size
    phone_w, phone_h = (fig.phone.get_size_inches() * 100).round()
    assert (width, height) == (2 * phone_w, 2 * phone_h)  # sharp: twice its size
    assert f'width="{int(phone_w)}" height="{int(phone_h)}"' in source


def test_the_phone_layout_is_used_only_below_the_column_where_the_desk_s_reads():
    """PHONE_SCREEN: in any wider screen's column (the screen less 32 px) the
    desk's figure, 720 px wide at most, keeps its 9-point text at 9 px or more."""
    column = PHONE_SCREEN + 1 - 32
    assert 9 * 100 / 72 * column / (COLUMN_WIDTH * 100) >= SMALLEST_PX


def test_a_mask_that_blocks_weighted_keys_is_refused(gen):
    probs = causal_maps(4, gen)
    with pytest.raises(
        ValueError, match="mask must block only keys that get no weight"
    ):
        mha.display_attention(TOKENS, TOKENS, probs, 4, 2, 2, mask=~mha.causal_mask(6))


def test_text_shrinks_with_a_figure_shown_in_a_narrower_column():
    """9 points at 100 dpi are 12.5 px; a 720 px figure in a 360 px column
    is shown at half its size, a 360 px figure at its own."""
    wide, narrow = BookFigure(figsize=(7.2, 2)), BookFigure(figsize=(3.6, 2))
    assert (wide.dpi, narrow.dpi) == (100, 100)
    assert css_px(9, wide, column=360) == pytest.approx(6.25)
    assert css_px(9, narrow, column=360) == pytest.approx(12.5)
    assert css_px(9, wide, column=1000) == pytest.approx(12.5)  # never enlarged


# --- One colour language (issue 49) -------------------------------------------------


def _luminance(colour: str) -> float:
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        for c in to_rgb(colour)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _lab(colour: str) -> torch.Tensor:
    from matplotlib.colors import to_rgb as rgb

    linear = torch.tensor(
        [
            c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
            for c in rgb(colour)
        ],
        dtype=torch.float64,
    )
    xyz = (
        torch.tensor(
            [
                [0.4124, 0.3576, 0.1805],
                [0.2126, 0.7152, 0.0722],
                [0.0193, 0.1192, 0.9505],
            ],
            dtype=torch.float64,
        )
        @ linear
        / torch.tensor([0.95047, 1.0, 1.08883], dtype=torch.float64)
    )
    f = torch.where(xyz > 0.008856, xyz.pow(1 / 3), 7.787 * xyz + 16 / 116)
    return torch.stack([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_each_head_s_colour_reads_on_a_light_page_and_a_dark_one_and_stands_apart():
    """Head colours: contrast 3 or more with white and with the dark page
    (#121212); no two closer than ΔE 17 (CIELAB); none near the colour
    map's ends (navy for 0, yellow for 1)."""
    assert len(set(HEAD_COLOURS)) == 8
    for colour in HEAD_COLOURS:
        assert _contrast(colour, "#ffffff") >= 3.0, colour
        assert _contrast(colour, "#121212") >= 3.0, colour
    for i, a in enumerate(HEAD_COLOURS):
        for b in HEAD_COLOURS[i + 1 :]:
            assert float((_lab(a) - _lab(b)).norm()) >= 17, (a, b)
    ends = [to_hex(matplotlib.colormaps[CMAP](x)) for x in (0.0, 1.0)]
    for colour in HEAD_COLOURS:
        assert min(float((_lab(colour) - _lab(e)).norm()) for e in ends) >= 30, colour


def test_signed_values_take_the_diverging_map_probabilities_the_sequential_one(gen):
    from mha.plotting.palette import SIGNED_CMAP

    pieces = torch.randn(4, 8, generator=gen)
    bias = torch.randn(8, generator=gen)
    sums = plotting.head_contributions_figure(pieces, bias, pieces.sum(0) + bias)
    for fig in (sums, sums.phone):
        names = {image.get_cmap().name for ax in fig.axes for image in ax.images}
        assert names == {SIGNED_CMAP}
        for ax in fig.axes:
            for image in ax.images:
                low, high = image.get_clim()
                assert low == -high  # centred on 0: white is 0
    attention = mha.display_attention(QUERIES, KEYS, maps(4, gen), 4, 2, 2)
    assert {
        image.get_cmap().name for ax in heatmaps(attention) for image in ax.images
    } == {CMAP}


def test_the_probability_scale_has_one_colour_bar_on_a_desk_and_on_a_phone(gen):
    from mha.plotting.palette import PROBABILITY_TICKS

    fig = mha.display_attention(QUERIES, KEYS, maps(4, gen), 4, 2, 2)
    for layout in (fig, fig.phone, mha.display_attention(QUERIES, KEYS, maps(1, gen))):
        (bar,) = [ax for ax in layout.axes if ax not in heatmaps(layout)]
        x0, y0, w, h = bar.get_position().bounds
        assert w > h  # lying under the maps
        assert [float(t) for t in bar.get_xticks()] == list(PROBABILITY_TICKS)
        assert max(y0 + h, 0) < min(ax.get_position().y0 for ax in heatmaps(layout))


def test_a_log_axis_is_labelled_in_plain_numbers_at_the_labels_size():
    from mha.plotting.screens import plain_number

    assert [plain_number(v) for v in (0.01, 0.5, 1, 100, 1e4, 2e6, 1e9)] == [
        "0.01", "0.5", "1", "100", "10k", "2M", "1G",
    ]  # fmt: skip
    fig = plotting.training_curve([2.5 * 0.99**i for i in range(400)])
    for layout in (fig, fig.phone):
        layout.draw_without_rendering()
        labels = [t for t in layout.axes[0].yaxis.get_ticklabels() if t.get_text()]
        assert labels and not any("$" in t.get_text() for t in labels)  # no exponents


def test_a_figure_s_png_keeps_its_colour_bar_smooth_and_its_ground_white(gen):
    """The 256-colour PNG keeps 64 steps of the colour map (a quantizer's own
    palette made the bar a dozen bands) and the figure's own white."""
    fig = mha.display_attention(QUERIES, KEYS, maps(4, gen), 4, 2, 2)
    image = Image.open(io.BytesIO(plotting.to_png(fig, dpi=200, colours=256)))
    assert image.mode == "P"
    rgb = image.convert("RGB")
    assert rgb.getpixel((2, 2)) == (255, 255, 255)
    (bar,) = [ax for ax in fig.axes if ax not in heatmaps(fig)]
    x0, y0, x1, y1 = bar.get_window_extent().extents * 2  # at twice the resolution
    row = round(rgb.height - (y0 + y1) / 2)
    shades = {rgb.getpixel((x, row)) for x in range(round(x0) + 3, round(x1) - 3)}
    assert len(shades) >= 50, len(shades)
