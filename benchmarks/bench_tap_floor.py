"""How much of an explorer's answer to a tap is the explorer's own work, and
how much the page's: the same taps on the emulated phone with the explorer
as it is, with its picture not painted again, and with the explorer doing
nothing at all.

    python benchmarks/bench_tap_floor.py [PAGE ...]   # by default every explorer page

The phone of ``bench_first_tap.py`` (390 px touch screen, slow 4G, a 4x
slower CPU). Each page is opened in a fresh browser context once per variant
and round (the variants in turn, so that all see the same load), the
explorer is changed in the page as the variant says, and every kind of
change the explorer shows is made three times, 0.3 s apart. Three variants
of the explorer:

- *explorer*: as the site has it;
- *no repaint*: the explorer computes the setting and updates its controls
  and its text, but does not lay out and paint the maps again;
- *nothing*: the explorer only takes the new setting as its state; the
  browser still handles the touch, the control's new look, style, layout,
  paint and compositing of the page: the floor under any explorer.

Each on two pages: the chapter as the site has it, and the *explorer alone*:
the same page with everything but the explorer's cell taken out once it has
loaded (the chapter's other cells, the header, the side bars, the footer),
so that what is left is the browser's handling of a tap and the explorer's
own work.

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

from booktools.book import SITE, explorer_pages
from booktools.chromium import launch
from booktools.server import serve

ROUNDS = int(os.environ.get("TAP_FLOOR_ROUNDS", "2"))
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


# The page: as it is, or with everything but the explorer's cell taken out.
PAGE_VARIANTS = {
    "chapter": None,
    "explorer alone": """() => {
        const keep = document.querySelector('.mha-explorer').closest('.cell');
        document.querySelectorAll('.bd-article > *, .bd-article section > *')
            .forEach(e => { if (!e.contains(keep) && !keep.contains(e)) e.remove(); });
        document.querySelectorAll('.bd-header, .bd-sidebar-primary, '
            + '.bd-sidebar-secondary, .bd-footer, .bd-footer-article, footer, '
            + '.prev-next-area').forEach(e => e.remove());
        window.scrollTo(0, 0);
    }""",
}


def measure(pages: list[str]) -> dict:
    """{page: {(page variant, variant): {"latency": [ms, ...], "cpu": [ms, ...]}}}."""
    from playwright.sync_api import sync_playwright

    arms = [(where, v) for where in PAGE_VARIANTS for v in VARIANTS]
    found = {page: {arm: {"latency": [], "cpu": []} for arm in arms} for page in pages}
    with serve(SITE, gzip=True) as url, sync_playwright() as playwright:
        browser = launch(playwright)
        for page in pages:
            for _ in range(ROUNDS):
                for where, variant in arms:
                    tab = Tab(browser, url + page, phone=True)
                    if PAGE_VARIANTS[where]:
                        tab.page.evaluate(PAGE_VARIANTS[where])
                        tab.page.wait_for_timeout(600)  # quiet again
                    if VARIANTS[variant]:
                        tab.root.evaluate(VARIANTS[variant])
                    kinds = [k for k in tab.kinds() if k != "typed"]
                    for _ in range(3):
                        for kind in kinds:
                            tab.page.wait_for_timeout(300)
                            got = found[page][where, variant]
                            got["latency"].append(tab.tap(kind))
                            got["cpu"].append(tab.cpu)
                    tab.close()
            print(page, found[page], file=sys.stderr)
        browser.close()
    return found


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def table(found: dict) -> str:
    rows = [
        "| page | on | explorer | taps | latency: median, p90 "
        "| main-thread CPU: median, p90 |",
        "|---|---|---|---:|---:|---:|",
    ]
    for page, arms in found.items():
        for (where, variant), got in arms.items():
            lat, cpu = got["latency"], got["cpu"]
            rows.append(
                f"| {page} | {where} | {variant} | {len(lat)} "
                f"| {statistics.median(lat):.0f}, {_p90(lat):.0f} ms "
                f"| {statistics.median(cpu):.0f}, {_p90(cpu):.0f} ms |"
            )
    return "\n".join(rows)


def main(args: list[str]) -> None:
    print(table(measure(args or explorer_pages())))
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
