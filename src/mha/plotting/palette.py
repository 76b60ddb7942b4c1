"""The book's palette: the colour map and its scale for probabilities, each
head's colour, line styles that also read in greyscale, the look of a blocked
key, and the words on every axis.

The colour map of probabilities is *cividis*: its lightness rises steadily
from 0 to 1, so it reads in greyscale and with colour-vision deficiencies.
Signed values (a matrix of queries, what each head adds to an output) take a
diverging map instead (:data:`SIGNED_CMAP`), white at 0, so that they never
look like attention.
"""

from __future__ import annotations

from matplotlib.colors import PowerNorm

#: The colour map of probabilities, on :func:`probability_scale`.
CMAP = "cividis"
#: The colour map of signed values, on a scale centred on 0 (purple below,
#: white at 0, orange above), none of whose colours is one of cividis'.
SIGNED_CMAP = "PuOr_r"
#: Okabe–Ito colours, distinguishable with every common colour-vision deficiency.
COLOURS = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#000000",
    "#F0E442",
)
#: The colour of each head, the same in every figure, diagram and explorer of
#: the book: head 0 blue, 1 vermilion, 2 green, 3 reddish purple (Okabe–Ito's),
#: then 4 violet, 5 crimson, 6 azure, 7 forest green. Each has a contrast of
#: 3 or more with a white page and with the dark page (#121212), stays apart
#: from the others (CIELAB ΔE of 17 or more, also as seen with deuteranopia
#: and protanopia) and from the colour map's ends (navy, yellow): no black,
#: no yellow, no light orange beside the vermilion.
HEAD_COLOURS = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#891AF9",
    "#CD1D3A",
    "#1A89F9",
    "#22763E",
)
#: A marker and a line style for each colour, so that lines also read in greyscale.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = (
    "-",
    "--",
    ":",
    "-.",
    (0, (5, 1, 1, 1)),
    (0, (1, 1)),
    (0, (3, 1, 1, 1, 1, 1)),
    (0, (6, 2)),
)
#: Names used on every axis and colour bar of the book.
QUERY_AXIS = "query (attending)"
KEY_AXIS = "key (attended to)"
PROBABILITY = "attention probability"
#: The word for a blocked key (masked out) in legends.
BLOCKED = "blocked"
#: The fill of a blocked key, a neutral light grey that the colour map never
#: takes, with thin diagonal lines over it (and no number).
BLOCKED_FACE = "#dddddd"
#: The colour of the lines over a blocked key.
BLOCKED_LINES = "#8f8f8f"
#: The lines over a blocked key (a matplotlib hatch).
BLOCKED_HATCH = "///"
#: The word printed in a NaN's cell (what PyTorch returns for a query with
#: every key blocked), on white, or on the blocked look if it is blocked.
NAN_TEXT = "NaN"


def head_colour(head: int) -> str:
    """The colour of head ``head`` (its title, its frame, its columns)."""
    return HEAD_COLOURS[head % len(HEAD_COLOURS)]


def line_style(i: int) -> dict:
    """Colour, marker and line style of the ``i``-th line of a figure."""
    return {
        "color": COLOURS[i % len(COLOURS)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINE_STYLES[i % len(LINE_STYLES)],
    }


def probability_scale():
    """The colour scale of every attention map in the book: 0 to 1, square root.

    Random weights give probabilities around 1/k_len (0.1 to 0.3); on a linear
    scale they all look the same dark blue. The square root spreads the small
    values (0.1 is a third of the way up the colour map) and keeps 1 at the top.
    """
    return PowerNorm(0.5, vmin=0.0, vmax=1.0)


#: The ticks of the probability scale's colour bar, in every figure and explorer
#: (one design: a bar under the maps, on a desk and on a phone).
PROBABILITY_TICKS = (0.0, 0.05, 0.2, 0.5, 1.0)
