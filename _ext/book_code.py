"""Long inline code breaks after its dots, underscores and commas.

A Sphinx extension. On a phone a name such as
``torch.nn.functional.scaled_dot_product_attention`` is wider than the
column; the browser may break it only where the text allows. This puts a
break point (HTML ``<wbr>``, which copied text leaves out) after each dot,
underscore, comma, slash and opening bracket of every word of 16 or more
characters in inline code and in the API's signatures, rather than letting
it break anywhere; in a table's cell also after the dots and underscores of
shorter words (a phone's table is only as narrow as its longest unbreakable
piece of code: ``to_nn_`` / ``attn_mask`` rather than ``to_nn_attn_mask``
whole, or ``to_nn_att`` / ``n_mask``; names of up to ten characters, such as
``d_model``, stay whole); shorter code with a space in it
(``(8, 8)``) stays on one line. The page's table of contents (its contents
panel, whose theme would otherwise break a long name anywhere,
"F.multi_head_attention_fo|rward") gets them as soon as Sphinx has made it.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes

LONG = 16  # characters of a word of code that may need to break
SHORT = 10  # a name this long or shorter stays whole, even in a table
BREAK = re.compile(r"(?<=[._,(/])(?=\w)")
NAME_BREAK = re.compile(r"(?<=[._])(?=\w)")  # a shorter word's, in a table


class break_point(nodes.Inline, nodes.Element):  # noqa: N801 (docutils' naming)
    """Where a line may break (``<wbr>`` in HTML; nothing elsewhere)."""


def setup(app):
    app.add_node(
        break_point,
        html=(visit_break_point, None),
        **{builder: (skip, None) for builder in ("latex", "text", "man", "texinfo")},
    )
    # After Sphinx's collector of the table of contents (the default priority, 500).
    app.connect("doctree-read", add_break_points_in_contents, priority=600)
    app.connect("doctree-resolved", add_break_points)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def visit_break_point(self, node) -> None:
    self.body.append("<wbr>")
    raise nodes.SkipNode


def skip(self, node) -> None:
    raise nodes.SkipNode


CODE = (nodes.literal, addnodes.desc_signature)


def add_break_points_in_contents(app, doctree) -> None:
    """``doctree-read``: break points in the long words of the code in the
    page's table of contents (its titles and the API's objects)."""
    contents = app.env.tocs.get(app.env.docname)
    if contents is not None:
        add_break_points(app, contents, app.env.docname)


def add_break_points(app, doctree, docname) -> None:
    """``doctree-resolved``: break points in the long words of inline code,
    in a table's cells in every word's name (none added twice: a word
    already cut has its break points at its ends); inline code shorter than
    a long word (``(8, 8)``, ``x[:, 0]``) marked ``unbroken``, which book.css
    keeps on one line (it fits any column)."""
    for code in doctree.findall(nodes.literal):
        if len(code.astext()) < LONG and " " in code.astext():
            code["classes"].append("unbroken")
    for code in list(doctree.findall(lambda node: isinstance(node, CODE))):
        in_table = _in_table(code)
        for text in list(code.findall(nodes.Text)):
            pieces = split(str(text), in_table)
            if len(pieces) > 1:
                text.parent.replace(text, pieces)


def _in_table(node: nodes.Node) -> bool:
    while node is not None:
        if isinstance(node, nodes.entry):
            return True
        node = node.parent
    return False


def split(text: str, in_table: bool = False) -> list[nodes.Node]:
    """``text`` as text nodes with a break point between the pieces of its
    long words, and ``in_table`` of its shorter words' names longer than
    :data:`SHORT` (``d_model`` stays whole: it is what a row defines; one
    text node if it has none)."""
    pieces: list[nodes.Node] = []
    run = ""
    for word in re.split(r"(\s+)", text):
        if len(word) >= LONG:
            parts = BREAK.split(word)
        else:
            parts = NAME_BREAK.split(word) if in_table and len(word) > SHORT else [word]
        run += parts[0]
        for part in parts[1:]:
            pieces += [nodes.Text(run), break_point()]
            run = part
    return [*pieces, nodes.Text(run)]
