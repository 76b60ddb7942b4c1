"""The API reference page of the built site: every public name of the package
is documented there, and nothing on it names the machine that built it."""

from __future__ import annotations

import inspect
import pkgutil
import re

import pytest

import mha

pytestmark = pytest.mark.browser


def public_names() -> list[str]:
    """``module.name`` for every public function and class of every module of mha."""
    names = []
    for info in pkgutil.iter_modules(mha.__path__):
        if info.name.startswith("_"):
            continue
        module = __import__(f"mha.{info.name}", fromlist=["_"])
        for name, obj in vars(module).items():
            if (
                not name.startswith("_")
                and (inspect.isfunction(obj) or inspect.isclass(obj))
                and obj.__module__ == module.__name__
            ):
                names.append(f"mha.{info.name}.{name}")
    return names


def test_every_public_name_has_an_entry(site_dir):
    ids = set(re.findall(r'id="([^"]+)"', (site_dir / "book" / "api.html").read_text()))
    missing = [name for name in public_names() if name not in ids]
    assert len(public_names()) > 50
    assert missing == []


def test_every_name_exported_by_mha_is_documented(site_dir):
    """Each name of ``mha.__all__`` (modules, constants, functions, classes)
    has an entry, under the module that defines it or under ``mha`` itself."""
    ids = set(re.findall(r'id="([^"]+)"', (site_dir / "book" / "api.html").read_text()))
    modules = [f"mha.{info.name}" for info in pkgutil.iter_modules(mha.__path__)]
    undocumented = []
    for name in mha.__all__:
        places = {f"mha.{name}", f"module-mha.{name}"}
        places |= {
            f"{module}.{name}"
            for module in modules
            if name in vars(__import__(module, fromlist=["_"]))
        }
        if not places & ids:
            undocumented.append(name)
    assert undocumented == []


def test_no_signature_shows_a_path_of_the_build_machine(site_dir):
    """A default such as ``Path(__file__).parent / ...`` would print the absolute
    path of wherever the book was built into the reference."""
    text = (site_dir / "book" / "api.html").read_text()
    assert "PosixPath(" not in text and "WindowsPath(" not in text
    root = str(site_dir.resolve().parents[1])
    assert root not in text
