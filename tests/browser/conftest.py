"""Fixtures for the browser tests: the built site served on 127.0.0.1 and a
headless Chromium (Debian's, driven by Playwright) that may reach nothing else."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import toc  # noqa: E402

sys.path.remove(str(ROOT / "scripts"))
# Overridable so a partial build (another toc, another output folder) can be checked too.
SITE = Path(os.environ.get("BOOK_SITE", ROOT / "_build" / "html"))
TOC = Path(os.environ.get("BOOK_TOC", ROOT / "_toc.yml"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",  # no calls home on a closed network
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Console messages that are not the book's fault, each with its cause. Errors
# and warnings not listed here fail the page.
CONSOLE_ALLOWED: dict[str, str] = {}

# The pages a test picks for one kind of content: after pages are renamed,
# this is the one place to change. (Pages with explorers are found in the
# build: explorer_pages.)
PAGES = {
    "root": "book/intro.html",
    "figures": "book/04_scores.html",  # figures on their own white ground
    "code": "book/01_words_to_vectors.html",  # code cells
    "choice": "book/01_words_to_vectors.html",  # a drop-down of panels (static_choice)
    "code headings": "book/09_pytorch.html",  # headings made of long code names
    "tables": "book/glossary.html",
    "api": "book/api.html",
    "exercises": "book/10_block.html",  # exercises that link to other chapters
}


def toc_pages() -> list[str]:
    """Every page of the table of contents, in order, as paths relative to the site root."""
    return [f"{page}.html" for page in toc.pages(TOC)]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _SlowHandler(_QuietHandler):
    """Sends pages and style sheets at once, and everything else (scripts,
    fonts, images) LATE seconds later: a slow network, where a
    browser has drawn the page before its scripts and fonts arrive."""

    LATE = 0.15

    def do_GET(self):
        if not urlsplit(self.path).path.endswith((".html", ".css", "/")):
            time.sleep(self.LATE)
        super().do_GET()


@contextlib.contextmanager
def _serve(handler_class):
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    handler = functools.partial(handler_class, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


@pytest.fixture(scope="session")
def site_url():
    with _serve(_QuietHandler) as url:
        yield url


@pytest.fixture(scope="session")
def slow_site_url():
    """The site as a slow network delivers it (see _SlowHandler)."""
    with _serve(_SlowHandler) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium or set CHROMIUM")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@dataclass
class PageLog:
    """Everything a page did that a reader should never see."""

    requested: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return (
            [f"request to another host: {u}" for u in self.external]
            + [f"failed request: {u}" for u in self.failed]
            + [f"console: {m}" for m in self.console]
            + [f"uncaught error: {e}" for e in self.errors]
        )


# Every layout shift of the page (https://web.dev/articles/cls), as the
# browser reports it, in window.layoutShifts.
RECORD_LAYOUT_SHIFTS = """
window.layoutShifts = [];
new PerformanceObserver(list => {
    for (const entry of list.getEntries()) {
        if (!entry.hadRecentInput) window.layoutShifts.push(entry.value);
    }
}).observe({type: 'layout-shift', buffered: true});
"""


@pytest.fixture
def open_page(browser, site_url, slow_site_url):
    """open_page(path) -> (page, log): the page loaded, with all traffic and
    messages logged. ``slow=True``: served as a slow network serves it
    (_SlowHandler), with its layout shifts recorded in window.layoutShifts."""
    contexts = []

    def _open(path: str, width: int = 1280, height: int = 900, slow: bool = False):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        log = PageLog()
        base = slow_site_url if slow else site_url

        def route(route):
            url = route.request.url
            log.requested.append(url)
            if url.startswith(base) or urlsplit(url).scheme in ("data", "blob"):
                route.continue_()
            else:
                log.external.append(url)
                route.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("pageerror", lambda error: log.errors.append(str(error)))
        page.on("console", lambda msg: _log_console(log, msg))
        page.on(
            "requestfailed",
            lambda req: (
                req.url in log.external or log.failed.append(f"{req.url} {req.failure}")
            ),
        )
        page.on(
            "response",
            lambda resp: (
                resp.status >= 400
                and log.failed.append(f"{resp.url} HTTP {resp.status}")
            ),
        )
        if slow:
            page.add_init_script(RECORD_LAYOUT_SHIFTS)
        page.goto(base + path, wait_until="networkidle")
        return page, log

    yield _open
    for context in contexts:
        context.close()


def _log_console(log: PageLog, msg) -> None:
    if msg.type not in ("error", "warning"):
        return
    if any(pattern in msg.text for pattern in CONSOLE_ALLOWED):
        return
    log.console.append(f"[{msg.type}] {msg.text}")


def explorer_pages() -> list[str]:
    """The pages with an attention explorer, in the order of the book: found in
    the build (before the book is built, in the chapters that make one)."""
    if (SITE / "index.html").exists():
        built = [
            page
            for page in toc_pages()
            if (SITE / page).exists() and EXPLORER_TAG in (SITE / page).read_text()
        ]
        if built:  # (a build older than the explorers' HTML has none: look below)
            return built
    return [
        page
        for page in toc_pages()
        if (ROOT / page.replace(".html", ".ipynb")).exists()
        and "attention_explorer("
        in (ROOT / page.replace(".html", ".ipynb")).read_text()
    ]


EXPLORER_TAG = '<div class="mha-explorer"'


def fullest_explorer_page() -> str:
    """The explorer page whose explorer offers the most (models and masks),
    read from its data in the built page, or in its chapter's stored output
    where the build has no such page (not built yet, or older than the chapters)."""
    import json
    import re

    def offered(page: str) -> int:
        built = SITE / page
        source = built if built.exists() else ROOT / page.replace(".html", ".ipynb")
        text = source.read_text()
        start = text.find('"models":')
        end = text.find('"weights":[', start)  # the list after the models
        masks = re.search(r'"masks":\s*(\[[^\]]*\])', text)
        if start < 0 or end < start or not masks:
            return 0
        return text.count('"option":', start, end) * len(json.loads(masks.group(1)))

    return max(explorer_pages(), key=offered)


def pytest_generate_tests(metafunc):
    """``page_path``: once for every page of the book; ``explorer_page_path``:
    once for every page with an explorer."""
    if "page_path" in metafunc.fixturenames:
        metafunc.parametrize("page_path", toc_pages())
    if "explorer_page_path" in metafunc.fixturenames:
        metafunc.parametrize("explorer_page_path", explorer_pages())


@pytest.fixture
def site_dir():
    return SITE
