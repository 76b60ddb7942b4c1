"""mha.plotting.core: the token labels of an attention map never run together."""

from __future__ import annotations

import pytest
import torch

import mha

# Chapter 13's sentences: 16 letters (Figs 13.2, 13.3), 22 (Fig 13.4), and 32.
LETTERS = {
    16: list("fadebon" * 2 + "ch"),
    22: list("gchijklm" + "fadebon" * 2),
    32: list("gchijklm" + "fadebon" * 3 + "xyq"),
}


def causal_maps(n: int, gen) -> torch.Tensor:
    scores = torch.randn(2, n, n, generator=gen)
    return torch.softmax(scores.masked_fill(~mha.causal_mask(n).bool(), -torch.inf), -1)


def layouts(fig) -> list:
    return [fig, fig.phone] if hasattr(fig, "phone") else [fig]


def label_boxes(fig) -> list[tuple[str, list[tuple[float, float]]]]:
    """Each token axis of ``fig``'s panels (not the colour bar's): its name and
    the extent along it, in pixels, of each label it draws, in order: one em
    (the label's font size) centred on its tick, where DejaVu Sans's letters
    lie (from a descender's foot to an ascender's top: 0.24 + 0.76 em; a
    word on the x axis, turned upright, as wide)."""
    fig.draw_without_rendering()
    found = []
    for axes in fig.axes[:-1]:  # the last axes: the colour bar
        for axis, along in ((axes.xaxis, 0), (axes.yaxis, 1)):
            drawn = [
                (loc, label)
                for loc, label in zip(
                    axis.get_ticklocs(), axis.get_ticklabels(), strict=True
                )
                if label.get_visible() and label.get_text()
            ]
            boxes = []
            for loc, label in drawn:
                point = (loc, 0) if along == 0 else (0, loc)
                centre = axes.transData.transform(point)[along]
                em = label.get_fontsize() * fig.dpi / 72
                boxes.append((centre - em / 2, centre + em / 2))
            found.append((axis.axis_name, sorted(boxes)))
    return found


def overlapping(fig) -> list[tuple[str, int]]:
    """(axis, how many pairs of neighbouring labels overlap) where any do."""
    overlaps = []
    for name, boxes in label_boxes(fig):
        pairs = sum(a[1] > b[0] + 0.01 for a, b in zip(boxes, boxes[1:], strict=False))
        if pairs:
            overlaps.append((name, pairs))
    return overlaps


@pytest.mark.parametrize("n", sorted(LETTERS))
def test_token_labels_never_overlap_on_a_desk_or_a_phone(gen, n):
    """Chapter 13's maps of 16 to 32 letters: on the phone's layout (16 and
    more) and the desk's (22 and more) neighbouring letters overlapped, every
    letter labelled; now every second (third) letter is labelled where the
    labels' font is taller than a row."""
    tokens = LETTERS[n]
    fig = mha.display_attention(
        tokens, tokens, causal_maps(n, gen), mask=mha.causal_mask(n), title="layer 2"
    )
    assert hasattr(fig, "phone")
    for layout in layouts(fig):
        assert overlapping(layout) == [], (n, layout.get_size_inches())
        for _, boxes in label_boxes(layout):
            assert len(boxes) >= n // 3 or not boxes  # thinned, not emptied


@pytest.mark.parametrize("n", [3, 8, 12, 14])
def test_a_map_whose_labels_fit_keeps_every_label(gen, n):
    tokens = [f"w{i}" for i in range(n)]
    fig = mha.display_attention(
        tokens, tokens, causal_maps(n, gen), mask=mha.causal_mask(n)
    )
    for layout in layouts(fig):
        for name, boxes in label_boxes(layout):
            assert len(boxes) in (0, n), name
        assert overlapping(layout) == []


def test_the_labels_kept_are_the_first_and_every_few_after(gen):
    tokens = LETTERS[22]
    fig = mha.display_attention(tokens, tokens, causal_maps(22, gen))
    axis = fig.maps[0].axes.yaxis
    kept = [t.get_text() for t in axis.get_ticklabels()]
    every = int(axis.get_ticklocs()[1] - axis.get_ticklocs()[0])
    assert every > 1
    assert kept == tokens[::every]


def test_thinned_labels_name_the_words_that_occur_once(gen):
    """Where every second word is labelled, the labels fall on the words that
    occur once (chapter 12's nouns), not on the repeated "near" and "the";
    with nothing to choose between, labelling starts at the first token."""
    words = "near the dusty boxes near the heavy chairs behind the dusty lamps the cabinet be"
    tokens = words.split()
    assert mha.plotting.core.thinned_start(tokens, 2) == 1
    assert mha.plotting.core.thinned_start(LETTERS[16], 2) == 0
    fig = mha.display_attention(tokens, tokens, causal_maps(len(tokens), gen))
    shown = {t.get_text() for t in fig.phone.axes[0].get_yticklabels() if t.get_text()}
    assert {"boxes", "chairs", "lamps", "cabinet"} <= shown
    assert "near" not in shown  # thinned: every second word
