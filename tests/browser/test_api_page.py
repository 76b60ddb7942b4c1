"""The API reference page of the built site: every public name of the package
is documented there, and nothing on it names the machine that built it."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import pkgutil
import re

import pytest

import mha
from booktools.book import PAGES

pytestmark = pytest.mark.browser


@functools.cache
def modules() -> list:
    """Every public module of mha, subpackages' modules included (walked once)."""
    found = [mha]
    for info in pkgutil.walk_packages(mha.__path__, prefix="mha."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(__import__(info.name, fromlist=["_"]))
    return found


def public_names() -> list[str]:
    """``module.name`` for every public function and class, where it is defined."""
    return [
        f"{module.__name__}.{name}"
        for module in modules()
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    ]


def api_ids(site_dir) -> set[str]:
    return set(
        re.findall(r'id="([^"]+)"', (site_dir / "book" / "api.html").read_text())
    )


@pytest.fixture(scope="module")
def api_page(site_dir):
    """The API page parsed as HTML, once for the module's tests (which only
    read it; they go to one worker together: tests/browser/conftest.py)."""
    from bs4 import BeautifulSoup

    return BeautifulSoup((site_dir / PAGES["api"]).read_text(), "html.parser")


def test_every_public_name_has_an_entry(site_dir):
    names = public_names()
    assert "mha.training.loop.fit" in names  # the walk reaches the subpackages
    ids = api_ids(site_dir)
    missing = [name for name in names if name not in ids]
    assert missing == []


def test_every_name_exported_by_mha_is_documented(site_dir):
    """Each name of ``mha.__all__`` has an entry where it is defined (for data
    such as ``SENTENCES``, which knows no module: in a module that holds it)."""
    ids = api_ids(site_dir)

    def homes(name: str) -> list[str]:
        obj = getattr(mha, name)
        if getattr(obj, "__module__", None):
            return [obj.__module__]
        return [m.__name__ for m in modules()[1:] if vars(m).get(name) is obj]

    undocumented = [
        name
        for name in mha.__all__
        if not any(f"{home}.{name}" in ids for home in homes(name))
    ]
    assert undocumented == []


def test_no_signature_shows_a_path_of_the_build_machine(site_dir):
    """A default such as ``Path(__file__).parent / ...`` would print the absolute
    path of wherever the book was built into the reference."""
    text = (site_dir / "book" / "api.html").read_text()
    assert "PosixPath(" not in text and "WindowsPath(" not in text
    root = str(site_dir.resolve().parents[1])
    assert root not in text


def test_a_callable_constant_is_documented_as_a_constant(api_page):
    """GRAMMAR, a Grammar object (callable), is an entry of data with no
    field at all: no parameters and no return type (Sphinx's autodoc gave it
    those of Grammar.__call__ until _ext/book_api.py), and no type made of
    its comment's first words (napoleon reads "text: more" as "type:
    description")."""
    page = api_page
    for name in ("GRAMMAR", "FRONTED_GRAMMAR"):
        entry = page.find(id=f"mha.training.agreement.{name}").find_parent("dl")
        assert "py" in entry["class"] and "data" in entry["class"], entry["class"]
        fields = [
            dt.get_text(" ", strip=True) for dt in entry.select("dl.field-list > dt")
        ]
        assert fields == [], fields


def test_every_entry_lists_its_parameters_once(api_page):
    """No entry has two lists of parameters, nor two return types: Sphinx adds
    the signature's types to each field list of an entry, and napoleon's
    Shape section parts an entry's fields in two (MultiHeadAttention listed
    its parameters a second time, with their types alone, until
    _ext/book_api.py)."""
    page = api_page
    entries = page.select("dl.py")
    assert len(entries) > 100  # the whole package's entries were read
    twice = []
    for entry in entries:
        (body,) = entry.find_all("dd", recursive=False)
        names = [
            dt.get_text(" ", strip=True).rstrip(" :")
            for field_list in body.find_all("dl", class_="field-list", recursive=False)
            for dt in field_list.find_all("dt", recursive=False)
        ]
        doubled = {n for n in names if names.count(n) > 1}
        if doubled:
            twice.append((entry.dt.get("id"), sorted(doubled)))
    assert twice == []


def test_every_entry_s_fields_read_parameters_returns_raises(api_page):
    """Parameters, then what is returned, then what is raised, in every entry
    (the signature's types went after a docstring's own Raises: tokenize,
    causal_mask and six more read Raises first, until _ext/book_api.py)."""
    place = {"Parameters": 0, "Returns": 1, "Return type": 1, "Raises": 2}
    page = api_page
    out_of_order = []
    for entry in page.select("dl.py"):
        (body,) = entry.find_all("dd", recursive=False)
        names = [
            dt.get_text(" ", strip=True).rstrip(" :")
            for field_list in body.find_all("dl", class_="field-list", recursive=False)
            for dt in field_list.find_all("dt", recursive=False)
        ]
        places = [place[n] for n in names if n in place]
        if places != sorted(places):
            out_of_order.append((entry.dt.get("id"), names))
    assert out_of_order == []


def test_no_entry_names_a_private_module(site_dir):
    """A type is named where a reader imports it from (``torch.Generator``),
    not by its private home (``torch._C.Generator``, which an expanded type
    alias showed), and no entry links into a private module of mha."""
    text = (site_dir / "book" / "api.html").read_text()
    private = sorted(set(re.findall(r"\b(?:torch|mha)(?:\.\w+)*\._\w+", text)))
    assert private == [], private


def test_no_class_lists_a_name_as_parameter_and_as_attribute(api_page):
    """A dataclass's fields are listed once: as its attributes, with their
    descriptions (RunningExample, both Readings and Task listed them also as
    parameters, with their types alone, until _ext/book_api.py)."""
    page = api_page
    twice, dataclasses_seen = [], 0
    for entry in page.select("dl.py.class"):
        module, _, name = entry.dt.get("id").rpartition(".")
        if not dataclasses.is_dataclass(getattr(importlib.import_module(module), name)):
            continue  # (a class's parameters may differ from its attributes)
        dataclasses_seen += 1
        (body,) = entry.find_all("dd", recursive=False)
        params = {
            strong.get_text(strip=True)
            for field_list in body.find_all("dl", class_="field-list", recursive=False)
            for dt in field_list.find_all("dt", recursive=False)
            if dt.get_text(strip=True).startswith("Parameters")
            for strong in dt.find_next_sibling("dd").select("strong")
        }
        attributes = {
            dt.get("id", "").rsplit(".", 1)[-1]
            for dt in body.select("dl.py.attribute > dt")
        }
        if params & attributes:
            twice.append((entry.dt.get("id"), sorted(params & attributes)))
    assert dataclasses_seen >= 4  # RunningExample, Task, the two Readings
    assert twice == []


def test_the_sample_axe_checks_has_every_style_of_the_page(api_page):
    """The sections of the API page that axe checks (``API_SAMPLE``) hold
    every kind of element, with its classes, that the page's text has (code
    blocks aside, checked on their own), so a colour the page gives text is
    in what axe sees."""
    from booktools.pages import API_SAMPLE

    article = api_page.select_one("article")

    def kinds(element) -> set:
        return {
            (e.name, " ".join(sorted(e.get("class", []))))
            for e in element.find_all(True)
            if not e.find_parent(class_="highlight")
            and "highlight" not in e.get("class", [])
        } - {("section", ""), ("h1", ""), ("section", "mathjax_ignore tex2jax_ignore")}

    sampled = set().union(*(kinds(article.find(id=section)) for section in API_SAMPLE))
    assert kinds(article) - sampled == set()
