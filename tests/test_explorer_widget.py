"""The explorer as a Jupyter widget (mha.explorer.widget): what
``mha.attention_explorer`` returns in a kernel, its front end the site's
own script, its setting as traits (read, set, observed; a bad value refused
by name), its reading computed by the package, and the notebook outputs it
gives beside the widget's view (those that need no kernel, which nbval
compares and the site draws). In a real JupyterLab:
tests/browser/test_live_explorer.py."""

from __future__ import annotations

import inspect
import shutil
import subprocess

import pytest
import yaml
from myst_nb.core.render import get_mime_priority

import mha
import mha.explorer
from booktools import explorer_site
from booktools.book import ROOT
from mha.explorer.models import padded, reading
from mha.explorer.notebook import MIME, WIDGET_EXPORT, Explorer, front_end
from mha.explorer.widget import ExplorerWidget

VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def explorer() -> Explorer:
    return mha.attention_explorer()  # outside a kernel: the page's explorer


@pytest.fixture
def widget(explorer) -> ExplorerWidget:
    shown = ExplorerWidget(explorer)
    yield shown
    shown.close()
    explorer.initial.update(option="trained", n_heads=4, mask="none", n_pad=1)
    explorer.initial["sentence"] = explorer.sentences[0]


def test_in_a_kernel_the_explorer_is_a_widget_and_elsewhere_not(monkeypatch):
    assert not mha.explorer._in_kernel()
    assert type(mha.attention_explorer(weights=["random"])) is Explorer
    monkeypatch.setattr(mha.explorer, "_in_kernel", lambda: True)
    shown = mha.attention_explorer(weights=["random"])
    assert isinstance(shown, ExplorerWidget) and shown.model == "random"
    shown.close()


def test_its_front_end_is_the_sites_script():
    """One front end: the script the site serves (and a notebook's HTML
    holds), with one line that hands anywidget its render."""
    assert ExplorerWidget._esm == front_end("explorer.js") + WIDGET_EXPORT
    assert ExplorerWidget._css == front_end("explorer.css")
    served = {name: front_end(name) for name in explorer_site.FILES}
    assert served["explorer.js"] + WIDGET_EXPORT == ExplorerWidget._esm


def test_its_front_end_parses_as_an_es_module(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed (Debian: apt-get install nodejs)")
    module = tmp_path / "widget.mjs"
    module.write_text(ExplorerWidget._esm, encoding="utf-8")
    done = subprocess.run(
        [node, "--check", str(module)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_its_traits_start_at_the_first_setting(widget, explorer):
    assert widget.setting() == {
        "model": "trained",
        "sentence": explorer.sentences[0],
        "mask": "none",
        "padding": 1,
        "heads": 4,
        "layer": 1,
    }
    assert widget._data == explorer.data
    assert widget.reading().tokens == mha.tokenize(explorer.sentences[0])


def test_a_setting_set_from_python_is_the_one_read_and_stored(widget, explorer):
    widget.heads = 2
    widget.mask = "padding"
    widget.padding = 2
    widget.sentence = "a basic example"
    tokens = padded(mha.tokenize("a basic example"), "padding", 2)
    expected = reading(explorer.network("trained", 2), tokens, "padding")
    got = widget.reading()
    assert got.tokens == expected.tokens == ["a", "<pad>", "<pad>"]
    for ours, theirs in zip(got.probs, expected.probs, strict=True):
        assert (ours == theirs).all()
    # Shown again, its outputs are of this setting (its digest and picture).
    assert widget.explorer.initial == {
        "option": "trained",
        "n_heads": 2,
        "mask": "padding",
        "n_pad": 2,
        "sentence": "a basic example",
    }
    assert widget._repr_mimebundle_()[0]["text/plain"] == repr(explorer)


def test_a_change_from_the_page_is_observed(widget):
    """What the front end sends (a reader's click) sets the traits, as
    ipywidgets sets them from a message, and observers hear it."""
    seen = []
    widget.observe(lambda change: seen.append((change["name"], change["new"])))
    widget.set_state({"model": "random", "heads": 8, "layer": 1})
    assert ("heads", 8) in seen and ("model", "random") in seen
    assert widget.setting()["heads"] == 8
    assert widget.explorer.initial["option"] == "random"


@pytest.mark.parametrize(
    ("name", "value", "error", "message"),
    [
        ("heads", 3, ValueError, "heads must be one of 1, 2, 4, 8, got 3"),
        ("heads", "2", TypeError, "heads must be an int, got str '2'"),
        ("heads", True, TypeError, "heads must be an int, got bool True"),
        ("mask", "causall", ValueError,
         "mask must be one of 'none', 'causal', 'padding', got 'causall'"),
        ("mask", None, TypeError, "mask must be a str, got NoneType None"),
        ("model", "untrained", ValueError,
         "model must be one of 'trained', 'random', got 'untrained'"),
        ("padding", 0, ValueError, "padding must be one of 1, 2, 3, got 0"),
        ("padding", 1.5, TypeError, "padding must be an int, got float 1.5"),
        ("layer", 2, ValueError, "layer must be one of 1, got 2"),
        ("sentence", 5, TypeError, "sentence must be a str, got int 5"),
        ("sentence", "the cat sat", ValueError,
         "sentence must be one the model can read, got 'the cat sat' "
         "(unknown: the, cat, sat)"),
        ("sentence", " ".join(["example"] * 41), ValueError,
         "sentence must be one the model can read, got 'example example "),
        ("sentence", "  ", ValueError,
         "sentence must be one a model can read: text must contain at least one word"),
    ],
)  # fmt: skip
def test_a_bad_value_is_refused_by_name(widget, name, value, error, message):
    before = widget.setting()
    with pytest.raises(error) as refused:
        setattr(widget, name, value)
    assert str(refused.value).startswith(message)
    assert widget.setting() == before


def test_it_gives_the_outputs_that_need_no_kernel_beside_its_view(widget, explorer):
    forms, metadata = widget._repr_mimebundle_()
    page = explorer._repr_mimebundle_()
    assert set(forms) == {VIEW, MIME, "text/html", "text/plain"}
    assert forms[VIEW]["model_id"] == widget.model_id
    # The picture and note, the site's data, the digest: as the page's explorer's.
    assert {k: forms[k] for k in page} == page
    assert 'class="mha-fallback"' in forms["text/html"]
    assert repr(widget) == repr(explorer)
    assert isinstance(metadata, dict)


def test_the_site_draws_its_own_output_type_and_never_the_widget_view():
    """The site's priority (myst-nb, _config.yml): the explorer's type first,
    the widget view never (a chapter stores no widget state)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    overrides = [tuple(o) for o in config.get("nb_mime_priority_overrides", [])]
    for builder in ("html", "dirhtml"):
        priority = get_mime_priority(builder, overrides)
        assert priority[0] == MIME
        assert VIEW not in priority


def test_nbval_leaves_the_random_view_out():
    """The view's model id is new on every run: nbval does not compare it
    (its own list of outputs it skips), so it needs no pattern of
    tests/nbval_sanitize.cfg."""
    from nbval.plugin import IPyNbFile

    assert f"'{VIEW}'" in inspect.getsource(IPyNbFile.__init__)


def test_it_is_made_from_an_explorer():
    with pytest.raises(TypeError, match="explorer must be an mha.explorer.notebook"):
        ExplorerWidget("explorer")


def test_under_ipywidgets_7_it_gives_the_same_outputs(widget, monkeypatch):
    """ipywidgets 7 (Colab's) shows a widget by ``_ipython_display_`` (its view
    and a repr cut at 110 characters); the explorer's widget leaves that
    method out, so IPython shows all its outputs, as under ipywidgets 8."""
    import ipywidgets
    from IPython.core.formatters import DisplayFormatter

    called = []

    def version_7_display(self, **kwargs):  # ipywidgets 7.7.1's: the view, the repr cut
        called.append(self)

    monkeypatch.setattr(
        ipywidgets.Widget, "_ipython_display_", version_7_display, raising=False
    )
    forms, _ = DisplayFormatter().format(widget)
    assert called == []
    assert set(forms) == {VIEW, MIME, "text/html", "text/plain"}
    assert forms["text/plain"] == repr(widget.explorer)
