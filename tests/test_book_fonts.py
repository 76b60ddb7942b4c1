"""The site's fonts cut down to the book's characters (_ext/book_fonts.py).
That the copies draw every formula as the whole font does is checked in a
browser, on every page (tests/browser/test_pages.py); here, the pieces."""

from __future__ import annotations

from fontTools.ttLib import TTFont

from booktools.book import ROOT, load_extension

book_fonts = load_extension("book_fonts")
MATH_FONT = ROOT / "vendor" / "static" / book_fonts.MATH_FONT


def test_unicode_range_joins_runs_of_code_points():
    assert book_fonts.unicode_range({0x41, 0x42, 0x43, 0x2212, 0x1D465}) == (
        "U+41-43, U+2212, U+1D465"
    )
    assert book_fonts.unicode_range({0x20}) == "U+20"


def test_math_characters_are_those_inside_formulas_only():
    page = (
        "<p>Prose with ∑ outside.</p>"
        '<math display="inline"><mi>x</mi><mo>&#x02212;</mo><mi>&#x003C3;</mi></math>'
    )
    assert book_fonts.math_characters([page]) == {ord("x"), 0x2212, 0x3C3}


def test_icon_characters_come_from_the_classes_used_and_the_theme_own_rules():
    style = (
        '.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}'
        '.fa-sun:before{content:"\\f185"}'
        '.fa-unused:before{content:"\\f000"}'
        '.fa-at:before{content:"\\@"}'
        '.admonition-title:after{content:"\\f05a"}'
        ':root{--pst-icon-angle-left:"\uf104"}'
    )
    page = (
        '<i class="fa-solid fa-navicon"></i><i class="fa-sun"></i><i class="fa-at"></i>'
    )
    assert book_fonts.icon_characters([page], [style]) == {
        0xF0C9,  # by an alias of its class
        0xF185,
        ord("@"),
        0xF05A,  # drawn by the theme's own rule
        0xF104,  # a literal private-use character in a custom property
    }


def test_the_copy_has_the_characters_asked_for_and_the_math_table(tmp_path):
    copy = tmp_path / "copy.woff2"
    wanted = {ord("x"), 0x221A, 0x1D465, 0x10FFFF}  # the last is in no font
    kept = book_fonts.write_subset(MATH_FONT, copy, wanted)
    assert kept == wanted - {0x10FFFF}
    font = TTFont(copy)
    assert set(font.getBestCmap()) == kept
    assert "MATH" in font, "fractions, roots and stretchy brackets need it"
    assert copy.stat().st_size < MATH_FONT.stat().st_size / 10


def test_font_face_rules_declare_the_copy_last_for_its_characters(tmp_path):
    static = tmp_path
    (static / "fonts").mkdir()
    (static / "fonts" / "math.woff2").write_bytes(MATH_FONT.read_bytes())
    rules = book_fonts.font_face_rules(
        static, "fonts/math.woff2", "Math", 400, {0x41, 0x42}, "optional", local="Math"
    )
    assert len(rules) == 2
    whole, copy = rules
    # The whole font only for what the copy lacks: were it declared for A and
    # B too, a browser that gives up waiting for the copy would fetch it.
    assert 'url("fonts/math.woff2")' in whole
    assert "unicode-range: U+0-40, U+43-10FFFF;" in whole
    assert 'url("fonts/math-book.woff2")' in copy
    assert "unicode-range: U+41-42;" in copy
    assert 'local("Math")' in copy
    assert (static / "fonts" / "math-book.woff2").exists()


def test_a_font_the_theme_declares_is_not_declared_again(tmp_path):
    (tmp_path / "math.woff2").write_bytes(MATH_FONT.read_bytes())
    rules = book_fonts.font_face_rules(
        tmp_path,
        "math.woff2",
        "Icons",
        900,
        {0x41},
        "block",
        whole_declared_by_theme=True,
    )
    assert len(rules) == 1 and "unicode-range: U+41;" in rules[0]
