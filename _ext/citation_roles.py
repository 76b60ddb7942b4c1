"""Sphinx extension: the bibliography's entries are list items to assistive
technology.

docutils writes a bibliography (book/references.md) as ``<div role="list">``
holding one ``<div role="doc-biblioentry">`` per work. ARIA wants a list's
children to be list items, and DPUB-ARIA has deprecated ``doc-biblioentry``,
so screen readers may not announce the entries as a list (axe-core reports it
as critical). This gives each entry ``role="listitem"``; nothing else changes.
"""

from __future__ import annotations

from typing import Any

DEPRECATED = 'role="doc-biblioentry"'
LIST_ITEM = 'role="listitem"'


def entries_as_list_items(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """``html-page-context``: rewrite the entries' role in the page's body."""
    body = context.get("body")
    if isinstance(body, str) and DEPRECATED in body:
        context["body"] = body.replace(DEPRECATED, LIST_ITEM)


def setup(app: Any) -> dict:
    app.connect("html-page-context", entries_as_list_items)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
