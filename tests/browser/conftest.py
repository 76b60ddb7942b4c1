"""Fixtures for the browser tests: the built site served on 127.0.0.1 and a
headless Chromium (Debian's, driven by Playwright) that may reach nothing
else. What they stand on is the tooling package (``booktools``)."""

from __future__ import annotations

import pytest

from booktools import book, chromium, pages, server


@pytest.fixture(scope="session")
def site_url():
    if not (book.SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    with server.serve(book.SITE) as url:
        yield url


@pytest.fixture(scope="session")
def slow_site_url():
    """The site as a slow network delivers it: scripts, fonts and images late."""
    if not (book.SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    with server.serve(book.SITE, late=0.15) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """Chromium's headless shell (``booktools.chromium``: the browser's engine
    at a third of its CPU for each page), the browser itself where the shell
    is not installed."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            browser = chromium.launch(playwright, shell=True)
        except FileNotFoundError as error:
            pytest.fail(str(error))
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser, site_url, slow_site_url):
    """open_page(path) -> (page, log): the page loaded, with all traffic and
    messages logged (``booktools.pages.open_page``). ``slow=True``: served as a
    slow network serves it, with its layout shifts recorded in
    window.layoutShifts; other keywords: the browser context's options."""
    opened = []

    def _open(path: str, width: int = pages.DESKTOP, height: int = 900, slow: bool = False,
              **options):  # fmt: skip
        base = slow_site_url if slow else site_url
        page, log = pages.open_page(
            browser, base, path, width, height, layout_shifts=slow, **options
        )
        opened.append(page)
        return page, log

    yield _open
    for page in opened:
        page.context.close()


def pytest_generate_tests(metafunc):
    """``page_path``: once for every page of the book; ``explorer_page_path``:
    once for every page with an explorer."""
    if "page_path" in metafunc.fixturenames:
        metafunc.parametrize("page_path", book.html_pages())
    if "explorer_page_path" in metafunc.fixturenames:
        metafunc.parametrize("explorer_page_path", book.explorer_pages())


@pytest.fixture(scope="session")
def site_dir():
    return book.SITE


# Modules that open one page (or count the built pages, or parse the API
# page) once for all their tests, in a module-scoped fixture: `make browser`
# (--dist loadscope) sends each one's tests to one worker together, so that
# work is done once, not once per worker that gets one of its tests; every other test is handed out
# on its own as a worker frees up, in the order collected (the longest first,
# tests/conftest.py). (pytest-xdist's xdist_group mark would say this on the
# tests, but under pytest 9 it groups nothing: it renames a test's node id
# through an attribute pytest no longer reads.)
ONE_WORKER = (
    "test_api_page.py",
    "test_book_length.py",
    "test_explorer_input.py",
    "test_explorer_numbers.py",
)


def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadscope``: the modules of ``ONE_WORKER`` one unit of
    work each, every other test a unit of its own."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneWorkerPerSharedPage(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::")[0]
            return module if module.rsplit("/", 1)[-1] in ONE_WORKER else nodeid

    return OneWorkerPerSharedPage(config, log)
