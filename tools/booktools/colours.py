"""Colours as a browser reports them, and WCAG's contrast between two."""

from __future__ import annotations


def rgb(colour: str) -> tuple[int, int, int]:
    """``#rgb``, ``#rrggbb``, ``rgb(r, g, b)`` or ``rgba(r, g, b, a)`` as (r, g, b)."""
    colour = colour.strip()
    if colour.startswith("#"):
        digits = colour[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        return tuple(int(digits[i : i + 2], 16) for i in (0, 2, 4))
    if "(" in colour:
        parts = colour[colour.index("(") + 1 : colour.rindex(")")].split(",")
        return tuple(int(float(v)) for v in parts[:3])
    raise ValueError(f"colour must be #rgb, #rrggbb or rgb(...), got {colour!r}")


def contrast(one: tuple, other: tuple) -> float:
    """WCAG's contrast ratio of two sRGB colours (r, g, b), 1 to 21."""

    def luminance(colour):
        c = [v / 255 for v in colour]
        c = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)
