"""The topic figures of mha.plotting: each draws the data it is given."""

from __future__ import annotations

import math

import pytest
import torch

import mha
from mha import plotting
from mha.embedding import sinusoids


def heatmaps(fig):
    return [ax for ax in fig.axes if ax.images]


def shown(ax) -> torch.Tensor:
    return torch.as_tensor(ax.images[0].get_array().data, dtype=torch.float64)


def close(got, want, **tol):
    torch.testing.assert_close(
        torch.as_tensor(got, dtype=torch.float64), want.double(), **tol
    )


def test_token_grid_hatches_padding_and_keeps_its_label_readable():
    tokens = [["i", "wonder", "<pad>"], ["what", "will", "come"]]
    fig = plotting.token_grid(
        tokens, torch.tensor([[True, True, False], [True, True, True]])
    )
    (ax,) = fig.axes
    assert (
        len(ax.patches) == 6
        and sum(bool(patch.get_hatch()) for patch in ax.patches) == 1
    )
    assert sorted(text.get_text() for text in ax.texts) == sorted(sum(tokens, []))
    for (
        text
    ) in ax.texts:  # a <pad> label sits on an opaque white patch, others on nothing
        box = text.get_bbox_patch()
        assert (box is not None and tuple(box.get_facecolor()) == (1, 1, 1, 1)) == (
            text.get_text() == "<pad>"
        )


@pytest.mark.parametrize(("n_positions", "printed"), [(6, True), (50, False)])
def test_positional_encoding_heatmap_shows_the_table(n_positions, printed):
    table = sinusoids(n_positions, 8)
    (ax,) = heatmaps(plotting.positional_encoding_heatmap(table))
    close(shown(ax), table)
    assert len(ax.texts) == (
        n_positions * 8 if printed else 0
    )  # values printed up to 64


def test_positional_encoding_curves_draw_the_chosen_columns_in_distinct_styles():
    table = sinusoids(50, 8)
    (ax,) = plotting.positional_encoding_curves(table, [0, 3, 6]).axes
    for line, dim in zip(ax.lines, [0, 3, 6], strict=True):
        close(line.get_ydata(), table[:, dim])
    styles = [
        (line.get_color(), line.get_linestyle(), line.get_marker()) for line in ax.lines
    ]
    assert all(len({style[k] for style in styles}) == 3 for k in range(3))


def test_qkv_heatmaps_share_one_symmetric_colour_scale(gen):
    Q, K, V = torch.randn(3, 6, 8, generator=gen)
    Q[0, 0] = -0.04  # printed as 0.0, not -0.0
    panels = heatmaps(plotting.qkv_heatmaps(Q, K, 3 * V, list("abcdef")))
    assert "-0.0" not in [text.get_text() for text in panels[0].texts]
    assert [ax.get_title() for ax in panels] == ["Q", "K", "V"]
    for ax, matrix in zip(panels, (Q, K, 3 * V), strict=True):
        close(shown(ax), matrix)
        limit = (3 * V).abs().max().item()
        assert ax.images[0].get_clim() == pytest.approx((-limit, limit))


@pytest.mark.parametrize("n_heads", [2, 8])
def test_head_split_figure_gives_each_head_its_columns(gen, n_heads):
    q = torch.randn(6, 8, generator=gen)
    whole, *heads = heatmaps(plotting.head_split_figure(q, list("abcdef"), n_heads))
    close(shown(whole), q)
    assert (
        len(heads) == len(whole.patches) == n_heads
    )  # a frame around each head's columns
    d_key = 8 // n_heads
    for h, ax in enumerate(heads):
        close(shown(ax), q[:, h * d_key : (h + 1) * d_key])


TOKENS = ["hello", "what", "is", "<pad>"]


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.float32])
def test_mask_figure_draws_blocked_cells_dark_and_hatched(dtype):
    mask = torch.tensor([[1, 1, 0, 0], [1, 0, 1, 0]]).to(dtype)
    (ax,) = plotting.mask_figure(mask, TOKENS[:2], TOKENS, "a title").axes
    close(shown(ax), mask)
    hatched = sorted(
        (round(p.get_x() + 0.5), round(p.get_y() + 0.5)) for p in ax.patches
    )
    assert hatched == sorted(
        [(2, 0), (3, 0), (1, 1), (3, 1)]
    )  # (column, row) of blocked cells


def test_mask_panels_one_panel_per_mask():
    causal = mha.causal_mask(4)
    padding = torch.tensor([True, True, True, False]).expand(4, 4)
    masks = [padding, causal, padding & causal]
    panels = plotting.mask_panels(
        masks, TOKENS, TOKENS, ["padding", "causal", "both"]
    ).axes
    assert [ax.get_title() for ax in panels] == ["padding", "causal", "both"]
    for ax, mask in zip(panels, masks, strict=True):
        close(shown(ax), mask)


def test_weights_panels_mark_nan_cells_so_they_do_not_read_as_zero(gen):
    maps = torch.softmax(torch.randn(2, 3, 4, generator=gen), dim=-1)
    maps[1, 2] = float("nan")
    panels = heatmaps(
        plotting.weights_panels(maps, list("abc"), list("wxyz"), ["ours", "nn"])
    )
    for ax, matrix in zip(panels, maps, strict=True):
        close(shown(ax), matrix, equal_nan=True)
    assert [len(ax.patches) for ax in panels] == [0, 4]
    assert [text.get_text() for text in panels[1].texts].count("NaN") == 4


def test_softmax_saturation_figure_draws_each_scaling(gen):
    std, peak = torch.rand(2, 3, 4, generator=gen) + 0.1
    left, right = plotting.softmax_saturation_figure(
        [1, 4, 16, 64], std, peak / 1.1
    ).axes
    for i in range(3):
        close(left.lines[i].get_ydata(), std[i])
        close(right.lines[i].get_ydata(), peak[i] / 1.1)


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


def test_merge_heads_figure_shows_each_head_then_the_merged_vector(gen):
    heads = torch.randn(4, 2, generator=gen)
    (ax,) = plotting.merge_heads_figure(heads, heads.flatten(), "what").axes
    rows = {}  # the numbers printed in the cells, by height: the heads, then the merged vector
    for text in ax.texts:
        if text.get_text().lstrip("-")[:1].isdigit():
            x, y = text.get_position()
            rows.setdefault(y, []).append((x, text.get_text()))
    expected = [f"{v:.2f}" for v in heads.flatten().tolist()]
    assert len(rows) == 2
    for cells in rows.values():
        assert [number for _, number in sorted(cells)] == expected


LENGTHS = [16, 32, 64, 128]
MEMORY = {
    "attention matrix": [4.0 * n * n for n in LENGTHS],
    "activations": [64.0 * n for n in LENGTHS],
}
FLOPS = {
    "projections": [8 * n * 64 * 64 for n in LENGTHS],
    "scores": [4 * n * n * 64 for n in LENGTHS],
}
SECONDS = {"a": [0.001, 0.002, 0.005, 0.02], "b": [0.001, 0.0015, 0.003, 0.008]}


def test_cost_counts_figure_draws_mebibytes_and_flops_on_log_log_axes():
    memory, flops = plotting.cost_counts_figure(
        LENGTHS, MEMORY, FLOPS, crossover=64
    ).axes
    for ax in (memory, flops):
        assert ax.get_xscale() == ax.get_yscale() == "log"
    close(memory.lines[0].get_ydata(), torch.tensor(MEMORY["attention matrix"]) / 2**20)
    close(flops.lines[1].get_ydata(), torch.tensor(FLOPS["scores"]))
    assert list(flops.lines[2].get_xdata()) == [64, 64]  # the crossover


@pytest.mark.parametrize("slope", [1, 2])
def test_timing_figure_draws_milliseconds_and_a_reference_slope(slope):
    (ax,) = plotting.timing_figure(LENGTHS, SECONDS, reference_slope=slope).axes
    close(ax.lines[0].get_ydata(), torch.tensor(SECONDS["a"]) * 1000)
    reference = ax.lines[2].get_ydata()
    assert reference[-1] == pytest.approx(20.0)  # through a's last point
    assert reference[-1] / reference[-2] == pytest.approx(2**slope)


def test_training_curve_draws_each_loss_and_a_geometric_running_mean():
    losses = [math.exp(-step / 50) * (1.5 if step % 2 else 1.0) for step in range(100)]
    raw, smooth = plotting.training_curve(losses, title="t").axes[0].lines
    close(raw.get_ydata(), torch.tensor(losses))
    window = 10  # a tenth of the steps (at most 25)
    means = [
        math.exp(sum(map(math.log, losses[i : i + window])) / window) for i in range(91)
    ]
    close(smooth.get_ydata(), torch.tensor(means))


def test_key_plane_figure_draws_keys_query_and_scores():
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    query = torch.tensor([0.5, 0.5])
    fig = plotting.key_plane_figure(
        [-1, 0, 1], keys, query, keys @ query, absent=[-1], title="t"
    )
    plane, bars = fig.axes
    assert len(plane.collections) == 3 and len(bars.patches) == 3
    close([bar.get_height() for bar in bars.patches], keys @ query)
    assert [t.get_text() for t in bars.get_xticklabels()] == ["-1", "0", "1"]
    assert bars.patches[0].get_hatch() == "///" and not bars.patches[1].get_hatch()
    assert fig.get_size_inches()[0] <= 7.2


def test_timing_figure_relative_to_adds_a_ratio_panel():
    seconds = {"a": [1.0, 4.0, 16.0], "b": [2.0, 4.0, 8.0]}
    fig = plotting.timing_figure([64, 128, 256], seconds, relative_to="b", title="t")
    times, ratios = fig.axes
    assert fig.get_size_inches()[0] <= 7.2
    assert list(ratios.lines[0].get_ydata()) == pytest.approx([0.5, 1.0, 2.0])
    assert list(ratios.lines[1].get_ydata()) == pytest.approx([1.0, 1.0, 1.0])
    assert len(times.lines) == 3  # two implementations and the slope line


def test_cost_counts_figure_fits_the_text_column():
    fig = plotting.cost_counts_figure(LENGTHS, {"m": [1, 2, 3, 4]}, {"f": [1, 2, 3, 4]})
    assert fig.get_size_inches()[0] <= 7.2


Z = torch.zeros(6, 8)
PROBS, VALUES = torch.full((5,), 0.2), torch.zeros(5, 2)

BAD_INPUT = [
    (lambda: plotting.token_grid([["a"]], torch.ones(2, 3).bool()), ValueError, "tokens",
     "2 rows of 3 strings", "got rows of lengths [1]"),
    (lambda: plotting.positional_encoding_heatmap(torch.zeros(0, 8)), ValueError, "table",
     "not be empty", "got shape (0, 8)"),
    (lambda: plotting.positional_encoding_heatmap([[0.0]]), TypeError, "table", "torch.Tensor",
     "got list"),
    (lambda: plotting.positional_encoding_curves(Z, [8]), ValueError, "dims[i]", "in [0, 7]",
     "got 8"),
    (lambda: plotting.positional_encoding_curves(Z, []), ValueError, "dims", "1 to 8 columns",
     "got 0"),
    (lambda: plotting.qkv_heatmaps(Z, Z, Z[:, :4], list("abcdef")), ValueError, "Q, K and V",
     "the same shape", "got (6, 8), (6, 8), (6, 4)"),
    (lambda: plotting.qkv_heatmaps(Z, Z, Z, list("abc")), ValueError, "tokens",
     "label the 6 rows", "got 3 labels"),
    (lambda: plotting.head_split_figure(Z, list("abcdef"), 3), ValueError, "n_heads",
     "divide d_model", "n_heads=3"),
    (lambda: plotting.mask_figure(torch.ones(1, 1, 4, 4), TOKENS, TOKENS), ValueError, "mask",
     "2-D (q_len, k_len)", "got shape (1, 1, 4, 4)"),
    (lambda: plotting.mask_figure(torch.full((4, 4), 0.5), TOKENS, TOKENS), ValueError, "mask",
     "only 0/False", "got the value 0.5"),
    (lambda: plotting.mask_figure(torch.ones(4, 4), TOKENS[:3], TOKENS), ValueError,
     "query_tokens and key_tokens", "label the 4 rows and 4 columns", "got 3 query"),
    (lambda: plotting.mask_panels([torch.ones(4, 4)] * 2, TOKENS, TOKENS, ["a"]), ValueError,
     "titles", "one title per mask (2)", "got ['a']"),
    (lambda: plotting.mask_panels(torch.ones(4, 4), TOKENS, TOKENS, ["a"]), TypeError, "masks",
     "non-empty list", "got Tensor"),
    (lambda: plotting.weights_panels([Z, Z[:3]], ["a"], ["b"], ["x", "y"]), ValueError, "maps",
     "the same shape", "got shapes [(3, 8), (6, 8)]"),
    (lambda: plotting.softmax_saturation_figure([1, 2], torch.ones(3, 2), torch.full((3, 2), 2.0)),
     ValueError, "max_prob", "probabilities in [0, 1]", "got values from 2 to 2"),
    (lambda: plotting.softmax_saturation_figure([1, 2], torch.zeros(3, 2), torch.ones(3, 2)),
     ValueError, "score_std", "positive", "got values from 0 to 0"),
    (lambda: plotting.softmax_saturation_figure([1, 2], torch.ones(2, 2), torch.ones(2, 2)),
     ValueError, "score_std", "(n_curves, n) = (3, 2)", "got (2, 2)"),
    (lambda: plotting.weighted_values_figure(PROBS, VALUES[:, :1], list("abcde")), ValueError,
     "values", "(k_len, 2) = (5, 2)", "got (5, 1)"),
    (lambda: plotting.weighted_values_figure(-PROBS, VALUES, list("abcde")), ValueError,
     "probs", "probabilities in [0, 1]", "got values from -0.2 to -0.2"),
    (lambda: plotting.merge_heads_figure(Z[:4, :2], Z[:4, :2].T.flatten() + 1), ValueError,
     "merged", "the heads side by side", "holds other numbers"),
    (lambda: plotting.cost_counts_figure(LENGTHS, MEMORY, FLOPS, crossover=1000), ValueError,
     "crossover", "between 16 and 128", "got 1000"),
    (lambda: plotting.cost_counts_figure([16, 8], MEMORY, FLOPS), ValueError, "lengths",
     "strictly increasing", "got [16, 8]"),
    (lambda: plotting.cost_counts_figure(LENGTHS, {"m": [1, 2]}, FLOPS), ValueError,
     "memory['m']", "one value per length (4)", "got 2"),
    (lambda: plotting.timing_figure(LENGTHS, SECONDS, reference_slope=0), ValueError,
     "reference_slope", "positive number", "got 0"),
    (lambda: plotting.training_curve([]), ValueError, "losses", "at least one value",
     "got an empty sequence"),
    (lambda: plotting.training_curve(None), TypeError, "losses", "a sequence of numbers",
     "got NoneType"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :3], Z[0, :2], Z[0, :3]), ValueError,
     "keys, query and scores", "shapes (3, 2), (2,) and (3,)", "got (3, 3), (2,) and (3,)"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :2], Z[0, :3], Z[0, :3]), ValueError,
     "keys, query and scores", "shapes (3, 2), (2,) and (3,)", "got (3, 2), (3,) and (3,)"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :2], Z[0, :2], [1.0, 2.0, 3.0]),
     TypeError, "scores", "torch.Tensor", "got list"),
    (lambda: plotting.key_plane_figure("abc", Z[:3, :2], Z[0, :2], Z[0, :3]), TypeError,
     "positions", "a sequence of ints", "got str"),
    (lambda: plotting.key_plane_figure([-1, 0, 1], Z[:3, :2], Z[0, :2], Z[0, :3], absent=[5]),
     ValueError, "absent", "some of the positions [-1, 0, 1]", "got [5]"),
    (lambda: plotting.timing_figure(LENGTHS[:3], {"a": [1.0] * 3}, relative_to="c"), ValueError,
     "relative_to", "one of the implementations ['a']", "got 'c'"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "name", "expected", "given"), BAD_INPUT)
def test_bad_input_is_refused_with_a_clear_message(
    fails_with, call, error, name, expected, given
):
    fails_with(call, error, name, expected, given)
