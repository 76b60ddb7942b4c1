"""mha.display: the package's source in a chapter, small tables, and a drop-down
of panels made in advance that works without a kernel (the browser tests
check it switches on the site)."""

from __future__ import annotations

import inspect
import re
import textwrap

import mha
from mha.display import SourceCode, html_table, markdown_table, static_choice


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
    assert table._repr_html_() == table.value
    for raw in ("<b>", "<script>", "a & b"):
        assert raw not in table.value
    for escaped in ("&lt;b&gt;name&lt;/b&gt;", "&lt;script&gt;", "a &amp; b", ">2.5<"):
        assert escaped in table.value
    assert table.value.count("<tr>") == 3 and table.value.count("<td ") == 4


def test_static_choice_is_a_labelled_menu_whose_option_shows_its_panel():
    choice = static_choice(
        "Show:", ["one", "<two>"], ["<p>1</p>", html_table(["a"], [])]
    )
    page = choice._repr_html_()
    box = re.search(r'<div class="mha-choice" id="([\w-]+)">', page).group(1)
    menu = re.search(r'<select id="([\w-]+)">', page).group(1)
    assert f'<label class="mha-label" for="{menu}">Show:</label>' in page
    assert re.findall(r'<option value="(\d)"( selected)?>([^<]*)<', page) == [
        ("0", " selected", "one"),
        ("1", "", "&lt;two&gt;"),
    ]
    panels = re.findall(r'<div class="mha-panel" data-panel="(\d)">(.*?)</div>', page)
    assert panels == [("0", "<p>1</p>"), ("1", html_table(["a"], []).value)]
    # A panel hides while its option is not the one chosen (a rule of its own,
    # scoped to this choice).
    for i in ("0", "1"):
        rule = f'#{box}:has(option[value="{i}"]:not(:checked)) [data-panel="{i}"]'
        assert rule + "{display:none}" in page


def test_static_choice_repr_changes_with_the_panels_content_only():
    def text(labels, contents):
        return repr(static_choice("Show:", labels, contents))

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
    (lambda: static_choice("x", ["a", "b"], ["1"]), ValueError, "labels and panels",
     "equal length", "got 2 labels and 1 panels"),
    (lambda: static_choice("x", ["a"], [3]), TypeError, "panels", "HTML", "got int"),
    (lambda: static_choice("x", [], []), ValueError, "labels and panels", "non-empty",
     "got 0 labels and 0 panels"),
    (lambda: markdown_table("ab", [["a", "b"]]), ValueError, "header",
     "non-empty list of column names", "got 'ab'"),
    (lambda: markdown_table(["a", "b"], [["a", "b"], ["c"]]), ValueError, "rows[1]",
     "2 cells, one per column", "got ['c']"),
]  # fmt: skip


def test_a_table_is_markdown_for_the_page_and_aligned_text_for_nbval():
    table = markdown_table(["L", "time (ms)"], [[64, "2.5"], [1024, "a|b"]])
    assert table._repr_markdown_().splitlines() == [
        "| L | time (ms) |", "|---|---|", "| 64 | 2.5 |", "| 1024 | a\\|b |"
    ]  # fmt: skip
    assert repr(table).splitlines() == ["L     time (ms)", "64    2.5", "1024  a|b"]
