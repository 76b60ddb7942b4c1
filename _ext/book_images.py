"""Every image of a page carries its size and loads lazily.

A Sphinx extension. The HTML writer gives an image its size only as a style
(``style="width: 720px; height: 460px"``), which the book's style sheet
overrides so that a figure shrinks with a phone's column; a browser then
keeps no room for the image until it has arrived, and the text below it
jumps. Here each ``<img>`` also gets ``width`` and ``height`` attributes,
from the size the notebook gave the figure or else from the file (the
browser keeps room of that shape), ``loading="lazy"`` (images far below the
screen are fetched when the reader scrolls towards them) and
``decoding="async"``.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes


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
    ``height`` in pixels, or the file's size; None if neither can be read."""
    given = [PIXELS.fullmatch(str(node.get(k, ""))) for k in ("width", "height")]
    if all(given):
        return round(float(given[0].group(1))), round(float(given[1].group(1)))
    uri = node.get("uri", "")
    return None if "://" in uri or uri.startswith("data:") else image_size(srcdir / uri)


def image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) in CSS pixels of a PNG, JPEG, GIF or SVG file, or None."""
    try:
        if path.suffix.lower() == ".svg":
            head = path.read_text(encoding="utf-8", errors="replace")[:4000]
            root = re.search(r"<svg\b[^>]*>", head)
            if not root:
                return None
            attrs = dict(re.findall(r'\s([\w:-]+)="([^"]*)"', root.group(0)))
            sizes = [PIXELS.fullmatch(attrs.get(k, "")) for k in ("width", "height")]
            if all(sizes):
                return round(float(sizes[0].group(1))), round(float(sizes[1].group(1)))
            box = attrs.get("viewBox", "").replace(",", " ").split()
            return (
                (round(float(box[2])), round(float(box[3]))) if len(box) == 4 else None
            )
        from PIL import Image

        with Image.open(path) as image:
            return image.size
    except (OSError, ValueError):
        return None
