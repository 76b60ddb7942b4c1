"""Showing the package's own code in a chapter, so the book never holds a copy
that could drift from what runs."""

from __future__ import annotations

import inspect


class SourceCode:
    """Source text that Jupyter and the book show as a highlighted code block."""

    def __init__(self, source: str):
        self.source = source

    def __repr__(self) -> str:
        return self.source

    def _repr_markdown_(self) -> str:
        fence = "`" * max(3, _longest_backtick_run(self.source) + 1)
        return f"{fence}python\n{self.source.rstrip()}\n{fence}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def show_source(obj: object) -> SourceCode:
    """The source code of a class or function of the package.

    Both its plain-text and its Markdown form hold the source itself, so a
    notebook that stores it is checked (by nbval) against the current code.
    """
    try:
        source = inspect.getsource(obj)
    except (TypeError, OSError) as error:
        raise TypeError(
            f"obj must be a class, function or module with Python source, got {obj!r}"
        ) from error
    return SourceCode(source)
