"""Sphinx extension: the bibliography's entries are list items to assistive
technology.

docutils writes a bibliography (book/references.md) as ``<div role="list">``
holding one ``<div role="doc-biblioentry">`` per work. ARIA wants a list's
children to be list items, and DPUB-ARIA has deprecated ``doc-biblioentry``,
so screen readers may not announce the entries as a list (axe-core reports it
as critical). Here the HTML writer's own ``visit_citation`` writes each entry
with ``role="listitem"`` (a node's HTML visitor, registered with
``app.add_node(..., override=True)``); nothing else changes.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes

LIST_ITEM = "listitem"


def visit_citation(self, node: nodes.citation) -> None:
    """The writer's ``visit_citation`` (docutils' HTML5 writer), with the entry's
    role a list item instead of ``doc-biblioentry``."""
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role=LIST_ITEM))


def depart_citation(self, node: nodes.citation) -> None:
    type(self).depart_citation(self, node)


def setup(app: Any) -> dict:
    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
