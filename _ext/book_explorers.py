"""The attention explorers on the book's pages: plain HTML, frames as files.

A notebook stores a static explorer (``mha.explorer.static``) as an output
of its own type, ``MIME``: the explorer's HTML (its form of controls, its
figure and the list of its frames), with every frame's images in it as
``data:`` URLs. When the book is read (Sphinx's ``source-read``, before
myst-nb turns the notebook into a page), each such output becomes an HTML
output, and each image a file of the site, ``_images/explorer/<digest>``,
named after its content (a background that many frames share is one file);
the page then loads ``explorer.js`` (``assets/``), which switches the frames
as the controls change. The images are written when the build ends, from
the environment, so a page that was not read again keeps its images.

A notebook with an ipywidget fails the build: the book's pages load no
widget manager, so the widget would show nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from sphinx.util import logging
from sphinx.util.osutil import relative_uri

MIME = "application/vnd.mha.explorer.page+html"  # mha.explorer.static.MIME
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
DATA_URL = re.compile(r"data:image/(png|webp);base64,([A-Za-z0-9+/=]+)")
FOLDER = "_images/explorer"
SCRIPT = "explorer.js"  # in _static, from assets/

logger = logging.getLogger(__name__)


def setup(app):
    app.connect("source-read", explorers_to_html)
    app.connect("env-purge-doc", _forget)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _add_script)
    app.connect("build-finished", _write_images)
    return {"env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}


def _images(env) -> dict[str, dict[str, bytes]]:
    """{page: {file name: bytes}} of every explorer image the book has read."""
    if not hasattr(env, "book_explorer_images"):
        env.book_explorer_images = {}
    return env.book_explorer_images


def explorers_to_html(app, docname: str, source: list[str]) -> None:
    """``source-read``: a notebook's explorers as HTML outputs with their
    images as files; a warning for an ipywidget."""
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    if any(WIDGET_VIEW in data for data in _outputs(notebook)):
        logger.warning(
            "this notebook stores an ipywidget, which the book's pages cannot "
            "show (they load no widget manager); show plain HTML instead, such as "
            "mha.attention_explorer in its static mode",
            location=docname,
        )
    if MIME not in source[0]:
        return
    here = app.builder.get_target_uri(docname)
    found = _images(app.env).setdefault(docname, {})

    def to_file(match: re.Match) -> str:
        data = base64.b64decode(match.group(2))
        name = f"{hashlib.sha256(data).hexdigest()[:16]}.{match.group(1)}"
        found[name] = data
        return relative_uri(here, f"{FOLDER}/{name}")

    for data in _outputs(notebook):
        if MIME in data:
            page = data[MIME]
            page = "".join(page) if isinstance(page, list) else page
            data.clear()
            data["text/html"] = DATA_URL.sub(to_file, page)
    source[0] = json.dumps(notebook)


def _outputs(notebook: dict):
    """The data of every output of a notebook (display data and results)."""
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            if "data" in output:
                yield output["data"]


def _forget(app, env, docname: str) -> None:
    _images(env).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    for docname in docnames:
        if docname in _images(other):
            _images(env)[docname] = _images(other)[docname]


def _add_script(app, pagename, templatename, context, doctree) -> None:
    if _images(app.env).get(pagename):
        app.add_js_file(SCRIPT, loading_method="defer")


def _write_images(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for images in _images(app.env).values():
        for name, data in images.items():
            path = folder / name
            if not path.exists():
                path.write_bytes(data)
