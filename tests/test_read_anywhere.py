"""The chapters as files, read elsewhere than on a desk's site: every figure
legible on a phone (read off the stored fingerprints), every figure numbered
and captioned, every diagram's text legible on a phone, and a chapter's MyST
drawn by JupyterLab as the site draws it (no role it shows raw, exercises
numbered as the text cites them, links to the API that name the package's
objects). ``booktools.lab_markup`` rewrites a chapter's MyST to this form."""

from __future__ import annotations

import importlib
import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from booktools import lab_markup
from booktools.book import ROOT, notebooks as chapters
from mha.plotting.palette import HEAD_COLOURS
from mha.plotting.screens import PHONE_COLUMN, SMALLEST_PX

CHAPTERS = pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)


def _cells(path: Path, kind: str) -> list[dict]:
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == kind]


def _markdown(path: Path) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(path, "markdown"))


def _where(cell: dict) -> str:
    """A cell, as a reader finds it: its id and its first line of code."""
    lines = [x for x in "".join(cell["source"]).splitlines() if x and x[0] != "#"]
    return f"cell {cell.get('id')} ({lines[0][:50] if lines else ''})"


def _figures(path: Path):
    """(cell, the stored fingerprint) of every figure the chapter shows."""
    for cell in _cells(path, "code"):
        for output in cell["outputs"]:
            data = output.get("data", {})
            if "image/png" in data:
                yield cell, "".join(data.get("text/plain", ""))


# --- Figures ---------------------------------------------------------------------

LAYOUT = re.compile(r"(\d+)×(\d+) px, \d+ axes, smallest text ([\d.]+) px")


def shown_on_a_phone(fingerprint: str) -> float | None:
    """How tall, in CSS pixels, a figure's smallest text is in a phone's column,
    from its fingerprint: its phone layout's (the last layout it names) or its
    own; None if the fingerprint does not say (an older form)."""
    layouts = LAYOUT.findall(fingerprint)
    if not layouts:
        return None
    width, _, text = (float(v) for v in layouts[-1])
    return text * min(1.0, PHONE_COLUMN / width)


@pytest.mark.parametrize(
    ("fingerprint", "shown"),
    [
        ("<Figure 720×350 px, 3 axes, smallest text 12.5 px\n drawn 1>", 6.25),
        ("<Figure 720×350 px, 3 axes, smallest text 12.5 px\n drawn 1\n"
         " phone layout 450×600 px, 3 axes, smallest text 12.5 px, drawn 2>", 10.0),
        ("<Figure 300×200 px, 1 axes, smallest text 12.5 px\n drawn 1>", 12.5),
        ("<Figure 720×350 px, 3 axes\n drawn 1>", None),
    ],
)  # fmt: skip
def test_the_text_size_on_a_phone_is_read_off_the_fingerprint(fingerprint, shown):
    assert shown_on_a_phone(fingerprint) == shown


@CHAPTERS
def test_every_figure_reads_on_a_phone(path):
    """At a phone's column of 360 CSS px, every figure's smallest text is at
    least 9 px tall: the figure's phone layout's, or its own (a stored output
    made before the fingerprint named its text's size must be re-executed)."""
    small = []
    for cell, fingerprint in _figures(path):
        shown = shown_on_a_phone(fingerprint)
        if shown is None or shown < SMALLEST_PX:
            size = "not stated" if shown is None else f"{shown:.1f} px"
            small.append(f"{_where(cell)}: {size}")
    assert not small, "figure text too small on a phone: " + "; ".join(small)


@CHAPTERS
def test_every_figure_has_a_number_and_a_caption(path):
    """A figure a reader can cite: myst-nb numbers it (Fig. 4.2) when its cell
    gives it a name and a caption (``mystnb.figure``), and keeps its alt text."""
    missing = []
    for cell, _ in _figures(path):
        figure = cell["metadata"].get("mystnb", {}).get("figure", {})
        if not (figure.get("name") and len(figure.get("caption", "")) > 10):
            missing.append(_where(cell))
    assert not missing, f"figures without a name and caption: {missing}"


IMAGES = sorted((ROOT / "book" / "images").glob("*.svg"))


def _font_sizes(svg: ElementTree.Element) -> list[float]:
    sizes = []
    for element in svg.iter():
        size = element.get("font-size") or re.search(
            r"font-size:\s*([\d.]+)", element.get("style", "")
        )
        if isinstance(size, re.Match):
            size = size.group(1)
        if size and element.tag.endswith(("text", "tspan", "g", "svg")):
            sizes.append(float(size))
    return sizes


@pytest.mark.parametrize("image", IMAGES, ids=lambda p: p.name)
def test_every_diagram_reads_on_a_phone(image):
    """A diagram scales with the column: its smallest text, in its own units,
    times the column's width over its width (``viewBox``) is at least 9 CSS px
    in a phone's column of 360 px (the page shows it at least that wide)."""
    svg = ElementTree.parse(image).getroot()
    width = float(svg.get("viewBox").split()[2])
    sizes = _font_sizes(svg)
    assert sizes, "no text found"
    assert min(sizes) * PHONE_COLUMN / width >= SMALLEST_PX, (
        f"{min(sizes)} units in a {width:g}-unit-wide drawing: "
        f"{min(sizes) * PHONE_COLUMN / width:.1f} px on a phone"
    )


def test_the_heads_of_the_diagram_have_the_heads_colours():
    """Fig. 3.1 frames head h in head h's colour, as every figure does."""
    svg = (ROOT / "book" / "images" / "multihead.svg").read_text()
    frames = dict(re.findall(r'data-head="(\d+)"[^>]*stroke="(#[0-9A-Fa-f]{6})"', svg))
    assert len(frames) == 4
    for head, colour in frames.items():
        assert colour.upper() == HEAD_COLOURS[int(head)].upper(), f"head {head}"


# --- MyST that JupyterLab draws as the site does ----------------------------------

# jupyterlab-myst knows these roles; any other it draws as its raw text.
DRAWN_ROLES = {"cite", "cite:p", "cite:t", "term", "ref", "numref", "eq", "math",
               "abbr", "sub", "sup", "kbd", "doc"}  # fmt: skip
ROLE = re.compile(r"\{([a-z][\w:-]*)\}`")


@CHAPTERS
def test_no_role_that_jupyterlab_draws_raw(path):
    raw = sorted({m.group(1) for m in ROLE.finditer(_markdown(path))} - DRAWN_ROLES)
    assert not raw, (
        f"roles JupyterLab shows as raw text: {raw} (booktools.lab_markup "
        "turns them into links to the API page)"
    )


SPLIT_ROLE = re.compile(r"\{[a-z][\w:-]*\}`[^`]*\n[^`]*`")


@CHAPTERS
def test_no_role_runs_over_two_lines(path):
    """JupyterLab does not find the target of ``{ref}`title`` broken before
    its ``<label>`` (and says so in the console)."""
    split = SPLIT_ROLE.findall(_markdown(path))
    assert not split, f"roles over two lines (booktools.lab_markup joins them): {split}"


API_LINK = re.compile(r"\]\(api\.md#([^)\s]+)\)")


def _resolves(target: str) -> bool:
    """Whether ``target`` (``mha.text.tokenize``, ``module-mha.masks``) names a
    module of the package or an object in one."""
    name = target.removeprefix("module-")
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        if target.startswith("module-"):
            return split == len(parts)
        try:
            for attribute in parts[split:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.parametrize(
    ("target", "resolves"),
    [("mha.text.tokenize", True), ("mha.text.Vocab.encode_batch", True),
     ("module-mha.masks", True), ("mha.text.tokenise", False),
     ("module-mha.text.tokenize", False), ("numpy.zeros", True)],
)  # fmt: skip
def test_what_counts_as_a_link_to_an_object(target, resolves):
    assert _resolves(target) is resolves


@CHAPTERS
def test_links_to_the_api_page_name_the_packages_objects(path):
    targets = API_LINK.findall(_markdown(path))
    wrong = [t for t in targets if not t.removeprefix("module-").startswith("mha")]
    wrong += [t for t in targets if not _resolves(t)]
    assert not wrong, f"links to the API page that name no object of mha: {wrong}"


ENUMERATOR = re.compile(r"```\{exercise\}[^\n]*\n((?::[\w-]+:.*\n)*)")


@CHAPTERS
def test_exercises_carry_the_number_the_site_gives_them(path):
    """``:enumerator: N.k`` on the k-th exercise of chapter N (JupyterLab shows
    it; the site numbers the exercises itself, in the same order)."""
    chapter = lab_markup.chapter_numbers().get(path.name)
    options = ENUMERATOR.findall(_markdown(path))
    given = [re.search(r":enumerator: (\S+)", block) for block in options]
    numbers = [m.group(1) if m else None for m in given]
    assert numbers == [f"{chapter}.{k}" for k in range(1, len(options) + 1)], (
        "run python -m booktools.lab_markup on this chapter"
    )


def test_the_script_makes_a_chapter_pass_the_checks():
    """booktools.lab_markup on a chapter in the old form: roles become links
    that resolve, exercises get their numbers, nothing else changes."""
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source":
             "See {py:func}`mha.tokenize <mha.text.tokenize>`, {py:mod}`mha.masks`,\n"
             "{py:class}`~mha.block.EncoderBlock` and {cite:p}`vaswani2017`,\n"
             "{ref}`the argument\n<why>`.\n\n"
             "```{exercise}\n:label: one\n\nDo it.\n```\n"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": "x = 1"},
            {"cell_type": "markdown", "metadata": {}, "source":
             "```{exercise}\n:enumerator: 7.9\n:label: two\n\nAgain.\n```\n"},
        ]
    }  # fmt: skip
    lab_markup.rewrite(notebook, 4)
    first, code, second = (c["source"] for c in notebook["cells"])
    first, second = "".join(first), "".join(second)
    assert first.startswith(
        "See [`mha.tokenize`](api.md#mha.text.tokenize), "
        "[`mha.masks`](api.md#module-mha.masks),\n"
        "[`EncoderBlock`](api.md#mha.block.EncoderBlock) and {cite:p}`vaswani2017`,\n"
        "{ref}`the argument <why>`."
    )
    assert "```{exercise}\n:enumerator: 4.1\n:label: one\n" in first
    assert second == "```{exercise}\n:enumerator: 4.2\n:label: two\n\nAgain.\n```\n"
    assert code == "x = 1"
    assert all(_resolves(t) for t in API_LINK.findall(first))
