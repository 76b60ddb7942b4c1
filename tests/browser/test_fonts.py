"""The fonts' copies cut down to the book's characters (_ext/book_fonts.py)
draw every formula exactly as the whole font does."""

from __future__ import annotations

import pytest
from conftest import SITE, toc_pages

pytestmark = pytest.mark.browser

MATH_PAGES = [
    page for page in toc_pages() if "<math" in (SITE / page).read_text(encoding="utf-8")
]

# Load the faces the site declares for the math font again, under a name of
# the test's own and with font-display "block" (the site's "optional" may
# keep a font that arrives late out of a page, which would make the
# comparison depend on timing), once as the site declares them (the whole
# font, then the copy for its characters) and once the whole font alone.
# Then measure every box of every formula, relative to its formula, with each.
MEASURE = """async () => {
    const faces = [];
    for (const sheet of document.styleSheets) {
        let rules;
        try { rules = sheet.cssRules; } catch (e) { continue; }
        for (const rule of rules) {
            if (!(rule instanceof CSSFontFaceRule)) continue;
            if (!rule.style.getPropertyValue('font-family').includes('STIX Two Math')) continue;
            const url = rule.style.getPropertyValue('src').match(/url\\("?([^")]+)"?\\)/)[1];
            faces.push({url: new URL(url, sheet.href).href,
                        range: rule.style.getPropertyValue('unicode-range') || 'U+0-10FFFF'});
        }
    }
    const load = async (family, list) => {
        for (const f of list) {
            const face = new FontFace(family, `url("${f.url}")`,
                                      {unicodeRange: f.range, display: 'block'});
            document.fonts.add(await face.load());
        }
    };
    await load('Site faces', faces);
    await load('Whole font', faces.filter(f => f.range === 'U+0-10FFFF'));
    const style = document.createElement('style');
    document.head.append(style);
    const boxes = async family => {
        style.textContent = `.bd-article math { font-family: "${family}" !important; }`;
        await document.fonts.ready;
        return [...document.querySelectorAll('.bd-article math')].map(math => {
            const origin = math.getBoundingClientRect();
            return [...math.querySelectorAll('*')].map(el => {
                const r = el.getBoundingClientRect();
                return [el.tagName, el.textContent.slice(0, 20), r.left - origin.left,
                        r.top - origin.top, r.width, r.height].map(
                            v => typeof v === 'number' ? Math.round(v * 2) / 2 : v);
            });
        });
    };
    return {faces: faces.length, site: await boxes('Site faces'),
            whole: await boxes('Whole font')};
}"""


@pytest.mark.parametrize("math_page", MATH_PAGES)
def test_formulas_look_the_same_with_the_fonts_copy(open_page, math_page):
    page, _ = open_page(math_page)
    result = page.evaluate(MEASURE)
    assert result["faces"] == 2, "expected the whole font and its copy"
    assert result["site"], "no formula measured"
    differences = [
        (whole, site)
        for formula_site, formula_whole in zip(
            result["site"], result["whole"], strict=True
        )
        for site, whole in zip(formula_site, formula_whole, strict=True)
        if site != whole
    ]
    assert differences == [], (
        "boxes of formulas drawn with the font's copy differ from the whole "
        f"font's (whole, copy): {differences[:5]}"
    )
