"""The set-up cell every chapter starts with: one source, and it works where a
reader opens a chapter outside the repository (Colab, Binder, a download)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient

from booktools import setup_cell
from booktools.book import ROOT

# The chapter the last test runs on its own: the first of _toc.yml (a short one).
ALONE = setup_cell.chapters()[0]


def cell_for(tmp_path: Path, url: str, branch: str = "main") -> str:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"] = {
        **config.get("repository", {}),
        "url": url,
        "branch": branch,
    }
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    return setup_cell.render(tmp_path / "_config.yml")


def run_cell(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "<set-up cell>", "exec"), namespace)
    return namespace


@pytest.fixture
def mha_missing(monkeypatch):
    """As in a kernel where the package is not installed (find_spec gives None)."""
    monkeypatch.setitem(sys.modules, "mha_setup", None)
    monkeypatch.delenv("MHA_INSTALL_SOURCE", raising=False)


@pytest.fixture
def pip_calls(monkeypatch):
    """Record what the cell asks pip to do, without running it (pip fails)."""
    calls = []

    def fake_run(command, *args, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, returncode=1)

    monkeypatch.setattr(subprocess, "run", fake_run)
    return calls


def solution_chapter() -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# A chapter"),
            nbformat.v4.new_code_cell("old = 1"),
            nbformat.v4.new_code_cell("kept = 2"),
            nbformat.v4.new_markdown_cell("```{exercise}\n:label: e\n\nWhy?\n```"),
            nbformat.v4.new_markdown_cell(
                "```{solution-start} e\n:class: dropdown\n```\nBecause."
            ),
            nbformat.v4.new_code_cell("answer = 3"),
            nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
            nbformat.v4.new_code_cell("after = 4"),
        ]
    )


def test_a_solution_is_found_when_one_cell_ends_one_and_opens_the_next():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    chapter = nbformat.v4.new_notebook(
        cells=[
            md("Text\n```{exercise}\n:label: a\n```\n```{solution-start} a\n```"),
            code("first = 1"),
            md(
                "```{solution-end}\n```\n```{exercise}\n:label: b\n```\n"
                "```{solution-start} b\n```\nBecause."
            ),
            code("second = 2"),
            md("```{solution-end}\n```\n## Summary"),
            code("not_a_solution = 3"),
        ]
    )
    found = setup_cell.solution_code_cells(chapter)
    assert [cell.source for cell in found] == ["first = 1", "second = 2"]


def test_the_writer_fills_first_code_cells_folds_solutions_and_leaves_prose_alone(
    tmp_path,
):
    chapter, prose = tmp_path / "chapter.ipynb", tmp_path / "prose.ipynb"
    nbformat.write(solution_chapter(), chapter)
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Prose")]),
        prose,
    )
    before = prose.read_bytes()
    assert setup_cell.write([chapter, prose], "new = 1") == [chapter]
    cells = nbformat.read(chapter, as_version=4).cells
    assert [c.source for c in cells if c.cell_type == "code"] == [
        "new = 1",
        "kept = 2",
        "answer = 3",
        "after = 4",
    ]
    setup = cells[1].metadata
    assert setup["tags"] == ["remove-cell"]
    assert setup["jupyter"] == {"source_hidden": True}  # folded in JupyterLab
    assert setup["cellView"] == "form"  # Colab shows its title alone
    assert cells[5].metadata["jupyter"] == {
        "source_hidden": True,
        "outputs_hidden": True,
    }
    for other in (cells[2], cells[7]):
        assert "jupyter" not in other.metadata and "tags" not in other.metadata
    assert prose.read_bytes() == before
    assert setup_cell.write([chapter, prose], "new = 1") == []  # nothing left to change
    # A chapter rewritten by hand (a solution unfolded) is written again.
    notebook = nbformat.read(chapter, as_version=4)
    notebook.cells[5].metadata["jupyter"]["outputs_hidden"] = False
    nbformat.write(notebook, chapter)
    assert setup_cell.write([chapter], "new = 1") == [chapter]
    assert nbformat.read(chapter, as_version=4).cells[5].metadata["jupyter"] == {
        "source_hidden": True,
        "outputs_hidden": True,
    }


def test_the_template_shows_a_title_and_little_else():
    """Colab's form view shows the first line (``# @title ...``) alone; the cell
    itself stays short: the logic lives in mha_setup, installed with mha."""
    lines = setup_cell.render().splitlines()
    assert lines[0].startswith("# @title Set-up: ")
    assert len(lines) <= 40
    assert "mha_setup.run()" in setup_cell.render()


def test_the_install_source_comes_from_the_repository_address(tmp_path):
    assert setup_cell.install_source("") == ""
    assert (
        setup_cell.install_source("https://github.com/someone/the-book.git/", "pages")
        == "mha @ https://github.com/someone/the-book/archive/refs/heads/pages.zip"
    )
    assert (
        setup_cell.install_source("https://gitlab.com/someone/the-book")
        == "mha @ git+https://gitlab.com/someone/the-book@main"
    )
    cell = cell_for(tmp_path, "https://github.com/someone/the-book")
    assert (
        '"mha @ https://github.com/someone/the-book/archive/refs/heads/main.zip"'
        in cell
    )
    assert setup_cell.PLACEHOLDER not in cell


@pytest.mark.parametrize(
    "url", ["http://github.com/a/b", "github.com/a/b", 'https://x/"y']
)
def test_a_bad_repository_address_is_refused_by_name(url):
    with pytest.raises(
        ValueError, match=r"repository\.url in _config\.yml must be .*got"
    ):
        setup_cell.install_source(url)


def test_in_a_set_up_clone_the_cell_only_checks(monkeypatch):
    def no_pip(*args, **kwargs):
        raise AssertionError("the cell ran a command although mha is installed")

    monkeypatch.setattr(subprocess, "run", no_pip)
    namespace = run_cell(setup_cell.render())
    assert set(namespace) == {"__builtins__"}  # it leaves no names behind


def test_without_an_address_it_stops_with_instructions(
    tmp_path, mha_missing, pip_calls
):
    with pytest.raises(
        Exception, match=r"needs the book's package `mha`.*pip install"
    ) as stopped:
        run_cell(cell_for(tmp_path, ""))
    assert type(stopped.value).__name__ == "MhaSetupError"
    assert "make lab" not in str(stopped.value)
    # Jupyter shows the message alone, without a traceback.
    assert stopped.value._render_traceback_() == [f"MhaSetupError: {stopped.value}"]
    assert pip_calls == []


@pytest.mark.parametrize(
    "url",
    ["https://github.com/someone/the-book", "https://gitlab.com/someone/the-book"],
)
def test_with_an_address_it_installs_mha_alone_from_there(
    tmp_path, mha_missing, pip_calls, url
):
    """(pip_calls makes pip fail: the message must then carry the address.)"""
    source = setup_cell.install_source(url)
    with pytest.raises(Exception, match="could not be installed") as stopped:
        run_cell(cell_for(tmp_path, url))
    (command,) = pip_calls
    assert command == [
        sys.executable,
        *("-m", "pip", "install", "-q", "--no-deps"),
        source,
    ]
    message = stopped.value._render_traceback_()
    assert len(message) == 1 and url in message[0]
    assert f'`pip install "{source}"`' in message[0]


def test_mha_install_source_overrides_the_address(
    tmp_path, mha_missing, pip_calls, monkeypatch
):
    url = "https://github.com/someone/the-book"
    monkeypatch.setenv("MHA_INSTALL_SOURCE", "/some/clone")
    with pytest.raises(Exception, match="/some/clone"):
        run_cell(cell_for(tmp_path, url))
    assert pip_calls[0][-1] == "/some/clone"


# -- A chapter opened alone, in an environment without mha ------------------------------


def visible_packages(farm: Path) -> None:
    """Link every package of this environment into ``farm`` except mha itself."""
    site = Path(sysconfig.get_paths()["purelib"])
    farm.mkdir()
    for entry in site.iterdir():
        name = entry.name.lower()
        if name.startswith(("mha", "__editable__", "_mha")) or name.endswith(".pth"):
            continue
        (farm / entry.name).symlink_to(entry)


def package_copy(target: Path) -> Path:
    """The files pip needs to build mha from this checkout, copied (so that building
    it never writes into the checkout)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project, build = pyproject["project"], pyproject["build-system"]
    backend = [  # a backend of the checkout's own, if it names one
        f"{folder}/{build['build-backend']}.py"
        for folder in build.get("backend-path", [])
    ]
    target.mkdir()
    for name in [
        "pyproject.toml",
        project["readme"],
        *project.get("license-files", []),
        *backend,
    ]:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)
    shutil.copytree(
        ROOT / "src",
        target / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
    )
    return target


def test_a_wheel_holds_what_src_holds_whatever_build_held(tmp_path):
    """setuptools built through build/lib/ and never emptied it; the package's
    backend (hatchling) builds from src/: a file left in build/ is not
    shipped, and nothing is written there."""
    checkout = package_copy(tmp_path / "checkout")
    stale = checkout / "build" / "lib" / "mha" / "stale.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("LEFT_BY_AN_EARLIER_BUILD = True\n")
    wheels = tmp_path / "wheels"
    # What pip does with a clone (pip install <clone>): the backend that
    # pyproject.toml names, in an isolated set-up of its own.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, "."],
        cwd=checkout,
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("mha-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {n for n in archive.namelist() if ".dist-info/" not in n}
    src = checkout / "src"
    expected = {
        p.relative_to(src).as_posix()
        for p in src.rglob("*")
        # the package's modules and weights, and the explorer's front end
        if p.is_file() and p.suffix in (".py", ".pt", ".js", ".css")
    }
    assert shipped == expected
    assert "mha_setup.py" in shipped  # the set-up cell's module ships with mha
    assert [p.name for p in (checkout / "build").rglob("*.py")] == ["stale.py"]


@pytest.mark.slow
@pytest.mark.skipif(
    os.name == "nt",
    reason="shares this environment's packages through "
    "symbolic links, which Windows grants only with extra rights",
)
def test_a_chapter_opened_alone_installs_mha_and_runs(tmp_path, make_kernel):
    """A chapter copied out of the repository runs top to bottom in a fresh virtual
    environment that lacks mha: its first cell installs mha (from a copy of this
    checkout instead of the repository's address: the tests have no network).
    The fresh environment sees this one's packages (torch, Jupyter's kernel) through
    a path file, so only mha is installed."""
    fresh = tmp_path / "fresh"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True
    )
    python = fresh / "bin" / "python"  # (not on Windows: see the skip above)
    fresh_site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    visible_packages(tmp_path / "visible")
    (fresh_site / "visible.pth").write_text(f"{tmp_path / 'visible'}\n")
    # Found (not imported: importing torch is the cell's job, which the
    # chapter's run below does) and missing, in the fresh environment.
    probe = subprocess.run(
        [
            python,
            "-c",
            "import importlib.util as u; "
            "print([u.find_spec(m) is not None for m in ('ipykernel', 'torch', 'mha')])",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert probe.stdout.strip() == "[True, True, False]", (
        "ipykernel and torch must be found, mha missing before the cell runs: "
        + probe.stdout
    )

    reader = tmp_path / "reader"
    reader.mkdir()
    chapter = reader / ALONE.name
    shutil.copy2(ALONE, chapter)
    notebook = nbformat.read(chapter, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("import mha; print(mha.__file__)"))

    kernel = make_kernel(python)
    # What a reader's kernel sees: none of the settings the book's own runs use.
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "PYTHONPATH")}
    env["MHA_INSTALL_SOURCE"] = str(package_copy(tmp_path / "checkout"))
    NotebookClient(
        notebook, km=kernel, timeout=120, resources={"metadata": {"path": str(reader)}}
    ).execute(env=env)

    installed = notebook.cells[-1].outputs[0]["text"].strip()
    assert Path(installed).is_relative_to(fresh_site), installed
    # ... installed as a package, licences included.
    (dist_info,) = fresh_site.glob("mha-*.dist-info")
    shipped = {p.name for p in (dist_info / "licenses").iterdir()}
    assert shipped == set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license-files"]
    )
    assert "License-Expression: MIT" in (dist_info / "METADATA").read_text()
