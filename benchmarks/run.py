"""Run every benchmark, print one markdown report and write benchmarks/RESULTS.md.

    make bench          # everything (takes about an hour: it runs `make test` and
                        # Lighthouse on every page)
    python benchmarks/run.py attention explorer site   # only some sections; they
                        # replace their own sections of RESULTS.md

Each figure is a median of several runs; each comparison is a ratio of two
measurements taken side by side in the same run. Nothing here is a test: the
targets are reported as met or missed, with the numbers.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import bench_attention
import bench_browser
import bench_first_tap
import bench_lab
import bench_lighthouse
import torch

from booktools import book, stages
from booktools.book import ROOT


def _run(command: list[str], **kwargs) -> float:
    """Wall time of a command, which must succeed (with the notebooks' variables)."""
    start = time.perf_counter()
    subprocess.run(
        command,
        cwd=ROOT,
        env=stages.environment("nbval"),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        **kwargs,
    )
    return time.perf_counter() - start


def _cpu_ticks() -> tuple[int, int] | None:
    """(busy, total) jiffies of all cores since boot, from /proc/stat (Linux only)."""
    try:
        fields = [
            int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]
        ]
    except OSError:
        return None
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _run_busy(stage: str) -> tuple[float, float | None]:
    """Wall time of a stage of `make test` (on another machine's kernel paths,
    as `make test` runs it) and the share of the machine's CPU time that was
    busy meanwhile (every process counted, the browser's too)."""
    before = _cpu_ticks()
    wall = stages.run(stage, other_machine=True, quiet=True).wall
    after = _cpu_ticks()
    if before is None or after is None or after[1] == before[1]:
        return wall, None
    return wall, (after[0] - before[0]) / (after[1] - before[1])


def notebooks() -> list[str]:
    return [str(path.relative_to(ROOT)) for path in book.notebooks()]


def section_attention() -> str:
    text = bench_attention.table()
    return (
        "## Forward pass: `mha.MultiHeadAttention` vs PyTorch\n\n"
        f"Batch {bench_attention.BATCH}, d_model {bench_attention.D_MODEL}, "
        f"{bench_attention.N_HEADS} heads, self-attention, CPU, float32, eval mode, "
        "`torch.inference_mode()`; times are medians of interleaved runs (the order "
        "rotating every round, `mha.cost.time_interleaved`), ratios those of the medians. "
        "`nn.MultiheadAttention` "
        "returns per-head weights (`need_weights=True, average_attn_weights=False`), "
        "like ours; `sdpa` is `F.scaled_dot_product_attention` with the same projections "
        "and no weights.\n\n"
        f"{text}\n\nThe book's layer is plain on purpose (no speed target since the second "
        "edition): it builds and keeps the scores and the probabilities, which the "
        "chapter on costs measures.\n"
    )


def section_explorer() -> str:
    paced, paced_ok = bench_lab.table(pause=bench_lab.READER_PAUSE)
    rushed, _ = bench_lab.table(pause=0)
    verdict = "met" if paced_ok else "**missed**"
    return (
        "## Live explorer in JupyterLab\n\n"
        "The chapter whose explorer has every kind of control, run in JupyterLab "
        "(started as `make lab` starts it) and driven by headless Chromium through "
        "five rounds of every option of every control. Measured two ways at once "
        "(`tests/browser/lab_driver.py`): *strict*, from the action's first input "
        "event (its own time stamp) to the new image decoded and painted: what the "
        "reader waits for; *loose*, as this benchmark measured before, from a "
        "listener seeing the last click, change or key to the image's `src` "
        "changing in the page. The loose measure starts later (after the browser "
        "has dispatched the event, and for a click at the button press rather than "
        "the first touch of it) and stops earlier (before the browser has read and "
        "decoded the new image and painted it): 15 to 35 ms less.\n\n"
        "A typed sentence is timed from Enter, pressed 0.3 s after the last key "
        "(while the reader types, the explorer draws the text so far whenever "
        "they pause).\n\n"
        f"A reader who looks at each new picture for {bench_lab.READER_PAUSE:.0f} s "
        "before the next change:\n\n"
        f"{paced}\n\n"
        "Back to back (each change the moment the last picture is painted: no "
        "time for the explorer to draw the next frames ahead):\n\n"
        f"{rushed}\n\n"
        f"Target: 90th percentile ≤ 100 ms for every kind, strict, at a reader's "
        f"pace — {verdict}.\n"
    )


FLOOR_CODE = "import torch, matplotlib, mha"


def _kernel_floor() -> float:
    """Start a kernel, import what every chapter imports, stop: the least a chapter costs."""
    from jupyter_client.manager import start_new_kernel

    start = time.perf_counter()
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        client.execute_interactive(FLOOR_CODE, timeout=120)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return time.perf_counter() - start


def section_validation() -> str:
    books = notebooks()
    floor = sum(_kernel_floor() for _ in books)  # one kernel start per chapter
    nbval = _run(stages.nbval_command(books))
    ratio = nbval / floor
    verdict = "met" if ratio <= 1.5 else "**missed**"
    return (
        "## Whole-book validation (nbval)\n\n"
        f"The floor is, for each of the {len(books)} chapters, a kernel start plus "
        f"`{FLOOR_CODE}`, one after the other, measured in this run.\n\n"
        "| nbval, 2 workers | floor | ratio |\n|---:|---:|---:|\n"
        f"| {nbval:.1f} s | {floor:.1f} s | {ratio:.2f} |\n\n"
        f"Target: ≤ 1.5 × the floor — {verdict}.\n"
    )


def section_build() -> str:
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    times = {stage: _run_busy(stage) for stage in stages.STAGES}
    total = sum(wall for wall, _ in times.values())
    verdict = "met" if total <= 180 else "**missed**"
    rows = "\n".join(
        f"| `make {stage}` | {wall:.1f} s | {wall / total:.0%} | "
        f"{'–' if busy is None else f'{busy:.0%}'} |"
        for stage, (wall, busy) in times.items()
    )
    return (
        "## The test loop\n\n"
        "`make test` from a clean `_build/`, after set-up, stage by stage (it runs "
        "exactly these targets, in this order, the unit tests and the notebooks on "
        "another machine's kernel paths as `make test` does):\n\n"
        "| stage | wall time | share | CPU busy (both cores) |\n|---|---:|---:|---:|\n"
        f"{rows}\n| **`make test`** | **{total:.1f} s** | | |\n\n"
        f"Target: `make test` ≤ 3 minutes on 2 cores — {verdict}.\n"
    )


def section_site() -> str:
    site = ROOT / "_build" / "html"
    if not (site / "index.html").exists():
        stages.run("book", quiet=True)
    vendored = {site / "_static" / "mathjax", site / "_static" / "fonts"}
    total = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    vendor_size = sum(
        f.stat().st_size for d in vendored for f in d.rglob("*") if f.is_file()
    )
    frames = site / "_images" / "explorer"
    frame_bytes = sum(f.stat().st_size for f in frames.glob("*"))
    rows = []
    for notebook in ["book/intro.ipynb", *notebooks(), "book/api.ipynb"]:
        page = site / notebook.replace(".ipynb", ".html")
        if not page.exists():
            continue
        text = page.read_text()
        images = {
            m
            for m in re.findall(r'<img[^>]+src="([^"]+)"', text)
            if not m.startswith("data:")
        }
        image_bytes = sum(
            (page.parent / m).stat().st_size
            for m in images
            if (page.parent / m).exists()
        )
        weight = page.stat().st_size + image_bytes
        rows.append(
            f"| {page.relative_to(site)} | {page.stat().st_size / 1e6:.2f} MB "
            f"| {image_bytes / 1e6:.2f} MB | {weight / 1e6:.2f} MB |"
        )
    return (
        "## The built site\n\n"
        f"Total {total / 1e6:.1f} MB, of which {vendor_size / 1e6:.1f} MB are the "
        "vendored MathJax and the math font (MathJax loaded only if the book is "
        f"switched back to it) and {frame_bytes / 1e6:.2f} MB the explorers' "
        f"{len(list(frames.glob('*')))} frame images (each fetched only when it is "
        "about to be shown).\n\n"
        "Page weight = the HTML + the images it names (an explorer: its first "
        "frame); scripts, style sheets and fonts excluded.\n\n"
        "| page | HTML | images | weight |\n|---|---:|---:|---:|\n"
        + "\n".join(rows)
        + "\n"
    )


def section_first_tap() -> str:
    site, pages = ROOT / "_build" / "html", bench_first_tap.explorer_pages()
    if not (site / "index.html").exists():
        stages.run("book", quiet=True)
    phone, phone_ok = bench_first_tap.table(bench_first_tap.measure(site, pages, True))
    desktop, desktop_ok = bench_first_tap.table(
        bench_first_tap.measure(site, pages, False), phone=False
    )
    return (
        "## The explorers on the site: first tap and later taps\n\n"
        "`benchmarks/bench_first_tap.py`: every page with an explorer, served "
        "gzipped; for every control shown at first, a fresh browser loads the page, "
        "lets it settle, scrolls to the explorer and taps the control once (the "
        f"median of {bench_first_tap.REPEATS} runs each). Latency, as Interaction "
        "to Next Paint counts it: from the event that changes the control (the "
        "click, the key, the control's input event) to the paint of the right "
        "picture (the new settings' caption, both images loaded); in brackets, "
        "from the finger's first touch of the screen. Later taps: every control in turn, half a "
        "second apart. Bytes as sent (gzipped): once the page has loaded (the "
        "explorer's script has fetched the frames one change away), at the first "
        "tap (the scroll to the explorer has also brought the chapter's own figures "
        "near it, which load lazily), and once every frame has been shown.\n\n"
        "Phone: 390 px touch screen, slow 4G (150 ms round trip, 1.6 Mbit/s down), "
        "4x slower CPU, by Chromium's emulation:\n\n"
        f"{phone}\n\n"
        "Desktop: 1280 px, mouse, no throttling:\n\n"
        f"{desktop}\n\n"
        f"{bench_first_tap.BEFORE}\n\n"
        "Targets: on the phone every first tap within 200 ms and every later one "
        "within 100 ms, at most 300 KB before the reader's first move and 1 MB for "
        "a reader who shows every frame — "
        + ("met" if phone_ok else "**missed**")
        + "; on the desktop every tap within 50 ms — "
        + ("met" if desktop_ok else "**missed**")
        + ".\n"
    )


def section_browser() -> str:
    site = ROOT / "_build" / "html"
    if not (site / "index.html").exists():
        stages.run("book", quiet=True)
    times, axe = bench_browser.page_steps(site)
    totals = {
        step: sum(t[step] for t in times.values()) for step in bench_browser.STEPS
    }
    totals["axe-core (each layout, light and dark)"] = sum(axe.values())
    everything = sum(totals.values())
    slowest = max(times, key=lambda page: sum(times[page].values()))
    rows = "\n".join(
        f"| {step} | {t:.1f} s | {t / everything:.0%} |" for step, t in totals.items()
    )
    return (
        "## Where the browser tests spend their time\n\n"
        f"Each of the {len(times)} pages opened alone in one headless Chromium, timing "
        "the steps of the per-page test: load (until the network is idle), wait for "
        "every explorer's frame and every formula, load every image, check "
        f"that the page fits 1280 and 360 px; then axe-core on the {len(axe) // 2} page "
        "layouts, in light and dark mode.\n\n"
        "| step | all pages | share |\n|---|---:|---:|\n"
        f"{rows}\n| **all** | **{everything:.1f} s** | |\n\n"
        f"Slowest page: {slowest}, "
        + ", ".join(f"{step} {t:.1f} s" for step, t in times[slowest].items())
        + "; "
        + "axe-core: "
        + ", ".join(f"{page} {t:.1f} s" for page, t in axe.items())
        + ".\n"
    )


def section_lighthouse() -> str:
    # $BOOK_SITE: measure another build (e.g. a copy that stays put meanwhile).
    site = Path(os.environ.get("BOOK_SITE", ROOT / "_build" / "html"))
    if not (site / "index.html").exists():
        stages.run("book", quiet=True)
    pages = bench_lighthouse.toc_pages()
    mobile = bench_lighthouse.measure(site, pages, desktop=False)
    desktop = bench_lighthouse.measure(
        site, pages, desktop=True, runs=bench_lighthouse.DESKTOP_RUNS
    )
    low = [page for page, r in mobile.items() if r["performance"] < 90]
    others = [
        page
        for page, r in mobile.items()
        if min(r["accessibility"], r["best-practices"]) < 100
    ]
    verdict = "met" if not low else f"**missed** on {', '.join(low)}"
    return (
        "## Page speed (Lighthouse)\n\n"
        f"Measured on {date.today()}. "
        f"Lighthouse {bench_lighthouse.LIGHTHOUSE.split('@')[-1]} on every page of the book, "
        "served with gzip as GitHub Pages serves it, by headless Chromium on this machine. "
        "Mobile preset: simulated slow 4G (150 ms round trip, 1.6 Mbit/s) and a 4x slower "
        f"CPU; the median of {bench_lighthouse.RUNS} runs by performance score, the range "
        "of the runs in brackets. Times: first contentful paint (FCP), largest contentful "
        "paint (LCP), total blocking time (TBT), cumulative layout shift (CLS), speed "
        "index (SI). Lighthouse measures a visit without any input; what the "
        "explorers' taps cost is in the section on the first tap.\n\n"
        f"{bench_lighthouse.table(mobile)}\n\n"
        f"Desktop preset (median of {bench_lighthouse.DESKTOP_RUNS}):\n\n"
        f"{bench_lighthouse.table(desktop)}\n\n"
        f"Target: performance ≥ 90 on every page, mobile — {verdict}. Accessibility and "
        "best practices 100 — "
        + ("met" if not others else f"**missed** on {others}")
        + ".\n"
    )


SECTIONS = {
    "attention": section_attention,
    "explorer": section_explorer,
    "validation": section_validation,
    "build": section_build,
    "site": section_site,
    "taps": section_first_tap,
    "browser": section_browser,
    "lighthouse": section_lighthouse,
}


def main(names: list[str]) -> None:
    names = names or list(SECTIONS)
    unknown = set(names) - set(SECTIONS)
    if unknown:
        raise SystemExit(
            f"unknown sections {sorted(unknown)}; choose from {list(SECTIONS)}"
        )
    header = (
        "# Benchmark results\n\n"
        "Made by `make bench` (or `python benchmarks/run.py <sections>`, which "
        f"replaces those sections); last run on {date.today()}: {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"torch {torch.__version__} ({torch.get_num_threads()} threads).\n"
    )
    parts = [header]
    results = ROOT / "benchmarks" / "RESULTS.md"
    for name in names:
        print(f"running {name} …", file=sys.stderr, flush=True)
        parts.append(SECTIONS[name]())
        # Each section replaces its own in the last report as soon as it is
        # measured, so a section that fails loses none of the others.
        if results.exists():
            results.write_text(replace_sections(results.read_text(), parts))
    report = "\n".join(parts)
    print(report)
    if names == list(SECTIONS) or not results.exists():
        results.write_text(report)  # every section: no stale one left over


def replace_sections(report: str, sections: list[str]) -> str:
    """``report`` with each of ``sections`` in place of the section of the same
    "## " heading (appended at the end if it has none)."""
    pieces = re.split(r"^## ", report, flags=re.M)
    parts = pieces[:1] + ["## " + piece for piece in pieces[1:]]
    if sections and not sections[0].startswith("## "):  # a new header
        parts[0], sections = sections[0].rstrip("\n") + "\n\n", sections[1:]
    for section in sections:
        heading = section.split("\n", 1)[0]
        matches = [
            i for i, part in enumerate(parts) if part.split("\n", 1)[0] == heading
        ]
        if matches:
            parts[matches[0]] = section.rstrip("\n") + "\n\n"
        else:
            parts[-1] = parts[-1].rstrip("\n") + "\n\n"
            parts.append(section.rstrip("\n") + "\n")
    return "".join(parts).rstrip("\n") + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
