"""Where the browser tests spend their time: each page of the built site opened
alone in one headless Chromium, with the steps `test_page_renders_offline`
takes timed one by one."""

from __future__ import annotations

import functools
import http.server
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from conftest import CHROMIUM, CHROMIUM_ARGS, toc_pages  # noqa: E402
from test_pages import settle  # noqa: E402

STEPS = ("load", "widgets and math", "screenshot", "axe-core")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def page_steps(site: Path) -> dict[str, dict[str, float]]:
    """{page: {step: seconds}} for every page of _toc.yml, one page at a time."""
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    times: dict[str, dict[str, float]] = {}
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as tmp:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for path in toc_pages():
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            marks = [time.perf_counter()]
            page.goto(url + path, wait_until="networkidle")
            marks.append(time.perf_counter())
            settle(page)
            marks.append(time.perf_counter())
            page.screenshot(path=f"{tmp}/page.jpg", full_page=True, type="jpeg", quality=80)
            marks.append(time.perf_counter())
            Axe().run(page, context={"exclude": [[".highlight"]]})
            marks.append(time.perf_counter())
            steps = zip(STEPS, marks[:-1], marks[1:], strict=True)
            times[path] = {step: end - start for step, start, end in steps}
            context.close()
        browser.close()
    server.shutdown()
    return times
