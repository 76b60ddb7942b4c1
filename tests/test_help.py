"""What ``help(mha)`` shows a reader in a terminal: a map of the package first,
each layer's own ``__init__`` and ``forward`` documented (not PyTorch's words
for every module), and no Sphinx markup where plain text reads better."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import pydoc
import re
import subprocess
import sys

import torch.nn as nn

import mha

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|obj|exc):`")


def modules() -> list:
    return [mha] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(mha.__path__, prefix="mha.")
    ]


def test_the_package_docstring_maps_every_public_name_and_submodule():
    """Its map lists each name of ``__all__`` once, and nothing else; its last
    paragraph names every public submodule."""
    mapped = []
    for line in mha.__doc__.splitlines():
        if line.startswith("    "):  # "    what it is      name, name"
            names = re.split(r"\s{2,}", line.strip())[-1]
            mapped += [name.strip() for name in names.split(",") if name.strip()]
    assert sorted(mapped) == sorted(mha.__all__)
    named = set(re.findall(r"\bmha\.(\w+)", mha.__doc__.split("Everything else")[1]))
    public = {i.name for i in pkgutil.iter_modules(mha.__path__) if i.name[0] != "_"}
    assert named == public


def test_every_layer_documents_its_own_init_and_forward():
    layers = {
        obj
        for module in modules()
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, nn.Module) and obj.__module__.startswith("mha.")
    }
    assert mha.MultiHeadAttention in layers and len(layers) >= 6
    for layer in layers:
        for method in ("__init__", "forward"):
            doc = getattr(layer.__dict__.get(method), "__doc__", None)
            assert doc and len(doc.split()) >= 5, f"{layer.__name__}.{method}"


def test_help_shows_no_sphinx_roles_of_the_package():
    """(Roles in what PyTorch's inherited methods say are PyTorch's.)"""
    own = [mha.__doc__]
    for name in mha.__all__:
        obj = getattr(mha, name)
        own.append(inspect.getdoc(obj) or "")
        if inspect.isclass(obj):
            own += [m.__doc__ or "" for m in vars(obj).values() if callable(m)]
    found = [doc[:80] for doc in own if ROLE.search(doc)]
    assert not found, found


def test_help_starts_with_the_map():
    text = pydoc.render_doc(mha, renderer=pydoc.plaintext)
    assert text.index("What ``import mha`` gives") < 400
    assert (
        "Define the computation performed at every call"
        not in text.split("Methods inherited from")[0]
    )


WITHOUT_FIGURES = """
import sys


class PlainInstall:  # as if pip had installed mha without its extra `book`
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("matplotlib", "PIL"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, PlainInstall())
import pydoc

import mha

page = pydoc.render_doc(mha, renderer=pydoc.plaintext)
print("page:", "class MultiHeadAttention" in page, "show_source" in page)
try:
    mha.display_attention
except ModuleNotFoundError as error:
    print("error:", error)
try:
    mha.attention_explorer()
except ModuleNotFoundError as error:
    print("explorer:", error)
"""


def test_help_and_a_figure_without_matplotlib_say_what_to_install():
    """On a plain install, help(mha) shows the page, and a figure function
    names the extra that brings matplotlib."""
    ran = subprocess.run(
        [sys.executable, "-c", WITHOUT_FIGURES], capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    page, error, explorer = ran.stdout.splitlines()
    assert page == "page: True True"
    assert 'pip install "mha[book]"' in error and error.startswith("error: mha.")
    assert explorer.startswith("explorer: mha.attention_explorer: ")
    assert 'pip install "mha[book]"' in explorer
