"""Formulas written out as MathML when the book is built, instead of typeset
in the reader's browser by MathJax.

A Sphinx HTML math renderer named ``mathml`` (chosen with
``html_math_renderer: mathml`` in _config.yml). Every ``$...$`` and ``$$...$$``
of the book becomes MathML, which every current browser draws itself: a
formula appears with the text around it, the page no longer loads MathJax
(a 1.2 MB script and its fonts), and nothing moves when it would have
finished. The TeX source stays in the page as the MathML annotation, so
copying a formula still gives TeX. The conversion is latex2mathml's; a
formula it cannot convert fails the build (the build runs with -W).

A browser may break a line after an inline formula (as after an image), so
the comma or the bracket that follows one could start the next line. Each
inline formula is kept on one line with the punctuation that touches it
(``(`` before, ``),.;:`` after) in a ``math-with-punctuation`` span that
book.css keeps unbroken.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("doctree-resolved", keep_punctuation_with_math)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def mathml(tex: str, display: bool, node) -> str:
    """MathML for ``tex``, with the TeX kept as its annotation."""
    from latex2mathml.converter import convert

    tex = tex.strip()
    try:
        markup = convert(tex, display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises its own and plain errors
        logger.warning(
            f"formula could not be converted to MathML ({error}): {tex}", location=node
        )
        return f"<code>{html.escape(tex)}</code>"
    markup = _as_symbols(_as_functions(markup, tex))
    annotation = (
        f'<annotation encoding="application/x-tex">{html.escape(tex)}</annotation>'
    )
    # Wrap the converted content in <semantics> so the TeX travels with it.
    head, _, rest = markup.partition(">")
    body, _, tail = rest.rpartition("</math>")
    return f"{head}><semantics><mrow>{body}</mrow>{annotation}</semantics></math>{tail}"


OPERATOR_NAME = re.compile(r"\\operatorname\{([A-Za-z]+)\}")


def _as_functions(markup: str, tex: str) -> str:
    """The names of ``\\operatorname{...}`` as MathML draws a function's name.
    latex2mathml makes each an operator (``<mo>``), which a browser spaces as
    one: a gap after "softmax" and before its bracket that TeX does not put
    there. A name (``<mi>``, upright when it has several letters) and the
    invisible function application (U+2061, no space) instead, which screen
    readers also read as one."""
    for name in set(OPERATOR_NAME.findall(tex)):
        markup = markup.replace(f"<mo>{name}</mo>", f"<mi>{name}</mi><mo>&#x2061;</mo>")
    return markup


# Symbols TeX sets as ordinary ones (no space around them) that latex2mathml
# writes as operators, which a browser spaces: "− ∞" for -\infty.
SYMBOLS = ("&#x0221E;",)  # infinity


def _as_symbols(markup: str) -> str:
    """Each of :data:`SYMBOLS` as an identifier (``<mi>``), as TeX spaces it."""
    for symbol in SYMBOLS:
        markup = markup.replace(f"<mo>{symbol}</mo>", f"<mi>{symbol}</mi>")
    return markup


# Opening brackets and quotes just before a formula; closing punctuation just
# after it, up to the next space or word.
BEFORE = re.compile(r"[(\[{“‘]+$")
AFTER = re.compile(r"^[^\s\w$(\[{]+")


def keep_punctuation_with_math(app, doctree, docname) -> None:
    """``doctree-resolved``: each inline formula in one unbroken span with the
    punctuation that touches it."""
    for math in list(doctree.findall(nodes.math)):
        parent = math.parent
        index = parent.index(math)
        before = parent[index - 1] if index > 0 else None
        after = parent[index + 1] if index + 1 < len(parent) else None
        opening = _touching(before, BEFORE)
        closing = _touching(after, AFTER)
        if not (opening or closing):
            continue
        span = nodes.inline(classes=["math-with-punctuation"])
        if opening:  # (text nodes are strings: replace them by place, not by value)
            parent[index - 1] = nodes.Text(str(before)[: -len(opening)])
            span += nodes.Text(opening)
        parent[index] = span
        span += math
        if closing:
            parent[index + 1] = nodes.Text(str(after)[len(closing) :])
            span += nodes.Text(closing)


def _touching(node, pattern: re.Pattern) -> str:
    """The text of ``node`` that ``pattern`` finds touching the formula, if
    ``node`` is text."""
    if not isinstance(node, nodes.Text):
        return ""
    found = pattern.search(str(node))
    return found.group() if found else ""


def visit_math(self, node: nodes.math) -> None:
    self.body.append(
        self.starttag(node, "span", "", CLASS="math notranslate nohighlight")
    )
    self.body.append(mathml(node.astext(), False, node))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    # Equations separated by a blank line are drawn one below the other.
    for part in (p for p in node.astext().split("\n\n") if p.strip()):
        self.body.append(mathml(part, True, node))
    self.body.append("</div>\n")
    raise nodes.SkipNode
