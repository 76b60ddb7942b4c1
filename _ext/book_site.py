"""Site-level tweaks of the book's HTML pages: text first, widgets later.

A Sphinx extension (listed under ``sphinx.local_extensions`` in _config.yml).
On every HTML page it

- adds ``<meta name="description">``, taken from the page's first paragraph;
- loads every script with ``defer`` (in document order, after the page has
  been parsed) instead of blocking the first paint, except
  ``documentation_options.js``, which the inline lines after it extend;
- puts a static preview before each widget: the widget as it first looks
  (labels, the chosen value of each control, the first frame), built from
  the page's widget state;
- if the book is switched back to MathJax (``html_math_renderer: mathjax``;
  by default formulas are MathML, written when the book is built, and
  ``book_fonts`` preloads their font), asks for MathJax and its three most
  used fonts at once (``<link rel="preload">``);
- lets long inline code (``torch.nn.functional.scaled_dot_product_attention``)
  break after its dots, underscores and commas (``<wbr>``) rather than
  anywhere, when it has to break to fit a phone;
- gives every image of a page its size (``width``/``height``, so the text
  around it never moves when it arrives) and ``loading="lazy"`` (images far
  below the screen are fetched when the reader scrolls towards them);
- moves that widget state (the precomputed frames, often most of the page's
  bytes: 1.4 MB on the playground) out of the page into a script of its own,
  ``_static/widget-state/<page>.js``, named in the ``data-widget-state``
  attribute of the widget loader (``widgets/widgets-setup.js``). The loader
  fetches it, with the widget manager (a 3.5 MB script), only when the
  reader first scrolls, touches, clicks or types; the live widgets then take
  the previews' places. (A script rather than JSON: it loads from
  ``file://`` too.)

The template ``templates/layout.html`` keeps Sphinx's search scripts and the
search index off every page but the search page, where they are used, and
settles the colour theme (light or dark) before the first paint.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

from docutils import nodes

STATE_TYPE = "application/vnd.jupyter.widget-state+json"
VIEW_SCRIPT = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S
)
# Scripts that must run before the inline lines that follow them in <head>.
KEEP_BLOCKING = ("_static/documentation_options.js",)
DESCRIPTION_LENGTH = 155  # what search engines show of a description
# Where a paragraph is not the page's own introduction.
NOT_INTRO = (
    nodes.Admonition,
    nodes.sidebar,
    nodes.topic,
    nodes.table,
    nodes.footnote,
    nodes.citation,
    nodes.field_list,
    nodes.system_message,
)


def setup(app):
    app.connect("config-inited", _add_templates)
    app.connect("builder-inited", _add_template_filters)
    app.connect(
        "html-page-context", _on_page, priority=900
    )  # after myst-nb adds its scripts
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def _add_templates(app, config) -> None:
    config.templates_path.insert(0, str(Path(__file__).parent / "templates"))


def _add_template_filters(app) -> None:
    templates = getattr(app.builder, "templates", None)
    if templates is not None and hasattr(templates, "environment"):
        templates.environment.filters["without_script"] = without_script


def without_script(html_text: str, path: str) -> str:
    """``html_text`` without the ``<script>`` tag that loads ``path``."""
    pattern = (
        r'\s*<script\b[^>]*\bsrc="[^"]*' + re.escape(path) + r'[^"]*"[^>]*>\s*</script>'
    )
    return re.sub(pattern, "", str(html_text))


def _on_page(app, pagename, templatename, context, doctree) -> None:
    description = page_description(doctree) or _root_description(app)
    if description:
        context["metatags"] = (context.get("metatags") or "") + (
            f'\n    <meta name="description" content="{html.escape(description)}" />'
        )
    if "body" in context:
        context["body"] = break_points(
            size_images(context["body"], _image_sources(app))
        )
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    context["metatags"] = (context.get("metatags") or "") + preload_mathjax(
        app, context, scripts
    )
    state = next(
        (js for js in scripts if js.attributes.get("type") == STATE_TYPE), None
    )
    if (
        pagename != "search"
    ):  # there, the search scripts of the template need them at once
        scripts[:] = [_deferred(js) for js in scripts]
    if state is not None and "body" in context:
        scripts.remove(state)
        body = state.attributes["body"]
        context["body"] = add_previews(context["body"], json.loads(body)["state"])
        path, version = write_state(app.outdir, pagename, body)
        url = f"{context['pathto'](path, 1)}?v={version}"
        loaders = set(app.config.nb_ipywidgets_js)
        scripts[:] = [
            _with(js, {"data-widget-state": url})
            if str(js.filename).removeprefix("_static/") in loaders
            else js
            for js in scripts
        ]


STATE_SCRIPT = """// The widget state of one page of the book, loaded by widgets-setup.js when
// the reader first moves. It puts the state where the widget manager reads it.
(function (state) {
  var tag = document.createElement("script");
  tag.type = "%s";
  tag.textContent = JSON.stringify(state);
  document.body.appendChild(tag);
})(%s);
"""


def write_state(outdir, pagename: str, state_json: str) -> tuple[str, str]:
    """Write a page's widget state as a script: (its path in the site, a
    version that changes when the state does)."""
    path = f"_static/widget-state/{pagename.replace('/', '-')}.js"
    target = Path(outdir) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    text = STATE_SCRIPT % (STATE_TYPE, state_json)
    target.write_text(text, encoding="utf-8")
    return path, hashlib.sha256(text.encode()).hexdigest()[:10]


def _with(js, extra: dict):
    return type(js)(js.filename, priority=js.priority, **{**js.attributes, **extra})


MATHJAX_FONTS = ("MathJax_Zero", "MathJax_Main-Regular", "MathJax_Math-Italic")


def preload_mathjax(app, context, scripts) -> str:
    """<link rel="preload"> tags for MathJax and its fonts, if the page loads it."""
    path = str(getattr(app.config, "mathjax_path", "") or "")
    mathjax = next(
        (js for js in scripts if path and str(js.filename).endswith(path)), None
    )
    if mathjax is None or "://" in path:
        return ""
    src = re.search(r'\ssrc="([^"]+)"', context["js_tag"](mathjax)).group(1)
    fonts = path.rsplit("/", 1)[0] + "/output/chtml/fonts/woff-v2"
    links = [f'<link rel="preload" as="script" href="{src}" />'] + [
        f'<link rel="preload" as="font" type="font/woff" crossorigin="anonymous" '
        f'href="{context["pathto"](f"_static/{fonts}/{name}.woff", 1)}" />'
        for name in MATHJAX_FONTS
    ]
    return "".join(f"\n    {link}" for link in links)


def _deferred(js):
    """The same script, loaded with ``defer`` (inline scripts and JSON stay as they are)."""
    if (
        not js.filename
        or str(js.filename) in KEEP_BLOCKING
        or "async" in js.attributes
        or "defer" in js.attributes
    ):
        return js
    return _with(js, {"defer": "defer"})


# -- long inline code ---------------------------------------------------------

INLINE_CODE = re.compile(r'<span class="pre">([^<]{16,})</span>')


def break_points(body: str) -> str:
    """Allow a line break after each dot, underscore, comma and opening
    bracket of long inline code (Sphinx puts its text in <span class="pre">)."""
    return INLINE_CODE.sub(
        lambda m: (
            '<span class="pre">'
            + re.sub(r"([._,(/]+)(?=\w)", r"\1<wbr>", m.group(1))
            + "</span>"
        ),
        body,
    )


# -- images -------------------------------------------------------------------

IMG = re.compile(r"<img\b[^>]*>")


def _image_sources(app) -> dict[str, Path]:
    """{file name in the site's _images/: its source file}"""
    images = getattr(app.builder, "images", {}) or {}
    return {name: Path(app.srcdir) / source for source, name in images.items()}


def size_images(body: str, sources: dict[str, Path]) -> str:
    """Add loading="lazy", decoding="async" and, when the file's size can be
    read, width and height to every <img> of ``body`` that lacks them."""

    def replace(match: re.Match) -> str:
        tag = match.group(0)
        extra = []
        if 'src="data:' in tag:  # already in the page: nothing to wait for
            return tag
        if " loading=" not in tag:
            extra += ['loading="lazy"', 'decoding="async"']
        src = re.search(r'\ssrc="([^"]+)"', tag)
        if src and " width=" not in tag and " height=" not in tag:
            source = sources.get(src.group(1).rsplit("/", 1)[-1])
            size = image_size(source) if source else None
            if size:
                extra += [f'width="{size[0]}"', f'height="{size[1]}"']
        if not extra:
            return tag
        end = -2 if tag.endswith("/>") else -1
        return f"{tag[:end].rstrip()} {' '.join(extra)} {tag[end:]}".replace("  ", " ")

    return IMG.sub(replace, body)


def image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) in CSS pixels of a PNG, JPEG, GIF or SVG file, or None."""
    try:
        if path.suffix.lower() == ".svg":
            head = path.read_text(encoding="utf-8", errors="replace")[:4000]
            root = re.search(r"<svg\b[^>]*>", head)
            if not root:
                return None
            attrs = dict(re.findall(r'\s([\w:-]+)="([^"]*)"', root.group(0)))
            sizes = [
                re.fullmatch(r"([\d.]+)(px)?", attrs.get(k, ""))
                for k in ("width", "height")
            ]
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


# -- page description ---------------------------------------------------------


def page_description(doctree) -> str:
    """The page's first paragraph of prose as one line, cut at a word near
    DESCRIPTION_LENGTH characters."""
    if doctree is None:
        return ""
    for paragraph in doctree.findall(nodes.paragraph):
        if _has_ancestor(
            paragraph,
            lambda n: isinstance(n, NOT_INTRO) or "cell_output" in n.get("classes", []),
        ):
            continue
        text = " ".join(paragraph.astext().split())
        if len(text) >= 40:  # skip one-word lines such as a lone link or label
            return shorten(text)
    return ""


def shorten(text: str, limit: int = DESCRIPTION_LENGTH) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:—–- ")
    return cut + "…"


def _has_ancestor(node, test) -> bool:
    parent = node.parent
    while parent is not None:
        if test(parent):
            return True
        parent = parent.parent
    return False


def _root_description(app) -> str:
    """For pages without a text of their own (index, search): the book's
    description, from the first paragraph of its root page."""
    try:
        return page_description(app.env.get_doctree(app.config.root_doc))
    except Exception:  # the root page is always read, but never fail a page on it
        return ""


# -- widget previews ----------------------------------------------------------


def add_previews(body: str, state: dict) -> str:
    """Put a static preview before each widget view of ``body``."""

    def replace(match: re.Match) -> str:
        try:
            model_id = json.loads(match.group(1))["model_id"]
            preview = WidgetPreview(state).render(model_id)
        except (KeyError, ValueError, TypeError):
            preview = None
        if not preview:
            return match.group(0)
        return f'<div class="widget-preview">{preview}</div>{match.group(0)}'

    return VIEW_SCRIPT.sub(replace, body)


class WidgetPreview:
    """HTML that looks like a widget before the widget manager has drawn it:
    boxes, the selected child of each stack, HTML as it is, and each control
    as a picture of itself (its label and chosen value; not focusable, hidden
    from screen readers, which get the figure and its caption). Returns None
    for any model it does not know, so that widget simply has no preview."""

    BOXES = {"VBoxModel": "wp-vbox", "BoxModel": "wp-vbox", "HBoxModel": "wp-hbox"}
    HTML = {"HTMLModel", "HTMLMathModel"}
    SLIDERS = {"SelectionSliderModel", "IntSliderModel", "FloatSliderModel"}

    def __init__(self, state: dict):
        self.state = state

    def model(self, ref: str) -> dict:
        return self.state[ref.removeprefix("IPY_MODEL_")]

    def render(self, model_id: str) -> str | None:
        model = self.state[model_id]
        name, s = model["model_name"], model["state"]
        layout = self.model(s["layout"])["state"] if s.get("layout") else {}
        if layout.get("display") == "none" or layout.get("visibility") == "hidden":
            return ""
        if name in self.BOXES:
            children = [
                self.render(ref.removeprefix("IPY_MODEL_")) for ref in s["children"]
            ]
            if any(child is None for child in children):
                return None
            return f'<div class="{self.BOXES[name]}">{"".join(children)}</div>'
        if name == "StackModel":
            index = s.get("selected_index")
            if index is None:
                return ""
            return self.render(s["children"][index].removeprefix("IPY_MODEL_"))
        if name in self.HTML:
            return f'<div class="wp-html">{s.get("value", "")}</div>'
        if name == "LabelModel":
            return f'<div class="wp-html">{html.escape(s.get("value", ""))}</div>'
        label = html.escape(s.get("description", ""))
        label = f'<span class="wp-label">{label}</span>' if label else ""
        if name == "DropdownModel":
            value = self._chosen(s)
            return (
                f'<div class="wp-row wp-dropdown" aria-hidden="true">{label}'
                f'<span class="wp-select">{value}</span></div>'
            )
        if name == "ToggleButtonsModel":
            buttons = "".join(
                f'<span class="wp-button{" wp-active" if i == s.get("index") else ""}">'
                f"{html.escape(option)}</span>"
                for i, option in enumerate(s.get("_options_labels", []))
            )
            return (
                f'<div class="wp-row wp-toggle" aria-hidden="true">{label}'
                f'<span class="wp-buttons">{buttons}</span></div>'
            )
        if name in self.SLIDERS:
            position, readout = self._slider(name, s)
            return (
                f'<div class="wp-row wp-slider" aria-hidden="true">{label}'
                f'<span class="wp-track"><span class="wp-handle" '
                f'style="left:{position:.1f}%"></span></span>'
                f'<span class="wp-readout">{readout}</span></div>'
            )
        return None

    @staticmethod
    def _chosen(s: dict) -> str:
        options, index = s.get("_options_labels", []), s.get("index")
        return html.escape(options[index]) if index is not None and options else ""

    @staticmethod
    def _slider(name: str, s: dict) -> tuple[float, str]:
        """(handle position in %, readout text)."""
        if name == "SelectionSliderModel":
            options = s.get("_options_labels", [])
            index = s.get("index") or 0
            span = max(len(options) - 1, 1)
            return 100 * index / span, html.escape(options[index]) if options else ""
        low, high, value = s.get("min", 0), s.get("max", 100), s.get("value", 0)
        span = (high - low) or 1
        return 100 * (value - low) / span, html.escape(str(value))
