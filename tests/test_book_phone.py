"""_ext/book_phone.py: a figure's phone layout, stored in the notebook beside
the desk's PNG, becomes a file of the site and a <picture> source of the
page's image."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import torch
from docutils import nodes

import mha
from booktools.book import load_extension
from mha.plotting.figure import PHONE_MIME
from mha.plotting.screens import PHONE_SCREEN

book_phone = load_extension("book_phone")


def figure_output(fig) -> dict:
    """The output a notebook stores for ``fig`` (as IPython makes it)."""
    data, metadata = fig._repr_mimebundle_()
    return {"output_type": "display_data", "data": data, "metadata": metadata}


def notebook(*outputs) -> str:
    cell = {
        "cell_type": "code",
        "source": "x",
        "metadata": {},
        "outputs": list(outputs),
    }
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4})


def fake_app():
    env = SimpleNamespace(doc2path=lambda name: Path(f"/book/{name}.ipynb"))
    builder = SimpleNamespace(get_target_uri=lambda name: f"{name}.html")
    return SimpleNamespace(env=env, builder=builder)


def four_maps():
    tokens = ["i", "wonder", "what", "will", "come", "next"]
    attention = torch.full((4, 6, 6), 1 / 6)
    return mha.display_attention(tokens, tokens, attention, 4, 2, 2)


def test_the_mime_type_is_the_one_the_package_stores():
    assert book_phone.MIME == PHONE_MIME


def test_a_phone_layout_becomes_a_file_and_a_source_of_the_desk_image():
    fig = four_maps()
    assert fig.phone is not None
    output = figure_output(fig)
    app = fake_app()
    source = [notebook(output)]
    book_phone.take_phone_layouts(app, "book/chapter", source)
    data = json.loads(source[0])["cells"][0]["outputs"][0]["data"]
    assert PHONE_MIME not in data and "image/png" in data  # myst-nb sees the desk's
    desk = hashlib.sha256(base64.b64decode(data["image/png"])).hexdigest()
    (kept,) = app.env.book_phone_sources["book/chapter"]
    assert kept == desk
    # The page as myst-nb and Sphinx write it: the desk's image, in a link.
    img = f'<img alt="maps" src="../_images/{desk}.png" width="674" height="659" />'
    body = f'<a class="image-reference" href="../_images/{desk}.png">{img}</a>'
    other = '<img src="../_images/' + "0" * 64 + '.png" />'
    html = book_phone.with_phone_sources(
        body + other, app.env.book_phone_sources["book/chapter"], "book/chapter.html"
    )
    element, png = app.env.book_phone_sources["book/chapter"][desk]
    name = book_phone._file_name(png)
    assert html.startswith('<a class="image-reference"')
    source = (
        f'<source media="(max-width: {PHONE_SCREEN}px)" '
        f'srcset="../_images/phone/{name}"'
    )
    assert f"<picture>{source}" in html
    assert f"{img}</picture></a>" in html
    assert html.endswith(other)  # an image without a phone layout stays as it was
    assert "data:" not in html
    width, height = (fig.phone.get_size_inches() * 100).round().astype(int)
    assert f'width="{width}" height="{height}"' in element
    assert png.startswith(b"\x89PNG")


def test_pages_without_phone_layouts_are_left_alone():
    app = fake_app()
    tokens = ["a", "b"]
    one = mha.display_attention(tokens, tokens, torch.full((1, 2, 2), 0.5), 1, 1, 1)
    assert one.phone is None  # small enough for a phone as it is
    source = [notebook(figure_output(one))]
    before = source[0]
    book_phone.take_phone_layouts(app, "book/chapter", source)
    assert source[0] == before
    app.env.doc2path = lambda name: Path("/book/intro.md")
    markdown = ["# A page that names " + PHONE_MIME]
    book_phone.take_phone_layouts(app, "book/intro", markdown)
    assert markdown == ["# A page that names " + PHONE_MIME]


def table(columns: int):
    """A docutils table of ``columns`` columns: a header row and two rows."""
    from docutils.core import publish_doctree

    rule = " ".join(["======"] * columns)
    header = "  ".join(f"h{i}    " for i in range(columns))
    rows = ["  ".join(f"r{r}c{i}  " for i in range(columns)) for r in range(2)]
    (found,) = publish_doctree("\n".join([rule, header, rule, *rows, rule])).findall(
        nodes.table
    )
    return found


def test_a_wide_table_gets_its_phone_class_a_narrow_one_stays_as_it_is():
    wide = table(3)
    before = [e.astext() for e in wide.findall(nodes.entry)]
    assert book_phone.mark_wide(wide)
    assert book_phone.WIDE_TABLE in wide["classes"]
    assert [e.astext() for e in wide.findall(nodes.entry)] == before  # cells untouched
    narrow = table(2)
    assert not book_phone.mark_wide(narrow)
    assert book_phone.WIDE_TABLE not in narrow["classes"]
