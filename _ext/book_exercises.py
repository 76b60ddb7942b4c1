"""Exercises that carry their number for JupyterLab.

A Sphinx extension. JupyterLab (jupyterlab-myst) sees one notebook and
numbers its exercises 1, 2, ...; the site numbers them after their chapter,
4.1, 4.2, ..., as the text cites them. An exercise of the book gives its
number as ``:enumerator: 4.1``, which jupyterlab-myst shows; here the
``exercise`` directive accepts that option too and leaves the numbering to
the site (``booktools.lab_markup`` writes the numbers, a test of the
chapters checks them).
"""

from __future__ import annotations

from docutils.parsers.rst import directives
from sphinx_exercise.directive import ExerciseDirective


class Exercise(ExerciseDirective):
    """sphinx-exercise's exercise, with ``:enumerator:`` (JupyterLab's number)."""

    option_spec = {**ExerciseDirective.option_spec, "enumerator": directives.unchanged}

    def run(self):
        self.options.pop("enumerator", None)
        return super().run()


def setup(app):
    app.setup_extension("sphinx_exercise")
    app.add_directive("exercise", Exercise, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
