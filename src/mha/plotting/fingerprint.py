"""A figure's fingerprint: what it draws, as text a person can read.

A notebook stores each figure twice, as a PNG and as this text; nbval compares
the text. So a stored figure that no longer matches what the code draws fails
validation, while rendering differences between machines do not.
"""

from __future__ import annotations

import numpy
from matplotlib.colors import PowerNorm, to_hex
from matplotlib.figure import Figure

from mha.display import digest
from mha.plotting.screens import smallest_text

# --- The fingerprint ---------------------------------------------------------------


def _g(values) -> str:
    """Numbers at three significant digits, the precision of a position on a plot."""
    return " ".join(
        f"{float(v):.3g}" for v in numpy.ravel(numpy.asarray(values, dtype=float))
    )


def _image_levels(image) -> str:
    """An image's values as steps of 1/100 of its colour scale: what the eye can tell apart."""
    data = numpy.ma.filled(numpy.ma.asarray(image.get_array(), dtype=float), numpy.nan)
    low, high = image.get_clim()
    scaled = (data - low) / ((high - low) or 1.0) * 100
    return " ".join(
        "nan" if numpy.isnan(v) else str(int(numpy.floor(v + 0.5)))
        for v in scaled.ravel()
    )


def _texts(artists) -> list[str]:
    return [t.get_text() for t in artists if t.get_visible() and t.get_text()]


def _axes_summary(ax) -> tuple[str, str]:
    """(a line a person can read, everything drawn) for one axes."""
    parts = []
    title = " / ".join(
        t for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right")) if t
    )
    for image in ax.images:
        rows, cols = image.get_array().shape[:2]
        low, high = image.get_clim()
        scale = (
            "square-root scale" if isinstance(image.norm, PowerNorm) else "linear scale"
        )
        parts.append(
            f"image {rows}×{cols} ({image.get_cmap().name}, {low:.3g} to {high:.3g}, {scale})"
        )
    lines = [line for line in ax.lines if line.get_visible()]
    if lines:
        parts.append(f"{len(lines)} line{'s' * (len(lines) > 1)}")
    if ax.patches:
        parts.append(f"{len(ax.patches)} patches")
    if ax.collections:
        parts.append(f"{len(ax.collections)} collections")
    texts = _texts(ax.texts)
    if texts:
        parts.append(f"{len(texts)} texts")
    for name, axis, scale in (
        ("x", ax.xaxis, ax.get_xscale()),
        ("y", ax.yaxis, ax.get_yscale()),
    ):
        label = axis.get_label().get_text() if axis.get_label().get_visible() else ""
        ticks = _texts(axis.get_ticklabels())
        if label or ticks:
            shown = f"{name} '{label}'" if label else name
            if scale != "linear":
                shown += f" ({scale})"
            parts.append(f"{shown}: {' | '.join(ticks)}" if ticks else shown)
    legend = ax.get_legend()
    if legend is not None:
        parts.append("legend: " + " | ".join(_texts(legend.get_texts())))
    readable = (
        f"axes '{title}': " + "; ".join(parts) if title else "axes: " + "; ".join(parts)
    )

    drawn = [
        readable,
        _g(ax.get_position().bounds),
        _g(ax.get_xlim()),
        _g(ax.get_ylim()),
        f"title colour {to_hex(ax.title.get_color())}",
        "spines "
        + " ".join(
            f"{to_hex(spine.get_edgecolor())} {spine.get_linewidth():.2g}"
            for spine in ax.spines.values()
            if spine.get_visible()
        ),
    ]
    drawn += [_image_levels(image) for image in ax.images]
    if legend is not None:
        drawn.append(_legend(legend))
    for line in lines:
        drawn.append(
            f"line {line.get_label()} {line.get_color()} {line.get_linestyle()} "
            f"{line.get_marker()} {_g(line.get_xdata())} / {_g(line.get_ydata())}"
        )
    for patch in ax.patches:
        corners = patch.get_patch_transform().transform(patch.get_path().vertices)
        drawn.append(f"{type(patch).__name__} {_g(corners)} {_look(patch)}")
    for collection in ax.collections:
        paths = [path.vertices for path in collection.get_paths()]
        sizes = collection.get_sizes() if hasattr(collection, "get_sizes") else []
        drawn.append(
            f"{type(collection).__name__} {_g(collection.get_offsets())} {_g(sizes)} "
            f"{' / '.join(_g(v) for v in paths)} {_g(collection.get_facecolors())}"
        )
    for text in ax.texts:
        if text.get_visible() and text.get_text():
            drawn.append(
                f"text {text.get_text()!r} {_g(text.get_position())} "
                f"{to_hex(text.get_color())} {text.get_fontsize():.3g}"
            )
    return readable, "\n".join(drawn)


def _look(patch) -> str:
    """A patch's (or a collection's) fill, edge width and hatch (the hatch
    takes the edge's colour)."""
    return (
        f"{_g(patch.get_facecolor())} edge {_g(patch.get_edgecolor())} "
        f"{_g(patch.get_linewidth())} hatch {patch.get_hatch()}"
    )


def _legend(legend) -> str:
    handles = getattr(legend, "legend_handles", [])
    looks = [_look(h) for h in handles if hasattr(h, "get_hatch")]
    return " | ".join(_texts(legend.get_texts()) + looks)


def _where(fig: Figure) -> list[tuple[float, ...]]:
    """Where each axes of ``fig`` sits, as fractions of the figure."""
    return [tuple(ax.get_position().bounds) for ax in fig.axes]


def _drawn(fig: Figure) -> tuple[list[str], str]:
    """(the readable lines, the digest of everything drawn) of one figure."""
    # Drawn until the axes stop moving, so that the fingerprint describes the
    # settled layout whatever drew the figure before: a constrained layout
    # settles on the second draw (smallest_text draws it again), or for some
    # figures the third (the phone layout of chapter 1's position curves
    # moves an axes by 0.006 of the figure's height from the second to the
    # third draw, and no further).
    fig.draw_without_rendering()
    where = _where(fig)
    text_px = smallest_text(fig) * fig.dpi / 72
    for _ in range(3):
        now = _where(fig)
        if now == where:
            break
        where = now
        fig.draw_without_rendering()
    width, height = (fig.get_size_inches() * fig.dpi).round().astype(int)
    lines = [
        f"<Figure {width}×{height} px, {len(fig.axes)} axes, "
        f"smallest text {text_px:.3g} px"
    ]
    everything = [lines[0]]
    for text in _texts(fig.texts):  # the figure's titles and labels
        lines.append(f" text '{text}'")
    for legend in fig.legends:
        lines.append(" legend: " + " | ".join(_texts(legend.get_texts())))
        everything.append(_legend(legend))
    everything += lines[1:]
    for ax in fig.axes:
        readable, drawn = _axes_summary(ax)
        lines.append(f" {readable}")
        everything.append(drawn)
    return lines, digest(chr(10).join(everything))


def fingerprint(fig: Figure) -> str:
    """What ``fig`` draws, as text: one readable line per axes, and a digest.

    Each axes is summed up by its title, images (size, colour map, scale),
    lines, patches, texts, axis labels, tick labels and legend. The digest
    covers all of that plus the data itself, at the precision a reader can
    see: image values in steps of 1/100 of their colour scale, positions,
    sizes and line data at three significant digits, and the layout of the
    axes, the colours of titles and frames, and the fill, edge and hatch of
    every patch (a blocked key's look). Another head count, mask or data
    changes it; differences in the last bits of a float or in the rendering
    (antialiasing, the machine's kernels) do not. The first line gives the
    figure's size and the height of its smallest text, in pixels at that size.

    A figure with a phone layout (``BookFigure.phone``) has a last line for
    it: its size, its smallest text and a digest of what it draws.
    """
    lines, drawn = _drawn(fig)
    phone = getattr(fig, "phone", None)
    lines.append(f" drawn {drawn}")
    if phone is not None:
        (first, *_), phone_drawn = _drawn(phone)
        lines.append(f" phone layout {first[len('<Figure ') :]}, drawn {phone_drawn}")
    lines[-1] += ">"
    return "\n".join(lines)
