"""mha.display: the package's source in a chapter, and small tables."""

from __future__ import annotations

import inspect
import textwrap

import pytest
from refusal import refuses, row_ids

import mha
from mha.display import SourceCode, markdown_table


def test_show_source_shows_the_code_of_the_package_itself():
    shown = mha.show_source(mha.merge_heads)
    assert repr(shown) == inspect.getsource(mha.merge_heads)
    assert shown._repr_markdown_() == f"```python\n{repr(shown).rstrip()}\n```"
    method = repr(mha.show_source(mha.MultiHeadAttention.forward))
    assert method.startswith("def forward(")  # without the class's indent
    assert textwrap.indent(method, "    ") == inspect.getsource(
        mha.MultiHeadAttention.forward
    )


def test_show_source_can_leave_the_docstring_out():
    full = repr(mha.show_source(mha.attention_probs))
    bare = repr(mha.show_source(mha.attention_probs, docstring=False))
    docstring = inspect.getdoc(mha.attention_probs)
    assert docstring.splitlines()[0] in full and docstring.splitlines()[0] not in bare
    assert bare.startswith("def attention_probs(") and "return probs" in bare
    # only the docstring's lines go: every other line is kept, in order
    assert [line for line in full.splitlines() if line in bare.splitlines()] == (
        bare.splitlines()
    )
    method = repr(mha.show_source(mha.MultiHeadAttention.forward, docstring=False))
    assert method.startswith("def forward(") and '"""' not in method
    compile(method, "forward", "exec")  # still Python
    # a function without a docstring is shown whole
    plain = mha.display._longest_backtick_run
    assert repr(mha.show_source(plain, docstring=False)) == repr(mha.show_source(plain))


def test_a_source_holding_backticks_gets_a_longer_fence():
    markdown = SourceCode('s = """\n````\n"""\n')._repr_markdown_()
    assert markdown.startswith("`````python\n") and markdown.endswith("\n`````")


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: mha.show_source(len), TypeError, "obj", "Python source",
     "got <built-in function len>"),
    (lambda: mha.show_source(3), TypeError, "obj", "class, function or module", "got 3"),
    (lambda: mha.show_source(mha.split_heads, docstring="no"), TypeError, "docstring",
     "True or False", "got 'no'"),
    (lambda: markdown_table("ab", [["a", "b"]]), ValueError, "header",
     "non-empty list of column names", "got 'ab'"),
    (lambda: markdown_table(["a", "b"], [["a", "b"], ["c"]]), ValueError, "rows[1]",
     "2 cells, one per column", "got ['c']"),
    (lambda: markdown_table(["a"], [["b"]], title=""), ValueError, "title",
     "non-empty string or None", "got ''"),
    (lambda: markdown_table(["a"], [["b"]], title=["x"]), ValueError, "title",
     "non-empty string or None", "got ['x']"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


def test_a_table_is_markdown_for_the_page_and_aligned_text_for_nbval():
    table = markdown_table(["L", "time (ms)"], [[64, "2.5"], [1024, "a|b"]])
    assert table._repr_markdown_().splitlines() == [
        "| L | time (ms) |", "|---|---|", "| 64 | 2.5 |", "| 1024 | a\\|b |"
    ]  # fmt: skip
    assert repr(table).splitlines() == ["L     time (ms)", "64    2.5", "1024  a|b"]


def test_a_title_stays_with_its_table_in_both_forms():
    table = markdown_table(["layers", "bare"], [[1, "0.95"]], title="Mean `length`:")
    assert table._repr_markdown_().splitlines() == [
        "Mean `length`:", "", "| layers | bare |", "|---|---|", "| 1 | 0.95 |"
    ]  # fmt: skip
    assert repr(table).splitlines() == [
        "Mean `length`:",
        "layers  bare",
        "1       0.95",
    ]
