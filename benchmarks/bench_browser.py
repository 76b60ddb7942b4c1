"""Where the browser tests spend their time: each page of the built site opened
alone in one headless Chromium, with the steps `test_page_renders_offline`
takes timed one by one, then axe-core on each page layout, light and dark, as
`test_accessibility` runs it."""

from __future__ import annotations

import time
from pathlib import Path

from booktools import pages
from booktools.book import html_pages
from booktools.chromium import launch
from booktools.server import serve

STEPS = (
    "load",
    "explorers and math",
    "images",
    f"fits {pages.DESKTOP} and {pages.PHONE} px",
)


def page_steps(site: Path) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """({page: {step: seconds}} for every page of _toc.yml, one page at a time;
    {"page (mode)": seconds of axe-core} for each layout checked by axe)."""
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    times: dict[str, dict[str, float]] = {}
    axe: dict[str, float] = {}
    with serve(site) as url, sync_playwright() as playwright:
        browser = launch(playwright, shell=True)  # as the tests
        for path in html_pages():
            context = browser.new_context(
                viewport={"width": pages.DESKTOP, "height": 900}
            )
            page = context.new_page()
            marks = [time.perf_counter()]
            page.goto(url + path, wait_until="networkidle")
            marks.append(time.perf_counter())
            pages.settle(page)
            marks.append(time.perf_counter())
            pages.load_images(page)
            marks.append(time.perf_counter())
            pages.overflow(page)
            pages.resize(page, pages.PHONE)
            pages.overflow(page)
            marks.append(time.perf_counter())
            steps = zip(STEPS, marks[:-1], marks[1:], strict=True)
            times[path] = {step: end - start for step, start, end in steps}
            context.close()
        for path in pages.layouts():
            for mode in ("light", "dark"):
                context = browser.new_context(
                    color_scheme=mode, viewport={"width": pages.DESKTOP, "height": 900}
                )
                page = context.new_page()
                page.goto(url + path, wait_until="networkidle")
                pages.settle(page)
                start = time.perf_counter()
                scope, options = pages.axe_settings(path, mode)
                Axe().run(page, context=scope, options=options)
                axe[f"{path} ({mode})"] = time.perf_counter() - start
                context.close()
        browser.close()
    return times, axe
