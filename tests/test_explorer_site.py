"""booktools.explorer_site: myst-nb's render plugin for the explorer's output
type (registered as an entry point of the book's tooling) and the Sphinx
extension that loads the front end on the pages with an explorer only. (The
strict build of the whole book and the browser tests check them together.)"""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from types import SimpleNamespace

import pytest
from docutils import nodes
from myst_nb.core.render import MimeData, get_mime_priority

import mha
from booktools import explorer_site as site
from mha.explorer.look import CALL_KEYS
from mha.explorer.notebook import MIME, front_end


@pytest.fixture(scope="module")
def stored():
    """An explorer's data as a notebook stores it, a sentence with markup."""
    data = mha.attention_explorer(weights=["random"], head_counts=[1]).data
    return {key: data[key] for key in CALL_KEYS} | {"sentences": ["a </script> b"]}


def test_the_plugin_is_registered_for_myst_nb_and_chosen_first_on_html_pages():
    found = [
        e
        for e in entry_points(group="myst_nb.mime_renderers")
        if e.name == "mha-explorer"
    ]
    assert [e.load() for e in found] == [site.ExplorerMime]
    assert get_mime_priority("html", [])[0] == MIME
    assert MIME not in get_mime_priority("latex", [])


def test_an_explorer_output_becomes_its_element_with_its_data(stored):
    for content in (stored, json.dumps(stored)):
        (node,) = site.ExplorerMime.handle_mime(None, MimeData(MIME, content), False)
        assert isinstance(node, nodes.raw) and node["format"] == "html"
        assert site.CLASS in node["classes"]
        text = node.astext()
        assert text.startswith('<div class="mha-explorer">')
        assert '<script type="application/json" class="mha-data">' in text
        assert text.count("</script>") == 1  # the data's "</script>" stays text
        shown = json.loads(text.split('class="mha-data">')[1].split("</script>")[0])
        assert shown == site.page(stored)  # with this package's words and look
        assert shown["sentences"] == stored["sentences"] and shown["words"]
        assert "<noscript>" in text


def test_other_outputs_are_left_to_myst_nb(stored):
    assert (
        site.ExplorerMime.handle_mime(None, MimeData("text/html", "<p>"), False) is None
    )
    assert site.ExplorerMime.handle_mime(None, MimeData(MIME, stored), True) is None


class App:
    def __init__(self, folder):
        self.js, self.css, self.hooks = [], [], {}
        self.doctreedir = folder

    def add_js_file(self, name, **kwargs):
        self.js.append((name, kwargs))

    def add_css_file(self, name, **kwargs):
        self.css.append(name)

    def connect(self, event, hook):
        self.hooks[event] = hook


def test_the_front_end_loads_on_pages_with_an_explorer_only(stored, tmp_path):
    app = App(tmp_path)
    assert site.setup(app)["parallel_read_safe"]
    config = SimpleNamespace(html_static_path=["assets"])
    app.hooks["config-inited"](app, config)
    assert config.html_static_path == ["assets", str(tmp_path / "mha-explorer")]
    for name in ("explorer.js", "explorer.css"):  # the script joined from its modules
        assert (tmp_path / "mha-explorer" / name).read_text() == front_end(name)
    plain = nodes.document(None, None)
    plain += nodes.raw("", "<p>x</p>", format="html")
    app.hooks["html-page-context"](app, "intro", "page.html", {}, plain)
    app.hooks["html-page-context"](app, "search", "search.html", {}, None)
    assert app.js == [] and app.css == []
    with_one = nodes.document(None, None)
    with_one += site.ExplorerMime.handle_mime(None, MimeData(MIME, stored), False)
    app.hooks["html-page-context"](app, "chapter", "page.html", {}, with_one)
    assert app.js == [("explorer.js", {"loading_method": "defer"})]
    assert app.css == ["explorer.css"]
