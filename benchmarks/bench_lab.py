"""The live explorer's latency in a real browser: JupyterLab in headless
Chromium, from the reader's action (its first input event) to the first
frame painted after the new picture is in the page, for each kind of change
(booktools.lab, WATCH_JS). The explorer is the playground
chapter's, in a notebook of its own (``import mha`` and the chapter's call),
computing in the page as on the site."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from booktools.book import ROOT, fullest_explorer_page
from booktools.chromium import launch
from booktools.explorers import control, explorer_call, options, pick
from booktools.lab import LiveExplorer, jupyterlab, open_notebook, run_all
from booktools.pages import DESKTOP

PLAYGROUND = ROOT / fullest_explorer_page().replace(".html", ".ipynb")
READER_PAUSE = 1.0  # seconds a reader looks at a new picture before the next change
# Every step changes the setting (the explorer opens on 4 heads, no mask,
# trained weights, the first sentence) and a round ends where it began.
STEPS = [
    ("heads", "nHeads", -1), ("heads", "nHeads", 0), ("heads", "nHeads", 1),
    ("heads", "nHeads", 2), ("mask", "mask", 1), ("mask", "mask", 2),
    ("padding", "nPad", 1), ("padding", "nPad", 0), ("mask", "mask", 0),
    ("weights", "option", 1), ("weights", "option", 0), ("sentence", "sentence", 1),
    ("sentence", "sentence", 2), ("typed text", "text", "what will come next"),
    ("sentence", "sentence", 0),
]  # fmt: skip


def notebook(folder: Path) -> Path:
    import nbformat

    path = folder / "explorer.ipynb"
    cells = [
        nbformat.v4.new_code_cell(s) for s in ("import mha", explorer_call(PLAYGROUND))
    ]
    metadata = nbformat.read(PLAYGROUND, as_version=4).metadata
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=metadata), path)
    return path


def latencies(rounds: int = 5, pause: float = READER_PAUSE) -> dict[str, list[float]]:
    """{kind of change: milliseconds of each}, ``rounds`` rounds of STEPS,
    ``pause`` seconds between a new picture and the next change (0: back to back)."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = notebook(Path(tmp))
        with jupyterlab([path]) as (base, token), sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": DESKTOP, "height": 900})
            open_notebook(page, base, token, path.name)
            run_all(page)
            live = LiveExplorer(page)
            root = live.root
            page.wait_for_timeout(1000 * pause)
            for _ in range(rounds):
                for kind, name, value in STEPS:
                    if name == "text":  # typed first: the change is its Enter
                        control(root, "text").fill(value)
                        act = lambda: control(root, "text").press("Enter")  # noqa: E731, B023
                    else:
                        index = value % len(options(root, name))
                        act = lambda: pick(root, name, index)  # noqa: E731, B023
                    times.setdefault(kind, []).append(live.act(act))
                    page.wait_for_timeout(1000 * pause)
            browser.close()
    return times


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def table(rounds: int = 5, pause: float = READER_PAUSE) -> tuple[str, bool]:
    """A markdown table per kind of change, and whether the 90th percentile is
    at most 50 ms for every kind."""
    times = latencies(rounds, pause)
    lines = [
        "| change | changes | median | p90 | slowest |",
        "|---|---:|---:|---:|---:|",
    ]
    ok = True
    every = [t for values in times.values() for t in values]
    for kind, values in [*times.items(), ("all", every)]:
        ok &= p90(values) <= 50
        lines.append(
            f"| {kind} | {len(values)} | {statistics.median(values):.0f} ms "
            f"| {p90(values):.0f} ms | {max(values):.0f} ms |"
        )
    return "\n".join(lines), ok


if __name__ == "__main__":
    pause = float(sys.argv[1]) if len(sys.argv) > 1 else READER_PAUSE
    text, ok = table(pause=pause)
    print(text)
    print("every 90th percentile <= 50 ms:", ok)
