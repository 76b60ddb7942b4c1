"""Where the browser tests spend their time: each page of the built site opened
alone in one headless Chromium, with the steps `test_page_renders_offline`
takes timed one by one, then axe-core on each page layout, light and dark, as
`test_accessibility` runs it."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from conftest import CHROMIUM, CHROMIUM_ARGS, toc_pages  # noqa: E402
from test_pages import (  # noqa: E402
    DESKTOP,
    LAYOUTS,
    PHONE,
    axe_settings,
    load_images,
    overflow,
    resize,
    settle,
)

STEPS = ("load", "explorers and math", "images", "fits 1280 and 360 px")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def page_steps(site: Path) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """({page: {step: seconds}} for every page of _toc.yml, one page at a time;
    {"page (mode)": seconds of axe-core} for each layout checked by axe)."""
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    times: dict[str, dict[str, float]] = {}
    axe: dict[str, float] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        for path in toc_pages():
            context = browser.new_context(viewport={"width": DESKTOP, "height": 900})
            page = context.new_page()
            marks = [time.perf_counter()]
            page.goto(url + path, wait_until="networkidle")
            marks.append(time.perf_counter())
            settle(page)
            marks.append(time.perf_counter())
            load_images(page)
            marks.append(time.perf_counter())
            overflow(page)
            resize(page, PHONE)
            overflow(page)
            marks.append(time.perf_counter())
            steps = zip(STEPS, marks[:-1], marks[1:], strict=True)
            times[path] = {step: end - start for step, start, end in steps}
            context.close()
        for path in LAYOUTS:
            for mode in ("light", "dark"):
                context = browser.new_context(
                    color_scheme=mode, viewport={"width": DESKTOP, "height": 900}
                )
                page = context.new_page()
                page.goto(url + path, wait_until="networkidle")
                settle(page)
                start = time.perf_counter()
                scope, options = axe_settings(path, mode)
                Axe().run(page, context=scope, options=options)
                axe[f"{path} ({mode})"] = time.perf_counter() - start
                context.close()
        browser.close()
    server.shutdown()
    return times, axe
