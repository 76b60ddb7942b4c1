"""The annotated heatmap every map of the book is drawn with: values on a
colour scale, numbers where they fit, blocked keys grey and hatched, NaN
named, token labels on the rows and columns."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.patches import Rectangle

from mha.plotting.palette import (
    BLOCKED_FACE,
    BLOCKED_HATCH,
    BLOCKED_LINES,
    CMAP,
    NAN_TEXT,
)
from mha.plotting.screens import SMALLEST_TEXT


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


def room_for(text: str, fontsize: float = SMALLEST_TEXT) -> float:
    """How wide, in inches, a cell must be to hold ``text`` (digits, points and
    signs) at ``fontsize`` points, with a little room on each side."""
    ems = sum(0.32 if char in ".,-" else 0.64 for char in text)  # DejaVu Sans' widths
    return ems * fontsize / 72 + 0.08


def _light(image, value: float) -> bool:
    """Whether ``value``'s colour in ``image`` is light (dark text reads on it)."""
    if image.get_cmap().name == CMAP:  # lightness rises along the map
        return float(image.norm(value)) > 0.5
    red, green, blue, _ = image.get_cmap()(image.norm(value))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.45


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
    blocked: torch.Tensor | None = None,
):
    """Draw ``matrix (rows, cols)`` as an image on the colour scale ``[vmin, vmax]``
    (or ``norm``, a matplotlib normalisation that holds its own limits).

    With ``annotate``, each value is printed in its cell, dark on the light half
    of the colour map and white on the dark half (for another map than the
    book's :data:`~mha.plotting.palette.CMAP`, such as the signed values' diverging one, dark on a
    light colour and white on a dark one). ``blocked`` (bool,
    ``(rows, cols)``, ``True`` where the key is blocked) cells are drawn in the
    book's look for a blocked key (:data:`~mha.plotting.palette.BLOCKED_FACE`, hatched, no number);
    NaN cells print :data:`~mha.plotting.palette.NAN_TEXT`. Returns the image (for a colour bar).

    Args:
        ax: the matplotlib axes to draw into.
        matrix: ``(rows, cols)``, the values.
        vmin, vmax: the ends of the colour scale (unused with ``norm``).
        annotate: print each value in its cell.
        fmt: the format of a printed value.
        fontsize: the printed values' size in points.
        cmap: the colour map's name.
        norm: a matplotlib normalisation, in place of ``vmin`` and ``vmax``.
        blocked: ``(rows, cols)`` bool, ``True`` where a key is blocked.
    """
    hidden = matrix.isnan()
    if blocked is not None:
        hidden = hidden | blocked
    scale = {"norm": norm} if norm is not None else {"vmin": vmin, "vmax": vmax}
    shown = matrix.masked_fill(hidden, float("nan"))  # drawn by the patches below
    image = ax.imshow(
        shown.numpy(), cmap=cmap, aspect="auto", interpolation="nearest", **scale
    )
    for i, j in hidden.nonzero().tolist():
        is_blocked = blocked is not None and bool(blocked[i, j])
        ax.add_patch(
            Rectangle(
                (j - 0.5, i - 0.5),
                1,
                1,
                facecolor=BLOCKED_FACE if is_blocked else "white",
                edgecolor=BLOCKED_LINES,
                hatch=BLOCKED_HATCH if is_blocked else None,
                linewidth=0 if is_blocked else 0.8,
            )
        )
    for i, row in enumerate(matrix.tolist()):
        for j, value in enumerate(row):
            if annotate and value == value and not bool(hidden[i, j]):
                light = _light(image, value)
                ax.text(
                    j,
                    i,
                    _number(value, fmt),
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color="black" if light else "white",
                )
    # "NaN" in each NaN cell, or once over each run of NaN cells in a row when
    # a cell is too narrow for it (the axes' size is known: a fixed layout).
    cell = ax.get_position().width * ax.get_figure().get_figwidth() / matrix.size(1)
    for i, row in enumerate(matrix.isnan().tolist()):
        runs, j = [], 0
        while j < len(row):
            if not row[j]:
                j += 1
                continue
            end = j + 1
            while end < len(row) and row[end] and cell < room_for(NAN_TEXT + "W"):
                end += 1
            runs.append((j, end))
            j = end
        for start, end in runs:
            ax.text(
                (start + end - 1) / 2,
                i,
                NAN_TEXT,
                ha="center",
                va="center",
                fontsize=fontsize,
                fontweight="bold",
                color="black",
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
            )
    return image


def blocked_swatch() -> Rectangle:
    """A legend's handle for a blocked key."""
    return Rectangle(
        (0, 0),
        1,
        1,
        facecolor=BLOCKED_FACE,
        edgecolor=BLOCKED_LINES,
        hatch=BLOCKED_HATCH,
        linewidth=0,
    )
