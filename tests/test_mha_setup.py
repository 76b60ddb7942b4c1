"""mha_setup, what a chapter's first cell runs once mha is installed: it installs
what mha lacks without touching the platform's torch and kernel, refuses (in
one line, on every run) a session that still runs replaced packages (Colab's
ipywidgets 7 is kept: no restart for it), and
switches on Colab's widget manager."""

from __future__ import annotations

import importlib.metadata as metadata
import os
import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import ipywidgets
import nbformat
import pytest
from nbclient import NotebookClient

import mha_setup
from booktools import setup_cell
from booktools.book import ROOT


@pytest.fixture
def versions(monkeypatch):
    """Installed versions as the test says (``None``: not installed); the rest real."""
    fake: dict[str, str | None] = {}
    real = metadata.version

    def version(name):
        if name in fake:
            if fake[name] is None:
                raise metadata.PackageNotFoundError(name)
            return fake[name]
        return real(name)

    monkeypatch.setattr(metadata, "version", version)
    return fake


class Pip(list):
    """The pip commands run, each with its constraints; pip fails if told to."""

    returncode = 0


@pytest.fixture
def pip(monkeypatch) -> Pip:
    calls = Pip()

    def fake_run(command, *args, **kwargs):
        constraints = Path(command[command.index("--constraint") + 1]).read_text()
        calls.append({"command": command, "constraints": constraints})
        return subprocess.CompletedProcess(command, returncode=calls.returncode)

    monkeypatch.setattr(subprocess, "run", fake_run)
    return calls


def test_every_requirement_of_mha_has_the_form_the_set_up_reads():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert set(extras) == {mha_setup.EXTRA}, "the set-up installs this extra"
    requirements = project["dependencies"] + extras[mha_setup.EXTRA]
    for requirement in requirements:
        assert mha_setup.REQUIREMENT.fullmatch(requirement), requirement
    # As the installed package states them: the extra's with their marker.
    for requirement in metadata.requires("mha"):
        found = mha_setup.REQUIREMENT.fullmatch(requirement)
        assert found, requirement
        assert found.group(3) in (None, mha_setup.EXTRA), requirement


def test_the_layer_needs_no_figure_or_widget_package():
    """`pip install mha` brings the layer's needs; the figures' and the
    explorers' are the extra the set-up installs (and asks for: below)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {
        mha_setup.REQUIREMENT.fullmatch(r).group(1) for r in project["dependencies"]
    }
    assert names == {"torch", "numpy"}
    extra = {
        mha_setup.REQUIREMENT.fullmatch(r).group(1)
        for r in project["optional-dependencies"][mha_setup.EXTRA]
    }
    assert {"matplotlib", "pillow", "anywidget"} <= extra


def test_the_extra_keeps_colabs_ipywidgets_7():
    """anywidget serves ipywidgets 7 and 8: the extra asks for no ipywidgets newer
    than Colab's 7.7.1 (which would make the set-up ask for a restart)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for requirement in project["optional-dependencies"][mha_setup.EXTRA]:
        name, minimum, _ = mha_setup.REQUIREMENT.fullmatch(requirement).groups()
        if name == "ipywidgets":
            assert mha_setup.release(minimum) <= mha_setup.release("7.7.1")


def test_this_session_runs_the_mha_that_is_installed():
    """(Else the set-up would take every session for one that runs an old mha.)"""
    assert mha_setup.changed_since_loaded() == []


def test_release_reads_the_leading_numbers():
    assert mha_setup.release("8.1.9") == (8, 1, 9)
    assert mha_setup.release("2.13.0+cpu") == (2, 13, 0)
    assert mha_setup.release("7.7.1") < mha_setup.release("8")
    with pytest.raises(ValueError, match="version must start with a number, got 'x'"):
        mha_setup.release("x")


def test_unmet_requirements_are_the_missing_and_the_too_old(versions):
    assert mha_setup.unmet_requirements() == []  # this environment has them all
    versions.update(ipywidgets="7.7.1", pillow=None, numpy="1.24.0")
    assert mha_setup.unmet_requirements() == ["pillow>=9.3"]  # Colab's ipywidgets do
    versions.update(ipywidgets="7.5.1", anywidget=None)
    # (in the order of the metadata, which the build backend may sort)
    assert sorted(mha_setup.unmet_requirements()) == [
        "anywidget>=0.9.9",
        "ipywidgets>=7.6",
        "pillow>=9.3",
    ]


@pytest.fixture
def colab_widgets(monkeypatch, versions):
    """Colab's case: ipywidgets 7.7.1 installed, and loaded before the set-up."""
    monkeypatch.setattr(ipywidgets, "__version__", "7.7.1")
    versions.update(ipywidgets="7.7.1")


def test_with_colabs_ipywidgets_it_installs_anywidget_and_asks_no_restart(
    colab_widgets, versions, pip
):
    versions.update(anywidget=None)
    mha_setup.run()  # no MhaSetupError: nothing loaded was replaced
    (call,) = pip
    assert call["command"][:4] == [sys.executable, "-m", "pip", "install"]
    assert call["command"][-1] == "anywidget>=0.9.9"
    assert "--extra-index-url" not in call["command"]  # torch is there
    assert mha_setup.changed_since_loaded() == []
    mha_setup.run()  # and again, as the chapter's cell run twice


def test_it_installs_what_is_missing_and_keeps_the_platforms_torch_and_kernel(
    versions, pip, monkeypatch
):
    versions.update(pillow=None, anywidget=None)
    mha_setup.run()
    (call,) = pip
    assert call["command"][:4] == [sys.executable, "-m", "pip", "install"]
    assert sorted(call["command"][-2:]) == ["anywidget>=0.9.9", "pillow>=9.3"]
    assert "--extra-index-url" not in call["command"]  # torch is there
    kept = set(call["constraints"].split())
    for name in ("torch", "ipykernel", "ipython"):
        assert f"{name}=={metadata.version(name)}" in kept


def test_without_torch_on_linux_it_asks_for_the_cpu_build(versions, pip, monkeypatch):
    versions.update(torch=None)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delitem(sys.modules, "torch")  # (restored after the test)
    mha_setup.run()
    (call,) = pip
    assert call["command"][-3:] == [
        "torch>=2.0",
        "--extra-index-url",
        mha_setup.CPU_INDEX,
    ]
    assert "torch==" not in call["constraints"]


def test_a_failed_install_says_what_to_run(versions, pip):
    versions.update(pillow=None)
    pip.returncode = 1
    with pytest.raises(mha_setup.MhaSetupError) as stopped:
        mha_setup.run()
    (line,) = stopped.value._render_traceback_()
    assert line.startswith("MhaSetupError: Installing pillow>=9.3 failed")
    assert '`pip install "pillow>=9.3"`' in line and "restart the kernel" in line


@pytest.fixture
def old_widgets_loaded(monkeypatch):
    """This session loaded ipywidgets 7.7.1, and 8 has been installed since
    (by hand: the set-up keeps a platform's ipywidgets)."""
    monkeypatch.setattr(ipywidgets, "__version__", "7.7.1")


def test_a_session_running_replaced_packages_is_refused_on_every_run(
    old_widgets_loaded, monkeypatch
):
    def no_pip(*args, **kwargs):
        raise AssertionError("nothing is missing: pip must not run")

    monkeypatch.setattr(subprocess, "run", no_pip)
    now = metadata.version("ipywidgets")
    for _ in range(2):
        with pytest.raises(mha_setup.MhaSetupError) as stopped:
            mha_setup.run()
        (line,) = stopped.value._render_traceback_()
        assert f"(ipywidgets 7.7.1 → {now})" in line
        assert "restart the kernel (on Colab: Runtime > Restart session)" in line


def test_on_colab_it_switches_on_the_widget_manager(monkeypatch):
    calls = []
    colab = types.ModuleType("google.colab")
    colab.output = types.SimpleNamespace(
        enable_custom_widget_manager=lambda: calls.append(1)
    )
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    mha_setup.run()
    assert calls == [1]


# -- In a real kernel, as a reader sees it ---------------------------------------------


def test_in_a_kernel_with_colabs_ipywidgets_7_the_set_up_asks_no_restart(make_kernel):
    """Colab's case: ipywidgets 7.7.1 installed and loaded before mha came. The
    set-up cell, run twice, passes without a word about restarting, and the
    explorer that follows is a widget."""
    kernel = make_kernel()
    address = "https://github.com/someone/the-book"
    cell = setup_cell.render_for(address)
    colab = (  # what Colab's kernel holds: ipywidgets 7.7.1, installed and loaded
        "import importlib.metadata as metadata\n"
        "import ipywidgets\n"
        'ipywidgets.__version__ = "7.7.1"\n'
        "real = metadata.version\n"
        'metadata.version = lambda name: "7.7.1" if name == "ipywidgets" else real(name)'
    )
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(colab),
            nbformat.v4.new_code_cell(cell),
            nbformat.v4.new_code_cell(cell),
            nbformat.v4.new_code_cell("import mha\nmha.attention_explorer()"),
        ]
    )
    env = {k: v for k, v in os.environ.items() if k != "MHA_INSTALL_SOURCE"}
    NotebookClient(notebook, km=kernel, timeout=120, allow_errors=True).execute(env=env)

    for setup in notebook.cells[1:3]:
        texts = [o.get("text", "") + str(o.get("traceback", "")) for o in setup.outputs]
        assert not [o for o in setup.outputs if o.output_type == "error"], texts
        assert "restart" not in " ".join(texts).lower()
    (explorer,) = notebook.cells[3].outputs  # a widget, and what needs no kernel
    assert "application/vnd.jupyter.widget-view+json" in explorer.data
    assert "Run this cell" in explorer.data["text/plain"]


def test_in_a_kernel_that_loaded_a_replaced_package_every_run_gives_one_line(
    make_kernel,
):
    """A package the session had loaded was replaced since (ipywidgets 7 loaded,
    8 installed). The set-up cell, run twice, shows one line saying what to do
    each time (Jupyter's error output holds that line alone: no traceback)."""
    kernel = make_kernel()
    address = "https://github.com/someone/the-book"
    cell = setup_cell.render_for(address)
    notebook = nbformat.v4.new_notebook(
        cells=[
            # What Colab's kernel holds: ipywidgets 7.7.1, loaded before mha came.
            nbformat.v4.new_code_cell(
                'import ipywidgets\nipywidgets.__version__ = "7.7.1"'
            ),
            nbformat.v4.new_code_cell(cell),
            nbformat.v4.new_code_cell(cell),
        ]
    )
    env = {k: v for k, v in os.environ.items() if k != "MHA_INSTALL_SOURCE"}
    NotebookClient(notebook, km=kernel, timeout=120, allow_errors=True).execute(env=env)

    now = metadata.version("ipywidgets")
    lines = []
    for cell in notebook.cells[1:]:
        (output,) = cell.outputs
        assert output.output_type == "error", output
        assert output.ename == "MhaSetupError"
        (line,) = output.traceback  # the message alone
        lines.append(re.sub(r"\x1b\[[0-9;]*m", "", line))
    assert lines[0] == lines[1]
    assert f"(ipywidgets 7.7.1 → {now})" in lines[0]
    assert all("restart the kernel" in line for line in lines)
