"""Driving the live explorer in a real JupyterLab, for a test and a benchmark.

:func:`jupyterlab` starts JupyterLab as ``make lab`` does (or, to read the
chapters, with no kernel started as a notebook opens), on copies of the
chapters in a temporary folder (with its own configuration, settings and
runtime folders, so nothing is written into the repository or the home
folder), and stops it afterwards. :class:`LiveExplorer` finds the explorer in
a notebook that has run, moves its controls like a reader, and reports how
long each change took to show a new picture in the page (see WATCH_JS).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

# The time from a reader's action to the new picture in the page: from the
# action's first input event (its time stamp: when the browser received it,
# not when a listener got to run) to the first frame painted after the
# explorer drew a new picture (its canvas, and ``picture``, what it shows).
WATCH_JS = """(root) => {
    const w = window.__mha = {first: null, painted: []};
    const started = e => { if (w.first === null) w.first = e.timeStamp; };
    for (const type of ['pointerdown', 'mousedown', 'keydown', 'input', 'change']) {
        root.addEventListener(type, started, true);
    }
    let last = root.mhaExplorer.picture;
    const watch = () => {  // before each frame: a new picture is painted in it
        const now = root.mhaExplorer.picture;
        if (now !== last) {
            last = now;
            setTimeout(() => w.painted.push([now, performance.now()]), 0);
        }
        requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
}"""


SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},
}


# ipywidgets' JupyterLab extension, which only a notebook with a kernel needs.
WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(
    notebooks: list[Path], timeout: float = 60, kernels: bool = True
) -> Iterator[tuple[str, str]]:
    """JupyterLab serving copies of ``notebooks``: yields ``(base_url, token)``.
    ``kernels=False``: a notebook opens without starting its kernel (to read
    it: about a third less CPU for the book's chapters), as JupyterLab's
    ``notebook_starts_kernel`` setting allows; without a kernel no widget can
    be shown, and the widgets' extension is left out (it throws for each
    notebook opened so, ipywidgets 8.1.9)."""
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "book", Path(tmp) / "jupyter"
        root.mkdir()
        for notebook in notebooks:
            shutil.copy(notebook, root / notebook.name)
            images = notebook.parent / "images"  # the diagrams the chapters show
            if images.is_dir() and not (root / "images").exists():
                shutil.copytree(images, root / "images")
        env = {
            **os.environ,
            "MPLBACKEND": "Agg",
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
            "IPYTHONDIR": str(home / "ipython"),
        }
        # Every cell rendered (not only those in view), and no question about news.
        for plugin, settings in SETTINGS.items():
            path = home / "settings" / f"{plugin}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings))
        if not kernels:
            page_config = home / "config" / "labconfig" / "page_config.json"
            page_config.parent.mkdir(parents=True, exist_ok=True)
            page_config.write_text(
                json.dumps({"disabledExtensions": {WIDGETS_EXTENSION: True}})
            )
        port, token = _free_port(), secrets.token_hex(16)
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--allow-root",
                "--ip=127.0.0.1",
                f"--port={port}",
                f"--ServerApp.root_dir={root}",
                f"--IdentityProvider.token={token}",
                "--LabApp.news_url=",
                "--LabApp.extension_manager=readonly",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                # window.jupyterapp, through which open_in_lab opens a notebook
                "--LabApp.expose_app_in_browser=True",
                f"--LabServerApp.notebook_starts_kernel={kernels}",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    urllib.request.urlopen(
                        f"{base}/api/status?token={token}", timeout=2
                    )
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("JupyterLab did not start") from None
                    time.sleep(0.2)
            yield base, token
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()


def open_notebook(
    page, base: str, token: str, name: str, wait_for_kernel: bool = True
) -> None:
    """Open notebook ``name`` alone and (unless told not to: reading it needs
    no kernel) wait until its kernel has started and is idle.

    Alone (``reset``): JupyterLab would restore the tabs the page had open,
    and the menu commands of :func:`run_all` could reach a restored tab that
    was still the current one (three test runs of seven timed out so, their
    notebook never run)."""
    page.goto(f"{base}/lab/tree/{name}?reset&token={token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    if wait_for_kernel:
        page.get_by_text("| Idle").first.wait_for(timeout=60_000)  # the status bar


def open_lab(page, base: str, token: str) -> None:
    """Load JupyterLab with no tab open, ready for :func:`open_in_lab`."""
    page.goto(f"{base}/lab?reset&token={token}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("() => window.jupyterapp.started")


def open_in_lab(page, name: str) -> None:
    """Open notebook ``name`` in a new tab of the JupyterLab that
    :func:`open_lab` loaded, as File → Open does (the page is not reloaded:
    a few seconds less per notebook than loading JupyterLab again), and wait
    until every markdown cell is drawn by the MyST renderer (jupyterlab-myst).
    The tabs opened before stay open, their kernels too (where JupyterLab
    starts them): closing a tab while its kernel starts cancels JupyterLab's
    own requests to it, which log errors to the console."""
    page.evaluate(
        """async name => {
            await window.jupyterapp.commands.execute('docmanager:open', {path: name});
        }""",
        name,
    )
    page.wait_for_function(
        """name => {
            const panel = document.querySelector(
                '.jp-NotebookPanel:not(.lm-mod-hidden)');
            const cells = panel ? [...panel.querySelectorAll('.jp-MarkdownCell')] : [];
            return window.jupyterapp.shell.currentWidget?.context?.path === name
                && cells.length > 0 && cells.every(c => c.querySelector('.myst'));
        }""",
        arg=name,
        timeout=60_000,
    )


def run_all(page, timeout_ms: int = 180_000) -> None:
    """Clear the stored outputs, run every cell (Run → Run All Cells) and wait
    until every code cell shows the number of its run."""
    for menu, item in (
        ("Edit", "Clear Outputs of All Cells"),
        ("Run", "Run All Cells"),
    ):
        page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
        page.locator(".lm-Menu-itemLabel", has_text=item).first.click()
    page.wait_for_function(
        """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
                   .every(p => /\\[\\d+\\]/.test(p.textContent))""",
        timeout=timeout_ms,
    )
    page.get_by_text("| Idle").first.wait_for(timeout=timeout_ms)


class LiveExplorer:
    """The explorer of a notebook that has run, driven like a reader (with the
    functions of ``explorers.py``, which drive it on the site too)."""

    def __init__(self, page, timeout_ms: int = 30_000):
        self.page = page
        self.timeout_ms = timeout_ms
        # The explorer's cell in view: JupyterLab may draw an output only there.
        shown = notebook_shown(page)
        cell = shown.locator(".jp-CodeCell", has_text="attention_explorer(").first
        cell.scroll_into_view_if_needed()
        self.root = shown.locator(".jp-OutputArea-output .mha-explorer").first
        self.root.locator("canvas.mha-maps").wait_for(timeout=timeout_ms)
        self.root.scroll_into_view_if_needed()
        self.root.evaluate(WATCH_JS)

    def act(self, action) -> float:
        """Do ``action()``, wait for the new picture's paint and return the
        milliseconds from the action's first input event."""
        before = self.root.evaluate_handle("r => r.mhaExplorer.picture")
        self.page.evaluate(
            "() => Object.assign(window.__mha, {first: null, painted: []})"
        )
        action()
        self.page.wait_for_function(
            """(old) => window.__mha.painted.some(p => p[0] !== old)""",
            arg=before,
            timeout=self.timeout_ms,
        )
        return self.page.evaluate(
            """() => { const w = window.__mha;
                       return w.painted[w.painted.length - 1][1] - w.first; }"""
        )


def notebook_shown(page):
    """The notebook in the tab shown (JupyterLab may restore other tabs behind it)."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")


def markdown_cells(page):
    """The shown notebook's markdown cells, as rendered (all: see SETTINGS)."""
    return notebook_shown(page).locator(".jp-MarkdownCell")


def following_cell(cell):
    """The cell right after ``cell`` in the notebook."""
    return cell.locator(
        "xpath=following-sibling::div[contains(concat(' ', @class, ' '), ' jp-Cell ')][1]"
    )
