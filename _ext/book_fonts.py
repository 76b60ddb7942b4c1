"""The site's two web fonts, cut down to the characters the book uses.

A Sphinx extension (listed under ``sphinx.local_extensions`` in _config.yml).
Two fonts are fetched by nearly every page while it is first drawn:

- STIX Two Math (vendor/), which draws the formulas: 400 KB, of which the
  book uses about a hundred characters;
- Font Awesome's solid icons (from the theme), which draw the buttons of the
  header and the sidebar: 157 KB, for about fifteen icons.

On a slow phone connection those 560 KB share the line with the page's style
sheets and delay its first paint by seconds. When the book is built, this
extension writes a copy of each font with only the characters its pages use
(``*-book.woff2`` beside each font, 3 to 45 KB; the ``MATH`` table, which lays
out fractions, roots and stretched brackets, is kept for those characters)
and a style sheet, ``_static/book-fonts.css``, that declares each copy for
exactly the characters it has (``unicode-range``). The whole math font
stays declared too, for every other character: a browser fetches it only if
a page shows a character its copy lacks, so a new symbol is never drawn
wrong, only slower. (Declared for every character, the whole font would be
fetched also when the copy arrives late on a slow machine: with
``font-display: optional`` the browser then gives up on the copy and goes
on to the next face of the family that has the character.) The theme
declares the whole icon font itself, for every character; icons block the
text until their copy is there, so they never fall through to it
(the browser tests fail if a page fetches a whole font, or if a formula
drawn with the copy differs from the same formula drawn with the whole font).
Pages with formulas preload the math font's copy (``<link rel="preload">``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

CSS_NAME = "book-fonts.css"
MATH_FONT = "fonts/stix-two-math.woff2"  # in _static, from vendor/static
MATH_FAMILY = "STIX Two Math"
ICON_FONT = "vendor/fontawesome/webfonts/fa-solid-900.woff2"  # from the theme
ICON_FAMILY = "Font Awesome 6 Free"
ICON_WEIGHT = 900

# Always in the math font's copy, whatever the formulas use today: the
# letters, digits and signs of ASCII and Latin-1, the Greek alphabet, the
# italic letters the browser draws a one-letter variable with (x is drawn as
# U+1D465, MATHEMATICAL ITALIC SMALL X; h as U+210E, PLANCK CONSTANT, which
# fills the hole Unicode left for it in that alphabet), and the radical sign
# the browser draws a square root with: characters that are in no formula's
# text. (The browser takes the radical from the first font of the formula
# only, so without it the root sign would be missing, not fetched.)
MATH_ALWAYS = (
    [*range(0x20, 0x7F), *range(0xA0, 0x100), 0x221A]
    + [*range(0x391, 0x3CA), 0x3D1, 0x3D5, *range(0x3F0, 0x3F6)]
    + [*range(0x1D434, 0x1D468), 0x210E, 0x1D6A4, 0x1D6A5, *range(0x1D6E2, 0x1D71C)]
)
MATH_ELEMENT = re.compile(r"<math\b.*?</math>", re.S)
TAG = re.compile(r"<[^>]+>")
# An icon class of Font Awesome's catalogue, as the theme's style sheet
# defines them: .fa-bars:before,.fa-navicon:before{content:"\f0c9"}
CATALOGUE_RULE = re.compile(
    r'((?:\.fa-[a-z0-9-]+:{1,2}before,?)+)\{content:"(\\[0-9a-fA-F]+|[^"]+)"\}'
)
ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
PRIVATE_USE = re.compile(r"\\(f[0-9a-fA-F]{3}|e[0-9a-fA-F]{3})\b|([\ue000-\uf8ff])")


def setup(app):
    app.add_css_file(CSS_NAME)
    app.connect("html-page-context", _preload_math_font)
    app.connect("build-finished", _write_fonts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def copy_of(font: str) -> str:
    """Where the cut-down copy of ``font`` is written (both relative to _static)."""
    path = Path(font)
    return path.with_name(path.stem + "-book.woff2").as_posix()


def _preload_math_font(app, pagename, templatename, context, doctree) -> None:
    """On a page with formulas, a <link rel="preload"> for the math font's copy,
    so that it is there for the first paint (the style sheet uses it only if it
    is: font-display optional, nothing moves)."""
    if "<math" not in context.get("body", ""):
        return
    href = context["pathto"](f"_static/{copy_of(MATH_FONT)}", 1)
    context["metatags"] = (context.get("metatags") or "") + (
        f'\n    <link rel="preload" as="font" type="font/woff2" '
        f'crossorigin="anonymous" href="{href}" />'
    )


def _write_fonts(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    pages = [path.read_text(encoding="utf-8") for path in out.rglob("*.html")]
    styles = [
        path.read_text(encoding="utf-8")
        for path in static.rglob("*.css")
        if path.name != CSS_NAME
    ]
    rules = []
    if (static / MATH_FONT).exists():
        rules += font_face_rules(
            static,
            MATH_FONT,
            MATH_FAMILY,
            400,
            math_characters(pages) | set(MATH_ALWAYS),
            display="optional",
            local=MATH_FAMILY,
        )
    if (static / ICON_FONT).exists():
        rules += font_face_rules(
            static,
            ICON_FONT,
            ICON_FAMILY,
            ICON_WEIGHT,
            icon_characters(pages, styles),
            display="block",
            whole_declared_by_theme=True,
        )
    (static / CSS_NAME).write_text(
        "/* Written by _ext/book_fonts.py when the book is built. */\n"
        + "\n".join(rules),
        encoding="utf-8",
    )


def math_characters(pages: list[str]) -> set[int]:
    """Code points of every character inside a <math> element of the pages."""
    found = set()
    for page in pages:
        for element in MATH_ELEMENT.findall(page):
            found |= {ord(c) for c in html.unescape(TAG.sub("", element))}
    return found


def icon_characters(pages: list[str], styles: list[str]) -> set[int]:
    """Code points of the icons the site can show: those named by a class on
    a page (``fa-bars``), looked up in the catalogue of the style sheets, and
    those the style sheets draw themselves outside the catalogue (the
    theme's admonition and navigation icons)."""
    catalogue = {}
    own = set()
    for style in styles:
        for selectors, content in CATALOGUE_RULE.findall(style):
            point = _code_point(content)
            for name in re.findall(r"\.(fa-[a-z0-9-]+)", selectors):
                catalogue[name] = point
        outside = CATALOGUE_RULE.sub("", style)
        for escape, literal in PRIVATE_USE.findall(outside):
            own.add(int(escape, 16) if escape else ord(literal))
    used = {name for page in pages for name in ICON_CLASS.findall(page)}
    return own | {catalogue[name] for name in used if name in catalogue}


def _code_point(content: str) -> int:
    """The character of a CSS string: ``\\f0c9`` (an escape), ``\\@`` or ``a``."""
    if re.fullmatch(r"\\[0-9a-fA-F]+", content):
        return int(content[1:], 16)
    return ord(
        content[1] if content.startswith("\\") and len(content) > 1 else content[0]
    )


def font_face_rules(
    static: Path,
    font: str,
    family: str,
    weight: int,
    characters: set[int],
    display: str,
    whole_declared_by_theme: bool = False,
    local: str | None = None,
) -> list[str]:
    """Write the copy of ``static/font`` with those of ``characters`` it has
    and return the @font-face rules: the whole font (unless the theme
    declares it already), then the copy for exactly its characters. Of two
    faces that both have a character, the browser uses the one declared last."""
    copy = static / copy_of(font)
    kept = write_subset(static / font, copy, characters)
    rules = []
    if not whole_declared_by_theme:
        rest = _range_text(_gaps(kept)) if kept else None
        rules.append(_face(family, weight, display, local, font, rest))
    if kept:
        rules.append(
            _face(
                family,
                weight,
                display,
                local,
                copy.relative_to(static).as_posix(),
                unicode_range(kept),
            )
        )
    return rules


def write_subset(source: Path, target: Path, characters: set[int]) -> set[int]:
    """Write ``source`` cut down to ``characters`` (and the glyphs its layout
    tables need for them) to ``target``, as WOFF2; return the code points
    the copy has."""
    font = TTFont(source)
    kept = set(font.getBestCmap()) & characters
    options = subset.Options()
    options.layout_features = ["*"]  # ssty (smaller scripts), stretchy variants…
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(kept))
    subsetter.subset(font)
    font.flavor = "woff2"
    font.save(target)
    return kept


LAST_CODE_POINT = 0x10FFFF


def _runs(points) -> list[tuple[int, int]]:
    """Runs of consecutive code points, as (first, last) pairs, in order."""
    runs = []
    for point in sorted(points):
        if runs and point == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], point)
        else:
            runs.append((point, point))
    return runs


def _gaps(points: set[int]) -> list[tuple[int, int]]:
    """The runs of code points (0 to U+10FFFF) that are not in ``points``."""
    gaps, next_free = [], 0
    for first, last in _runs(points):
        if first > next_free:
            gaps.append((next_free, first - 1))
        next_free = last + 1
    if next_free <= LAST_CODE_POINT:
        gaps.append((next_free, LAST_CODE_POINT))
    return gaps


def unicode_range(points: set[int]) -> str:
    """``U+20-7E, U+A0, …``: the runs of consecutive code points of ``points``."""
    return _range_text(_runs(points))


def _range_text(runs: list[tuple[int, int]]) -> str:
    """A ``unicode-range`` value for (first, last) runs of code points."""
    return ", ".join(
        f"U+{first:X}" if first == last else f"U+{first:X}-{last:X}"
        for first, last in runs
    )


def _face(family, weight, display, local, url, characters) -> str:
    source = f'url("{url}") format("woff2")'
    if local:  # a reader who has the font installed gets it at once
        source = f'local("{local}"), {source}'
    lines = [
        f'  font-family: "{family}";',
        "  font-style: normal;",
        f"  font-weight: {weight};",
        f"  font-display: {display};",
        f"  src: {source};",
    ]
    if characters:
        lines.append(f"  unicode-range: {characters};")
    return "@font-face {\n" + "\n".join(lines) + "\n}"
