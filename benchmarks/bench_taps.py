"""How fast each control of each explorer repaints on a phone, and how tall
the explorer is across its settings: the built site, and another build side
by side.

    python benchmarks/bench_taps.py [--before SITE] [--after SITE] [--sizes] [PAGE ...]

Taps: a 390 x 844 px touch screen with a 4x slower CPU (Chromium's own
emulation), the page loaded (no network throttling: a tap fetches nothing)
and the explorer scrolled into view. For every control shown (each radio
group, drop-down and slider, the layer switch, the query-word menu) and a
sentence typed into the box with Enter, ``TAPS_REPEATS`` changes (default 15)
are made, a finger's tap on the next option (the other end of a slider, the
two last listed sentences typed), 0.3 s apart. A change's latency runs, as
Interaction to Next Paint counts it, from the event that changes the control
(the click, the key, the control's own input event) to the first frame
painted after the new picture is in the page (``bench_first_tap.ARM_JS``).
``--after``: the build measured (default
_build/html). With ``--before SITE`` both builds are open at once and every round taps the
one, then the other, so both see the machine's same load; the 1-minute load
average is recorded at each tap.

``--sizes``: for each page, at 390 x 844 (touch) and at 1280 x 900, every
option of every control in turn (from the first setting), the canvas's height
and the height from the explorer's first control to its caption's last line
(what must fit the screen for the controls and the picture to be seen at
once); printed as min-max per page.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from bench_first_tap import WATCH_JS, change
from page_trace import Trace, main_thread_ms

from booktools.book import ROOT, explorer_pages
from booktools.chromium import launch
from booktools.explorers import EXPLORER, controls, kind, options
from booktools.pages import COMMON_PHONE, DESKTOP as DESKTOP_WIDTH
from booktools.server import serve

REPEATS = int(os.environ.get("TAPS_REPEATS", "15"))
PHONE = {
    "viewport": {"width": COMMON_PHONE, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 3,
}
DESKTOP = {"viewport": {"width": DESKTOP_WIDTH, "height": 900}}

# The height of the explorer's canvas and of the block a reader must see at
# once: its first control's top to its caption's bottom.
SIZE_JS = """r => {
    const top = r.querySelector('form').getBoundingClientRect().top;
    const canvas = r.querySelector('canvas.mha-maps, svg.mha-maps').getBoundingClientRect();
    const bottom = r.querySelector('figcaption').getBoundingClientRect().bottom;
    return [Math.round(canvas.height), Math.round(bottom - top)];
}"""


class Tab:
    """One page of one build, its explorer in view, on an emulated phone."""

    def __init__(self, browser, url: str, device: dict, slow: bool = True):
        self.context = browser.new_context(**device)
        self.page = self.context.new_page()
        self.phone = device.get("has_touch", False)
        cdp = self.context.new_cdp_session(self.page)
        self.trace = Trace(cdp)
        if slow:
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        self.page.add_init_script(f"({WATCH_JS})()")
        self.page.goto(url, wait_until="networkidle", timeout=120_000)
        self.root = self.page.locator(EXPLORER).first
        self.root.locator(".mha-maps").wait_for(timeout=60_000)
        self.root.scroll_into_view_if_needed()
        self.page.wait_for_timeout(800)

    def state(self) -> dict:
        return self.root.evaluate("r => r.mhaExplorer.state")

    def kinds(self) -> list[str]:
        found = [n for n in controls(self.root) if n != "text"]
        if self.root.locator('[name="nPad"]').count() and "nPad" not in found:
            found.append("nPad")  # shown with the padding mask
        if self.root.locator('[name="layer"]').count() and "layer" not in found:
            found.append("layer")  # shown for a model of two layers
        if self.root.locator('[name="row"]').count():
            found.append("row")
        return [*found, "typed"]

    def prepare(self, name: str) -> None:
        """A control out of reach in the first setting made usable, untimed:
        the padding slider (the padding mask chosen), the layer switch (a
        model of two layers chosen)."""
        if name == "nPad" and self.state()["mask"] != "padding":
            self.root.locator(
                'label:has(> input[name="mask"][value="padding"])'
            ).click()
            self.page.wait_for_timeout(300)
        hidden = "r => r.querySelector('[name=layer]').matches(':disabled')"
        if name == "layer" and self.root.evaluate(hidden):
            for value in options(self.root, "option"):
                self.root.locator(
                    f'label:has(> input[name="option"][value="{value}"])'
                ).click()
                self.page.wait_for_timeout(300)
                if not self.root.evaluate(hidden):
                    break

    def tap(self, name: str) -> tuple[float, float]:
        """One change of control ``name``: ms from its event to the paint, and
        the main thread's CPU time meanwhile (``page_trace``)."""
        if name == "row":
            now = self.root.locator('[name="row"]').input_value()
        else:
            now = self.state()["sentence" if name == "typed" else name]
        change(self.page, self.root, self.phone, name, now, self.trace.start)
        try:
            self.page.wait_for_function(
                "() => window.__tap.done !== null", timeout=20_000
            )
        except Exception:  # a sentence the model refused: no new picture
            self.trace.stop(self.page)
            return float("nan"), float("nan")
        latency = self.page.evaluate("() => window.__tap.done - window.__tap.start")
        work = main_thread_ms(self.trace.stop(self.page))
        if os.environ.get("TAPS_PHASES"):  # where the main thread's time went
            phases = sorted(work["by"].items(), key=lambda kv: -kv[1])
            print(
                f"{name}: {latency:.0f} ms, cpu {work['cpu']:.0f}: "
                + ", ".join(f"{k} {v:.0f}" for k, v in phases),
                file=sys.stderr,
            )
        return latency, work["cpu"]

    def close(self) -> None:
        self.context.close()


def taps(browser, urls: dict[str, str]) -> dict:
    """{page: {control: {site: [[ms, cpu ms], ...]}}} and the load averages."""
    results, loads = {}, []
    for path in pages_of(urls):
        tabs = {label: Tab(browser, url + path, PHONE) for label, url in urls.items()}
        names = []
        for tab in tabs.values():
            names += [n for n in tab.kinds() if n not in names]
        results[path] = {}
        for name in names:
            have = {
                label: tab
                for label, tab in tabs.items()
                if name in tab.kinds()
                or name == "nPad"
                and tab.root.locator('[name="nPad"]').count()
            }
            for tab in have.values():
                tab.prepare(name)
            found = results[path][name] = {label: [] for label in have}
            for _ in range(REPEATS):
                for label, tab in have.items():
                    found[label].append(tab.tap(name))
                    loads.append(os.getloadavg()[0])
                    tab.page.wait_for_timeout(300)
            if os.environ.get("TAPS_PARTIAL"):  # what was measured so far
                Path(os.environ["TAPS_PARTIAL"]).write_text(json.dumps(results))
            print(
                path,
                name,
                {
                    k: [
                        round(
                            statistics.median([x[i] for x in v if x[i] == x[i]] or [-1])
                        )
                        for i in (0, 1)
                    ]
                    for k, v in found.items()
                },
                file=sys.stderr,
            )
        for tab in tabs.values():
            tab.close()
    return {"taps": results, "load": loads}


def sizes(browser, urls: dict[str, str]) -> dict:
    """{site: {page: {device: [[canvas, block] per setting]}}}."""
    found = {}
    for label, url in urls.items():
        for path in pages_of(urls):
            for device_name, device in (("phone", PHONE), ("desktop", DESKTOP)):
                tab = Tab(browser, url + path, device, slow=False)
                seen = [tab.root.evaluate(SIZE_JS)]
                for name in [n for n in tab.kinds() if n not in ("typed", "row")]:
                    tab.prepare(name)
                    for index in range(len(options(tab.root, name))):
                        if kind(tab.root, name) == "menu":
                            tab.root.locator(f'[name="{name}"]').select_option(
                                index=index
                            )
                        elif kind(tab.root, name) == "buttons":
                            value = options(tab.root, name)[index]
                            tab.root.locator(
                                f'label:has(> input[name="{name}"][value="{value}"])'
                            ).click()
                        else:
                            from booktools.explorers import pick

                            pick(tab.root, name, index)
                        tab.page.wait_for_timeout(150)
                        seen.append(tab.root.evaluate(SIZE_JS))
                found.setdefault(label, {}).setdefault(path, {})[device_name] = seen
                tab.close()
    return found


_PAGES: list[str] = []


def pages_of(urls) -> list[str]:
    return _PAGES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path)
    parser.add_argument("--after", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--sizes", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("pages", nargs="*")
    args = parser.parse_args()
    site = args.after
    _PAGES[:] = args.pages or explorer_pages(site)
    sites = {"after": site}
    if args.before:
        sites = {"before": args.before, "after": site}
    from contextlib import ExitStack

    from playwright.sync_api import sync_playwright

    with ExitStack() as stack:
        urls = {
            label: stack.enter_context(serve(path, gzip=True))
            for label, path in sites.items()
        }
        with sync_playwright() as playwright:
            browser = launch(playwright)
            result = sizes(browser, urls) if args.sizes else taps(browser, urls)
            browser.close()
    text = json.dumps(result)
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
