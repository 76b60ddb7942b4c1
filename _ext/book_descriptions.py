"""Every page gets a description for search results and link previews.

A Sphinx extension. Before a page is written (its references resolved, so a
citation reads as it does on the page), its first paragraph of prose (not
one in an admonition, a sidebar, a table, a cell's output, ...) becomes the
page's ``<meta name="description">``, as one line cut at a word near the
length search engines show. Pages without such a paragraph (the search
page, the index) get the book's own description, its root page's.
"""

from __future__ import annotations

import html
import textwrap

from docutils import nodes

DESCRIPTION_LENGTH = 155  # what search engines show of a description
# Where a paragraph is not the page's own introduction.
NOT_INTRO = (
    nodes.Admonition,
    nodes.sidebar,
    nodes.topic,
    nodes.table,
    nodes.footnote,
    nodes.citation,
    nodes.field_list,
    nodes.system_message,
)


def setup(app):
    app.connect("doctree-resolved", describe_page)
    app.connect("html-page-context", describe_other_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def describe_page(app, doctree, docname) -> None:
    """``doctree-resolved``: the page's description as a meta node (Sphinx
    writes it into the page's head)."""
    description = page_description(doctree)
    if description:
        doctree.append(nodes.meta("", name="description", content=description))
    if docname == app.config.root_doc:  # written before the pages that need it
        app.builder.book_description = description


def describe_other_pages(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context``: the book's description for a page without one."""
    if 'name="description"' in (context.get("metatags") or ""):
        return
    description = getattr(app.builder, "book_description", "")
    if description:
        context["metatags"] = (context.get("metatags") or "") + (
            f'\n    <meta name="description" content="{html.escape(description)}" />'
        )


def page_description(doctree) -> str:
    """The page's first paragraph of prose as one line, cut at a word near
    DESCRIPTION_LENGTH characters."""
    if doctree is None:
        return ""
    for paragraph in doctree.findall(nodes.paragraph):
        if _in_other_text(paragraph):
            continue
        text = " ".join(paragraph.astext().split())
        if len(text) >= 40:  # skip one-word lines such as a lone link or label
            return shorten(text)
    return ""


def _in_other_text(node) -> bool:
    for parent in _ancestors(node):
        if isinstance(parent, NOT_INTRO) or "cell_output" in parent.get("classes", []):
            return True
    return False


def _ancestors(node):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def shorten(text: str, limit: int = DESCRIPTION_LENGTH) -> str:
    """``text`` on one line, cut at a word to at most ``limit`` characters
    with "…" (``textwrap.shorten``), without a comma or dash before the "…"."""
    short = textwrap.shorten(text, limit, placeholder="…")
    if short.endswith("…"):
        short = short[:-1].rstrip(",;:—–- ") + "…"
    return short
