"""mha.plotting.fingerprint: the text form of a figure that nbval compares in
place of its pixels. It changes with what the figure draws, not with how the
pixels come out."""

from __future__ import annotations

import difflib

import matplotlib
import pytest
import torch
from figures import heatmaps

import mha
from mha import plotting

QUERIES = ["the", "cat", "sat"]
KEYS = ["a", "dog", "ran", "off"]


def the_figure():
    """``figure(**changes)``: the same attention figure, with some arguments changed."""
    gen = torch.Generator().manual_seed(1234)
    attention = torch.softmax(torch.randn(4, 3, 4, generator=gen), dim=-1)

    def make(
        attention=attention, tokens=QUERIES, n_heads=4, title="sentence 0", **kwargs
    ):
        grid = {4: (2, 2), 2: (1, 2)}[n_heads]
        return mha.display_attention(
            tokens, KEYS, attention[:n_heads], n_heads, *grid, title=title, **kwargs
        )

    make.attention = attention
    return make


@pytest.fixture
def figure():
    return the_figure()


@pytest.fixture(scope="module")
def fingerprints() -> dict[str, str]:
    """The fingerprints that several tests compare, of the figure and of three
    changes of it, each drawn once for the module's tests (each test that
    needs a figure of its own, to draw or to render, makes it)."""
    figure = the_figure()
    return {
        "the figure": repr(figure()),
        "another title": repr(figure(title="sentence 1")),
        "another token label": repr(figure(tokens=["the", "dog", "sat"])),
        "one value changed by 0.05": repr(
            figure(attention=changed(figure.attention, 0.05))
        ),
    }


def changed(attention, delta):
    """``delta`` moved from one cell of a row to another: still probabilities."""
    attention = attention.clone()
    attention[1, 2, 3] += delta
    attention[
        1, 2, attention[1, 2].argmax() if attention[1, 2].argmax() != 3 else 0
    ] -= delta
    return attention


def diff(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.ndiff(before.splitlines(), after.splitlines())
        if line[0] in "-+"
    ]


@pytest.mark.slow
def test_what_a_figure_draws_changes_its_fingerprint(figure, fingerprints):
    base = fingerprints["the figure"]
    assert base == plotting.fingerprint(figure())  # a repeatable function of the figure
    others = {"another head count": repr(figure(n_heads=2)), **fingerprints}
    del others["the figure"]
    for what, text in others.items():
        assert text != base, what
    # Without printed values (as in the explorer) the image alone shows the change.
    unprinted = repr(figure(annotate=False))
    assert (
        repr(figure(attention=changed(figure.attention, 0.05), annotate=False))
        != unprinted
    )
    # Blocked keys drawn as hatched patches: a mask elsewhere changes only those.
    causal = torch.ones(4, 4).tril().bool()
    padding = torch.tensor([[True, True, True, False]]).expand(4, 4)

    # The same weights (none on a key either mask blocks), two masks: only the
    # hatched patch of the last key of the last query differs.
    probs = mha.attention_probs(torch.zeros(1, 1, 4, 4), causal & padding)[0]

    def drawn(mask):
        return repr(plotting.display_attention(KEYS, KEYS, probs, mask=mask))

    assert drawn(causal) != drawn(causal & padding)
    losses = [2.0 / step for step in range(1, 41)]
    curve = repr(plotting.training_curve(losses))
    assert repr(plotting.training_curve([*losses[:-1], losses[-1] * 1.1])) != curve
    assert repr(plotting.training_curve([v * (1 + 1e-9) for v in losses])) == curve


def test_pixel_differences_alone_keep_the_fingerprint(figure, fingerprints):
    base = figure()
    fingerprint = fingerprints["the figure"]
    assert repr(base) == fingerprint
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


def test_the_fingerprint_names_what_it_covers_so_a_change_reads_as_a_diff(
    fingerprints,
):
    text = fingerprints["the figure"]
    for shown in ("sentence 0", *QUERIES, *KEYS, "head 0", "head 3", "key", "query"):
        assert shown in text, shown
    title_change = diff(text, fingerprints["another title"])
    assert any("sentence 0" in line for line in title_change if line[0] == "-")
    assert any("sentence 1" in line for line in title_change if line[0] == "+")
    label_change = diff(text, fingerprints["another token label"])
    assert any("the | cat | sat" in line for line in label_change if line[0] == "-")
    assert any("the | dog | sat" in line for line in label_change if line[0] == "+")
    # A change in the data alone shows in the digest lines only: the desk's
    # and the phone layout's.
    changes = diff(text, fingerprints["one value changed by 0.05"])
    assert sorted(line[:8] for line in changes) == [
        "+  drawn", "+  phone", "-  drawn", "-  phone"
    ]  # fmt: skip


def test_the_look_of_a_blocked_key_and_the_phone_layout_are_in_the_fingerprint(gen):
    tokens = ["i", "wonder", "what"]
    causal = mha.causal_mask(3)
    scores = torch.randn(4, 3, 3, generator=gen).masked_fill(~causal, float("-inf"))
    probs = torch.softmax(scores, dim=-1)

    def draw(**kwargs):
        return mha.display_attention(tokens, tokens, probs, 4, 2, 2, **kwargs)

    masked, unmasked = draw(mask=causal), draw()
    assert repr(masked) != repr(unmasked)  # blocked keys read apart from a weight of 0
    # Another hatch, or another grey, alone: another fingerprint.
    for change in (lambda p: p.set_hatch("\\\\"), lambda p: p.set_facecolor("#bbbbbb")):
        other = draw(mask=causal)
        change(heatmaps(other)[0].patches[0])
        assert repr(other) != repr(masked)
    # What only the phone layout draws changes the phone's line alone.
    other = draw(mask=causal)
    heatmaps(other.phone)[1].images[0].set_data(torch.full((3, 3), 0.5).numpy())
    changes = diff(repr(masked), repr(other))
    assert [line[:8] for line in changes] == ["-  phone", "+  phone"]
    # Rendering does not: the phone's digest holds with antialiasing off.
    crisp_rc = {"lines.antialiased": False, "patch.antialiased": False}
    with matplotlib.rc_context(crisp_rc):
        crisp = draw(mask=causal)
    assert repr(crisp) == repr(masked)


def test_the_first_line_says_how_large_the_smallest_text_is(fingerprints):
    first = fingerprints["the figure"].splitlines()[0]
    assert first.endswith("smallest text 12.5 px")  # 9 points at 100 dpi


def test_a_legend_of_any_kind_of_handle_has_a_fingerprint():
    """A legend whose handles are collections (a scatter's, a bar chart's
    patches, lines): each handle's look is written out, widths of a
    collection included, and another width gives another fingerprint."""
    from matplotlib.figure import Figure

    from mha.plotting.fingerprint import fingerprint

    def drawn(width: float) -> str:
        fig = Figure()
        ax = fig.add_subplot()
        ax.scatter([0, 1], [1, 0], label="points", linewidths=width, hatch="//")
        ax.bar([0], [1], label="bar")
        ax.plot([0, 1], label="line")
        ax.legend()
        return fingerprint(fig)

    assert drawn(1.0) == drawn(1.0)
    assert drawn(1.0) != drawn(2.5)


def test_the_fingerprint_does_not_depend_on_how_often_the_figure_was_drawn():
    """A notebook stores a figure's fingerprint after its PNG was drawn; a
    test may take it from a figure drawn once or never. The constrained
    layout of this figure's phone layout moves between its first draw and its
    second, so the fingerprint must describe the settled one."""
    codes = mha.embedding.sinusoids(50, 8)

    def curves():
        return plotting.positional_encoding_curves(codes, dims=[0, 2, 4, 6])

    fresh, drawn = curves(), curves()
    assert drawn.phone is not None
    drawn.phone.draw_without_rendering()
    assert repr(fresh) == repr(drawn)
