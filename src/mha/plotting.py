"""The book's figures, one small function each; every one returns a Figure.

Figures are built as ``matplotlib.figure.Figure`` objects rather than with
pyplot, so a notebook shows a figure exactly once (as the cell's result) and
nothing is left open in pyplot's global state. The colour map is *cividis*: its
lightness rises steadily from 0 to 1, so it reads in greyscale and for
readers with colour-vision deficiencies.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

CMAP = "cividis"


class BookFigure(Figure):
    """A matplotlib Figure that shows itself as a PNG in Jupyter without pyplot.

    Its plain-text form names a digest of that PNG. A notebook stores both,
    and nbval compares the text exactly, so a stored picture that no longer
    matches what the code draws fails validation instead of going stale.
    """

    _png_cache: bytes | None = None

    def _png(self) -> bytes:
        # Jupyter asks for the text and the PNG of the same figure one after the
        # other; draw it once for both (but again if it was changed in between:
        # any change marks a figure stale, and drawing it clears that).
        if self._png_cache is None or self.stale:
            self._png_cache = to_png(self)
            self.stale = False  # savefig restores colours it changed, which marks it stale
        return self._png_cache

    def _repr_png_(self) -> bytes:
        return self._png()

    def __repr__(self) -> str:
        width, height = (self.get_size_inches() * self.dpi).round().astype(int)
        return (f"<Figure {width}x{height} px, {len(self.axes)} axes, "
                f"png {digest(self._png())}>")


def digest(data: bytes | str) -> str:
    """A short, stable fingerprint of ``data`` (the first 12 hex digits of its SHA-256)."""
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()[:12]


def to_png(fig: Figure, dpi: float | None = None) -> bytes:
    """The figure as PNG bytes, without metadata, so equal figures give equal bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def _as_matrix_stack(name: str, values: torch.Tensor, dims: int) -> torch.Tensor:
    if not isinstance(values, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(values).__name__}")
    if values.dim() != dims:
        raise ValueError(f"{name} must be {dims}-D, got shape {tuple(values.shape)}")
    return values.detach().float().cpu()


def _label_axes(ax, query_tokens: Sequence[str], key_tokens: Sequence[str], fontsize=9) -> None:
    ax.set_xticks(range(len(key_tokens)), labels=key_tokens, rotation=90, fontsize=fontsize)
    ax.set_yticks(range(len(query_tokens)), labels=query_tokens, fontsize=fontsize)
    ax.tick_params(length=0)


def _annotate(ax, matrix: torch.Tensor, fontsize=7) -> None:
    for i, row in enumerate(matrix.tolist()):
        for j, value in enumerate(row):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=fontsize,
                    color="black" if value > 0.5 else "white")


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
    dpi: int = 100,
) -> Figure:
    """One labelled heatmap per head: rows are queries, columns are keys.

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
        dpi: resolution of the figure.

    Returns:
        The ``matplotlib.figure.Figure``, with one axes per head (titled
        ``head 0``, ``head 1``, …) plus one for the colour bar.
    """
    attention = _as_matrix_stack("attention", attention, 3)
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
    if len(query_tokens) != q_len or len(key_tokens) != k_len:
        raise ValueError(
            f"query_tokens and key_tokens must label the {q_len} rows and {k_len} columns "
            f"of attention, got {len(query_tokens)} query and {len(key_tokens)} key tokens"
        )
    if annotate is None:
        annotate = q_len * k_len <= 64
    # A fixed layout computed from the label lengths (much faster than
    # matplotlib's constrained layout, which matters for the explorers).
    char = 0.09  # inches per character of a 9-point tick label, wide ones (<, >, m, w) included
    left = 0.4 + char * max(len(t) for t in query_tokens)
    bottom = 0.3 + char * max(len(t) for t in key_tokens)
    top, gap, bar = 0.35 if title else 0.05, 0.15, 1.0
    cell_w = head_size
    cell_h = head_size * q_len / k_len
    width = left + n_cols * cell_w + (n_cols - 1) * gap + bar
    height = top + n_rows * (0.3 + cell_h) + (n_rows - 1) * gap + bottom
    fig = BookFigure(figsize=(width, height), dpi=dpi)
    axes = []
    for head in range(n_heads):
        row, col = divmod(head, n_cols)
        x0 = left + col * (cell_w + gap)
        y0 = height - top - (row + 1) * (0.3 + cell_h) - row * gap
        ax = fig.add_axes((x0 / width, y0 / height, cell_w / width, cell_h / height))
        image = ax.imshow(attention[head].numpy(), cmap=CMAP, vmin=0.0, vmax=1.0,
                          aspect="auto", interpolation="nearest")
        # The panels share their tokens: label the left column and the bottom
        # row only (fewer tick objects also make the figure much faster to build).
        _label_axes(ax, query_tokens if col == 0 else [], key_tokens if row == n_rows - 1 else [])
        ax.set_title(f"head {head}", fontsize=10)
        if annotate:
            _annotate(ax, attention[head])
        axes.append(ax)
    bar_ax = fig.add_axes(((width - bar + 0.15) / width, bottom / height,
                           0.15 / width, (height - top - bottom - 0.3) / height))
    fig.colorbar(image, cax=bar_ax, label="attention probability")
    if title:
        fig.suptitle(title, fontsize=11, y=1 - 0.08 / height, va="top")
    fig.supxlabel("key (attended to)", fontsize=9, y=0.02 / height, va="bottom",
                  x=(left + (width - left - bar) / 2) / width)
    fig.supylabel("query (attending)", fontsize=9, x=0.02 / width, ha="left")
    return fig


def token_grid(tokens: Sequence[Sequence[str]], is_token: torch.Tensor) -> Figure:
    """A padded batch as a grid: one row per sentence, padding shaded and hatched.

    Args:
        tokens: ``batch`` rows of ``length`` token strings (``<pad>`` included).
        is_token: BoolTensor ``(batch, length)``, ``True`` on real tokens.
    """
    is_token = _as_matrix_stack("is_token", is_token, 2).bool()
    batch, length = is_token.shape
    if len(tokens) != batch or any(len(row) != length for row in tokens):
        raise ValueError(
            f"tokens must be {batch} rows of {length} strings to match is_token, "
            f"got rows of lengths {[len(row) for row in tokens]}"
        )
    fig = BookFigure(figsize=(1.3 * length + 0.8, 0.55 * batch + 0.7), layout="constrained")
    ax = fig.subplots()
    for b in range(batch):
        for t in range(length):
            real = bool(is_token[b, t])
            ax.add_patch(Rectangle((t, b), 0.94, 0.86, facecolor="#dbe7f5" if real else "#d9d9d9",
                                   edgecolor="#333333", hatch=None if real else "///"))
            # A padding label sits on a white patch, so the hatching cannot hide it.
            ax.text(t + 0.47, b + 0.43, tokens[b][t], ha="center", va="center", fontsize=10,
                    color="#111111", bbox=None if real else dict(
                        facecolor="white", edgecolor="none", boxstyle="round,pad=0.2"))
    ax.set_xlim(-0.05, length)
    ax.set_ylim(batch, -0.14)
    ax.set_xticks([t + 0.47 for t in range(length)], labels=[f"pos {t}" for t in range(length)])
    ax.set_yticks([b + 0.43 for b in range(batch)], labels=[f"sentence {b}" for b in range(batch)])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    return fig


# --- Masks (chapter 08_masks) -------------------------------------------------------

_MASK_ALLOWED = "#fde838"  # the light end of cividis
_MASK_BLOCKED = "#1f2d4d"  # a dark navy near cividis' dark end
_MASK_HATCH = "#c8c8c8"


def _mask_matrix(mask: torch.Tensor) -> torch.Tensor:
    """A 2-D mask in the package's convention as a bool matrix ``(q_len, k_len)``."""
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a torch.Tensor, got {type(mask).__name__}")
    if mask.dim() != 2:
        raise ValueError(
            f"mask must be 2-D (q_len, k_len), got shape {tuple(mask.shape)}; pick one "
            "sequence and head first, e.g. mask[0, 0] of a (batch, n_heads, q_len, k_len) mask"
        )
    mask = mask.detach().cpu()
    if mask.dtype != torch.bool:
        if mask.is_complex() or not bool(((mask == 0) | (mask == 1)).all()):
            raise ValueError(
                "mask must hold only False/0 (blocked) and True/1 (may attend), "
                f"got dtype {mask.dtype} with other values"
            )
        mask = mask != 0
    return mask


def _mask_legend_handles() -> list:
    return [
        Rectangle((0, 0), 1, 1, facecolor=_MASK_ALLOWED, edgecolor="#333333"),
        Rectangle((0, 0), 1, 1, facecolor=_MASK_BLOCKED, edgecolor=_MASK_HATCH, hatch="///"),
    ]


_MASK_LEGEND_LABELS = ["may attend (True / 1)", "blocked (False / 0)"]


def _draw_mask(ax, mask: torch.Tensor, query_tokens: Sequence[str],
               key_tokens: Sequence[str], fontsize: int = 9) -> None:
    from matplotlib.colors import ListedColormap

    q_len, k_len = mask.shape
    if len(query_tokens) != q_len or len(key_tokens) != k_len:
        raise ValueError(
            f"query_tokens and key_tokens must label the {q_len} rows and {k_len} columns "
            f"of mask, got {len(query_tokens)} query and {len(key_tokens)} key tokens"
        )
    colours = ListedColormap([_MASK_BLOCKED, _MASK_ALLOWED])
    ax.imshow(mask.float().numpy(), cmap=colours, vmin=0.0, vmax=1.0)
    for i, j in (~mask).nonzero().tolist():
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="none",
                               edgecolor=_MASK_HATCH, hatch="///", linewidth=0))
    ax.set_xticks([x - 0.5 for x in range(k_len + 1)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(q_len + 1)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    _label_axes(ax, query_tokens, key_tokens, fontsize=fontsize)
    ax.set_xlabel("key (attended to)", fontsize=fontsize)
    ax.set_ylabel("query (attending)", fontsize=fontsize)


def mask_figure(
    mask: torch.Tensor,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    title: str | None = None,
    *,
    cell_size: float = 0.42,
    dpi: int = 100,
) -> Figure:
    """One attention mask as a grid of cells: rows are queries, columns are keys.

    Cells a query may attend to are light; blocked cells are dark and hatched,
    so the two read apart in greyscale too. A legend names both.

    Args:
        mask: ``(q_len, k_len)`` in the package's convention: ``True``/1 = may
            attend, ``False``/0 = blocked (bool, integer or float 0/1).
        query_tokens: ``q_len`` labels for the rows.
        key_tokens: ``k_len`` labels for the columns.
        title: a title over the grid.
        cell_size: side of one cell in inches.
        dpi: resolution of the figure.

    Returns:
        The figure, with one axes whose image holds the mask as 0/1.
    """
    mask = _mask_matrix(mask)
    q_len, k_len = mask.shape
    fig = BookFigure(figsize=(cell_size * k_len + 1.7, cell_size * q_len + 2.0), dpi=dpi,
                     layout="constrained")
    ax = fig.subplots()
    _draw_mask(ax, mask, query_tokens, key_tokens)
    if title:
        ax.set_title(title, fontsize=10)
    fig.legend(_mask_legend_handles(), _MASK_LEGEND_LABELS, loc="outside lower center",
               ncols=1, fontsize=9, frameon=False)
    return fig


def mask_panels(
    masks: Sequence[torch.Tensor],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    titles: Sequence[str],
    *,
    suptitle: str | None = None,
    cell_size: float = 0.34,
    dpi: int = 100,
) -> Figure:
    """Several masks of the same sequence side by side, e.g. padding, causal, both.

    Args:
        masks: ``n`` masks, each ``(q_len, k_len)`` in the package's convention
            (``True``/1 = may attend, ``False``/0 = blocked).
        query_tokens: ``q_len`` labels for the rows (shared by all panels).
        key_tokens: ``k_len`` labels for the columns (shared by all panels).
        titles: ``n`` panel titles.
        suptitle: a title over the whole figure.
        cell_size: side of one cell in inches.
        dpi: resolution of the figure.

    Returns:
        The figure, with one axes per mask, each holding its mask as a 0/1 image.
    """
    if isinstance(masks, torch.Tensor) or not isinstance(masks, Sequence) or not masks:
        raise TypeError(
            "masks must be a non-empty list of (q_len, k_len) tensors, "
            f"got {type(masks).__name__}"
        )
    if isinstance(titles, str) or len(titles) != len(masks):
        raise ValueError(
            f"titles must be a list of one title per mask ({len(masks)}), got {titles!r}"
        )
    matrices = [_mask_matrix(mask) for mask in masks]
    shapes = {tuple(m.shape) for m in matrices}
    if len(shapes) != 1:
        raise ValueError(f"masks must all have the same shape, got shapes {sorted(shapes)}")
    q_len, k_len = matrices[0].shape
    n = len(matrices)
    # Only the first panel carries the query labels, so the grids can sit close.
    width = n * cell_size * k_len + 1.3 + 0.3 * (n - 1)
    height = cell_size * q_len + (1.85 if suptitle else 1.6)
    fig = BookFigure(figsize=(width, height), dpi=dpi, layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    for ax, matrix, panel_title in zip(axes, matrices, titles, strict=True):
        _draw_mask(ax, matrix, query_tokens, key_tokens, fontsize=10)
        ax.set_title(panel_title, fontsize=11)
    for ax in axes[1:]:
        ax.set_ylabel("")
        ax.tick_params(labelleft=False)
    fig.legend(_mask_legend_handles(), _MASK_LEGEND_LABELS, loc="outside lower center",
               ncols=2, fontsize=9, frameon=False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    return fig


# --- Scaled dot-product attention and merging the heads (chapters 05–07) -------------

# Okabe–Ito colours (safe for colour-vision deficiencies), each paired with its own
# marker and line style so that the curves also read in greyscale.
_LINE_COLOURS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#000000")
_LINE_MARKERS = ("o", "s", "^", "D", "v", "P")
_LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 2)))
# Light fills for the heads (Okabe–Ito tints) and a hatch per head for greyscale.
_HEAD_FILLS = ("#f5c89a", "#a9d4f2", "#8fd6c0", "#e6bcd5", "#f9e08f", "#c7c7c7")
_HEAD_HATCHES = ("", "//", "..", "xx", "\\\\", "++")


def softmax_saturation_figure(
    d_keys: Sequence[int],
    score_std: torch.Tensor,
    max_prob: torch.Tensor,
    labels: Sequence[str] = ("unscaled", "÷ √d_key", "÷ d_key"),
    n_keys: int = 10,
) -> Figure:
    """Why the scores are divided by √d_key: two panels against ``d_key``.

    Left, the standard deviation of the scores; right, the average largest
    probability of a softmax row (1 / ``n_keys`` = uniform, 1 = one-hot).

    Args:
        d_keys: the ``n`` sizes of the query and key vectors (x axis, log scale).
        score_std: ``(n_curves, n)``, the scores' standard deviation for each
            scaling (row) and each ``d_key`` (column).
        max_prob: ``(n_curves, n)``, the mean of each softmax row's largest
            probability, in [0, 1].
        labels: ``n_curves`` names of the scalings, for the legend.
        n_keys: how many keys each softmax row had (draws the uniform level).
    """
    if isinstance(d_keys, (str, bytes)) or not isinstance(d_keys, Sequence):
        raise TypeError(f"d_keys must be a sequence of ints, got {type(d_keys).__name__}")
    if not d_keys or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0
                         for d in d_keys):
        raise ValueError(f"d_keys must be a non-empty sequence of positive ints, got {d_keys!r}")
    score_std = _as_matrix_stack("score_std", score_std, 2)
    max_prob = _as_matrix_stack("max_prob", max_prob, 2)
    n_curves = len(labels)
    for name, values in (("score_std", score_std), ("max_prob", max_prob)):
        if tuple(values.shape) != (n_curves, len(d_keys)):
            raise ValueError(
                f"{name} must have shape (n_curves, n) = ({n_curves}, {len(d_keys)}) for "
                f"{n_curves} labels and {len(d_keys)} d_keys, got {tuple(values.shape)}"
            )
    if n_curves > len(_LINE_COLOURS):
        raise ValueError(f"labels can name at most {len(_LINE_COLOURS)} curves, got {n_curves}")
    if isinstance(n_keys, bool) or not isinstance(n_keys, int) or n_keys <= 0:
        raise ValueError(f"n_keys must be a positive int, got {n_keys!r}")
    if bool((max_prob < 0).any()) or bool((max_prob > 1).any()):
        raise ValueError("max_prob must hold probabilities in [0, 1]")
    if bool((score_std <= 0).any()):
        raise ValueError("score_std must be positive (it is drawn on a log scale)")
    from matplotlib.ticker import FuncFormatter

    fig = BookFigure(figsize=(9.0, 3.8), layout="constrained")
    ax_std, ax_max = fig.subplots(1, 2)
    for i, label in enumerate(labels):
        style = dict(color=_LINE_COLOURS[i], marker=_LINE_MARKERS[i],
                     linestyle=_LINE_STYLES[i], linewidth=1.8, markersize=5, label=label)
        ax_std.plot(list(d_keys), score_std[i].tolist(), **style)
        ax_max.plot(list(d_keys), max_prob[i].tolist(), **style)
    for ax in (ax_std, ax_max):
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(d_keys), labels=[str(d) for d in d_keys], fontsize=9)
        ax.minorticks_off()
        ax.set_xlabel("d_key (size of each query and key vector)", fontsize=10)
        ax.grid(True, color="#dddddd", linewidth=0.6)
    ax_std.set_yscale("log", base=2)
    ax_std.yaxis.set_major_formatter(
        FuncFormatter(lambda v, _: f"{v:g}" if v >= 1 else f"1/{1 / v:g}"))
    ax_std.set_ylabel("standard deviation of the scores", fontsize=10)
    ax_std.set_title("Spread of the scores", fontsize=11)
    for level, text, where in ((1.0, "one-hot", "bottom"),
                               (1.0 / n_keys, f"uniform (1/{n_keys})", "top")):
        ax_max.axhline(level, color="#555555", linewidth=1.0, linestyle=(0, (1, 1)))
        offset = 0.015 if where == "bottom" else -0.015
        ax_max.text(d_keys[-1], level + offset, text, fontsize=9, color="#333333", va=where,
                    ha="right")
    ax_max.set_ylim(0.0, 1.1)
    ax_max.set_ylabel("mean largest probability of a row", fontsize=10)
    ax_max.set_title(f"How peaked the softmax is ({n_keys} keys)", fontsize=11)
    ax_max.legend(fontsize=9, loc="center right")
    return fig


def weighted_values_figure(
    probs: torch.Tensor,
    values: torch.Tensor,
    key_tokens: Sequence[str],
    query_token: str = "query",
) -> Figure:
    """One query's output as a weighted average of the value vectors (d_key = 2).

    Left, the query's attention probabilities over the keys; right, the value
    vectors as points of the plane, each drawn with an area that grows with its
    probability, and their weighted average ``probs @ values`` as a star.

    Args:
        probs: ``(k_len,)``, one row of attention probabilities.
        values: ``(k_len, 2)``, the value vector of each key (one head, so
            ``d_key = 2`` in the running example).
        key_tokens: ``k_len`` labels.
        query_token: the query's label, for the titles.
    """
    probs = _as_matrix_stack("probs", probs, 1)
    values = _as_matrix_stack("values", values, 2)
    k_len = probs.size(0)
    if tuple(values.shape) != (k_len, 2):
        raise ValueError(
            f"values must have shape (k_len, 2) = ({k_len}, 2) to match the {k_len} "
            f"probabilities (the plane can show d_key = 2 only), got {tuple(values.shape)}"
        )
    if len(key_tokens) != k_len:
        raise ValueError(f"key_tokens must label the {k_len} keys, got {len(key_tokens)} tokens")
    if bool((probs < 0).any()) or bool((probs > 1).any()):
        raise ValueError("probs must hold probabilities in [0, 1]")
    mixed = probs @ values  # (2,)

    fig = BookFigure(figsize=(9.0, 3.9), layout="constrained")
    ax_p, ax_v = fig.subplots(1, 2, width_ratios=[1, 1.25])
    rows = list(range(k_len))
    ax_p.barh(rows, probs.tolist(), color="#0072B2", edgecolor="#222222", height=0.65)
    for j, p in enumerate(probs.tolist()):
        ax_p.text(p + 0.01, j, f"{p:.2f}", va="center", fontsize=9)
    ax_p.set_yticks(rows, labels=list(key_tokens), fontsize=10)
    ax_p.invert_yaxis()
    ax_p.set_xlim(0, min(1.0, float(probs.max()) + 0.15))
    ax_p.set_xlabel("attention probability p_j", fontsize=10)
    ax_p.set_ylabel("key", fontsize=10)
    ax_p.set_title(f"How much '{query_token}' takes from each value", fontsize=11)

    ax_v.axhline(0, color="#bbbbbb", linewidth=0.8)
    ax_v.axvline(0, color="#bbbbbb", linewidth=0.8)
    for j, ((x, y), p) in enumerate(zip(values.tolist(), probs.tolist(), strict=True)):
        ax_v.plot([mixed[0], x], [mixed[1], y], color="#999999", linewidth=0.8,
                  linestyle="--", zorder=1)
        ax_v.scatter([x], [y], s=60 + 900 * p, color="#56B4E9", edgecolor="#222222",
                     zorder=2, label="value v_j (area ∝ p_j)" if j == 0 else None)
        ax_v.annotate(key_tokens[j], (x, y), xytext=(7, 5), textcoords="offset points",
                      fontsize=9)
    ax_v.scatter([float(mixed[0])], [float(mixed[1])], marker="*", s=320, color="#D55E00",
                 edgecolor="#222222", zorder=3, label=f"Σ p_j v_j (output for '{query_token}')")
    ax_v.set_xlabel("feature 0 of the head", fontsize=10)
    ax_v.set_ylabel("feature 1 of the head", fontsize=10)
    ax_v.set_title("Values, and their weighted average", fontsize=11)
    ax_v.margins(0.18)
    ax_v.legend(fontsize=9, loc="best", markerscale=0.6)
    return fig


def merge_heads_figure(heads: torch.Tensor, merged: torch.Tensor, token: str = "") -> Figure:
    """Where each head's output lands in the merged vector of one token.

    Top, the ``n_heads`` outputs of one token, ``d_key`` numbers each; bottom,
    the merged vector of ``n_heads * d_key`` features. Each head has its own
    fill and hatch, and a line joins it to its slice.

    Args:
        heads: ``(n_heads, d_key)``, e.g. ``A[0, :, 2]`` (one token, every head).
        merged: ``(n_heads * d_key,)``, the same token after merging, e.g.
            ``merged[0, 2]``; must be the heads laid side by side.
        token: the token's label, for the title.
    """
    heads = _as_matrix_stack("heads", heads, 2)
    merged = _as_matrix_stack("merged", merged, 1)
    n_heads, d_key = heads.shape
    if n_heads > len(_HEAD_FILLS):
        raise ValueError(f"heads can have at most {len(_HEAD_FILLS)} rows, got {n_heads}")
    if merged.numel() != n_heads * d_key:
        raise ValueError(
            f"merged must have n_heads * d_key = {n_heads * d_key} features for heads of "
            f"shape {tuple(heads.shape)}, got shape {tuple(merged.shape)}"
        )
    if not torch.allclose(merged, heads.reshape(-1)):
        raise ValueError("merged must hold the heads side by side (head 0 first), "
                         "as merge_heads gives; it holds other numbers")

    gap = 0.6  # space between two heads in the top row
    fig = BookFigure(figsize=(max(6.0, 0.95 * n_heads * d_key + 1.5), 3.0),
                     layout="constrained")
    ax = fig.subplots()

    def cell(x, y, value, head):
        ax.add_patch(Rectangle((x, y), 0.92, 0.8, facecolor=_HEAD_FILLS[head],
                               edgecolor="#222222", hatch=_HEAD_HATCHES[head], linewidth=1.0))
        ax.text(x + 0.46, y + 0.4, f"{value:.2f}", ha="center", va="center", fontsize=10,
                bbox=dict(boxstyle="round,pad=0.25", facecolor="white", edgecolor="none",
                          alpha=0.85))

    top_width = n_heads * d_key + (n_heads - 1) * gap
    shift = (top_width - n_heads * d_key) / 2  # centre the bottom row under the top one
    for h in range(n_heads):
        x0 = h * (d_key + gap)
        for f in range(d_key):
            cell(x0 + f, 2.2, float(heads[h, f]), h)
            cell(shift + h * d_key + f, 0.0, float(merged[h * d_key + f]), h)
        ax.text(x0 + d_key / 2, 3.15, f"head {h}", ha="center", fontsize=10)
        ax.plot([x0 + d_key / 2, shift + h * d_key + d_key / 2], [2.15, 0.85],
                color="#555555", linewidth=1.0)
        ax.text(shift + h * d_key + d_key / 2, -0.35,
                f"features {h * d_key}–{(h + 1) * d_key - 1}", ha="center", va="top", fontsize=9)
    ax.text(-0.3, 2.6, f"per head\n({n_heads}, {d_key})", ha="right", va="center", fontsize=10)
    ax.text(-0.3, 0.4, f"merged\n({n_heads * d_key},)", ha="right", va="center", fontsize=10)
    ax.set_xlim(-2.2, top_width + 0.2)
    ax.set_ylim(-0.9, 3.5)
    ax.set_axis_off()
    if token:
        ax.set_title(f"Merging the heads of the token '{token}'", fontsize=11)
    return fig


# --- Figures of the chapters "Embeddings and positional encoding", "Queries, keys
# and values" and "Splitting into heads".

# Okabe-Ito colours: distinguishable with every common colour-vision deficiency.
_EMB_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
              "#000000", "#F0E442")
_EMB_STYLES = ("-", "--", ":", "-.")
_EMB_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _emb_annotate(ax, matrix: torch.Tensor, vmin: float, vmax: float, fontsize=7,
                     fmt="{:.2f}") -> None:
    """Print each value in its cell, dark text on the light end of the colour map."""
    middle = (vmin + vmax) / 2
    for i, row in enumerate(matrix.tolist()):
        for j, value in enumerate(row):
            ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize=fontsize,
                    color="black" if value > middle else "white")


def _emb_check_tokens(name: str, tokens: Sequence[str], length: int, what: str) -> None:
    if isinstance(tokens, str) or len(tokens) != length:
        got = repr(tokens) if isinstance(tokens, str) else f"{len(tokens)} tokens"
        raise ValueError(f"{name} must label the {length} rows of {what}, got {got}")


def positional_encoding_heatmap(table: torch.Tensor, *, annotate: bool | None = None) -> Figure:
    """The positional-encoding table as a heatmap: one row per position.

    Args:
        table: ``(n_positions, d_model)``, e.g. ``mha.sinusoids(6, 8)``.
        annotate: print each value in its cell; by default only when the table
            has at most 64 cells.

    Returns:
        A figure with the heatmap and its colour bar; columns are labelled with
        the feature index and whether it holds a sine or a cosine.
    """
    table = _as_matrix_stack("table", table, 2)
    n_positions, d_model = table.shape
    if n_positions == 0 or d_model == 0:
        raise ValueError(f"table must not be empty, got shape {tuple(table.shape)}")
    if annotate is None:
        annotate = table.numel() <= 64
    width = min(7.0, 1.6 + 0.62 * d_model)
    height = min(6.0, 1.3 + (0.42 if annotate else 0.12) * n_positions)
    fig = BookFigure(figsize=(width, height), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(table.numpy(), cmap=CMAP, vmin=-1.0, vmax=1.0, aspect="auto")
    labels = [f"{j}\n{'sin' if j % 2 == 0 else 'cos'}" for j in range(d_model)]
    ax.set_xticks(range(d_model), labels=labels, fontsize=9)
    if n_positions <= 12:
        ax.set_yticks(range(n_positions), labels=[str(p) for p in range(n_positions)],
                      fontsize=9)
    ax.set_xlabel("feature (column of the table)", fontsize=10)
    ax.set_ylabel("position", fontsize=10)
    ax.tick_params(length=0)
    if annotate:
        _emb_annotate(ax, table, -1.0, 1.0, fontsize=8)
    fig.colorbar(image, ax=ax, label="PE value")
    return fig


def positional_encoding_curves(table: torch.Tensor, dims: Sequence[int]) -> Figure:
    """Chosen columns of the positional-encoding table as curves over the positions.

    Args:
        table: ``(n_positions, d_model)``, e.g. ``mha.sinusoids(50, 8)``.
        dims: the columns (features) to draw, at most 8, each in ``[0, d_model)``.

    Returns:
        A figure with one axes, position on x and value on y, one line per column, each with
        its own colour, line style and marker, labelled with its wavelength
        ``2π · 10000^(2i/d_model)`` in positions.
    """
    import math

    table = _as_matrix_stack("table", table, 2)
    n_positions, d_model = table.shape
    dims = list(dims)
    if not dims or len(dims) > len(_EMB_MARKERS):
        raise ValueError(f"dims must list 1 to {len(_EMB_MARKERS)} columns, got {len(dims)}")
    for dim in dims:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"dims must hold ints, got {type(dim).__name__} {dim!r}")
        if not 0 <= dim < d_model:
            raise ValueError(f"dims must lie in [0, {d_model}) for a table of shape "
                             f"{tuple(table.shape)}, got {dim}")
    fig = BookFigure(figsize=(7.0, 3.4), layout="constrained")
    ax = fig.subplots()
    positions = list(range(n_positions))
    # Only whole positions exist: mark each one while there are few enough to see.
    every, size = (1, 3.5) if n_positions <= 60 else (max(1, n_positions // 12), 5)
    for k, dim in enumerate(dims):
        wave = "sin" if dim % 2 == 0 else "cos"
        wavelength = 2 * math.pi * 10000 ** ((dim - dim % 2) / d_model)
        ax.plot(positions, table[:, dim].tolist(), color=_EMB_COLOURS[k % len(_EMB_COLOURS)],
                linestyle=_EMB_STYLES[k % len(_EMB_STYLES)], marker=_EMB_MARKERS[k],
                markevery=every, markersize=size, linewidth=1.6,
                label=f"feature {dim}: {wave}, wavelength {wavelength:.3g}")
    ax.set_xlabel("position", fontsize=10)
    ax.set_ylabel("PE value", fontsize=10)
    ax.set_ylim(-1.15, 1.15)
    ax.set_xlim(0, max(1, n_positions - 1))
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def qkv_heatmaps(
    Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, tokens: Sequence[str]
) -> Figure:
    """Q, K and V of one sentence side by side, on one shared colour scale.

    Args:
        Q, K, V: ``(seq_len, d_model)`` each, e.g. ``Q[0]``, ``K[0]`` and ``V[0]`` for sentence 0.
        tokens: ``seq_len`` labels for the rows.

    Returns:
        Three heatmaps titled ``Q``, ``K``, ``V`` (rows = tokens, columns =
        features) and one colour bar.
    """
    mats = {"Q": _as_matrix_stack("Q", Q, 2), "K": _as_matrix_stack("K", K, 2),
            "V": _as_matrix_stack("V", V, 2)}
    if not mats["Q"].shape == mats["K"].shape == mats["V"].shape:
        raise ValueError("Q, K and V must have the same shape (seq_len, d_model), got "
                         + ", ".join(str(tuple(m.shape)) for m in mats.values()))
    seq_len, d_model = mats["Q"].shape
    _emb_check_tokens("tokens", tokens, seq_len, "Q, K and V")
    limit = max(float(m.abs().max()) for m in mats.values()) or 1.0
    fig = BookFigure(figsize=(7.4, 0.4 * seq_len + 1.2), layout="constrained")
    axes = fig.subplots(1, 3, sharey=True)
    for ax, (name, matrix) in zip(axes, mats.items(), strict=True):
        image = ax.imshow(matrix.numpy(), cmap=CMAP, vmin=-limit, vmax=limit, aspect="auto")
        ax.set_title(name, fontsize=11)
        ax.set_xticks(range(d_model), labels=[str(j) for j in range(d_model)], fontsize=8)
        ax.set_xlabel("feature", fontsize=9)
        ax.tick_params(length=0)
        if d_model <= 8 and seq_len <= 12:
            _emb_annotate(ax, matrix, -limit, limit, fontsize=7, fmt="{:.1f}")
    axes[0].set_yticks(range(seq_len), labels=list(tokens), fontsize=9)
    fig.colorbar(image, ax=axes.tolist(), shrink=0.9, label="value")
    return fig


def head_split_figure(
    q: torch.Tensor, tokens: Sequence[str], n_heads: int, *, name: str | None = None
) -> Figure:
    """One sentence's ``(seq_len, d_model)`` matrix and the ``n_heads`` slices cut from it.

    Args:
        q: ``(seq_len, d_model)``, e.g. ``Q[0]``.
        tokens: ``seq_len`` labels for the rows.
        n_heads: number of heads; must divide ``d_model``.
        name: what ``q`` is, e.g. ``"Q[0]"``, put in the left panel's title.

    Returns:
        Left, the whole matrix with the columns of each head framed and named;
        right, one ``(seq_len, d_key)`` panel per head (``head 0``, ``head 1``,
        …), its columns labelled with the features they came from. All panels
        share one colour scale.
    """
    q = _as_matrix_stack("q", q, 2)
    seq_len, d_model = q.shape
    _emb_check_tokens("tokens", tokens, seq_len, "q")
    if isinstance(n_heads, bool) or not isinstance(n_heads, int):
        raise TypeError(f"n_heads must be an int, got {type(n_heads).__name__} {n_heads!r}")
    if n_heads <= 0 or d_model % n_heads:
        allowed = ", ".join(str(k) for k in range(1, d_model + 1) if d_model % k == 0)
        raise ValueError(f"n_heads must divide d_model={d_model} (allowed: {allowed}), "
                         f"got {n_heads}")
    d_key = d_model // n_heads
    limit = float(q.abs().max()) or 1.0
    annotate = d_model <= 8 and seq_len <= 12
    fig = BookFigure(figsize=(7.4, 0.42 * seq_len + 1.5), layout="constrained")
    grid = fig.add_gridspec(1, n_heads + 1, width_ratios=[d_model + 1.5] + [d_key] * n_heads)
    whole = fig.add_subplot(grid[0, 0])
    whole.imshow(q.numpy(), cmap=CMAP, vmin=-limit, vmax=limit, aspect="auto")
    shape = f"(seq_len, d_model) = ({seq_len}, {d_model})"
    whole.set_title(f"{name}: {shape}" if name else shape, fontsize=10, pad=24)
    whole.set_xticks(range(d_model), labels=[str(j) for j in range(d_model)], fontsize=8)
    whole.set_yticks(range(seq_len), labels=list(tokens), fontsize=9)
    whole.set_xlabel("feature", fontsize=9)
    whole.tick_params(length=0)
    if annotate:
        _emb_annotate(whole, q, -limit, limit, fontsize=7, fmt="{:.1f}")
    for head in range(n_heads):
        colour = _EMB_COLOURS[head % len(_EMB_COLOURS)]
        style = _EMB_STYLES[head % len(_EMB_STYLES)]
        first = head * d_key
        whole.add_patch(Rectangle((first - 0.47, -0.47), d_key - 0.06, seq_len - 0.06,
                                  fill=False, edgecolor=colour, linestyle=style, linewidth=2.2,
                                  clip_on=False))
        whole.text(first + (d_key - 1) / 2, -0.75, f"head {head}", ha="center", va="bottom",
                   fontsize=9, color=colour, fontweight="bold")
        ax = fig.add_subplot(grid[0, head + 1])
        part = q[:, first:first + d_key]
        image = ax.imshow(part.numpy(), cmap=CMAP, vmin=-limit, vmax=limit, aspect="auto")
        ax.set_title(f"head {head}", fontsize=10, color=colour, fontweight="bold", pad=24)
        ax.set_xticks(range(d_key), labels=[str(first + j) for j in range(d_key)], fontsize=8)
        ax.set_yticks([])
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_edgecolor(colour)
            side.set_linestyle(style)
            side.set_linewidth(2.2)
        if annotate:
            _emb_annotate(ax, part, -limit, limit, fontsize=7, fmt="{:.1f}")
    fig.colorbar(image, ax=fig.axes, shrink=0.8, label="value")
    return fig


# --- PyTorch's built-ins (chapter 10_pytorch) ---------------------------------------

_NAN_FACE = "#e0e0e0"
_NAN_EDGE = "#7a7a7a"


def weights_panels(
    maps: Sequence[torch.Tensor],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    titles: Sequence[str],
    *,
    suptitle: str | None = None,
    n_cols: int | None = None,
    cell_size: float = 0.4,
    dpi: int = 100,
) -> Figure:
    """Attention weights of one sequence and head, computed several ways, side by side.

    Every value is printed in its cell. Cells holding NaN (what PyTorch returns
    for a query whose keys are all blocked) are drawn light grey, hatched and
    labelled ``NaN``, so they cannot be mistaken for a weight of 0.

    Args:
        maps: ``n`` tensors, each ``(q_len, k_len)`` of weights in [0, 1] or NaN
            (a ``(n, q_len, k_len)`` tensor works too).
        query_tokens: ``q_len`` labels for the rows (shared by all panels).
        key_tokens: ``k_len`` labels for the columns (shared by all panels).
        titles: ``n`` panel titles.
        suptitle: a title over the whole figure.
        n_cols: panels per row; by default all panels in one row.
        cell_size: side of one cell in inches.
        dpi: resolution of the figure.

    Returns:
        The figure, with one axes per map (each holding one image) and one colour bar.
    """
    if isinstance(maps, torch.Tensor):
        maps = list(_as_matrix_stack("maps", maps, 3))
    if isinstance(maps, str) or not isinstance(maps, Sequence) or not maps:
        raise TypeError(
            "maps must be a non-empty list of (q_len, k_len) tensors, "
            f"got {type(maps).__name__}"
        )
    matrices = [_as_matrix_stack(f"maps[{i}]", m, 2) for i, m in enumerate(maps)]
    shapes = {tuple(m.shape) for m in matrices}
    if len(shapes) != 1:
        raise ValueError(f"maps must all have the same shape, got shapes {sorted(shapes)}")
    if isinstance(titles, str) or len(titles) != len(matrices):
        raise ValueError(
            f"titles must be a list of one title per map ({len(matrices)}), got {titles!r}"
        )
    q_len, k_len = matrices[0].shape
    if len(query_tokens) != q_len or len(key_tokens) != k_len:
        raise ValueError(
            f"query_tokens and key_tokens must label the {q_len} rows and {k_len} columns "
            f"of each map, got {len(query_tokens)} query and {len(key_tokens)} key tokens"
        )
    n = len(matrices)
    if n_cols is None:
        n_cols = n
    if isinstance(n_cols, bool) or not isinstance(n_cols, int) or not 1 <= n_cols <= n:
        raise ValueError(f"n_cols must be an int from 1 to the number of maps ({n}), "
                         f"got {n_cols!r}")
    n_rows = -(-n // n_cols)
    fig = BookFigure(
        figsize=(n_cols * (cell_size * k_len + 0.9) + 1.0,
                 n_rows * (cell_size * q_len + 1.5) + 0.4),
        dpi=dpi, layout="constrained",
    )
    grid = fig.subplots(n_rows, n_cols, squeeze=False).flatten()
    for ax in grid[n:]:
        ax.set_axis_off()
    axes = grid[:n]
    for ax, matrix, panel_title in zip(axes, matrices, titles, strict=True):
        image = ax.imshow(matrix.nan_to_num(0.0).numpy(), cmap=CMAP, vmin=0.0, vmax=1.0)
        for i, row in enumerate(matrix.tolist()):
            for j, value in enumerate(row):
                if value != value:  # NaN
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=_NAN_FACE,
                                           edgecolor=_NAN_EDGE, hatch="///", linewidth=0))
                    ax.text(j, i, "NaN", ha="center", va="center", fontsize=7,
                            color="black", fontweight="bold")
                else:
                    ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                            color="black" if value > 0.5 else "white")
        _label_axes(ax, query_tokens, key_tokens)
        ax.set_xlabel("key", fontsize=9)
        ax.set_title(panel_title, fontsize=9)
    for row_start in range(0, n, n_cols):
        axes[row_start].set_ylabel("query", fontsize=9)
    fig.colorbar(image, ax=grid.tolist(), shrink=0.8, label="attention weight")
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    return fig


def training_curve(losses: Sequence[float], title: str | None = None) -> Figure:
    """The training loss after every step, on a log scale.

    Args:
        losses: one loss value per training step.
    """
    if len(losses) == 0:
        raise ValueError("losses must hold at least one value, got an empty sequence")
    fig = BookFigure(figsize=(6.0, 2.8), layout="constrained")
    ax = fig.subplots()
    steps = list(range(1, len(losses) + 1))
    ax.plot(steps, list(losses), color="#9bb8d3", linewidth=0.8, label="each step")
    window = max(1, min(25, len(losses) // 10))
    values = torch.tensor(list(losses), dtype=torch.float64).log()
    smooth = values.unfold(0, window, 1).mean(dim=-1).exp()  # geometric running mean
    ax.plot(steps[window - 1:], smooth.tolist(), color="#0b4f8a", linewidth=2.0,
            label=f"running mean of {window} steps")
    ax.legend(fontsize=8, frameon=False)
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy loss")
    ax.grid(True, which="major", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=11)
    return fig


# --- What attention costs (chapter 12) -------------------------------------

# Okabe–Ito colours (safe for colour-vision deficiencies) with distinct markers
# and line styles, so the lines also read in greyscale.
_COST_STYLES = (
    ("#0072B2", "o", "-"),
    ("#D55E00", "s", "--"),
    ("#009E73", "^", "-."),
    ("#CC79A7", "D", ":"),
    ("#E69F00", "v", (0, (5, 1, 1, 1))),
    ("#56B4E9", "P", (0, (1, 1))),
    ("#000000", "X", (0, (3, 1, 1, 1, 1, 1))),
)


def _cost_lengths(lengths: Sequence[int]) -> list[float]:
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence) or not lengths:
        raise TypeError(f"lengths must be a non-empty list of sequence lengths, "
                        f"got {type(lengths).__name__} {lengths!r}")
    values = []
    for value in lengths:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"lengths must hold positive numbers, got {list(lengths)!r}")
        values.append(float(value))
    if any(b <= a for a, b in zip(values, values[1:], strict=False)):
        raise ValueError(f"lengths must be strictly increasing, got {list(lengths)!r}")
    return values


def _cost_series(name: str, series: object, n: int) -> dict[str, list[float]]:
    from collections.abc import Mapping

    if not isinstance(series, Mapping) or not series:
        raise TypeError(f"{name} must be a non-empty dict {{label: values}}, "
                        f"got {type(series).__name__}")
    if len(series) > len(_COST_STYLES):
        raise ValueError(f"{name} can hold at most {len(_COST_STYLES)} lines, got {len(series)}")
    checked = {}
    for label, values in series.items():
        values = values.tolist() if isinstance(values, torch.Tensor) else values
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise TypeError(f"{name}[{label!r}] must be a list of numbers, "
                            f"got {type(values).__name__}")
        if len(values) != n:
            raise ValueError(f"{name}[{label!r}] must hold one value per length ({n}), "
                             f"got {len(values)}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
                   for v in values):
            raise ValueError(f"{name}[{label!r}] must hold positive numbers (log scale), "
                             f"got {list(values)!r}")
        checked[str(label)] = [float(v) for v in values]
    return checked


def _cost_panel(ax, lengths: list[float], series: dict[str, list[float]], ylabel: str,
                title: str) -> None:
    for (label, values), (colour, marker, style) in zip(series.items(), _COST_STYLES, strict=False):
        ax.plot(lengths, values, color=colour, marker=marker, linestyle=style,
                linewidth=1.6, markersize=5, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(lengths, labels=[f"{v:g}" for v in lengths], fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("sequence length L", fontsize=10)
    ax.set_ylabel(ylabel, fontsize=10)
    ax.set_title(title, fontsize=10)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(True, which="major", alpha=0.3)


def cost_counts_figure(
    lengths: Sequence[int],
    memory: dict[str, Sequence[float]],
    flops: dict[str, Sequence[float]],
    *,
    crossover: float | None = None,
) -> Figure:
    """Memory and FLOPs against the sequence length, on log–log axes, side by side.

    On log–log axes a count proportional to ``L^k`` is a straight line of
    slope ``k``: linear growth and quadratic growth are told apart by their slopes.

    Args:
        lengths: ``n`` increasing sequence lengths ``L`` (the x axis, base 2).
        memory: ``{label: n byte counts}``, e.g. the attention matrix and the
            ``(batch, L, d_model)`` activations; drawn in MiB.
        flops: ``{label: n FLOP counts}``, e.g. the projections and the
            scores + weighting.
        crossover: a length to mark with a vertical line on the FLOP panel
            (where the two FLOP curves cross), or ``None``.

    Returns:
        A figure with two axes, memory on the left and FLOPs on the right,
        each with a legend.
    """
    xs = _cost_lengths(lengths)
    memory = _cost_series("memory", memory, len(xs))
    flops = _cost_series("flops", flops, len(xs))
    if crossover is not None and (isinstance(crossover, bool)
                                  or not isinstance(crossover, (int, float))
                                  or not xs[0] <= crossover <= xs[-1]):
        raise ValueError(f"crossover must be a length between {xs[0]:g} and {xs[-1]:g}, "
                         f"got {crossover!r}")
    fig = BookFigure(figsize=(10.0, 3.9), layout="constrained")
    left, right = fig.subplots(1, 2)
    mib = {label: [v / 2**20 for v in values] for label, values in memory.items()}
    _cost_panel(left, xs, mib, "memory (MiB)", "memory of one tensor")
    _cost_panel(right, xs, flops, "FLOPs per sequence", "floating-point operations")
    if crossover is not None:
        right.axvline(crossover, color="0.35", linestyle=":", linewidth=1.2)
        right.annotate(f"L = {crossover:g}", (crossover, 0.04), xycoords=("data", "axes fraction"),
                       xytext=(4, 0), textcoords="offset points", fontsize=8, color="0.25")
    for ax in (left, right):
        ax.legend(fontsize=8, loc="upper left")
    return fig


def timing_figure(
    lengths: Sequence[int],
    seconds: dict[str, Sequence[float]],
    *,
    reference_slope: float = 2.0,
    title: str | None = None,
) -> Figure:
    """Measured forward times against the sequence length, log–log, with a slope line.

    Args:
        lengths: ``n`` increasing sequence lengths ``L``.
        seconds: ``{implementation: n median times in seconds}``; drawn in ms.
        reference_slope: slope of a grey dashed reference line (time ∝
            ``L^reference_slope``) through the first implementation's value at
            the longest length; ``2`` is what a cost quadratic in ``L`` gives.
        title: a title over the axes.

    Returns:
        The figure, one axes with one line per implementation and the
        reference line; the legend is below the axes (``fig.legends[0]``).
    """
    xs = _cost_lengths(lengths)
    series = _cost_series("seconds", seconds, len(xs))
    if isinstance(reference_slope, bool) or not isinstance(reference_slope, (int, float)) \
            or not reference_slope > 0:
        raise ValueError(f"reference_slope must be a positive number, got {reference_slope!r}")
    fig = BookFigure(figsize=(7.0, 5.0), layout="constrained")
    ax = fig.subplots()
    ms = {label: [v * 1000 for v in values] for label, values in series.items()}
    _cost_panel(ax, xs, ms, "forward time (ms, median)", title or "")
    anchor = next(iter(ms.values()))[-1]
    ref = [anchor * (x / xs[-1]) ** reference_slope for x in xs]
    ax.plot(xs, ref, color="0.5", linestyle=(0, (6, 3)), linewidth=1.2,
            label=f"$\\propto L^{{{reference_slope:g}}}$ (slope {reference_slope:g})")
    low = min(min(v) for v in ms.values())
    ax.set_ylim(bottom=low / 2)
    # Below the axes: measured lines can run anywhere inside them.
    fig.legend(loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    return fig
