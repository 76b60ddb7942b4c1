"""Every page of the book, opened in a real browser with the network cut off."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'


def wait_for_widgets(page, timeout_ms: int = 15_000) -> None:
    """Wait until the widget manager has rendered every embedded widget view."""
    page.wait_for_function(
        """(selector) => [...document.querySelectorAll(selector)].every(
               s => s.parentElement.querySelector('.widget-subarea > *'))""",
        arg=WIDGET_VIEW,
        timeout=timeout_ms,
    )


def wait_for_math(page, timeout_ms: int = 15_000) -> None:
    """Wait until MathJax has typeset every math element of the page."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('.math')].every(
               m => m.querySelector('mjx-container'))""",
        timeout=timeout_ms,
    )


def test_page_renders_offline(open_page, screenshot_path, page_path):
    """Everything a reader of this page gets: no request leaves the site, nothing
    fails or logs an error, every widget, formula and image renders, and axe-core
    (the copy bundled with axe-playwright-python, injected from disk) finds no
    serious or critical accessibility violation."""
    from axe_playwright_python.sync_playwright import Axe

    page, log = open_page(page_path)
    if page.locator(WIDGET_VIEW).count():
        wait_for_widgets(page)
    wait_for_math(page)
    lazy = page.locator('img[loading="lazy"]').count()
    if lazy:  # lazy images load only when scrolled to
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_load_state("networkidle")
    broken = page.evaluate(
        """() => [...document.images]
               .filter(img => !(img.complete && img.naturalWidth > 0))
               .map(img => img.src.slice(0, 120))"""
    )
    without_alt = page.evaluate(
        """() => [...document.images]
               .filter(img => !(img.getAttribute('alt') || '').trim())
               .map(img => img.src.slice(0, 120))"""
    )
    error_views = page.locator(".jupyter-widgets .widget-error")
    if lazy:
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(
        path=screenshot_path(page_path), full_page=True, type="jpeg", quality=80
    )
    assert log.problems() == [], "\n".join(log.problems())
    assert broken == [], f"broken images: {broken}"
    assert without_alt == [], f"images without alt text: {without_alt}"
    assert error_views.count() == 0, "a widget failed to render"
    assert page.title(), "page has no title"
    # Code blocks are left out here: their colours are the theme's syntax style,
    # the same on every page (checked once below), and their thousands of
    # coloured spans would make axe take ten seconds a page.
    violations = (
        Axe().run(page, context={"exclude": [[".highlight"]]}).response["violations"]
    )
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} — e.g. {v['nodes'][0]['html'][:160]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == [], "\n".join(serious)


def test_page_was_built(site_dir, page_path):
    assert (site_dir / page_path).is_file(), (
        f"{page_path} is in _toc.yml but was not built"
    )


def test_code_colours_are_readable(open_page):
    """The syntax colours of code blocks (the theme's style, shared by every page)
    have enough contrast: axe's colour-contrast rule on one chapter's code."""
    from axe_playwright_python.sync_playwright import Axe

    page, _ = open_page("book/01_tokens.html")
    results = Axe().run(
        page,
        context={"include": [[".highlight"]]},
        options={"runOnly": {"type": "rule", "values": ["color-contrast"]}},
    )
    assert results.response["violations"] == []
    assert results.response["passes"], "axe checked no code at all"
