"""Driving the live explorer in a real JupyterLab, for a test and a benchmark.

:func:`jupyterlab` starts JupyterLab as ``make lab`` does, on copies of the
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

# The time from a reader's action to the new picture in the page, measured two
# ways. Strict (what the reader waits for): from the action's first input event
# (its time stamp: when the browser received it, not when a listener got to
# run) to the new image decoded and painted. Loose (this benchmark's earlier
# measure): from the moment a listener saw the last click, change or key press
# to the moment the image's ``src`` changed in the page, before the browser
# had fetched and decoded it.
WATCH_JS = """(root) => {
    const w = window.__mha = {first: null, last: null, changed: [], painted: []};
    const started = e => {
        if (w.first === null) w.first = e.timeStamp;
        if (['mousedown', 'change', 'keydown'].includes(e.type)) w.last = performance.now();
    };
    for (const type of ['pointerdown', 'mousedown', 'keydown', 'input', 'change']) {
        root.addEventListener(type, started, true);
    }
    const seen = new WeakSet();
    new MutationObserver(() => {
        w.changed.push(performance.now());
        const img = root.querySelector('figure.mha-frame img');
        if (!img || seen.has(img) && img.dataset.src === img.src) return;
        seen.add(img);
        img.dataset.src = img.src;
        img.decode().then(() => requestAnimationFrame(() => setTimeout(
            () => w.painted.push([img.src, performance.now()]), 0))).catch(() => {});
    }).observe(root, {subtree: true, attributes: true, attributeFilter: ['src'],
                      childList: true});
}"""


SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(notebooks: list[Path], timeout: float = 60) -> Iterator[tuple[str, str]]:
    """JupyterLab serving copies of ``notebooks``: yields ``(base_url, token)``."""
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "book", Path(tmp) / "jupyter"
        root.mkdir()
        for notebook in notebooks:
            shutil.copy(notebook, root / notebook.name)
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
        env.pop("MHA_EXPLORER", None)  # a reader's kernel: the live explorer
        # Every cell rendered (not only those in view), and no question about news.
        for plugin, settings in SETTINGS.items():
            path = home / "settings" / f"{plugin}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings))
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
    """Open notebook ``name`` and (unless told not to: reading it needs no kernel)
    wait until its kernel has started and is idle."""
    page.goto(f"{base}/lab/tree/{name}?token={token}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    if wait_for_kernel:
        page.get_by_text("| Idle").first.wait_for(timeout=60_000)  # the status bar


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
    """The live explorer of a notebook that has run, driven like a reader."""

    def __init__(self, page, timeout_ms: int = 30_000):
        self.page = page
        self.timeout_ms = timeout_ms
        # The explorer's cell in view: JupyterLab may draw an output only there.
        cell = page.locator(".jp-CodeCell", has_text="attention_explorer(").first
        cell.scroll_into_view_if_needed()
        self.root = page.locator(
            ".jp-OutputArea-output .widget-vbox:has(figure.mha-frame)"
        ).first
        self.root.wait_for(timeout=timeout_ms)
        self.root.scroll_into_view_if_needed()
        self.root.evaluate(WATCH_JS)

    def caption(self) -> str:
        return self.root.locator("figure.mha-frame figcaption").text_content()

    def image(self) -> str:
        return self.root.locator("figure.mha-frame img").get_attribute("src")

    def message(self) -> str:
        return (
            self.root.locator(".mha-message").all_inner_texts()[0]
            if self.root.locator(".mha-message").count()
            else ""
        )

    def sentence_shown(self) -> str:
        """The label of the sentence drop-down's selected option."""
        select = self.root.locator(".widget-dropdown select")
        label = select.evaluate("s => s.options[s.selectedIndex].textContent")
        return label.replace(
            "\xa0", " "
        )  # the drop-down shows spaces as no-break spaces

    def _control(self, kind: str, label: str):
        return self.root.locator(
            f".{kind}", has=self.page.locator("label", has_text=label)
        )

    def _wait_for_new_frame(self, before: str) -> float:
        """Wait until the new picture is painted; return the milliseconds from the
        action's first input event (the strict measure; ``self.loose`` gets the
        loose one)."""
        self.page.wait_for_function(
            """([root, before]) => {
                const src = root.querySelector('figure.mha-frame img').src;
                return src !== before && window.__mha.painted.some(p => p[0] === src);
            }""",
            arg=[self.root.element_handle(), before],
            timeout=self.timeout_ms,
        )
        strict, loose = self.page.evaluate(
            """(root) => {
                const w = window.__mha;
                const src = root.querySelector('figure.mha-frame img').src;
                const painted = w.painted.filter(p => p[0] === src).pop()[1];
                return [painted - w.first, w.changed[w.changed.length - 1] - w.last];
            }""",
            self.root.element_handle(),
        )
        self.loose = loose
        return strict

    def act(self, action, expect_new_frame: bool = True) -> float | None:
        """Do ``action()``; with ``expect_new_frame``, wait for the new picture and
        return the latency in milliseconds."""
        before = self.image()
        self.page.evaluate(
            "() => Object.assign(window.__mha, {first: null, last: null, changed: []})"
        )
        action()
        if not expect_new_frame:
            self.page.wait_for_timeout(300)  # give a wrong redraw the time to happen
            return None
        return self._wait_for_new_frame(before)

    def click(self, label: str, value: str) -> float | None:
        buttons = self._control("widget-toggle-buttons", label)
        return self.act(
            lambda: buttons.get_by_role("button", name=value, exact=True).click()
        )

    def choose(self, text: str) -> float | None:
        select = self.root.locator(".widget-dropdown select")
        return self.act(lambda: select.select_option(label=text))

    def slide(self, label: str, key: str) -> float | None:
        """Press ``key`` (``Home``, ``End``, ``ArrowLeft``, ``ArrowRight``) on a slider,
        as a reader without a mouse would: one change of its value."""
        handle = self._control("widget-hslider", label).locator(".noUi-handle")
        return self.act(lambda: (handle.focus(), handle.press(key)))

    def slider_visible(self, label: str) -> bool:
        return self._control("widget-hslider", label).is_visible()

    def type(
        self, text: str, expect_new_frame: bool = True, pause: float = 0.3
    ) -> float | None:
        """Type ``text`` into the box and, ``pause`` seconds later (a reader's
        time from the last key to Enter), press Enter: the action timed."""
        box = self.root.locator(".widget-text input")
        box.fill(text)
        self.page.wait_for_timeout(1000 * pause)
        return self.act(lambda: box.press("Enter"), expect_new_frame)


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
