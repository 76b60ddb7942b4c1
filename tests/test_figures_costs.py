"""mha.plotting.cost_counts_figure and timing_figure (chapter *What attention costs*)."""

import pytest
import torch
from matplotlib.figure import Figure

import mha

LENGTHS = [16, 32, 64, 128]
MEMORY = {"attention matrix": [4.0 * n * n for n in LENGTHS],
          "activations": [64.0 * n for n in LENGTHS]}
FLOPS = {"projections": [8 * n * 64 * 64 for n in LENGTHS],
         "scores + weighting": [4 * n * n * 64 for n in LENGTHS]}
SECONDS = {"a": [0.001, 0.002, 0.005, 0.02], "b": [0.001, 0.0015, 0.003, 0.008]}


def test_counts_figure_has_two_log_log_panels():
    fig = mha.plotting.cost_counts_figure(LENGTHS, MEMORY, FLOPS, crossover=64)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    left, right = fig.axes
    for ax in fig.axes:
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        assert ax.get_xlabel() == "sequence length L"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["16", "32", "64", "128"]
    assert left.get_ylabel() == "memory (MiB)"
    assert right.get_ylabel() == "FLOPs per sequence"
    assert [t.get_text() for t in left.get_legend().get_texts()] == list(MEMORY)
    assert [t.get_text() for t in right.get_legend().get_texts()] == list(FLOPS)
    # bytes are drawn in MiB
    assert list(left.lines[0].get_ydata()) == [v / 2**20 for v in MEMORY["attention matrix"]]
    # the two lines of a panel differ in marker and line style (greyscale-safe)
    a, b = left.lines[:2]
    assert a.get_marker() != b.get_marker() and a.get_linestyle() != b.get_linestyle()
    # the crossover line
    assert len(right.lines) == 3 and list(right.lines[2].get_xdata()) == [64, 64]
    fig._repr_png_()  # renders


def test_counts_figure_without_crossover_and_with_tensors():
    memory = {k: torch.tensor(v) for k, v in MEMORY.items()}
    fig = mha.plotting.cost_counts_figure(LENGTHS, memory, FLOPS)
    assert len(fig.axes[1].lines) == 2


def test_timing_figure_lines_and_reference_slope():
    fig = mha.plotting.timing_figure(LENGTHS, SECONDS, title="t")
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert ax.get_title() == "t"
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_ylabel() == "forward time (ms, median)"
    assert ax.get_legend() is None  # the legend is below the axes, on the figure
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:2] == ["a", "b"] and "slope 2" in labels[2]
    assert list(ax.lines[0].get_ydata()) == pytest.approx([1.0, 2.0, 5.0, 20.0])
    # the reference line goes through a's last point with slope 2
    ref = ax.lines[2].get_ydata()
    assert ref[-1] == pytest.approx(20.0)
    assert ref[-1] / ref[-2] == pytest.approx(4.0)
    fig._repr_png_()


def test_timing_figure_other_slope():
    fig = mha.plotting.timing_figure(LENGTHS, SECONDS, reference_slope=1)
    ref = fig.axes[0].lines[2].get_ydata()
    assert ref[-1] / ref[-2] == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"lengths": []}, TypeError, r"lengths must be a non-empty list"),
        ({"lengths": "16"}, TypeError, r"lengths must be a non-empty list"),
        ({"lengths": [16, 0, 64, 128]}, ValueError, r"lengths must hold positive numbers"),
        ({"lengths": [16, 64, 32, 128]}, ValueError, r"lengths must be strictly increasing"),
        ({"memory": {}}, TypeError, r"memory must be a non-empty dict"),
        ({"memory": [1, 2, 3, 4]}, TypeError, r"memory must be a non-empty dict"),
        ({"memory": {"m": [1, 2]}}, ValueError,
         r"memory\['m'\] must hold one value per length \(4\), got 2"),
        ({"flops": {"f": [1, 2, 0, 4]}}, ValueError,
         r"flops\['f'\] must hold positive numbers \(log scale\)"),
        ({"flops": {"f": "abcd"}}, TypeError, r"flops\['f'\] must be a list of numbers"),
        ({"crossover": 1000}, ValueError, r"crossover must be a length between 16 and 128"),
    ],
)
def test_counts_figure_bad_input(kwargs, error, pattern):
    args = {"lengths": LENGTHS, "memory": MEMORY, "flops": FLOPS}
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        mha.plotting.cost_counts_figure(**args)


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"seconds": {"a": [1, 2, 3]}}, ValueError, r"seconds\['a'\] must hold one value"),
        ({"seconds": {str(i): [1, 2, 3, 4] for i in range(8)}}, ValueError,
         r"seconds can hold at most 7 lines, got 8"),
        ({"reference_slope": 0}, ValueError, r"reference_slope must be a positive number"),
    ],
)
def test_timing_figure_bad_input(kwargs, error, pattern):
    args = {"lengths": LENGTHS, "seconds": SECONDS}
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        mha.plotting.timing_figure(**args)
