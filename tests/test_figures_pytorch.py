"""mha.plotting.weights_panels: weight maps side by side, NaN cells marked."""

import pytest
import torch
from matplotlib.figure import Figure

import mha

TOKENS = ["the", "cat", "sat", "down"]


def maps(n: int, gen: torch.Generator) -> list[torch.Tensor]:
    return list(torch.softmax(torch.randn(n, 4, 4, generator=gen), dim=-1))


def heatmaps(fig: Figure) -> list:
    return [ax for ax in fig.axes if ax.images]


def test_one_labelled_panel_per_map_and_a_colour_bar(gen):
    titles = ["a", "b", "c"]
    fig = mha.plotting.weights_panels(maps(3, gen), TOKENS, TOKENS, titles, suptitle="top")
    assert isinstance(fig, Figure)
    panels = heatmaps(fig)
    assert len(panels) == 3
    assert len(fig.axes) == 3 + 1  # + the colour bar
    assert [ax.get_title() for ax in panels] == titles
    for ax in panels:
        assert [t.get_text() for t in ax.get_xticklabels()] == TOKENS
        assert [t.get_text() for t in ax.get_yticklabels()] == TOKENS
        assert ax.get_xlabel() == "key"
    assert panels[0].get_ylabel() == "query"
    assert fig.get_suptitle() == "top"
    assert any(ax.get_ylabel() == "attention weight" for ax in fig.axes)
    fig._repr_png_()  # renders


def test_values_printed_and_nan_cells_labelled(gen):
    weights = maps(2, gen)
    weights[1][3] = float("nan")
    fig = mha.plotting.weights_panels(weights, TOKENS, TOKENS, ["ok", "nan row"])
    ok, with_nan = [ax for ax in fig.axes if ax.get_title()]
    texts = [t.get_text() for t in with_nan.texts]
    assert texts.count("NaN") == 4
    assert [t.get_text() for t in ok.texts] == [f"{v:.2f}" for v in weights[0].flatten().tolist()]
    hatched = [p for p in with_nan.patches if p.get_hatch()]
    assert len(hatched) == 4


def test_grid_layout(gen):
    fig = mha.plotting.weights_panels(maps(3, gen), TOKENS, TOKENS, ["a", "b", "c"], n_cols=2)
    panels = [ax for ax in fig.axes if ax.get_title()]
    spec = panels[0].get_subplotspec().get_gridspec()
    assert (spec.nrows, spec.ncols) == (2, 2)
    # The unused fourth cell is switched off, and both rows have a y label.
    assert [ax.get_ylabel() for ax in panels] == ["query", "", "query"]


def test_accepts_a_3d_tensor(gen):
    stack = torch.stack(maps(2, gen))
    fig = mha.plotting.weights_panels(stack, TOKENS, TOKENS, ["a", "b"])
    assert len([ax for ax in fig.axes if ax.get_title()]) == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"maps": []}, TypeError, r"maps must be a non-empty list"),
        ({"maps": "abc"}, TypeError, r"maps must be a non-empty list"),
        ({"maps": [torch.ones(4)]}, ValueError, r"maps\[0\] must be 2-D, got shape \(4,\)"),
        ({"maps": [torch.ones(4, 4), torch.ones(3, 4)]}, ValueError,
         r"maps must all have the same shape"),
        ({"titles": ["only one"]}, ValueError, r"titles must be a list of one title per map \(2\)"),
        ({"titles": "ab"}, ValueError, r"titles must be a list"),
        ({"query_tokens": ["a"]}, ValueError, r"must label the 4 rows and 4 columns"),
        ({"n_cols": 3}, ValueError, r"n_cols must be an int from 1 to the number of maps \(2\)"),
        ({"n_cols": 0}, ValueError, r"n_cols must be an int"),
    ],
)
def test_bad_input(gen, kwargs, error, pattern):
    args = {"maps": maps(2, gen), "query_tokens": TOKENS, "key_tokens": TOKENS,
            "titles": ["a", "b"]}
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        mha.plotting.weights_panels(**args)
