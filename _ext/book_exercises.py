"""Exercises that carry their number for JupyterLab.

A Sphinx extension. JupyterLab (jupyterlab-myst) sees one notebook and
numbers its exercises 1, 2, ...; the site numbers them after their chapter,
4.1, 4.2, ..., as the text cites them. An exercise of the book gives its
number as ``:enumerator: 4.1``, which jupyterlab-myst shows; here the
``exercise`` directive accepts that option too and leaves the numbering to
the site (``booktools.lab_markup`` writes the numbers, a test of the
chapters checks them).

A solution's title, "Solution to Exercise 4.1", links to its exercise;
sphinx-exercise puts the space after "to" inside the link, whose underline
then starts with it. :class:`SpaceBeforeTheLink` moves it out.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx_exercise.directive import ExerciseDirective
from sphinx_exercise.nodes import solution_node, solution_start_node


class Exercise(ExerciseDirective):
    """sphinx-exercise's exercise, with ``:enumerator:`` (JupyterLab's number)."""

    option_spec = {**ExerciseDirective.option_spec, "enumerator": directives.unchanged}

    def run(self):
        self.options.pop("enumerator", None)
        return super().run()


class SpaceBeforeTheLink(SphinxPostTransform):
    """In each solution's title, the link's leading spaces put before it."""

    default_priority = 22  # after sphinx-exercise's titles of solutions (21)

    def run(self, **kwargs) -> None:
        for solution in self.document.findall(
            lambda n: isinstance(n, (solution_node, solution_start_node))
        ):
            for title in solution.findall(nodes.title):
                move_leading_space(title)


def move_leading_space(title: nodes.Element) -> None:
    """Every link of ``title`` whose text starts with a space: the space
    written before the link instead."""
    for link in list(title.findall(nodes.reference)):
        first = link.children[0] if link.children else None
        if not isinstance(first, nodes.Text) or not first.startswith(" "):
            continue
        text = first.astext()
        link.replace(first, nodes.Text(text.lstrip(" ")))
        link.parent.insert(link.parent.index(link), nodes.Text(" "))


def setup(app):
    app.setup_extension("sphinx_exercise")
    app.add_directive("exercise", Exercise, override=True)
    app.add_post_transform(SpaceBeforeTheLink)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
