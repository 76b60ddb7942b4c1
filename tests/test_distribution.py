"""How the book reaches readers: the Python it claims, Binder's environment, the
launch and repository buttons, the package's licence and the citation file.
Every claim is compared with its source (installed metadata, the pins)."""

from __future__ import annotations

import importlib.metadata as metadata
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

import mha_setup
from booktools.book import ROOT, load_extension

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
repository_buttons = load_extension("repository_buttons")

# Every Python release a package could name as its minimum.
PYTHONS = [
    Version(f"3.{minor}.{patch}") for minor in range(6, 16) for patch in range(30)
]


def pins(path: Path) -> dict[str, str]:
    """``name==version`` lines of a requirements file, by normalised name."""
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line and not line.startswith("-"):
            name, version = line.split("==")
            found[canonicalize_name(name)] = version.strip()
    return found


def installed(name: str, pinned: str) -> metadata.Distribution:
    """The installed distribution of a pin; it must be the pinned version."""
    dist = metadata.distribution(name)
    assert SpecifierSet(f"=={pinned}").contains(dist.version), (
        f"{name} {dist.version} is installed, the pin says {pinned}: run make"
    )
    return dist


def python_floor(dists: list[metadata.Distribution]) -> Version:
    """The oldest Python every one of ``dists`` accepts (their own Requires-Python)."""
    specs = [SpecifierSet(d.metadata.get("Requires-Python") or "") for d in dists]
    for python in PYTHONS:
        if all(spec.contains(python) for spec in specs):
            return python
    raise AssertionError("no Python accepts all of them")


def runtime_closure() -> list[metadata.Distribution]:
    """The installed distributions the package needs, directly or not (on this Python)."""
    todo = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    seen: dict[str, metadata.Distribution] = {}
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen or (
            requirement.marker and not requirement.marker.evaluate({"extra": ""})
        ):
            continue
        seen[name] = metadata.distribution(name)
        todo += [Requirement(r) for r in seen[name].requires or []]
    return list(seen.values())


def claimed_floor(specifier: str) -> Version:
    return next(v for v in PYTHONS if SpecifierSet(specifier).contains(v))


def test_the_package_claims_the_python_its_pinned_dependencies_need():
    requirements = pins(ROOT / "requirements.txt")
    closure = runtime_closure()
    for dist in closure:
        name = canonicalize_name(dist.metadata["Name"])
        if name in requirements:
            installed(name, requirements[name])
    needed = python_floor(closure)
    claimed = claimed_floor(PYPROJECT["project"]["requires-python"])
    assert claimed == needed, f"requires-python says {claimed}, the pins need {needed}"


def test_the_tooling_claims_the_python_the_whole_set_up_needs():
    """tools/pyproject.toml's requires-python is the set-up's floor (the
    Makefile checks it, CI runs on it)."""
    constraints = pins(ROOT / "constraints.txt")
    needed = python_floor(
        [installed(name, version) for name, version in constraints.items()]
    )
    tools = tomllib.loads((ROOT / "tools" / "pyproject.toml").read_text())
    assert claimed_floor(tools["project"]["requires-python"]) == needed


def test_binder_runs_a_python_the_package_accepts():
    """(runtime.txt cannot read the package's metadata: this test does.)"""
    claim = SpecifierSet(PYPROJECT["project"]["requires-python"])
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), runtime
    assert claim.contains(runtime.removeprefix("python-") + ".99")


def test_binder_installs_the_runtime_pins_cpu_torch_and_the_package():
    lines = [
        line.split("#", 1)[0].strip()
        for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    ]
    lines = [line for line in lines if line]
    assert f"--extra-index-url {mha_setup.CPU_INDEX}" in lines  # (it cannot read it)
    assert "-e .[book]" in lines
    binder = pins(ROOT / "binder" / "requirements.txt")
    project = PYPROJECT["project"]
    needed = {
        canonicalize_name(Requirement(r).name)
        for r in project["dependencies"] + project["optional-dependencies"]["book"]
    }
    # The package's dependencies, and the extension that renders the chapters' MyST.
    assert set(binder) == needed | {"jupyterlab-myst"}, "no test or site tools"
    book = pins(ROOT / "requirements.txt")
    assert {name: book[name] for name in binder} == binder, (
        "same pins as requirements.txt"
    )
    assert len(lines) == len(binder) + 2, lines


def test_opening_a_notebook_builds_no_uri_parsers():
    """nbformat, which every program here that opens a notebook imports, loads
    jsonschema, and jsonschema from 4.24 on loads rfc3987-syntax wherever it
    is installed, which builds its parsers on import (about 1.6 s of CPU in each
    such process: requirements.txt holds jsonschema before it)."""
    probe = "import nbformat, sys; print(sorted({'rfc3987_syntax', 'lark'} & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]", f"import nbformat loaded {out.strip()}"


def test_the_package_ships_its_licences():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert "CC BY 4.0" in (ROOT / "LICENSE-text.md").read_text()
    for name in project["license-files"]:
        assert (ROOT / name).is_file(), name
    # An SPDX licence string needs hatchling 1.27 or newer to build.
    (backend,) = map(Requirement, PYPROJECT["build-system"]["requires"])
    assert backend.name == "hatchling" and not backend.specifier.contains("1.26.3")


def test_the_citation_file_matches_the_book():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert citation["title"] == config["title"]
    assert PYPROJECT["project"]["license"] in citation["license"]
    assert all(ref["title"] and ref["authors"] for ref in citation["references"])


# -- Launch and repository buttons: there exactly when repository.url is set -------------


def built_chapter(tmp_path: Path, url: str) -> str:
    """The HTML of a one-chapter book built strictly with this book's _config.yml and
    ``url`` as its address; only what needs the real book's files is left out (static
    assets, favicon, bibliography)."""
    (tmp_path / "book").mkdir()
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# A chapter")]
    )
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, tmp_path / "book" / "chapter.ipynb")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/chapter\n")
    book = yaml.safe_load((ROOT / "_config.yml").read_text())
    book["repository"]["url"] = url
    book["execute"]["execute_notebooks"] = "off"
    book["sphinx"]["local_extensions"] = {  # the book's own extensions, from here
        name: str(ROOT / path)
        for name, path in book["sphinx"]["local_extensions"].items()
    }
    del book["html"]["favicon"]
    book.pop("bibtex_bibfiles", None)
    sphinx = book["sphinx"]["config"]
    sphinx["extensions"] = [
        e for e in sphinx["extensions"] if e != "sphinxcontrib.bibtex"
    ]
    for key in [k for k in sphinx if k.startswith("bibtex_")]:
        del sphinx[key]
    sphinx.update(html_static_path=[], html_css_files=[], nb_ipywidgets_js={})
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(book))
    # In a process of its own, as `make book` runs it (Sphinx's set-up walks every
    # live object, and this test process holds torch).
    jupyter_book = shutil.which("jupyter-book", path=Path(sys.executable).parent)
    build = subprocess.run(
        [
            jupyter_book,
            "build",
            tmp_path,
            "--config",
            tmp_path / "_config.yml",
            "--toc",
            tmp_path / "_toc.yml",
            "-W",
            "-n",
            "--keep-going",
        ],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return (tmp_path / "_build" / "html" / "book" / "chapter.html").read_text()


def links(html: str) -> set[str]:
    return set(
        re.findall(
            r'href="(https://(?:mybinder\.org|colab\.research|github\.com)[^"]*)"', html
        )
    )


def test_the_committed_config_has_no_address_yet():
    book = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert book["repository"]["url"] == ""


@pytest.mark.slow
def test_with_an_address_every_button_appears(tmp_path):
    found = links(built_chapter(tmp_path, "https://github.com/someone/the-book"))
    repo = "https://github.com/someone/the-book"
    assert (
        "https://mybinder.org/v2/gh/someone/the-book/main?urlpath=lab/tree/book/chapter.ipynb"
        in found
    )
    assert (
        "https://colab.research.google.com/github/someone/the-book/blob/main/"
        "book/chapter.ipynb" in found
    )
    assert repo in found  # the repository button
    assert f"{repo}/edit/main/book/chapter.ipynb" in found
    assert any(link.startswith(f"{repo}/issues/new") for link in found)


def test_without_an_address_there_are_no_buttons():
    """(The committed _config.yml has no address, so `make book` builds this case
    strictly; here: what the theme is told.)"""
    from jupyter_book.config import get_final_config

    book = yaml.safe_load((ROOT / "_config.yml").read_text())
    book["repository"]["url"] = ""
    config, _ = get_final_config(
        user_yaml=book,
        cli_config={"latex_individualpages": False},
        sourcedir=ROOT,
        validate=True,
        raise_on_invalid=True,
    )
    assert "book" in config["extensions"]  # _ext/book.py loads repository_buttons
    holder = type("Config", (), {"html_theme_options": config["html_theme_options"]})()
    repository_buttons.configure_buttons(None, holder)
    options = holder.html_theme_options
    for button in repository_buttons.REPOSITORY_BUTTONS:
        assert options[button] is False, button
    launchers = options["launch_buttons"]
    assert not any(launchers.get(key) for key in repository_buttons.LAUNCHERS), (
        launchers
    )


def test_a_bad_address_is_refused_by_name():
    holder = type("Config", (), {"html_theme_options": {"repository_url": 42}})()
    with pytest.raises(
        TypeError, match=r"repository\.url in _config\.yml must be a string"
    ):
        repository_buttons.configure_buttons(None, holder)


def test_the_publishing_workflow_fills_in_the_address():
    """publish.yml writes the repository's address into _config.yml with sed: its
    pattern must match the address line, and only that line."""
    workflow = (ROOT / ".github" / "workflows" / "publish.yml").read_text()
    pattern, replacement = re.search(
        r"sed -i 's\|(.+?)\|(.+?)\|' _config\.yml", workflow
    ).groups()
    config = (ROOT / "_config.yml").read_text()
    assert len(re.findall(pattern, config, flags=re.M)) == 1
    filled = re.sub(
        pattern,
        replacement.replace("${{ github.repository }}", "a/b"),
        config,
        flags=re.M,
    )
    assert yaml.safe_load(filled)["repository"]["url"] == "https://github.com/a/b"


# -- The bibliography ---------------------------------------------------------------------


def test_every_cited_work_is_in_the_bibliography_with_its_address():
    from pybtex.database import parse_file

    entries = parse_file(str(ROOT / "book" / "references.bib")).entries
    cited = set()
    for page in (ROOT / "book").glob("*.md"):
        for keys in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", page.read_text()):
            cited |= {key.strip() for key in keys.split(",")}
    assert cited and cited <= set(entries), cited - set(entries)
    for key, entry in entries.items():
        assert entry.persons.get("author") and entry.fields.get("title"), key
        assert entry.fields.get("url", "").startswith("https://"), key
        assert "doi" not in entry.fields, key
