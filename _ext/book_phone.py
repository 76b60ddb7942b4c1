"""The page on a phone: figures in their phone layout, wide tables that stay tables.

A Sphinx extension, for screens as narrow as ``PHONE_SCREEN`` CSS pixels.

**Figures.** A figure of the book whose text would shrink below 9 px
in a phone's column is drawn twice (``mha.plotting.screens``): the notebook
stores the desk's PNG as the output's ``image/png``, which myst-nb turns into
the page's image, named after its SHA-256, and the phone's under ``MIME``, as
a ``<source>`` element holding its PNG as a ``data:`` URL. When the book is
read (Sphinx's ``source-read``, before myst-nb turns the notebook into a
page), each such source is taken out of the notebook and kept with the name
of the desk's PNG; the phone's PNG becomes a file of the site,
``_images/phone/<digest>.png``, written when the build ends. When a page is
written (``html-page-context``), every ``<img>`` of such a desk PNG is put in
a ``<picture>`` whose ``<source>``, the phone's, the browser takes on a
screen as narrow as the source's ``media`` says.

**Tables.** A table of three columns or more is wider than a phone's column
(358 px) as soon as its cells hold more than a word or two. After the
references are resolved (``doctree-resolved``), each such table gets the
class ``mha-wide``: on a narrow screen the style sheet (``assets/book.css``)
sets it in a smaller font with less room around each value, so that its rows
stay rows a reader can compare, and keeps its first column in view if the
table must still scroll sideways inside its box. Every page's tables the
same way.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx.util.osutil import relative_uri

from mha.plotting.figure import PHONE_MIME as MIME

DATA_URL = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
FOLDER = "_images/phone"
WIDE_TABLE = "mha-wide"  # a table set narrower on a phone, its first column fixed
WIDE = 3  # columns from which a table gets that class


def setup(app):
    app.connect("source-read", take_phone_layouts)
    app.connect("env-purge-doc", _forget)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", add_phone_sources)
    app.connect("doctree-resolved", mark_wide_tables)
    app.connect("build-finished", _write_images)
    return {"env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}


def _sources(env) -> dict[str, dict[str, tuple[str, bytes]]]:
    """{page: {desk PNG's digest: (the <source> element, the phone PNG)}}."""
    if not hasattr(env, "book_phone_sources"):
        env.book_phone_sources = {}
    return env.book_phone_sources


def take_phone_layouts(app, docname: str, source: list[str]) -> None:
    """``source-read``: each figure's phone layout out of the notebook, kept
    under the digest of its desk PNG."""
    if MIME not in source[0] or not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    found = _sources(app.env).setdefault(docname, {})
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if MIME not in data:
                continue
            element = data.pop(MIME)
            element = "".join(element) if isinstance(element, list) else element
            desk = data.get("image/png")
            match = DATA_URL.search(element)
            if desk is None or match is None:
                continue
            desk = "".join(desk) if isinstance(desk, list) else desk
            digest = hashlib.sha256(base64.b64decode(desk)).hexdigest()
            found[digest] = (element, base64.b64decode(match.group(1)))
    source[0] = json.dumps(notebook)


def _file_name(png: bytes) -> str:
    return f"{hashlib.sha256(png).hexdigest()[:16]}.png"


IMG = re.compile(r'<img\b[^>]*\bsrc="[^"]*?([0-9a-f]{64})\.png"[^>]*>')


def with_phone_sources(body: str, sources: dict, here: str) -> str:
    """``body`` (a page's HTML) with each ``<img>`` of a desk PNG that has a
    phone layout in ``sources`` put in a ``<picture>`` with the phone's
    ``<source>`` first; ``here``: the page's path in the site."""

    def picture(match: re.Match) -> str:
        if match.group(1) not in sources:
            return match.group(0)
        element, png = sources[match.group(1)]
        url = relative_uri(here, f"{FOLDER}/{_file_name(png)}")
        return f"<picture>{DATA_URL.sub(url, element)}{match.group(0)}</picture>"

    return IMG.sub(picture, body)


def add_phone_sources(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context``: the page's figures with their phone sources."""
    sources = _sources(app.env).get(pagename)
    if sources and "body" in context:
        here = app.builder.get_target_uri(pagename)
        context["body"] = with_phone_sources(context["body"], sources, here)


def _forget(app, env, docname: str) -> None:
    _sources(env).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    for docname in docnames:
        if docname in _sources(other):
            _sources(env)[docname] = _sources(other)[docname]


def _write_images(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for sources in _sources(app.env).values():
        for _, png in sources.values():
            path = folder / _file_name(png)
            if not path.exists():
                path.write_bytes(png)


def mark_wide_tables(app, doctree, docname) -> None:
    """``doctree-resolved``: tables of ``WIDE`` columns or more get their
    phone layout (see the module's docstring)."""
    for table in list(doctree.findall(nodes.table)):
        mark_wide(table)


def mark_wide(table: nodes.table) -> bool:
    """Give ``table`` the class of a wide table, if it has ``WIDE`` columns or
    more; whether it did."""
    groups = list(table.findall(nodes.tgroup))
    if not groups or int(groups[0].get("cols", 0)) < WIDE:
        return False
    table["classes"].append(WIDE_TABLE)
    return True
