"""How much of an explorer's answer to a tap is the explorer's own work, and
how much the page's: the same taps on the emulated phone with the explorer
as it is, with its picture not painted again, and with the explorer doing
nothing at all.

    python benchmarks/bench_tap_floor.py [PAGE ...]

The phone of ``bench_first_tap.py`` (390 px touch screen, slow 4G, a 4x
slower CPU). Each page is opened in a fresh browser context once per variant
and round (the variants in turn, so that all see the same load), the
explorer is changed in the page as the variant says, and every kind of
change the explorer shows is made three times, 0.3 s apart. Three variants:

- *explorer*: as the site has it;
- *no repaint*: the explorer computes the setting and updates its controls
  and its text, but does not lay out and paint the maps again;
- *nothing*: the explorer only takes the new setting as its state; the
  browser still handles the touch, the control's new look, style, layout,
  paint and compositing of the page: the floor under any explorer.

Latency as ``bench_first_tap.py`` counts it (from the event that makes the
change to the first frame painted after it) and the main thread's CPU time
meanwhile (Chromium's trace); the median and the 90th percentile of all the
taps of a variant.
"""

from __future__ import annotations

import os
import statistics
import sys

from bench_first_tap import Tab

from booktools.book import SITE
from booktools.chromium import launch
from booktools.server import serve

ROUNDS = int(os.environ.get("TAP_FLOOR_ROUNDS", "2"))
PAGES = ["book/07_trained_heads.html", "book/12_two_layers.html"]
# What each variant does to the explorer's methods, in the page (the state is
# set so that the benchmark sees the change made; ``picture`` a new object, as
# a new picture would be).
VARIANTS = {
    "explorer": None,
    "no repaint": """root => {
        Object.getPrototypeOf(root.mhaExplorer).repaint = function () {
            this.picture = {};
        };
    }""",
    "nothing": """root => {
        Object.getPrototypeOf(root.mhaExplorer).show = function (s) {
            this.state = s;
            this.picture = {};
            return true;
        };
    }""",
}


def measure(pages: list[str]) -> dict:
    """{page: {variant: {"latency": [ms, ...], "cpu": [ms, ...]}}}."""
    from playwright.sync_api import sync_playwright

    found = {page: {v: {"latency": [], "cpu": []} for v in VARIANTS} for page in pages}
    with serve(SITE, gzip=True) as url, sync_playwright() as playwright:
        browser = launch(playwright)
        for page in pages:
            for _ in range(ROUNDS):
                for variant, change in VARIANTS.items():
                    tab = Tab(browser, url + page, phone=True)
                    if change:
                        tab.root.evaluate(change)
                    kinds = [k for k in tab.kinds() if k != "typed"]
                    for _ in range(3):
                        for kind in kinds:
                            tab.page.wait_for_timeout(300)
                            found[page][variant]["latency"].append(tab.tap(kind))
                            found[page][variant]["cpu"].append(tab.cpu)
                    tab.close()
            print(page, found[page], file=sys.stderr)
        browser.close()
    return found


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def table(found: dict) -> str:
    rows = [
        "| page | variant | taps | latency: median, p90 | main-thread CPU: median, p90 |",
        "|---|---|---:|---:|---:|",
    ]
    for page, variants in found.items():
        for variant, got in variants.items():
            lat, cpu = got["latency"], got["cpu"]
            rows.append(
                f"| {page} | {variant} | {len(lat)} "
                f"| {statistics.median(lat):.0f}, {_p90(lat):.0f} ms "
                f"| {statistics.median(cpu):.0f}, {_p90(cpu):.0f} ms |"
            )
    return "\n".join(rows)


def main(args: list[str]) -> None:
    print(table(measure(args or PAGES)))
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
