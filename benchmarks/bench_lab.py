"""The live explorer's latency in a real browser: JupyterLab in headless
Chromium, from the reader's action (the input event) to the new picture in the
page, for each kind of control."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from lab_driver import LiveExplorer, jupyterlab, open_notebook, run_all  # noqa: E402

import mha  # noqa: E402

PLAYGROUND = ROOT / "book" / "09_playground.ipynb"


def latencies(rounds: int = 5) -> dict[str, list[float]]:
    """{kind of control: milliseconds of each change}, ``rounds`` cycles through
    every option of every control."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {}
    with jupyterlab([PLAYGROUND]) as (base, token), sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        open_notebook(page, base, token, PLAYGROUND.name)
        run_all(page)
        explorer = LiveExplorer(page)
        # Every step changes the setting (the explorer opens on 4 heads, no
        # mask, trained weights, the first sentence) and ends where it began.
        steps = [
            ("heads", lambda: explorer.slide("Heads", "End")),  # 8
            ("heads", lambda: explorer.slide("Heads", "Home")),  # 1
            ("heads", lambda: explorer.slide("Heads", "ArrowRight")),  # 2
            ("heads", lambda: explorer.slide("Heads", "ArrowRight")),  # 4
            ("mask", lambda: explorer.click("Mask", "causal")),
            ("mask", lambda: explorer.click("Mask", "padding")),
            ("padding", lambda: explorer.slide("Padding tokens", "ArrowRight")),  # 2
            ("padding", lambda: explorer.slide("Padding tokens", "Home")),  # 1
            ("mask", lambda: explorer.click("Mask", "none")),
            ("weights", lambda: explorer.click("Weights", "random")),
            ("weights", lambda: explorer.click("Weights", "trained")),
            ("sentence", lambda: explorer.choose(mha.SENTENCES[1])),
            ("sentence", lambda: explorer.choose(mha.SENTENCES[2])),
            (
                "typed text",
                lambda: explorer.type("the previous word is what it looks at"),
            ),
            ("sentence", lambda: explorer.choose(mha.SENTENCES[0])),
        ]
        for _ in range(rounds):
            for kind, act in steps:
                times.setdefault(kind, []).append(act())
        browser.close()
    return times


def table(rounds: int = 5) -> tuple[str, bool]:
    """A markdown table of the medians per kind, and whether each is <= 100 ms."""
    times = latencies(rounds)
    lines = ["| control | changes | median | slowest |", "|---|---:|---:|---:|"]
    ok = True
    for kind, values in times.items():
        median = statistics.median(values)
        ok &= median <= 100
        lines.append(
            f"| {kind} | {len(values)} | {median:.0f} ms | {max(values):.0f} ms |"
        )
    return "\n".join(lines), ok


if __name__ == "__main__":
    text, ok = table()
    print(text)
    print("every median <= 100 ms:", ok)
