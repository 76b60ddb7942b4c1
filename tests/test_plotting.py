"""display_attention: one labelled heatmap per head, plus a colour bar."""

import io

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure

import mha

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_backend_is_agg():
    assert matplotlib.get_backend().lower() == "agg"


def random_maps(n_heads: int, q_len: int, k_len: int, gen: torch.Generator) -> torch.Tensor:
    return torch.softmax(torch.randn(n_heads, q_len, k_len, generator=gen), dim=-1)


def heatmap_axes(fig: Figure) -> list:
    """The heatmaps are the axes that hold an image; the colour bar holds none."""
    return [ax for ax in fig.axes if ax.images]


def labels(tick_labels) -> list[str]:
    return [t.get_text() for t in tick_labels]


def assert_edge_labels(heatmaps, n_cols, q_tokens, k_tokens):
    """The panels share their tokens: the left column shows the query tokens,
    the bottom row the key tokens, and inner panels show none."""
    n_rows = len(heatmaps) // n_cols
    for head, ax in enumerate(heatmaps):
        row, col = divmod(head, n_cols)
        assert labels(ax.get_yticklabels()) == (q_tokens if col == 0 else [])
        assert labels(ax.get_xticklabels()) == (k_tokens if row == n_rows - 1 else [])


@pytest.mark.parametrize(("n_heads", "n_rows", "n_cols"), [(1, 1, 1), (4, 2, 2), (8, 2, 4)])
def test_one_labelled_heatmap_per_head(gen, n_heads, n_rows, n_cols):
    q_tokens = ["the", "cat", "sat"]
    k_tokens = ["a", "dog", "ran", "off"]
    attn = random_maps(n_heads, len(q_tokens), len(k_tokens), gen)
    fig = mha.display_attention(q_tokens, k_tokens, attn, n_heads, n_rows, n_cols)
    assert isinstance(fig, Figure)
    heatmaps = heatmap_axes(fig)
    assert len(heatmaps) == n_heads
    assert len(fig.axes) == n_heads + 1  # + the colour bar
    # The panels are in a n_rows x n_cols grid, filled row by row.
    xs = sorted({round(ax.get_position().x0, 6) for ax in heatmaps})
    ys = sorted({round(ax.get_position().y0, 6) for ax in heatmaps}, reverse=True)
    assert (len(ys), len(xs)) == (n_rows, n_cols)
    for head, ax in enumerate(heatmaps):
        position = ax.get_position()
        assert (ys.index(round(position.y0, 6)), xs.index(round(position.x0, 6))) == divmod(
            head, n_cols
        )
    assert_edge_labels(heatmaps, n_cols, q_tokens, k_tokens)
    for head, ax in enumerate(heatmaps):
        assert ax.get_title() == f"head {head}"
        # The image shows exactly this head's map, rows = queries, columns = keys.
        shown = torch.as_tensor(ax.images[0].get_array().data)
        torch.testing.assert_close(shown, attn[head], atol=1e-6, rtol=0, check_dtype=False)


def test_tokens_of_the_running_example(ex):
    with torch.no_grad():
        _, probs = ex.attention(ex.X, ex.X, ex.X)
    fig = mha.display_attention(ex.tokens[0], ex.tokens[0], probs[0], 4, 2, 2, title="sentence 0")
    assert fig.get_suptitle() == "sentence 0"
    assert_edge_labels(heatmap_axes(fig), 2, ex.tokens[0], ex.tokens[0])


def test_cross_attention_labels(gen):
    """q_len != k_len: rows labelled with queries, columns with keys."""
    attn = random_maps(2, 2, 5, gen)
    fig = mha.display_attention(["q0", "q1"], list("abcde"), attn, 2, 1, 2)
    assert_edge_labels(heatmap_axes(fig), 2, ["q0", "q1"], list("abcde"))


def test_annotate_on_off(gen):
    attn = random_maps(4, 3, 4, gen)
    args = (["a", "b", "c"], ["w", "x", "y", "z"], attn, 4, 2, 2)
    with_text = mha.display_attention(*args, annotate=True)
    without = mha.display_attention(*args, annotate=False)
    for ax in heatmap_axes(without):
        assert len(ax.texts) == 0
    for head, ax in enumerate(heatmap_axes(with_text)):
        assert len(ax.texts) == 3 * 4
        expected = [f"{v:.2f}" for v in attn[head].flatten().tolist()]  # row by row
        assert [t.get_text() for t in ax.texts] == expected


def test_annotate_default_depends_on_size(gen):
    small = mha.display_attention(list("abcd"), list("wxyz"), random_maps(1, 4, 4, gen), 1, 1, 1)
    large = mha.display_attention(list("abcdefghi"), list("abcdefghi"),
                                  random_maps(1, 9, 9, gen), 1, 1, 1)  # 81 cells > 64
    assert len(heatmap_axes(small)[0].texts) == 16
    assert len(heatmap_axes(large)[0].texts) == 0


def test_saves_to_png(gen):
    fig = mha.display_attention(["a", "b"], ["c", "d"], random_maps(2, 2, 2, gen), 2, 1, 2)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    data = buffer.getvalue()
    assert data[:8] == PNG_SIGNATURE
    assert len(data) > 1000


def test_accepts_tensors_that_require_grad(gen):
    attn = random_maps(1, 2, 2, gen).requires_grad_(True)
    fig = mha.display_attention(["a", "b"], ["c", "d"], attn, 1, 1, 1)
    assert len(heatmap_axes(fig)) == 1


def test_colour_map_reads_in_greyscale():
    """The heatmaps' colour map gets lighter steadily from 0 to 1, so the order of
    values survives printing in greyscale (and colour-vision deficiencies)."""
    from matplotlib import colormaps

    rgb = torch.tensor(colormaps[mha.plotting.CMAP](torch.linspace(0, 1, 256).numpy())[:, :3])
    luminance = rgb @ torch.tensor([0.2126, 0.7152, 0.0722], dtype=rgb.dtype)
    steps = luminance[1:] - luminance[:-1]
    assert bool((steps > 0).all())
    assert luminance[-1] - luminance[0] > 0.7
