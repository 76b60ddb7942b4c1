"""Figures of the chapters on embeddings, Q/K/V and heads: positional-encoding
heatmap and curves, Q/K/V heatmaps, and the head split."""

import pytest
import torch
from matplotlib.figure import Figure

import mha
from mha import plotting

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def image_axes(fig: Figure) -> list:
    """The heatmaps are the axes that hold an image; colour bars hold none."""
    return [ax for ax in fig.axes if ax.images]


def tick_texts(labels) -> list[str]:
    return [t.get_text() for t in labels]


def shown(ax) -> torch.Tensor:
    return torch.as_tensor(ax.images[0].get_array().data)


# positional_encoding_heatmap


def test_pe_heatmap_shows_the_table():
    table = mha.sinusoids(6, 8)
    fig = plotting.positional_encoding_heatmap(table)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2  # heatmap + colour bar
    (ax,) = image_axes(fig)
    torch.testing.assert_close(shown(ax), table, check_dtype=False)
    assert ax.get_xlabel().startswith("feature")
    assert ax.get_ylabel() == "position"
    assert tick_texts(ax.get_xticklabels())[:2] == ["0\nsin", "1\ncos"]
    assert tick_texts(ax.get_yticklabels()) == [str(p) for p in range(6)]
    assert len(ax.texts) == 48  # annotated: 6 x 8 values
    assert plotting.to_png(fig).startswith(PNG_SIGNATURE)


def test_pe_heatmap_of_a_long_table_is_not_annotated():
    fig = plotting.positional_encoding_heatmap(mha.sinusoids(50, 8))
    (ax,) = image_axes(fig)
    assert len(ax.texts) == 0


@pytest.mark.parametrize(
    ("table", "error"),
    [([[0.0, 1.0]], TypeError), (torch.zeros(2, 3, 4), ValueError),
     (torch.zeros(0, 8), ValueError)],
)
def test_pe_heatmap_rejects_bad_tables(table, error):
    with pytest.raises(error, match="table"):
        plotting.positional_encoding_heatmap(table)


# positional_encoding_curves


def test_pe_curves_one_labelled_line_per_dim():
    table = mha.sinusoids(50, 8)
    dims = [0, 2, 4, 6]
    fig = plotting.positional_encoding_curves(table, dims)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert len(ax.lines) == 4
    assert ax.get_xlabel() == "position"
    assert ax.get_ylabel() == "PE value"
    labels = tick_texts(ax.get_legend().get_texts())
    assert labels[0] == "feature 0: sin, wavelength 6.28"
    assert labels[1] == "feature 2: sin, wavelength 62.8"
    for line, dim in zip(ax.lines, dims, strict=True):
        torch.testing.assert_close(torch.as_tensor(line.get_ydata()), table[:, dim],
                                   check_dtype=False)
    # Greyscale-safe: every line has its own style and marker.
    assert len({line.get_linestyle() for line in ax.lines}) == 4
    assert len({line.get_marker() for line in ax.lines}) == 4


def test_pe_curves_cosine_label():
    fig = plotting.positional_encoding_curves(mha.sinusoids(10, 8), [1])
    assert tick_texts(fig.axes[0].get_legend().get_texts()) == ["feature 1: cos, wavelength 6.28"]


@pytest.mark.parametrize(
    ("dims", "error", "match"),
    [([8], ValueError, r"dims must lie in \[0, 8\)"), ([-1], ValueError, "dims"),
     ([], ValueError, "dims must list"), (["0"], TypeError, "dims must hold ints"),
     (list(range(9)), ValueError, "dims must list")],
)
def test_pe_curves_rejects_bad_dims(dims, error, match):
    with pytest.raises(error, match=match):
        plotting.positional_encoding_curves(mha.sinusoids(50, 8), dims)


# qkv_heatmaps


def test_qkv_heatmaps_three_panels_on_one_scale(ex):
    Q, K, V = (layer(ex.X) for layer in (ex.attention.Wq, ex.attention.Wk, ex.attention.Wv))
    fig = plotting.qkv_heatmaps(Q[0], K[0], V[0], ex.tokens[0])
    assert isinstance(fig, Figure)
    panels = image_axes(fig)
    assert len(panels) == 3 and len(fig.axes) == 4  # + colour bar
    assert [ax.get_title() for ax in panels] == ["Q", "K", "V"]
    assert tick_texts(panels[0].get_yticklabels()) == ex.tokens[0]
    for ax, matrix in zip(panels, (Q[0], K[0], V[0]), strict=True):
        torch.testing.assert_close(shown(ax), matrix, check_dtype=False)
        assert ax.get_xlabel() == "feature"
    limits = {ax.images[0].get_clim() for ax in panels}
    assert len(limits) == 1


def test_qkv_heatmaps_rejects_bad_input(gen):
    q = torch.randn(6, 8, generator=gen)
    with pytest.raises(ValueError, match="same shape"):
        plotting.qkv_heatmaps(q, q, torch.randn(6, 4, generator=gen), list("abcdef"))
    with pytest.raises(ValueError, match="tokens must label the 6 rows"):
        plotting.qkv_heatmaps(q, q, q, list("abc"))
    with pytest.raises(ValueError, match="tokens must label"):
        plotting.qkv_heatmaps(q, q, q, "abcdef")
    with pytest.raises(ValueError, match="K must be 2-D"):
        plotting.qkv_heatmaps(q, q.unsqueeze(0), q, list("abcdef"))


# head_split_figure


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_head_split_one_panel_per_head(ex, n_heads):
    q = ex.attention.Wq(ex.X)[0]  # (6, 8)
    d_key = 8 // n_heads
    fig = plotting.head_split_figure(q, ex.tokens[0], n_heads, name="Q[0]")
    assert isinstance(fig, Figure)
    panels = image_axes(fig)
    assert len(panels) == 1 + n_heads
    assert len(fig.axes) == 2 + n_heads  # + colour bar
    whole, heads = panels[0], panels[1:]
    assert whole.get_title() == "Q[0]: (seq_len, d_model) = (6, 8)"
    assert tick_texts(whole.get_yticklabels()) == ex.tokens[0]
    torch.testing.assert_close(shown(whole), q, check_dtype=False)
    assert len(whole.patches) == n_heads  # one frame per head
    for h, ax in enumerate(heads):
        assert ax.get_title() == f"head {h}"
        columns = list(range(h * d_key, (h + 1) * d_key))
        assert tick_texts(ax.get_xticklabels()) == [str(c) for c in columns]
        torch.testing.assert_close(shown(ax), q[:, columns], check_dtype=False)


def test_head_split_slices_match_split_heads(ex):
    Q = ex.attention.Wq(ex.X)
    fig = plotting.head_split_figure(Q[1], ex.tokens[1], 4)
    heads = image_axes(fig)[1:]
    split = mha.split_heads(Q, 4)[1]  # (4, 6, 2)
    for h, ax in enumerate(heads):
        torch.testing.assert_close(shown(ax), split[h], check_dtype=False)


def test_head_split_rejects_bad_input(gen):
    q = torch.randn(6, 8, generator=gen)
    tokens = list("abcdef")
    with pytest.raises(ValueError, match=r"n_heads must divide d_model=8 \(allowed: 1, 2, 4, 8\)"):
        plotting.head_split_figure(q, tokens, 3)
    with pytest.raises(ValueError, match="n_heads must divide"):
        plotting.head_split_figure(q, tokens, 0)
    with pytest.raises(TypeError, match="n_heads must be an int"):
        plotting.head_split_figure(q, tokens, 4.0)
    with pytest.raises(ValueError, match="tokens must label the 6 rows of q"):
        plotting.head_split_figure(q, tokens[:5], 4)
    with pytest.raises(TypeError, match="q must be a torch.Tensor"):
        plotting.head_split_figure(q.tolist(), tokens, 4)
