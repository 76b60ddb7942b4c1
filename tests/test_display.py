"""mha.display: the package's source in a chapter, small tables, and a drop-down
of precomputed panels that works without a kernel."""

from __future__ import annotations

import inspect
import textwrap

import ipywidgets as widgets

import mha
from mha.display import SourceCode, html_table, static_choice


def test_show_source_shows_the_code_of_the_package_itself():
    shown = mha.show_source(mha.merge_heads)
    assert repr(shown) == inspect.getsource(mha.merge_heads)
    assert shown._repr_markdown_() == f"```python\n{repr(shown).rstrip()}\n```"
    method = repr(mha.show_source(mha.MultiHeadAttention.forward))
    assert method.startswith("def forward(")  # without the class's indent
    assert textwrap.indent(method, "    ") == inspect.getsource(
        mha.MultiHeadAttention.forward
    )


def test_a_source_holding_backticks_gets_a_longer_fence():
    markdown = SourceCode('s = """\n````\n"""\n')._repr_markdown_()
    assert markdown.startswith("`````python\n") and markdown.endswith("\n`````")


def test_html_table_escapes_every_cell():
    table = html_table(["<b>name</b>", "value"], [["<script>", 1], ["a & b", 2.5]])
    assert isinstance(table, widgets.HTML)
    for raw in ("<b>", "<script>", "a & b"):
        assert raw not in table.value
    for escaped in ("&lt;b&gt;name&lt;/b&gt;", "&lt;script&gt;", "a &amp; b", ">2.5<"):
        assert escaped in table.value
    assert table.value.count("<tr>") == 3 and table.value.count("<td ") == 4


def panels(*texts):
    return [widgets.HTML(text) for text in texts]


def test_static_choice_switches_panels_in_the_browser(monkeypatch):
    links = []
    jslink = widgets.jslink
    monkeypatch.setattr(
        widgets, "jslink", lambda *ends: links.append(ends) or jslink(*ends)
    )
    shown = panels("<p>1</p>", "<p>2</p>")
    dropdown, stack = static_choice("Show:", ["one", "two"], shown).children
    assert list(dropdown.options) == ["one", "two"]
    assert list(stack.children) == shown and stack.selected_index == 0
    assert links == [((dropdown, "index"), (stack, "selected_index"))]


def test_static_choice_repr_changes_with_the_panels_content_only():
    def text(labels, contents):
        return repr(static_choice("Show:", labels, panels(*contents)))

    base = text(["one", "two"], ["<p>1</p>", "<p>2</p>"])
    assert text(["one", "two"], ["<p>1</p>", "<p>2</p>"]) == base
    assert text(["one", "two"], ["<p>1</p>", "<p>3</p>"]) != base
    assert "Show:" in base and "2 panels" in base


# Each row, a test (see conftest.py): the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: mha.show_source(len), TypeError, "obj", "Python source",
     "got <built-in function len>"),
    (lambda: mha.show_source(3), TypeError, "obj", "class, function or module", "got 3"),
    (lambda: static_choice("x", ["a", "b"], panels("1")), ValueError, "labels and panels",
     "equal length", "got 2 labels and 1 panels"),
    (lambda: static_choice("x", [], []), ValueError, "labels and panels", "non-empty",
     "got 0 labels and 0 panels"),
]  # fmt: skip
