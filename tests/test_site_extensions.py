"""The site's own Sphinx extensions (_ext/), piece by piece: images given
their size, line breaks in long code, page descriptions, deferred scripts. (The one-chapter build in
test_distribution.py loads them all together.)"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from docutils import nodes
from docutils.core import publish_doctree
from PIL import Image

from booktools.book import ROOT, load_extension

book = load_extension("book")
book_code = load_extension("book_code")
citation_roles = load_extension("citation_roles")
book_descriptions = load_extension("book_descriptions")
book_images = load_extension("book_images")
book_layout = load_extension("book_layout")
book_exercises = load_extension("book_exercises")
book_math = load_extension("book_math")
book_api = load_extension("book_api")


def test_the_book_extension_loads_every_module_of_the_folder():
    modules = {path.stem for path in (ROOT / "_ext").glob("*.py")} - {"book"}
    assert set(book.EXTENSIONS) == modules


# -- images, code, descriptions, scripts -----------------------------------------------


def test_a_solution_s_link_to_its_exercise_does_not_start_with_a_space():
    """sphinx-exercise writes "Solution to" + link(" Exercise 4.1")."""
    title = nodes.title()
    title += nodes.Text("Solution to")
    title += nodes.reference("", " Exercise 4.1", refid="scores-shift")
    book_exercises.move_leading_space(title)
    assert [child.astext() for child in title.children] == [
        "Solution to", " ", "Exercise 4.1"
    ]  # fmt: skip
    assert isinstance(title.children[2], nodes.reference)
    book_exercises.move_leading_space(title)  # nothing left to move
    assert title.astext() == "Solution to Exercise 4.1" and len(title.children) == 3


def test_an_image_is_shown_at_its_given_size_or_its_file_s(tmp_path):
    Image.new("RGB", (30, 20)).save(tmp_path / "a.png")
    (tmp_path / "b.svg").write_text('<svg viewBox="0 0 300 150"></svg>')
    (tmp_path / "c.svg").write_text('<svg width="40px" height="10"></svg>')
    given = nodes.image(uri="a.png", width="720px", height="460px")
    assert book_images.shown_size(given, tmp_path) == (720, 460)
    assert book_images.shown_size(nodes.image(uri="a.png"), tmp_path) == (30, 20)
    assert book_images.shown_size(nodes.image(uri="b.svg"), tmp_path) is None  # no size
    assert book_images.shown_size(nodes.image(uri="c.svg"), tmp_path) == (40, 10)
    assert book_images.shown_size(nodes.image(uri="missing.png"), tmp_path) is None
    assert book_images.shown_size(nodes.image(uri="https://x/y.png"), tmp_path) is None
    half = nodes.image(uri="a.png", width="50%")  # not in pixels: the file's size
    assert book_images.shown_size(half, tmp_path) == (30, 20)


def test_long_code_breaks_after_its_dots_and_underscores():
    doctree = publish_doctree(
        "Call ``torch.nn.functional.scaled_dot_product_attention(q, k)`` or ``x.y``."
    )
    book_code.add_break_points(None, doctree, "page")
    long, short = doctree.findall(nodes.literal)
    pieces = [
        "|" if isinstance(child, book_code.break_point) else child.astext()
        for child in long.children
    ]
    assert (
        "".join(pieces)
        == "torch.|nn.|functional.|scaled_|dot_|product_|attention(|q, k)"
    )
    assert long.astext() == "torch.nn.functional.scaled_dot_product_attention(q, k)"
    assert len(short.children) == 1  # short code is left whole


def test_code_in_a_table_cell_breaks_after_the_dots_and_underscores_of_a_name():
    doctree = publish_doctree(
        "Pass ``to_nn_attn_mask`` here.\n\n"
        "====================  ===========\n"
        "``to_nn_attn_mask``   ``d_model``\n"
        "====================  ===========\n"
    )
    book_code.add_break_points(None, doctree, "page")
    prose, cell, short = doctree.findall(nodes.literal)

    def shown(code):
        return "".join(
            "|" if isinstance(child, book_code.break_point) else child.astext()
            for child in code.children
        )

    assert shown(prose) == "to_nn_attn_mask"  # shorter than a long word: whole
    assert shown(cell) == "to_|nn_|attn_|mask"  # in a table: after each "_"
    assert shown(short) == "d_model"  # a short name a row defines stays whole
    assert cell.astext() == "to_nn_attn_mask"  # copied text has no break in it


def test_short_code_with_a_space_is_kept_on_one_line():
    doctree = publish_doctree("Shape ``(8, 8)``, ``x.y`` and ``f(a, b, c, d, e, f)``.")
    book_code.add_break_points(None, doctree, "page")
    pair, name, call = doctree.findall(nodes.literal)
    assert "unbroken" in pair["classes"]  # "(8," / "8)" would read as two things
    assert "unbroken" not in name["classes"]  # nowhere to break anyway
    assert "unbroken" not in call["classes"]  # long: it may need to wrap


def test_a_page_is_described_by_its_first_paragraph_of_prose():
    doctree = publish_doctree(
        ".. note:: An aside that introduces nothing at all, long enough to count.\n\n"
        "Short.\n\n" + "The page's own first paragraph of prose, " * 8
    )
    description = book_descriptions.page_description(doctree)
    assert description.startswith("The page's own first paragraph of prose,")
    assert len(description) <= book_descriptions.DESCRIPTION_LENGTH
    assert description.endswith("…") and "  " not in description
    book_descriptions.describe_page(
        SimpleNamespace(config=SimpleNamespace(root_doc="index")), doctree, "page"
    )
    (meta,) = doctree.findall(nodes.meta)
    assert (meta["name"], meta["content"]) == ("description", description)


@pytest.mark.parametrize(
    ("attributes", "deferred"),
    [({}, True), ({"async": "async"}, False), ({"type": "module"}, True)],
)
def test_scripts_load_deferred_but_the_options_script(attributes, deferred):
    script = SimpleNamespace(
        filename="_static/x.js", attributes=attributes, priority=500
    )

    class JavaScript(SimpleNamespace):
        def __init__(self, filename, priority, **attributes):
            super().__init__(
                filename=filename, priority=priority, attributes=attributes
            )

    script = JavaScript("_static/x.js", 500, **attributes)
    assert ("defer" in book_layout.deferred(script).attributes) == deferred
    options = JavaScript("_static/documentation_options.js", 500)
    assert book_layout.deferred(options) is options
    tag = '<link rel="stylesheet">\n  <script src="_static/scripts/fontawesome.js?v=1"></script>'
    assert book_layout.without_script(tag, "_static/scripts/fontawesome.js") == (
        '<link rel="stylesheet">'
    )


def test_bibliography_entries_are_list_items():
    """docutils' HTML writer with the extension's citation visitor (bound to
    the writer as Sphinx binds a node's handlers): a list of list items."""
    from types import MethodType

    from docutils.core import publish_parts
    from docutils.writers import html5_polyglot

    class Translator(html5_polyglot.HTMLTranslator):
        def __init__(self, document):
            super().__init__(document)
            self.visit_citation = MethodType(citation_roles.visit_citation, self)
            self.depart_citation = MethodType(citation_roles.depart_citation, self)

    writer = html5_polyglot.Writer()
    writer.translator_class = Translator
    source = "See [Ab]_ and [Cd]_.\n\n.. [Ab] A book.\n.. [Cd] Another book.\n"
    body = publish_parts(source, writer=writer)["body"]
    assert body.count('<div role="list"') == 1
    assert body.count('role="listitem"') == 2 and "doc-biblioentry" not in body
    assert body.count('class="citation"') == 2


def test_an_inline_formula_keeps_the_punctuation_that_touches_it():
    doctree = publish_doctree(
        "See (:math:`a`), then :math:`b`'s row; :math:`c` and :math:`d` alone."
    )
    book_math.keep_punctuation_with_math(None, doctree, "page")
    spans = list(doctree.findall(nodes.inline))
    assert [span.astext() for span in spans] == ["(a),", "b'"]
    assert all(span["classes"] == ["math-with-punctuation"] for span in spans)
    paragraph = doctree[0]
    assert paragraph.astext() == "See (a), then b's row; c and d alone."
    assert [type(child).__name__ for child in paragraph.children].count("math") == 2


def test_an_operator_name_is_drawn_as_a_function_s_name():
    markup = book_math.mathml(r"\operatorname{softmax}(s)_j = e^{s_j}", True, None)
    assert "<mi>softmax</mi><mo>&#x2061;</mo>" in markup  # no space, read as f(x)
    assert "<mo>softmax</mo>" not in markup  # spaced as an operator is
    assert "<mi>e</mi>" in markup  # the rest as it was


def test_infinity_is_an_ordinary_symbol_not_a_spaced_operator():
    markup = book_math.mathml(r"e^{-\infty} = 0", False, None)
    assert "<mrow><mo>&#x02212;</mo><mi>&#x0221E;</mi></mrow>" in markup, markup
    assert "<mo>&#x0221E;</mo>" not in markup


def test_the_contents_panel_s_code_breaks_after_its_dots_too():
    contents = publish_doctree("``F.scaled_dot_product_attention``")
    app = SimpleNamespace(env=SimpleNamespace(tocs={"page": contents}, docname="page"))
    book_code.add_break_points_in_contents(app, None)
    (code,) = contents.findall(nodes.literal)
    assert sum(isinstance(c, book_code.break_point) for c in code.children) == 4
    assert code.astext() == "F.scaled_dot_product_attention"
    app.env.docname = "a page without contents"
    book_code.add_break_points_in_contents(app, None)  # nothing to do, no error


def _fields(*names: str):
    from docutils import nodes

    return nodes.field_list(
        "",
        *(nodes.field("", nodes.field_name("", n), nodes.field_body()) for n in names),
    )


def test_a_parameter_s_fields_are_kept_in_the_first_list_that_has_them():
    """Two field lists apart (napoleon's Shape section between them), and the
    types autodoc added to both: the second keeps only what the first lacks."""
    from docutils import nodes

    content = nodes.container(
        "",
        _fields("param d_model", "type d_model", "param int n_heads"),
        nodes.rubric("", "Shape"),
        _fields("raises ValueError", "type d_model", "param d_model", "type n_heads",
                "param dtype", "rtype"),
        _fields("type n_heads", "param n_heads", "rtype"),
    )  # fmt: skip
    book_api.keep_fields_once(None, "py", "class", content)
    lists = [
        [field[0].astext() for field in node]
        for node in content
        if isinstance(node, nodes.field_list)
    ]
    assert lists == [
        ["param d_model", "type d_model", "param int n_heads"],
        ["param dtype", "rtype", "raises ValueError"],
    ]  # the third list had nothing new and went; the second reads in order


def test_a_list_s_fields_read_parameters_returns_raises():
    """A docstring with Raises only: autodoc's types come after it; they are
    put first, in their own order, and other fields keep theirs."""
    from docutils import nodes

    content = nodes.container(
        "",
        _fields("raises TypeError", "returns", "raises ValueError", "param text",
                "type text", "rtype", "meta"),
    )  # fmt: skip
    book_api.keep_fields_once(None, "py", "function", content)
    assert [f[0].astext() for f in content[0]] == [
        "param text", "type text", "returns", "rtype",
        "raises TypeError", "raises ValueError", "meta",
    ]  # fmt: skip


def test_a_constant_keeps_no_parameters_of_its_call():
    """What autodoc recorded of a callable constant's signature is dropped; a
    function's and a method's stay."""
    recorded = {"m.GRAMMAR": {"vocab": "Vocab"}, "m.f": {"x": "int"}, "m.C.g": {}}
    app = type("App", (), {})()
    app.env = type("Env", (), {"temp_data": {"annotations": recorded}})()
    book_api.forget_call_signature(app, "data", "m.GRAMMAR", None, None, "", "")
    book_api.forget_call_signature(app, "function", "m.f", None, None, "", "")
    book_api.forget_call_signature(app, "method", "m.C.g", None, None, "", "")
    assert recorded == {"m.f": {"x": "int"}, "m.C.g": {}}
    app.env.temp_data = {}  # nothing recorded yet: nothing to drop
    book_api.forget_call_signature(app, "attribute", "m.C.a", None, None, "", "")


def test_a_dataclass_whose_fields_are_its_attributes_lists_them_once():
    """A dataclass that describes every field under Attributes keeps no
    parameters (its fields would be listed twice); one that leaves a field
    out, or any other class, keeps them."""
    import dataclasses

    @dataclasses.dataclass
    class Described:
        """A thing.

        Attributes:
            name: its name.
            steps, lr (float): how it trains.
        """

        name: str
        steps: int
        lr: float

    @dataclasses.dataclass
    class Partly:
        """A thing.

        Attributes:
            name: its name.
        """

        name: str
        size: int

    class Plain:
        """Not a dataclass.

        Attributes:
            name: its name.
        """

    recorded = {"m.Described": {"name": "str"}, "m.Partly": {"name": "str"},
                "m.Plain": {"name": "str"}}  # fmt: skip
    app = type("App", (), {})()
    app.env = type("Env", (), {"temp_data": {"annotations": recorded}})()
    for name, cls in (("m.Described", Described), ("m.Partly", Partly),
                      ("m.Plain", Plain)):  # fmt: skip
        book_api.forget_call_signature(app, "class", name, cls, None, "", "")
    assert set(recorded) == {"m.Partly", "m.Plain"}


def test_a_type_that_names_no_class_is_looked_up_as_data():
    """A Python type reference Sphinx found no class for is looked up among
    data (a type alias); any other missing reference is left missing."""
    asked = []

    class Domain:
        def resolve_xref(self, env, doc, builder, kind, target, node, contnode):
            asked.append((kind, target))
            return "link" if target == "m.Draw" else None

    env = type("Env", (), {"get_domain": lambda self, name: Domain()})()
    app = type("App", (), {"builder": None})()

    def node(target, domain="py", kind="class"):
        return {"refdomain": domain, "reftype": kind, "reftarget": target,
                "refdoc": "api"}  # fmt: skip

    assert book_api.link_type_alias(app, env, node("m.Draw"), None) == "link"
    assert book_api.link_type_alias(app, env, node("m.Nothing"), None) is None
    assert book_api.link_type_alias(app, env, node("m.f", kind="func"), None) is None
    assert book_api.link_type_alias(app, env, node("x", domain="std"), None) is None
    assert asked == [("data", "m.Draw"), ("data", "m.Nothing")]
