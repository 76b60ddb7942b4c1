"""How fast the explorers on the built site answer the reader: the first
change and the later ones, on an emulated phone and on a desktop, the
main thread's work per change, and the bytes fetched.

    python benchmarks/bench_first_tap.py [--desktop] [--before SITE] [PAGE ...]

Phone: a 390 px touch screen on Lighthouse's slow 4G (150 ms round trip,
1.6 Mbit/s down, 750 kbit/s up) with a 4x slower CPU, by Chromium's own
emulation. Desktop: 1280 px, a mouse, no throttling. The site is served
gzipped, as GitHub Pages serves it.

For every page with an explorer and every kind of change (each control shown
at first, and a sentence typed into the box with Enter), a fresh browser
(empty cache) loads the page, waits until the network is idle, scrolls the
explorer into view, waits until the network is idle again, and makes the
change once (the next option; the other end of a slider). Its latency runs,
as Interaction to Next Paint counts it, from the event that changes the
control (the click, the key, the control's own input event) to the first
frame painted after the new picture is in the page (the explorer's state is
the new setting, computed in the page); in brackets, from the finger's first
touch of the screen. Each change is traced (Chromium's DevTools protocol):
the main thread's CPU time from the first input event to that paint
(``page_trace.py``), which the machine's load inflates far less than the latency.
Later changes follow, every kind in turn, half a second apart (a quick
reader). Bytes are counted as sent (gzipped), from the page's first request:
once the page has loaded (the reader has not moved yet), at the first change,
after the scroll to the explorer (which brings the chapter's own figures near
it: they load lazily), and after the later changes (an explorer fetches
nothing once loaded).

``--before SITE`` measures a second build (the explorer before a change)
side by side with the first: each run of each page and kind of change on the
one, then on the other, so both see the same load. The machine's load
average (1 minute) is recorded at every change.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
from pathlib import Path

from page_trace import END, START, Trace, main_thread_ms

from booktools.book import ROOT, explorer_pages
from booktools.chromium import launch
from booktools.explorers import EXPLORER, controls, kind, options
from booktools.pages import COMMON_PHONE, DESKTOP as DESKTOP_WIDTH
from booktools.server import serve

REPEATS = int(os.environ.get("FIRST_TAP_REPEATS", "3"))
LATER_ROUNDS = 2
PHONE = {
    "viewport": {"width": COMMON_PHONE, "height": 800},
    "has_touch": True,
    "is_mobile": True,
}
DESKTOP = {"viewport": {"width": DESKTOP_WIDTH, "height": 900}}
SLOW_4G = {
    "offline": False,
    "latency": 150,
    "downloadThroughput": 1.6e6 / 8,
    "uploadThroughput": 750e3 / 8,
}

# The time from a tap's first input event to the paint of the right frame.
# When a tap starts: at the event that changes the control (the click, the key,
# the control's input event), as Interaction to Next Paint counts it; and at
# the finger's first touch of the screen (the finger's own time included).
WATCH_JS = """() => {
    const mark = key => e => { if (window.__tap && window.__tap[key] === null)
                                   window.__tap[key] = e.timeStamp; };
    for (const type of ['click', 'keydown', 'input', 'change'])
        window.addEventListener(type, mark('start'), true);
    for (const type of ['pointerdown', 'touchstart', 'mousedown'])
        window.addEventListener(type, mark('touch'), true);
}"""
# The picture shown: in the explorer before this one (``--before``) its SVG
# element, else what the explorer drew last (its canvas's content).
ARM_JS = f"""([root, name, want]) => {{
    window.__tap = {{start: null, touch: null, done: null}};
    const picture = () => root.querySelector('svg.mha-maps') || root.mhaExplorer.picture;
    const before = picture();
    const ready = () => String(root.mhaExplorer.state[name]) === want
        && picture() !== before;
    const check = () => ready()
        ? setTimeout(() => {{  // after the paint
            performance.mark('{END}');
            window.__tap.done = performance.now();
        }}, 0)
        : requestAnimationFrame(check);
    requestAnimationFrame(check);
    performance.mark('{START}');
}}"""
KINDS = ("option", "sentence", "mask", "nPad", "nHeads")  # the controls, in order


def shown_state(root) -> dict:
    return root.evaluate("r => r.mhaExplorer.state")


def act(page, root, phone: bool, name: str, target: int, count: int) -> None:
    """Tap (or click, ``phone`` False) option ``target`` of the control ``name``
    of the explorer ``root`` on ``page``: a button, the slider's
    track at the option's place (positions taken just before the tap: the
    chapter's images above may still be loading)."""
    found = root.locator(f'[name="{name}"]')
    what = kind(root, name)
    if what == "menu":  # a phone's own picker: the choice is the input event
        found.select_option(index=target)
        return
    if what == "buttons":
        value = options(root, name)[target]
        element = root.locator(f'label:has(> input[name="{name}"][value="{value}"])')
        box = element.bounding_box()
        position = {"x": box["width"] / 2, "y": box["height"] / 2}
    else:
        element = found
        box = element.bounding_box()
        thumb = min(box["height"], 16)
        x = thumb / 2 + (box["width"] - thumb) * target / (count - 1)
        position = {"x": x, "y": box["height"] / 2}
    # The browser's own input events at that point (as a finger or a mouse
    # makes them), without Playwright's checks of the element tapped,
    # which run in the page and would be timed with the change.
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    x, y = box["x"] + position["x"], box["y"] + position["y"]
    if phone:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def change(page, root, phone: bool, name: str, now, start) -> None:
    """One change of control ``name`` of the explorer ``root``, from the
    value it shows, ``now``: its next option (the other end of a slider), or
    for ``"typed"`` one of the explorer's own sentences (words its model
    knows) other than the one shown, typed, then Enter. ``start()`` is called
    just before the page's probe is armed (ARM_JS) and the change made."""
    if name == "typed":
        box = root.locator('[name="text"]')
        text = next(t for t in options(root, "sentence")[::-1] if t != now)
        box.fill(text)
        start()
        page.evaluate(ARM_JS, [root.element_handle(), "sentence", text])
        box.press("Enter")
        return
    texts = options(root, name)
    at = texts.index(str(now))
    index = (at + 1) % len(texts)
    if kind(root, name) == "slider":
        index = 0 if at == len(texts) - 1 else len(texts) - 1
    start()
    page.evaluate(ARM_JS, [root.element_handle(), name, texts[index]])
    act(page, root, phone, name, index, len(texts))


class Tab:
    """One browser context on one page, with its bytes counted."""

    def __init__(self, browser, url: str, phone: bool):
        self.context = browser.new_context(**(PHONE if phone else DESKTOP))
        self.page = self.context.new_page()
        self.phone = phone
        self.bytes = 0
        cdp = self.context.new_cdp_session(self.page)
        self.trace = Trace(cdp)
        cdp.send("Network.enable")
        cdp.on("Network.loadingFinished", self._finished)
        if phone:
            cdp.send("Network.emulateNetworkConditions", SLOW_4G)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        self.page.add_init_script(f"({WATCH_JS})()")
        self.page.goto(url, wait_until="networkidle", timeout=120_000)
        self.page.wait_for_timeout(600)
        self.page.evaluate("1")  # a round trip: the network events so far are in
        self.on_load = self.bytes
        self.root = self.page.locator(EXPLORER).first
        self.root.locator(".mha-maps").wait_for(timeout=60_000)
        self.root.scroll_into_view_if_needed()
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_timeout(600)  # quiet for a moment, as a reader looks

    def _finished(self, event) -> None:
        self.bytes += event["encodedDataLength"]

    def tap(self, name: str) -> float:
        """Make a change of kind ``name`` (a control: its next option, the other
        end of a slider; ``"typed"``: a sentence typed, then Enter);
        milliseconds from the event that made it to the paint of the new
        picture (``from_touch``: from the first touch; ``cpu``: the main
        thread's CPU time meanwhile; ``load``: the machine's load average)."""
        key = "sentence" if name == "typed" else name
        change(
            self.page,
            self.root,
            self.phone,
            name,
            shown_state(self.root)[key],
            self.trace.start,
        )
        self.page.wait_for_function("() => window.__tap.done !== null", timeout=60_000)
        event, touch = self.page.evaluate(
            "() => [window.__tap.done - window.__tap.start,"
            " window.__tap.done - (window.__tap.touch ?? window.__tap.start)]"
        )
        work = main_thread_ms(self.trace.stop(self.page))
        self.cpu = work["cpu"]
        if os.environ.get("FIRST_TAP_PHASES"):  # where the main thread's time went
            phases = sorted(work["by"].items(), key=lambda kv: -kv[1])
            print(
                f"{name}: {event:.0f} ms, main thread {work['busy']:.0f} ms: "
                + ", ".join(f"{k} {v:.0f}" for k, v in phases),
                file=sys.stderr,
            )
            if os.environ["FIRST_TAP_PHASES"] == "events":
                events = sorted(work["events"].items(), key=lambda kv: -kv[1])[:14]
                print(
                    "   ", ", ".join(f"{k} {v:.1f}" for k, v in events), file=sys.stderr
                )
        self.load = os.getloadavg()[0]
        self.from_touch = touch
        return event

    def kinds(self) -> list[str]:
        """The kinds of change: each control shown that a reader can change
        now (the padding slider waits for the padding mask), and a typed
        sentence."""
        shown = [n for n in controls(self.root) if n in KINDS]
        enabled = [
            n
            for n in shown
            if not self.root.locator(f'[name="{n}"]').first.is_disabled()
        ]
        return [*enabled, "typed"]

    def close(self) -> None:
        self.context.close()


def measure(sites: dict[str, Path], pages: list[str], phone: bool) -> dict:
    """{site label: {page: {first: {kind: [ms, ...]}, cpu: {kind: [ms, ...]},
    touch: [ms, ...], later: [ms, ...], later_cpu: [ms, ...], load: [load
    average at each change], loaded: [bytes on load, ...], before: [bytes at
    the first change, ...], every: (bytes the later changes added, bytes in
    all)}}}, each run of each page and kind on every site in turn."""
    from playwright.sync_api import sync_playwright

    results = {label: {} for label in sites}
    with contextlib.ExitStack() as stack:
        served = {
            label: stack.enter_context(serve(site, gzip=True))
            for label, site in sites.items()
        }
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for path in pages:
                for label in sites:
                    results[label][path] = {
                        "first": {}, "cpu": {}, "touch": [], "later": [],
                        "later_cpu": [], "load": [], "before": [], "loaded": [],
                    }  # fmt: skip
                probe = Tab(browser, served[next(iter(sites))] + path, phone)
                names = probe.kinds()
                probe.close()
                for repeat in range(REPEATS):
                    for name in names:
                        for label, url in served.items():
                            found = results[label][path]
                            tab = Tab(browser, url + path, phone)
                            found["loaded"].append(tab.on_load)
                            found["before"].append(tab.bytes)
                            found["first"].setdefault(name, []).append(tab.tap(name))
                            found["cpu"].setdefault(name, []).append(tab.cpu)
                            found["touch"].append(tab.from_touch)
                            found["load"].append(tab.load)
                            if name == names[0] and repeat == 0:
                                start = tab.bytes
                                for _ in range(LATER_ROUNDS):
                                    for other in tab.kinds():
                                        tab.page.wait_for_timeout(500)
                                        found["later"].append(tab.tap(other))
                                        found["later_cpu"].append(tab.cpu)
                                        found["load"].append(tab.load)
                                tab.page.wait_for_load_state("networkidle")
                                found["every"] = (tab.bytes - start, tab.bytes)
                            tab.close()
                for label in sites:
                    print(f"{label} {path}: {results[label][path]}", file=sys.stderr)
            browser.close()
    return results


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}"


def _builds(figures) -> str:
    """One table cell: the same figure of each build, side by side."""
    return " → ".join(figures)


def _row(*cells: str) -> str:
    """One row of a Markdown table."""
    return "| " + " | ".join(cells) + " |"


def table(results: dict[str, dict], phone: bool = True) -> tuple[str, bool]:
    """Markdown tables (latency and main-thread CPU time per kind of change,
    each site's figure side by side; bytes), and whether every target is met
    by the last site: on a phone every change (the first ones and the later
    ones) within 100 ms and at most 250 KB fetched once the page has loaded;
    on a desktop every change within 50 ms."""
    labels = list(results)
    both = " → ".join(labels)
    rows = [
        f"| page | change | first change ({both}) | its main-thread CPU ({both}) "
        f"| slowest first change, from the touch ({both}) |",
        "|---|---|---:|---:|---:|",
    ]
    later_rows = [
        f"| page | later changes: median, slowest ({both}) | their main-thread CPU: "
        f"median, slowest ({both}) | load average during the page ({both}) |",
        "|---|---:|---:|---:|",
    ]
    byte_rows = [
        f"| page | on load ({both}) | at the first change ({both}) "
        f"| in all, the later changes added ({both}) |",
        "|---|---:|---:|---:|",
    ]
    ok = True
    for page in results[labels[0]]:
        got = {label: results[label][page] for label in labels}
        runs = list(got.values())  # one per build, side by side in each cell
        for name in got[labels[0]]["first"]:
            rows.append(
                _row(
                    page,
                    name,
                    _builds(f"{_ms(r['first'][name])} ms" for r in runs),
                    _builds(f"{_ms(r['cpu'][name])} ms" for r in runs),
                    _builds(f"{max(r['first'][name]):.0f} ms" for r in runs),
                )
            )
        later_rows.append(
            _row(
                page,
                _builds(f"{_ms(r['later'])}, {max(r['later']):.0f} ms" for r in runs),
                _builds(
                    f"{_ms(r['later_cpu'])}, {max(r['later_cpu']):.0f} ms" for r in runs
                ),
                _builds(f"{min(r['load']):.1f}–{max(r['load']):.1f}" for r in runs),
            )
        )
        byte_rows.append(
            _row(
                page,
                _builds(
                    f"{statistics.median(r['loaded']) / 1024:.0f} KB" for r in runs
                ),
                _builds(
                    f"{statistics.median(r['before']) / 1024:.0f} KB" for r in runs
                ),
                _builds(
                    f"{r['every'][1] / 1024:.0f} KB ({r['every'][0] / 1024:.0f} KB)"
                    for r in runs
                ),
            )
        )
        last = got[labels[-1]]
        slowest = max(max(t) for t in last["first"].values())
        worst = max(slowest, max(last["later"]), max(last["touch"]))
        if phone:
            ok &= worst <= 100
            ok &= statistics.median(last["loaded"]) <= 250 * 1024
        else:
            ok &= worst <= 50
    text = "\n".join(rows) + "\n\n" + "\n".join(later_rows) + "\n\n"
    return text + "\n".join(byte_rows), ok


# The same pages before: the third edition's explorers (every setting drawn
# when the book was built, two images a frame fetched as needed and ahead of
# need: chapter 7's had 120 frames), measured with the same emulation on this
# machine (0844fdb, benchmarks/RESULTS.md of that commit); and the second
# edition's (ipywidgets' HTML manager and the page's widget state loaded on the
# reader's first touch, the first tap lost).
BEFORE = """Before, the third edition's explorers (every setting drawn when the book
was built; chapter 7's 120 frames), on the phone; sentences were the three
listed ones only:

| page | first tap, each control | later taps: median, slowest | on load | every frame shown |
|---|---|---:|---:|---:|
| 04_scores.html | sentence 26 ms, heads 32 ms | 27 ms, 28 ms | 245 KB | 362 KB |
| 06_masks.html | sentence 24 ms, mask 65 ms | 49 ms, 75 ms | 253 KB | 368 KB |
| 07_trained_heads.html | weights 65, sentence 22, mask 72, heads 30 | 49, 76 ms | 264 KB | 624 KB |

And the second edition's (the widget manager and the widget state loaded on
the first touch; the first tap itself was lost), on the pages whose
explorers are now those of chapters 4, 6 and 7:

| page | first tap → live, phone | desktop | before the tap | fetched for the tap |
|---|---:|---:|---:|---:|
| book/05_scores.html | 8.8 s | 0.6 s | 219 KB | 1,173 KB |
| book/08_masks.html | 8.0 s | 1.0 s | 241 KB | 1,199 KB |
| book/09_playground.html | 12.8 s | 0.9 s | 212 KB | 2,109 KB |"""


def main(args: list[str]) -> None:
    site = Path(os.environ.get("BOOK_SITE", ROOT / "_build" / "html"))
    phone = "--desktop" not in args
    sites = {"now": site}
    if "--before" in args:
        before = Path(args.pop(args.index("--before") + 1))
        sites = {"before": before, "now": site}
    pages = [a for a in args if not a.startswith("--")] or explorer_pages()
    text, ok = table(measure(sites, pages, phone), phone)
    print(text)
    print("every target met:", ok)


if __name__ == "__main__":
    main(sys.argv[1:])
