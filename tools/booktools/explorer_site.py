"""The explorers on the book's site (Jupyter Book, myst-nb): a render plugin
for the explorer's output type and a Sphinx extension for its front end. The
book's tooling, not the package: only the site needs it.

- ``ExplorerMime`` is a myst-nb MIME render plugin (registered by the
  tooling's ``tools/pyproject.toml`` as the entry point
  ``myst_nb.mime_renderers: mha-explorer``): on HTML builders it takes a
  notebook's explorer output, ``mha.explorer.notebook.MIME``, before its
  ``text/html`` form, and renders it as an element holding the explorer's
  data, which the front end draws (no picture stored, nothing to fetch).
  The data gets the words and look of the package that builds the site
  (``mha.explorer.look.page``), whichever package stored it.
- ``setup`` (``_config.yml``: ``extensions: [booktools.explorer_site]``)
  serves the front end, ``explorer.js`` (joined from the package's modules)
  and ``explorer.css``, and loads them (deferred) on the pages that have an
  explorer only.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes

from mha.explorer.look import page
from mha.explorer.notebook import MIME, front_end, script_json

FILES = ("explorer.js", "explorer.css")  # the front end, as the site serves it

CLASS = "mha-explorer-output"  # the raw node of an explorer, for html-page-context


def page_html(data: dict) -> str:
    """An explorer's element on a page: its data, drawn by ``explorer.js``."""
    return (
        '<div class="mha-explorer">'
        f'<script type="application/json" class="mha-data">{script_json(data)}</script>'
        '<noscript><p class="mha-message">The attention explorer computes in your '
        "browser: it needs JavaScript.</p></noscript></div>"
    )


class ExplorerMime:
    """myst-nb's MIME render plugin for the explorer's output type."""

    mime_priority_overrides = [("html", MIME, 0), ("dirhtml", MIME, 0)]

    @staticmethod
    def handle_mime(renderer, data, inline: bool) -> list[nodes.Element] | None:
        if inline or data.mime_type != MIME:
            return None
        content = data.content
        if isinstance(content, (str, bytes)):
            content = json.loads(content)
        return [nodes.raw("", page_html(page(content)), format="html", classes=[CLASS])]


def _static_path(app, config) -> None:
    """The front end written beside the build's doctrees, a static folder."""
    folder = Path(app.doctreedir) / "mha-explorer"
    folder.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != front_end(name):
            path.write_text(front_end(name), encoding="utf-8")
    config.html_static_path.append(str(folder))


def _front_end(app, pagename, templatename, context, doctree) -> None:
    if doctree is None:
        return
    if any(CLASS in node["classes"] for node in doctree.findall(nodes.raw)):
        app.add_css_file("explorer.css")
        app.add_js_file("explorer.js", loading_method="defer")


def setup(app):
    """Register the explorer with Sphinx: its front end among the static
    files, and its script and style sheet on the pages that show one."""
    app.connect("config-inited", _static_path)
    app.connect("html-page-context", _front_end)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
