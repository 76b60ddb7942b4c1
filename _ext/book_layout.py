"""The page template, and every script loaded without delaying the text.

A Sphinx extension. ``templates/layout.html`` (the theme's layout, extended)
keeps Sphinx's search scripts and the search index off every page but the
search page, leaves out the theme's 1.5 MB icon script, and settles the
colour theme (light or dark) before the first paint; it uses the template
filter ``without_script`` defined here. Every script of a page is loaded
with ``defer`` (in document order, after the page has been parsed) instead
of blocking the first paint, except ``documentation_options.js``, which the
inline lines after it extend, and the search page's, which its template
needs at once.
"""

from __future__ import annotations

import re
from pathlib import Path

# Scripts that must run before the inline lines that follow them in <head>.
KEEP_BLOCKING = ("_static/documentation_options.js",)


def setup(app):
    app.connect("config-inited", _add_templates)
    app.connect("builder-inited", _add_template_filters)
    # After myst-nb and the other extensions have added their scripts.
    app.connect("html-page-context", defer_scripts, priority=900)
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


def defer_scripts(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if isinstance(scripts, list) and pagename != "search":
        scripts[:] = [deferred(js) for js in scripts]


def deferred(js):
    """The same script, loaded with ``defer`` (inline scripts and JSON stay as they are)."""
    if (
        not js.filename
        or str(js.filename) in KEEP_BLOCKING
        or "async" in js.attributes
        or "defer" in js.attributes
    ):
        return js
    attributes = {**js.attributes, "defer": "defer"}
    return type(js)(js.filename, priority=js.priority, **attributes)
