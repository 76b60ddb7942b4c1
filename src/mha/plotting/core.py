"""What every figure of the book shares: the palette, the annotated heatmap,
:func:`display_attention`, and the figure's fingerprint.

Figures are ``matplotlib.figure.Figure`` objects made without pyplot, so a
notebook shows each one once (as the cell's result) and nothing stays open in
pyplot's global state. The colour map is *cividis*: its lightness rises steadily
from 0 to 1, so it reads in greyscale and with colour-vision deficiencies.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import torch
from matplotlib.colors import PowerNorm
from matplotlib.figure import Figure
from PIL import Image

from mha._checks import as_matrix, check_int, check_tokens
from mha.plotting.fingerprint import fingerprint

CMAP = "cividis"
#: The width of the page's text column in inches, at the figures' 100 dpi. A
#: figure at most this wide is shown at its own size, its text as drawn.
COLUMN_WIDTH = 7.2
#: The smallest text a figure draws, in points (tick labels, legends, the
#: numbers printed in cells).
SMALLEST_TEXT = 9
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


def line_style(i: int) -> dict:
    """Colour, marker and line style of the ``i``-th line of a figure."""
    return {
        "color": COLOURS[i % len(COLOURS)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINE_STYLES[i % len(LINE_STYLES)],
    }


class BookFigure(Figure):
    """A matplotlib Figure that shows itself as a PNG in Jupyter without pyplot
    (drawn at twice its resolution, for high-resolution screens).

    Its plain-text form is :func:`.fingerprint`: what the figure draws, at the
    precision a reader can see. A notebook stores both forms and nbval
    compares the text, so a stored picture that no longer matches what the
    code draws fails validation, while rendering differences between machines
    (antialiasing, the last bits of a float) do not.
    """

    def _repr_png_(self) -> tuple[bytes, dict[str, int]]:
        # Drawn at twice the resolution and shown at the figure's own size, so
        # that it is sharp on high-resolution screens.
        width, height = (self.get_size_inches() * self.dpi).round().astype(int)
        sharp = to_png(self, dpi=2 * self.dpi, colours=256)
        return sharp, {"width": int(width), "height": int(height)}

    def __repr__(self) -> str:
        return fingerprint(self)


class AttentionFigure(BookFigure):
    """A figure of :func:`display_attention`, which says what it drew.

    Attributes:
        maps: each head's heatmap (a ``matplotlib.image.AxesImage``), in head order.
        n_cols: panels per row.
    """

    maps: list
    n_cols: int

    def label(self, query_tokens: Sequence[str], key_tokens: Sequence[str]) -> list:
        """Token labels on the panels: the panels share their tokens, so queries
        label the left column and keys the bottom row only (fewer tick labels
        also make the figure much faster to draw). Returns the axes (x or y,
        ``matplotlib.axis.Axis``) that carry labels."""
        n_rows = len(self.maps) // self.n_cols
        labelled = []
        for head, image in enumerate(self.maps):
            row, col = divmod(head, self.n_cols)
            left, bottom = col == 0, row == n_rows - 1
            axes = image.axes
            label_axes(axes, query_tokens if left else [], key_tokens if bottom else [])
            labelled += [axes.yaxis] * left + [axes.xaxis] * bottom
        return labelled


def to_png(fig: Figure, dpi: float | None = None, colours: int | None = None) -> bytes:
    """The figure as PNG bytes, without metadata; with ``colours``, reduced to
    that many colours (a quarter of the size for the book's flat-coloured plots)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    if colours is None:
        return buffer.getvalue()
    image = Image.open(buffer).convert("RGB")
    image = image.quantize(
        colors=colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


# --- Shared drawing -----------------------------------------------------------------


def label_axes(
    ax,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    fontsize: float = SMALLEST_TEXT,
) -> None:
    """Token labels on the rows (queries) and the columns (keys) of a heatmap."""
    ax.set_xticks(
        range(len(key_tokens)), labels=list(key_tokens), rotation=90, fontsize=fontsize
    )
    ax.set_yticks(
        range(len(query_tokens)), labels=list(query_tokens), fontsize=fontsize
    )
    ax.tick_params(length=0)


def _number(value: float, fmt: str) -> str:
    text = fmt.format(value)
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.00"


def heatmap(
    ax,
    matrix: torch.Tensor,
    vmin: float,
    vmax: float,
    *,
    annotate: bool = False,
    fmt: str = "{:.2f}",
    fontsize: float = SMALLEST_TEXT,
    cmap: str = CMAP,
    norm=None,
):
    """Draw ``matrix (rows, cols)`` as an image on the colour scale ``[vmin, vmax]``
    (or ``norm``, a matplotlib normalisation that holds its own limits).

    With ``annotate``, each value is printed in its cell, dark on the light half
    of the colour map and white on the dark half; NaN cells are left empty.
    Returns the image (for a colour bar).
    """
    scale = {"norm": norm} if norm is not None else {"vmin": vmin, "vmax": vmax}
    image = ax.imshow(
        matrix.numpy(), cmap=cmap, aspect="auto", interpolation="nearest", **scale
    )
    if annotate:
        for i, row in enumerate(matrix.tolist()):
            for j, value in enumerate(row):
                if value == value:  # not NaN
                    light = float(image.norm(value)) > 0.5
                    ax.text(
                        j,
                        i,
                        _number(value, fmt),
                        ha="center",
                        va="center",
                        fontsize=fontsize,
                        color="black" if light else "white",
                    )
    return image


def probability_scale():
    """The colour scale of every attention map in the book: 0 to 1, square root.

    Random weights give probabilities around 1/k_len (0.1 to 0.3); on a linear
    scale they all look the same dark blue. The square root spreads the small
    values (0.1 is a third of the way up the colour map) and keeps 1 at the top.
    """
    return PowerNorm(0.5, vmin=0.0, vmax=1.0)


PROBABILITY_TICKS = (0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 1.0)


# --- Attention maps ------------------------------------------------------------------


def display_attention(
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    attention: torch.Tensor,
    n_heads: int,
    n_rows: int,
    n_cols: int,
    *,
    annotate: bool | None = None,
    title: str | None = None,
    head_size: float = 2.3,
    figsize: tuple[float, float] | None = None,
    dpi: int = 100,
) -> AttentionFigure:
    """One labelled heatmap per head: rows are queries, columns are keys.

    The colour scale runs from 0 to 1 on a square-root scale
    (`probability_scale`), the same in every figure of the book.

    Args:
        query_tokens: ``q_len`` labels for the rows.
        key_tokens: ``k_len`` labels for the columns.
        attention: ``(n_heads, q_len, k_len)`` probabilities of one sequence,
            e.g. ``attn_probs[0]``.
        n_heads: number of heads to draw.
        n_rows, n_cols: grid of panels; ``n_rows * n_cols`` must equal ``n_heads``.
        annotate: print each value in its cell; by default only when a map
            has at most 64 cells.
        title: a title over the whole figure.
        head_size: width of one panel in inches (its height follows the
            ratio q_len / k_len).
        figsize: ``(width, height)`` in inches: fit the panels into a figure
            of this size instead (as large as fit, centred), so that figures of
            different head counts have one size. ``head_size`` is then ignored.
        dpi: resolution of the figure.

    Returns:
        An `AttentionFigure` (a ``matplotlib.figure.Figure``), with one
        axes per head (titled ``head 0``, ``head 1``, …) plus one for the
        colour bar; its ``maps`` are the heads' heatmaps.
    """
    attention = as_matrix("attention", attention, 3)
    for name, value in (("n_heads", n_heads), ("n_rows", n_rows), ("n_cols", n_cols)):
        check_int(name, value)
    if n_rows * n_cols != n_heads:
        raise ValueError(
            f"n_rows * n_cols must equal n_heads, got {n_rows} * {n_cols} = "
            f"{n_rows * n_cols} panels for n_heads={n_heads}"
        )
    if attention.size(0) != n_heads:
        raise ValueError(
            f"attention must have n_heads={n_heads} maps on its first axis, "
            f"got shape {tuple(attention.shape)}"
        )
    q_len, k_len = attention.shape[1:]
    check_tokens(query_tokens, key_tokens, (q_len, k_len), "attention")
    if annotate is None:
        annotate = q_len * k_len <= 64
    # A fixed layout computed from the label lengths (much faster than
    # matplotlib's constrained layout, which matters for the explorers).
    char = 0.09  # inches per character of a 9-point tick label, wide ones (<, >, m, w) included
    left = 0.45 + char * max(len(t) for t in query_tokens)
    bottom = 0.35 + char * max(len(t) for t in key_tokens)
    top, gap, bar, head_title = 0.35 if title else 0.05, 0.15, 1.0, 0.3
    if figsize is None:
        cell_w = head_size
        width = left + n_cols * cell_w + (n_cols - 1) * gap + bar
        height = (
            top
            + n_rows * (head_title + cell_w * q_len / k_len)
            + (n_rows - 1) * gap
            + bottom
        )
    else:
        width, height = figsize
        room_w = (width - left - bar - (n_cols - 1) * gap) / n_cols
        room_h = (
            height - top - bottom - n_rows * head_title - (n_rows - 1) * gap
        ) / n_rows
        cell_w = min(room_w, room_h * k_len / q_len)
    cell_h = cell_w * q_len / k_len
    grid_w = n_cols * cell_w + (n_cols - 1) * gap
    grid_h = n_rows * (head_title + cell_h) + (n_rows - 1) * gap
    # Centre the panels and their labels in whatever room is left over.
    x_pad = (width - left - grid_w - bar) / 2
    y_pad = (height - top - grid_h - bottom) / 2
    left, top, bottom = left + x_pad, top + y_pad, bottom + y_pad
    fig = AttentionFigure(figsize=(width, height), dpi=dpi)
    fig.maps, fig.n_cols = [], n_cols
    for head in range(n_heads):
        row, col = divmod(head, n_cols)
        x0 = left + col * (cell_w + gap)
        y0 = height - top - (row + 1) * (head_title + cell_h) - row * gap
        ax = fig.add_axes((x0 / width, y0 / height, cell_w / width, cell_h / height))
        image = heatmap(
            ax, attention[head], 0.0, 1.0, annotate=annotate, norm=probability_scale()
        )
        fig.maps.append(image)
        ax.set_title(f"head {head}", fontsize=10)
    fig.label(query_tokens, key_tokens)
    x_bar, bar_h = left + grid_w + 0.2, grid_h - head_title
    bar_ax = fig.add_axes(
        (x_bar / width, bottom / height, 0.15 / width, bar_h / height)
    )
    ticks = list(PROBABILITY_TICKS)
    fig.colorbar(image, cax=bar_ax, label=f"{PROBABILITY} (√ scale)", ticks=ticks)
    if title:
        fig.suptitle(title, fontsize=11, y=1 - (top - 0.3) / height, va="top")
    x_mid, y_mid = (left + grid_w / 2) / width, (bottom + grid_h / 2) / height
    fig.supxlabel(KEY_AXIS, fontsize=9, x=x_mid, y=(y_pad + 0.02) / height, va="bottom")
    fig.supylabel(QUERY_AXIS, fontsize=9, x=(x_pad + 0.02) / width, y=y_mid, ha="left")
    return fig
