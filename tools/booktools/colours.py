"""Whether a page's colours read: axe-core's colour-contrast rule, the one
contrast rule the tests use (:func:`contrast_problems`).

``rgb`` and ``contrast`` (WCAG's formula, written out) remain only for
tests/browser/test_reader.py and their unit test in tests/test_booktools.py;
they go once those check with :func:`contrast_problems`.
"""

from __future__ import annotations

from booktools.pages import ONLY_CONTRAST


def contrast_problems(page, selector: str) -> list[str]:
    """axe-core's colour-contrast rule (the copy bundled with
    axe-playwright-python) on the elements ``selector`` picks in ``page``:
    the start of each element's HTML that fails. It must have checked
    something."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, context={"include": [[selector]]}, options=ONLY_CONTRAST)
    results = found.response
    assert results["passes"] or results["violations"], (
        f"axe checked nothing in {selector}"
    )
    return [n["html"][:120] for v in results["violations"] for n in v["nodes"]]


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
