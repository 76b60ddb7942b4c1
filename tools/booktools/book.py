"""Where the book is, and its pages in the order of ``_toc.yml``, read by the
parser Jupyter Book itself uses (``sphinx_external_toc``).

Public names:

- ``ROOT``: the checkout; ``SITE``: the built site (``$BOOK_SITE``, by default
  ``_build/html``); ``TOC``: the table of contents (``$BOOK_TOC``, by default
  ``_toc.yml``). The two variables let a partial build be checked too.
- :func:`pages`, :func:`notebooks`, :func:`parts`, :func:`html_pages`: the
  table of contents as page names, notebook paths, parts and built pages.
- ``PAGES``: the page the tests pick for one kind of content.
- :func:`explorer_pages`, :func:`fullest_explorer_page`: the pages with an
  attention explorer.
- :func:`longest_first`: the chapters that train or time first (nbval's
  order, so that its two workers start on the longest).
- :func:`misplaced`: browser tests outside ``BROWSER_TESTS`` and others in it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path

from sphinx_external_toc.parsing import parse_toc_yaml

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("BOOK_SITE", ROOT / "_build" / "html"))
TOC = Path(os.environ.get("BOOK_TOC", ROOT / "_toc.yml"))

# The page a test picks for one kind of content: after pages are renamed, this
# is the one place to change. (Pages with explorers are found: explorer_pages.)
PAGES = {
    "root": "book/intro.html",
    "figures": "book/12_two_layers.html",  # figures on their own white ground
    "code": "book/01_words_to_vectors.html",  # code cells
    "code headings": "book/08_pytorch.html",  # headings made of long code names
    "tables": "book/glossary.html",
    "api": "book/api.html",
    "exercises": "book/09_block.html",  # exercises that link to other chapters
    "after the longest title": "book/09_block.html",  # its previous: chapter 8
    "wide code": "book/08_pytorch.html",  # code cells that scroll on a phone
    "code listing": "book/12_two_layers.html",  # a cell's output listing code
    "code links": "book/11_reading_heads.html",  # links made of code names
    "math": "book/05_merge.html",  # formulas
    "references": "book/references.html",
}


def parts(toc: Path = TOC) -> dict[str, list[str]]:
    """``{caption: [page, ...]}`` for each part of the table of contents, in
    order, the root page under ``"intro"``; pages without their suffix
    (``book/intro``, ``book/01_words_to_vectors``, ...)."""
    site_map = parse_toc_yaml(toc)
    found = {"intro": [site_map.root.docname]}

    def walk(docname: str, into: list[str]) -> None:
        for subtree in site_map[docname].subtrees:
            for child in subtree.items:
                if isinstance(child, str):  # a page (not a URL or a glob)
                    into.append(child)
                    walk(child, into)

    for subtree in site_map.root.subtrees:
        pages_of_part = found.setdefault(subtree.caption or "", [])
        for child in subtree.items:
            if isinstance(child, str):
                pages_of_part.append(child)
                walk(child, pages_of_part)
    return found


def pages(toc: Path = TOC) -> list[str]:
    """Every page of the table of contents, in order, without its suffix."""
    return [page for part in parts(toc).values() for page in part]


def notebooks(toc: Path = TOC) -> list[Path]:
    """The pages that are notebooks, as paths."""
    root = toc.parent
    return [
        root / f"{page}.ipynb"
        for page in pages(toc)
        if (root / f"{page}.ipynb").exists()
    ]


# A call that trains a model (``training.train(...)``, ``fit(...)``, not a
# module's ``.train()``) or times a layer: a chapter that makes such calls
# takes longest to validate.
LONG_RUNNING = re.compile(
    r"(?<![\w.])(?:training\.)?(?:train|fit)\(|\btime_(?:interleaved|forward)\("
)


def longest_first(paths: list[Path]) -> list[Path]:
    """``paths`` (notebooks) with those that train or time most first, the
    rest after them, each group in its order."""

    def calls(path: Path) -> int:
        code = "".join(
            "".join(cell["source"])
            for cell in json.loads(path.read_text())["cells"]
            if cell["cell_type"] == "code"
        )
        return len(LONG_RUNNING.findall(code))

    return sorted(paths, key=lambda path: -calls(path))


# The browser tests are here and nowhere else: each test stage of the Makefile
# collects its own folder.
BROWSER_TESTS = "tests/browser"


def misplaced(tests: Iterable[tuple[str, bool]]) -> list[str]:
    """Of ``tests``, ``(node id, marked browser)`` pairs (ids relative to the
    checkout, as pytest gives them), those marked browser outside
    ``BROWSER_TESTS`` or unmarked inside it: no stage would run them."""
    inside = BROWSER_TESTS + "/"
    return [test for test, browser in tests if browser != test.startswith(inside)]


def html_pages(toc: Path = TOC) -> list[str]:
    """Every page of the table of contents as the site's path (``book/intro.html``)."""
    return [f"{page}.html" for page in pages(toc)]


EXPLORER_TAG = '<div class="mha-explorer"'


def explorer_pages(site: Path = SITE, toc: Path = TOC) -> list[str]:
    """The pages with an attention explorer, in the order of the book: found in
    the build (before the book is built, in the chapters that make one)."""
    if (site / "index.html").exists():
        built = [
            page
            for page in html_pages(toc)
            if (site / page).exists() and EXPLORER_TAG in (site / page).read_text()
        ]
        if built:  # (a build older than the explorers' HTML has none: look below)
            return built
    return [
        page
        for page in html_pages(toc)
        if (ROOT / page.replace(".html", ".ipynb")).exists()
        and "attention_explorer("
        in (ROOT / page.replace(".html", ".ipynb")).read_text()
    ]


class _ExplorerData(HTMLParser):
    """The text of every explorer's data in a page (``<script class="mha-data">``)."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []
        self._inside = False

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        self._inside = tag == "script" and "mha-data" in classes
        if self._inside:
            self.found.append("")

    def handle_endtag(self, tag):
        self._inside = False

    def handle_data(self, data):
        if self._inside:
            self.found[-1] += data


def explorer_data(page: str, site: Path = SITE) -> list[dict]:
    """The data of each explorer of ``page`` (a site path): from the built
    page, or from its chapter's stored outputs where the build has none (not
    built yet, or older than the chapters)."""
    from mha.explorer.notebook import MIME

    built = site / page
    if built.exists():
        parser = _ExplorerData()
        parser.feed(built.read_text())
        if parser.found:
            return [json.loads(text) for text in parser.found]
    chapter = json.loads((ROOT / page.replace(".html", ".ipynb")).read_text())
    found = []
    for cell in chapter["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {}).get(MIME)
            if data is not None:
                data = "".join(data) if isinstance(data, list) else data
                found.append(json.loads(data) if isinstance(data, str) else data)
    return found


def fullest_explorer_page(site: Path = SITE, toc: Path = TOC) -> str:
    """The explorer page whose explorer offers the most (models times masks)."""

    def offered(page: str) -> int:
        return max(
            (
                len(data["models"]) * len(data["masks"])
                for data in explorer_data(page, site)
            ),
            default=0,
        )

    return max(explorer_pages(site, toc), key=offered)


def load_extension(name: str):
    """The site extension ``_ext/NAME.py`` as a module, loaded from its file
    (for its unit tests; Sphinx loads it through ``local_extensions`` in
    ``_config.yml``), under the name ``NAME``."""
    import importlib.util
    import sys

    path = ROOT / "_ext" / f"{name}.py"
    if not path.is_file():
        raise ValueError(f"no site extension {name!r}: {path} does not exist")
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(
        path
    ):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import would (dataclasses, pickling need it)
    spec.loader.exec_module(module)
    return module
