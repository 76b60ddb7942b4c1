"""Every image of a page carries its size and loads lazily.

A Sphinx extension. The HTML writer gives an image its size only as a style
(``style="width: 720px; height: 460px"``), which the book's style sheet
overrides so that a figure shrinks with a phone's column; a browser then
keeps no room for the image until it has arrived, and the text below it
jumps. Here each ``<img>`` also gets ``width`` and ``height`` attributes,
from the size the notebook gave the figure or else from the file
(``sphinx.util.images.get_image_size``; the browser keeps room of that
shape), ``loading="lazy"`` (images far below the screen are fetched when
the reader scrolls towards them) and ``decoding="async"``.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx.util.images import get_image_size


def setup(app):
    app.add_node(nodes.image, override=True, html=(visit_image, depart_image))
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def visit_image(self, node: nodes.image) -> None:
    """The writer's own image, with the attributes above added to its tag."""
    size = shown_size(node, Path(self.builder.srcdir))  # before the writer moves uri
    node.setdefault("loading", "lazy")
    write = self.starttag

    def starttag(element, tagname, *args, **attributes):
        if element is node and tagname == "img":
            if size:
                attributes.setdefault("width", str(size[0]))
                attributes.setdefault("height", str(size[1]))
            attributes.setdefault("decoding", "async")
        return write(element, tagname, *args, **attributes)

    self.starttag = starttag
    try:
        type(self).visit_image(self, node)
    finally:
        del self.starttag


def depart_image(self, node: nodes.image) -> None:
    type(self).depart_image(self, node)


PIXELS = re.compile(r"([\d.]+)(px)?")


def shown_size(node: nodes.image, srcdir: Path) -> tuple[int, int] | None:
    """(width, height) in CSS pixels the image is shown at: its ``width`` and
    ``height`` in pixels, or the file's size (Sphinx's ``get_image_size``:
    PNG, JPEG, GIF, and SVG with a width and height); None if neither can be
    read."""
    given = [PIXELS.fullmatch(str(node.get(k, ""))) for k in ("width", "height")]
    if all(given):
        return round(float(given[0].group(1))), round(float(given[1].group(1)))
    uri = node.get("uri", "")
    if "://" in uri or uri.startswith("data:"):
        return None
    return get_image_size(str(srcdir / uri))  # None if it cannot be read
