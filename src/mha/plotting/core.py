"""The book's attention maps: :func:`display_attention` and the grid of
labelled heatmaps it draws, with the checks of what it is given (probabilities,
a mask in the package's convention, one label per row and column).

Every map has the same look: the square-root probability scale of
:mod:`mha.plotting.palette`, each head's colour, blocked keys grey and hatched.
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from collections.abc import Sequence

import torch
from matplotlib.ticker import FuncFormatter

from mha._checks import as_matrix, check_int, check_number, check_tokens
from mha.plotting.figure import BookFigure
from mha.plotting.heatmap import blocked_swatch, heatmap, label_axes, room_for
from mha.plotting.palette import (
    BLOCKED,
    KEY_AXIS,
    PROBABILITY,
    PROBABILITY_TICKS,
    QUERY_AXIS,
    head_colour,
    probability_scale,
)
from mha.plotting.screens import SMALLEST_TEXT, for_every_screen


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
        also make the figure much faster to draw). Where a label's font is
        taller than its row (a key's, turned upright, wider than its column),
        as with chapter 13's 16 to 32 letters on a phone, every second (third,
        ...) token is labelled, so that none run together, starting where the
        most labels name a token that occurs once (:func:`thinned_start`).
        Returns the axes (x or y, ``matplotlib.axis.Axis``) that carry labels."""
        n_rows = -(-len(self.maps) // self.n_cols)
        labelled = []
        for head, image in enumerate(self.maps):
            row, col = divmod(head, self.n_cols)
            left, bottom = col == 0, row == n_rows - 1
            axes = image.axes
            label_axes(axes, query_tokens if left else [], key_tokens if bottom else [])
            labelled += [axes.yaxis] * left + [axes.xaxis] * bottom
        for axis, tokens in ((a, query_tokens if a.axis_name == "y" else key_tokens)
                             for a in labelled):  # fmt: skip
            every = label_every(axis, len(tokens))
            if every > 1:
                kept = range(thinned_start(tokens, every), len(tokens), every)
                axis.set_ticks(list(kept), labels=[tokens[i] for i in kept])
        return labelled


def thinned_start(tokens: Sequence[str], every: int) -> int:
    """Where to start labelling every ``every``-th of ``tokens``: at the start
    whose labels name the most tokens that occur once in the sentence (a
    repeated word, such as *the*, tells a reader less than the noun beside
    it), the first such start on a tie."""
    counts = Counter(tokens)
    once = [counts[token] == 1 for token in tokens]
    return max(range(every), key=lambda start: (sum(once[start::every]), -start))


def label_every(axis, n: int) -> int:
    """Every how many of its ``n`` ticks ``axis`` (a panel's x or y axis, one
    tick per cell, labels set) can carry a label without two labels running
    together: a label is one em tall (its font size; a word turned upright
    on the x axis one em wide), and neighbouring labels' centres must be an
    em apart or more (the explorer's rule)."""
    labels = [t for t in axis.get_ticklabels() if t.get_text()]
    if n < 2 or not labels:
        return 1
    box = axis.axes.get_window_extent()
    cell = (box.height if axis.axis_name == "y" else box.width) / n  # pixels
    em = max(t.get_fontsize() for t in labels) * axis.figure.dpi / 72
    return max(1, math.ceil(em / cell - 1e-9))


def blocked_keys(
    mask: torch.Tensor, shape: tuple[int, int, int], name: str = "mask"
) -> torch.Tensor:
    """``mask`` (the package's convention: ``True`` or 1 = may attend,
    broadcastable to ``shape``, ``(n_maps, q_len, k_len)``) as a bool tensor of
    ``shape``, ``True`` where the key is blocked."""
    if not isinstance(mask, torch.Tensor):
        raise TypeError(
            f"{name} must be a torch.Tensor (True or 1 = may attend), "
            f"got {type(mask).__name__}"
        )
    values = mask.detach().cpu()
    if not bool(((values == 0) | (values == 1)).all()):
        other = values[(values != 0) & (values != 1)].flatten()[0].item()
        raise ValueError(
            f"{name} must hold only 0 and 1 (True or 1 = may attend), "
            f"got the value {other}"
        )
    try:
        allowed = torch.broadcast_to(values, shape)
    except RuntimeError:
        raise ValueError(
            f"{name} must be broadcastable to (n_heads, q_len, k_len) = {shape} "
            f"(one sequence's mask, e.g. causal_mask(q_len)), got shape "
            f"{tuple(mask.shape)}"
        ) from None
    return ~allowed.bool()


def check_rows_are_probabilities(attention: torch.Tensor) -> None:
    """Every row of ``attention (n_heads, q_len, k_len)`` must be probabilities:
    values in [0, 1] summing to 1, or all zeros (a query whose every key is
    blocked, as :func:`~mha.attention.attention_probs` gives it)."""
    where = lambda bad: tuple(bad.nonzero()[0].tolist())  # noqa: E731 (head, row)
    nan = attention.isnan().any(dim=-1)  # (n_heads, q_len)
    if nan.any():
        head, row = where(nan)
        raise ValueError(
            f"attention must hold probabilities, got NaN in row {row} of head {head}: "
            "a row whose every key was blocked with -inf (mha.attention_probs "
            "gives such a row zeros)"
        )
    sums = attention.sum(dim=-1)  # (n_heads, q_len)
    outside = (attention < -1e-6).any(dim=-1) | (attention > 1 + 1e-6).any(dim=-1)
    bad = outside | (((sums - 1).abs() > 1e-3) & (sums.abs() > 1e-6))
    if bad.any():
        head, row = where(bad)
        raise ValueError(
            "attention must hold probabilities, each row in [0, 1] summing to 1 "
            f"(or all 0), got row {row} of head {head} summing to "
            f"{sums[head, row]:.3g}, from {attention[head, row].min():.3g} to "
            f"{attention[head, row].max():.3g} (scores? pass them through a softmax)"
        )


def check_blocked_are_empty(
    maps: torch.Tensor, blocked: torch.Tensor, name: str = "mask"
) -> None:
    """Every key ``blocked`` (bool, like ``maps (n, q_len, k_len)``) holds no
    weight in ``maps`` (0, or NaN). ``name``: the argument that gave the mask;
    with ``"masks"``, one mask per map (``masks[n]``)."""
    leak = maps.masked_fill(~blocked, 0).nan_to_num(0.0).abs()
    if bool((leak > 1e-6).any()):
        n, i, j = (int(v) for v in (leak == leak.max()).nonzero()[0])
        given = f"{name}[{n}]" if name == "masks" else name
        raise ValueError(
            f"{given} must block only keys that get no weight: it blocks key {j} "
            f"of query {i}, which holds {float(maps[n, i, j]):.3g} in map {n} "
            f"(another sequence's mask, or another convention's? True or 1 = "
            f"may attend)"
        )


#: The colour bar's shortest length, and the room right of it for the legend
#: of a blocked key, in inches.
SHORTEST_BAR, LEGEND_ROOM = 1.6, 1.0


def attention_grid(
    maps: torch.Tensor,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    titles: Sequence[str],
    n_rows: int,
    n_cols: int,
    *,
    blocked: torch.Tensor | None = None,
    annotate: bool | None = None,
    title: str | None = None,
    colours: Sequence[str] | None = None,
    head_size: float = 2.3,
    figsize: tuple[float, float] | None = None,
    width: float | None = None,
    dpi: int = 100,
) -> AttentionFigure:
    """The book's attention maps: ``maps (n, q_len, k_len)`` in a grid of
    ``n_rows`` by ``n_cols`` labelled panels on the square-root scale, one
    colour bar, blocked keys (``blocked``, bool, like ``maps``) in their own
    look with a legend that names them. The layout is fixed from the labels'
    lengths (much faster than matplotlib's constrained layout, which matters
    for the explorers). The colour bar lies under the panels, on a desk as on
    a phone: one design of the probability scale, with the same ticks
    (`mha.plotting.palette.PROBABILITY_TICKS`), in every figure."""
    n, q_len, k_len = maps.shape
    char = 0.09  # inches per character of a 9-point tick label, wide ones (<, >, m, w) included
    left = 0.45 + char * max(len(t) for t in query_tokens)
    bottom = 0.35 + char * max(len(t) for t in key_tokens)
    phone = width is not None and width < 5.5
    if width is not None and figsize is None:  # titles wrapped to their panel's width
        panel = (width - left - (n_cols - 1) * 0.15) / n_cols
        titles = ["\n".join(_wrap(t, int(panel / 0.08))) for t in titles]
    if title and width is not None and figsize is None:
        title = "\n".join(_wrap(title, int(width / 0.09)))
    lines = max(t.count("\n") + 1 for t in titles)
    title_lines = title.count("\n") + 1 if title else 0
    top, gap, head_title = 0.05 + 0.3 * title_lines, 0.15, 0.12 + 0.18 * lines
    bar = 0.05  # room right of the panels (their frames', at least)
    under = 0.75  # room under them, for the colour bar
    rows_h = lambda cell_h: n_rows * (head_title + cell_h) + (n_rows - 1) * gap  # noqa: E731
    if figsize is not None:
        width, height = figsize
        room_w = (width - left - bar - (n_cols - 1) * gap) / n_cols
        room_h = (
            height - top - bottom - under - n_rows * head_title - (n_rows - 1) * gap
        ) / n_rows
        cell_w = min(room_w, room_h * k_len / q_len)
    else:
        if width is None:
            cell_w = head_size
            width = left + n_cols * cell_w + (n_cols - 1) * gap + bar
            if blocked is not None and bool(blocked.any()):  # the bar and its legend
                width = max(width, left + SHORTEST_BAR + LEGEND_ROOM)
        else:
            cell_w = (width - left - bar - (n_cols - 1) * gap) / n_cols
        height = top + rows_h(cell_w * q_len / k_len) + bottom + under
    cell_h = cell_w * q_len / k_len
    grid_w, grid_h = n_cols * cell_w + (n_cols - 1) * gap, rows_h(cell_h)
    # Centre the panels and their labels in whatever room is left over.
    x_pad = (width - left - grid_w - bar) / 2
    y_pad = (height - top - grid_h - bottom - under) / 2
    left, top, bottom = left + x_pad, top + y_pad, bottom + y_pad + under
    if annotate is None:
        annotate = q_len * k_len <= 64
    # Numbers only where they fit their cells at the book's smallest size.
    annotate = annotate and cell_w / k_len >= room_for("0.00") and cell_h / q_len >= 0.2
    fig = AttentionFigure(figsize=(width, height), dpi=dpi)
    fig.maps, fig.n_cols = [], n_cols
    for k in range(n):
        row, col = divmod(k, n_cols)
        x0 = left + col * (cell_w + gap)
        y0 = height - top - (row + 1) * (head_title + cell_h) - row * gap
        ax = fig.add_axes((x0 / width, y0 / height, cell_w / width, cell_h / height))
        image = heatmap(
            ax,
            maps[k],
            0.0,
            1.0,
            annotate=annotate,
            norm=probability_scale(),
            blocked=None if blocked is None else blocked[k],
        )
        fig.maps.append(image)
        colour = "black" if colours is None else colours[k]
        ax.set_title(
            titles[k],
            fontsize=10,
            color=colour,
            fontweight="normal" if colours is None else "bold",
        )
        if colours is not None:
            for side in ax.spines.values():
                side.set_edgecolor(colour)
                side.set_linewidth(2.0)
    fig.label(query_tokens, key_tokens)
    legend = {"handles": [blocked_swatch()], "labels": [BLOCKED], "frameon": False}
    legend.update(fontsize=SMALLEST_TEXT, handlelength=1.6, handleheight=1.2)
    show_legend = blocked is not None and bool(blocked.any())
    label = f"{PROBABILITY} (√ scale)"
    # A horizontal bar under the panels' key labels (its end label inside too).
    room = width - left - 0.05  # from the panels' left edge to the figure's right
    bar_w = min(grid_w * 0.94, room - LEGEND_ROOM) if show_legend else grid_w * 0.94
    if not phone:
        bar_w = min(bar_w, 3.6)  # no longer than the scale needs on a desk
    bar_ax = fig.add_axes(
        (left / width, (y_pad + 0.5) / height, bar_w / width, 0.12 / height)
    )
    where = {"loc": "center left", "bbox_to_anchor": ((left + bar_w + 0.1) / width,
                                                      (y_pad + 0.56) / height)}  # fmt: skip
    fig.colorbar(
        image,
        cax=bar_ax,
        orientation="horizontal",
        label=label,
        ticks=list(PROBABILITY_TICKS),
        format=FuncFormatter(lambda value, _: f"{value:g}"),
    )
    bar_ax.tick_params(labelsize=SMALLEST_TEXT)
    bar_ax.xaxis.label.set_fontsize(SMALLEST_TEXT)
    if show_legend:
        fig.legend(**legend, **where)
    if title:
        y_title = 1 - (top - 0.3 * title_lines) / height
        fig.suptitle(title, fontsize=11, y=y_title, va="top")
    x_mid, y_mid = (left + grid_w / 2) / width, (bottom + grid_h / 2) / height
    fig.supxlabel(
        KEY_AXIS, fontsize=9, x=x_mid, y=(y_pad + under + 0.02) / height, va="bottom"
    )
    fig.supylabel(QUERY_AXIS, fontsize=9, x=(x_pad + 0.02) / width, y=y_mid, ha="left")
    return fig


def _wrap(title: str, chars: int) -> list[str]:
    """A title's lines, each wrapped at spaces to about ``chars`` characters."""
    return [part for line in title.split("\n") for part in textwrap.wrap(line, chars)]


def _grid(
    maps: int, n_heads: int | None, n_rows: int | None, n_cols: int | None
) -> tuple[int | None, int | None, int | None]:
    """The head count and grid `display_attention` draws; what is not given
    follows from what is (``maps``: the maps given). What cannot be honoured
    is left for its checks to name."""
    if n_heads is None:
        n_heads = maps
    if not isinstance(n_heads, int) or isinstance(n_heads, bool) or n_heads < 1:
        return n_heads, n_rows, n_cols
    if n_rows is None and n_cols is None:
        n_cols = next(
            d for d in range(1, n_heads + 1) if n_heads % d == 0 and d * d >= n_heads
        )
    given = n_cols if n_rows is None else n_rows
    if isinstance(given, int) and not isinstance(given, bool) and given >= 1:
        other = max(n_heads // given, 1)
        n_rows, n_cols = (other, given) if n_rows is None else (n_rows, n_cols or other)
    return n_heads, n_rows, n_cols


@for_every_screen
def display_attention(
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    attention: torch.Tensor,
    n_heads: int | None = None,
    n_rows: int | None = None,
    n_cols: int | None = None,
    *,
    mask: torch.Tensor | None = None,
    annotate: bool | None = None,
    title: str | None = None,
    head_size: float = 2.3,
    figsize: tuple[float, float] | None = None,
    width: float | None = None,
    dpi: int = 100,
) -> AttentionFigure:
    """One labelled heatmap per head: rows are queries, columns are keys.

    The colour scale runs from 0 to 1 on a square-root scale
    (`mha.plotting.palette.probability_scale`), the same in every figure of the book; each head's
    title and frame have its colour (`mha.plotting.palette.head_colour`), the same in every figure;
    a blocked key is drawn light grey and hatched, without a number, and the
    legend says "blocked".

    Args:
        query_tokens: ``q_len`` labels for the rows.
        key_tokens: ``k_len`` labels for the columns.
        attention: ``(n_heads, q_len, k_len)`` probabilities of one sequence,
            e.g. ``attn_probs[0]``.
        n_heads: number of heads to draw; ``None``: every map of ``attention``.
        n_rows, n_cols: grid of panels; ``n_rows * n_cols`` must equal
            ``n_heads``. ``None``: as square as whole rows allow (1 head
            ``1 × 1``, 2 ``1 × 2``, 4 ``2 × 2``, 8 ``2 × 4``); one of them
            given, the other follows.
        mask: the mask the attention was computed with, in the package's
            convention (``True`` or 1 = may attend), broadcastable to
            ``(n_heads, q_len, k_len)``: one sequence's, e.g.
            ``causal_mask(q_len)`` or ``padding[0]``. Its blocked keys are
            drawn as blocked; they must hold no weight. ``None``: nothing
            blocked.
        annotate: print each value in its cell; by default only when a map
            has at most 64 cells. Values are printed only where they fit
            (not in a phone's layout of four maps, for instance).
        title: a title over the whole figure.
        head_size: width of one panel in inches (its height follows the
            ratio q_len / k_len).
        figsize: ``(width, height)`` in inches: fit the panels into a figure
            of this size instead (as large as fit, centred), so that figures of
            different head counts have one size. ``head_size`` is then ignored.
        width: the figure's width in inches, the panels as wide as fit
            (narrower than 5.5: a phone's layout). ``None``: ``head_size``
            decides, and when the figure would not stay legible on a phone it
            also carries a phone's layout (``fig.phone``, see
            `mha.plotting.screens`).
        dpi: resolution of the figure.

    Returns:
        An `AttentionFigure` (a ``matplotlib.figure.Figure``), with one
        axes per head (titled ``head 0``, ``head 1``, …) plus one for the
        colour bar; its ``maps`` are the heads' heatmaps.
    """
    attention = as_matrix("attention", attention, 3)
    check_rows_are_probabilities(attention)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__} {title!r}")
    check_number("dpi", dpi)
    n_heads, n_rows, n_cols = _grid(attention.size(0), n_heads, n_rows, n_cols)
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
    blocked = None
    if mask is not None:
        blocked = blocked_keys(mask, tuple(attention.shape))
        check_blocked_are_empty(attention, blocked)
    return attention_grid(
        attention,
        query_tokens,
        key_tokens,
        [f"head {h}" for h in range(n_heads)],
        n_rows,
        n_cols,
        blocked=blocked,
        annotate=annotate,
        title=title,
        colours=[head_colour(h) for h in range(n_heads)],
        head_size=head_size,
        figsize=figsize,
        width=width,
        dpi=dpi,
    )
