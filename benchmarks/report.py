"""The benchmark report's prose: one function a section, each turning what a
benchmark measured into Markdown (``## heading``, text, table, target met or
missed), and :func:`replace_sections`, which splices sections into an earlier
report. Nothing here measures: benchmarks/run.py measures, then calls these.
"""

from __future__ import annotations

import os
import platform
import re
from datetime import date

import bench_attention
import bench_backward
import bench_browser
import bench_first_tap
import bench_import
import bench_lab
import bench_lighthouse
import bench_loop
import bench_peer
import torch

from booktools.pages import COMMON_PHONE, DESKTOP, PHONE


def header() -> str:
    return (
        "# Benchmark results\n\n"
        "Made by `make bench` (or `python benchmarks/run.py <sections>`, which "
        f"replaces those sections); last run on {date.today()}: {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"torch {torch.__version__} ({torch.get_num_threads()} threads); load average "
        f"at the end {os.getloadavg()[0]:.1f} (other work on the machine slows every "
        "wall time; CPU times are the steadier measure).\n"
    )


def attention(table: str) -> str:
    """mha against PyTorch's layers (benchmarks/bench_attention.py's table)."""
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
        f"{table}\n\nThe book's layer builds and keeps the scores and the "
        "probabilities, which the chapter on costs measures; against the plainest "
        "peer, see the next section.\n"
    )


def backward(table: str) -> str:
    """The peak memory of a forward and backward pass (bench_backward.py's table)."""
    return (
        "## The backward pass's memory\n\n"
        f"Batch {bench_backward.BATCH}, d_model {bench_backward.D_MODEL}, "
        f"{bench_backward.N_HEADS} heads, float32, CPU: the peak of one forward and "
        "backward pass (`mha.cost.profile_forward` around both, gradients included), "
        "the book's layer against the same projections around "
        "`F.scaled_dot_product_attention`.\n\n"
        f"{table}\n\nThe book's layer keeps its probabilities for autograd, so its "
        "peak grows about fourfold as L doubles; SDPA keeps one number per query and "
        "head and recomputes the scores in its backward pass, so its peak doubles. "
        "The profiler misses a buffer an operator frees before it returns, and this "
        "says nothing of time or of a GPU.\n"
    )


def peer(table: str, met: bool) -> str:
    """mha against the plainest peer (benchmarks/bench_peer.py's table)."""
    return (
        "## The book's layer vs the plainest peer\n\n"
        "`benchmarks/bench_peer.py`: `mha.MultiHeadAttention` (with `mha.causal_mask`) "
        "and `benchmarks/peer_attention.py`, a causal layer written in the style of "
        "the chapter-3 layer of *Build a Large Language Model (From Scratch)* (mask "
        "buffer filled in place, no checks), with the same weights; eval mode, no "
        f"gradients, float32, {bench_peer.THREADS} thread, medians of "
        f"{bench_peer.ROUNDS} interleaved rounds of one forward pass each: its wall "
        "time (which other work on the machine stretches) and its CPU time (the "
        "thread's, which it does not).\n\n"
        f"{table}\n\nTarget: at most {bench_peer.TARGET:.2f} × the peer's CPU time at both "
        f"sizes — {'met' if met else '**missed**'}.\n"
    )


def import_cost(table: str, met: bool) -> str:
    """What `import mha` costs (benchmarks/bench_import.py's table)."""
    return (
        "## `import mha`\n\n"
        "`benchmarks/bench_import.py`: in a fresh Python, `import torch`, then "
        f"`import mha`; medians of {bench_import.RUNS} runs.\n\n"
        f"{table}\n\nTarget: `import mha` within {bench_import.TARGET} s of "
        f"`import torch` — {'met' if met else '**missed**'}.\n"
    )


def validation(chapters: int, nbval: float, floor: float) -> str:
    """The chapters' validation against its floor (bench_loop.measure_validation)."""
    ratio = nbval / floor  # printed to three places: 1.501 is not "1.50" and missed
    verdict = "met" if ratio <= 1.5 else "**missed**"
    return (
        "## Whole-book validation (nbval)\n\n"
        f"The floor is, for each of the {chapters} chapters, a kernel start plus "
        f"`{bench_loop.FLOOR_CODE}`, one after the other, measured in this run.\n\n"
        "| nbval, 2 workers | floor | ratio |\n|---:|---:|---:|\n"
        f"| {nbval:.1f} s | {floor:.1f} s | {ratio:.3f} |\n\n"
        f"Target: ≤ 1.5 × the floor — {verdict}.\n"
    )


def test_loop(found: dict) -> str:
    """`make test` as it runs (bench_loop.measure_stages), beside the stages
    before (bench_loop.BEFORE)."""
    total = found["wall"]
    verdict = "met" if total <= bench_loop.TARGET else "**missed**"
    if found["failed"]:
        verdict += f" (but {found['failed']}: the time is of a failing run)"
    before, uncounted = bench_loop.BEFORE, bench_loop.BEFORE_UNCOUNTED

    def name(stage: str) -> str:
        beside = found["alongside"].get(stage)
        return f"`make {stage}`" + (f" (alongside {beside})" if beside else "")

    def was(stage: str) -> str:
        wall, cpu = before.get(stage, (float("nan"), float("nan")))
        more = f" + {uncounted[stage]:.1f}" if stage in uncounted else ""
        return f"{wall:.1f} s ({cpu:.1f}{more} s)"

    rows = "\n".join(
        f"| {name(stage)} | {was(stage)} | {wall:.1f} s ({cpu:.1f} s) |"
        for stage, (wall, cpu) in found["stages"].items()
    )
    cpu_before = sum(c for _, c in before.values()) + sum(uncounted.values())
    busy = "–" if found["busy"] is None else f"{found['busy']:.0%}"
    return (
        "## The test loop\n\n"
        "`make test` from a clean `_build/`, after set-up, as it runs: the "
        "linter, then the unit tests, nbval and the site side by side (the "
        "browser tests once the site is built), the unit tests and the "
        "notebooks on another machine's kernel paths; a stage's wall time "
        "counts the time it shared the cores with the others. Wall time of "
        "each stage and of the whole; CPU time: user and system time of "
        "every process a stage started, the "
        "browsers' included (`booktools.timed`: at most twice the wall time on "
        "2 cores); busy: the share of the machine's CPU time that was busy "
        "during the whole run, other work included.\n\n"
        f"Before: {bench_loop.BEFORE_WHAT}"
        + (" The CPU time its table missed is added after a +." if uncounted else "")
        + "\n\n"
        "| stage | before: wall (CPU) | now: wall (CPU) |\n"
        "|---|---:|---:|\n"
        f"{rows}\n| **`make test`** | **{bench_loop.BEFORE_WHOLE:.1f} s** "
        f"({cpu_before:.1f} s) | **{total:.1f} s** ({found['cpu']:.1f} s, "
        f"busy {busy}) |\n\n"
        f"Target: `make test` ≤ 3 minutes on 2 cores — {verdict}.\n"
    )


def site(sizes: dict) -> str:
    """The built site's size (benchmarks/bench_site.py)."""
    raw, packed = sizes["front_end"]
    rows = "\n".join(
        f"| {page} | {html / 1e6:.2f} MB | {images / 1e6:.2f} MB "
        f"| {(html + images) / 1e6:.2f} MB |"
        for page, html, images in sizes["pages"]
    )
    return (
        "## The built site\n\n"
        f"Total {sizes['total'] / 1e6:.1f} MB, of which {sizes['vendored'] / 1e6:.1f} MB "
        f"are the vendored math font and its copies and {raw / 1e3:.0f} KB "
        f"({packed / 1e3:.0f} KB gzipped) the explorers' front end (`explorer.js` "
        "and `explorer.css`, loaded on explorer pages only; each explorer's "
        "weights are in its page's HTML).\n\n"
        "Page weight = the HTML + the images it names; scripts, style sheets "
        "and fonts excluded.\n\n"
        "| page | HTML | images | weight |\n|---|---:|---:|---:|\n"
        f"{rows}\n"
    )


def explorer(paced: str, paced_ok: bool, rushed: str) -> str:
    """The live explorer in JupyterLab (benchmarks/bench_lab.py's tables)."""
    verdict = "met" if paced_ok else "**missed**"
    return (
        "## Live explorer in JupyterLab\n\n"
        "The explorer of the chapter with every kind of control, in a notebook "
        "of its own run in JupyterLab (started as `make lab` starts it), driven by "
        "headless Chromium through five rounds of every kind of change. It "
        "computes in the page, as on the site. Latency (`booktools.lab`): from "
        "the action's first input event (its own time stamp; for a typed "
        "sentence, its Enter: the words are typed before) to the first frame "
        "painted after the new picture is in the page: what the reader waits "
        "for.\n\n"
        f"A reader who looks at each new picture for {bench_lab.READER_PAUSE:.0f} s "
        "before the next change:\n\n"
        f"{paced}\n\n"
        "Back to back (each change the moment the last picture is painted):\n\n"
        f"{rushed}\n\n"
        f"Target: 90th percentile ≤ 50 ms for every kind, at a reader's pace — "
        f"{verdict}.\n\n"
        "Before (commit 56e0823, the same explorer measured at a load of 10–14 on "
        "the 2 cores, and a typed sentence timed from its first keystroke, not "
        "its Enter): 90th percentiles of 195–350 ms per kind at a reader's pace, "
        "84–143 ms back to back, and the target read as missed. The explorer is "
        "the same: the difference is the machine's other work, which lengthens "
        "every wall time here, and the typed sentence's start.\n"
    )


FLOOR_CODE = "import torch, matplotlib, mha"


def first_tap(phone: str, phone_ok: bool, desktop: str, desktop_ok: bool) -> str:
    """The explorers' first and later changes (benchmarks/bench_first_tap.py's tables)."""
    return (
        "## The explorers on the site: first change and later changes\n\n"
        "`benchmarks/bench_first_tap.py`: every page with an explorer, served "
        "gzipped; for every kind of change (each control shown at first, and a "
        "sentence typed with Enter), a fresh browser loads the page, lets it "
        "settle, scrolls to the explorer and makes the change once (the median of "
        f"{bench_first_tap.REPEATS} runs each). Latency, as Interaction to Next "
        "Paint counts it: from the event that makes the change (the click, the "
        "key, the control's input event) to the first frame painted with the new "
        "picture (computed in the page); in a column of its own, the slowest "
        "from the finger's first touch of the screen. Later changes: every kind "
        "in turn, half a second apart. Bytes as sent (gzipped): once the page "
        "has loaded, at the first "
        "change (the scroll to the explorer has also brought the chapter's own "
        "figures near it, which load lazily), and in all after the later changes "
        "(an explorer fetches nothing once loaded).\n\n"
        f"Phone: {COMMON_PHONE} px touch screen, slow 4G (150 ms round trip, "
        "1.6 Mbit/s down), "
        "4x slower CPU, by Chromium's emulation:\n\n"
        f"{phone}\n\n"
        f"Desktop: {DESKTOP} px, mouse, no throttling:\n\n"
        f"{desktop}\n\n"
        f"{bench_first_tap.BEFORE}\n\n"
        "Targets: on the phone every change within 100 ms and at most 250 KB "
        "before the reader's first move — "
        + ("met" if phone_ok else "**missed**")
        + "; on the desktop every change within 50 ms — "
        + ("met" if desktop_ok else "**missed**")
        + ".\n"
    )


def browser(times: dict, axe: dict) -> str:
    """Where the browser tests spend their time (benchmarks/bench_browser.py)."""
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
        "every explorer's picture and every formula, load every image, check "
        f"that the page fits {DESKTOP} and {PHONE} px; then axe-core on the {len(axe) // 2} page "
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


def lighthouse(mobile: dict, desktop: dict) -> str:
    """Lighthouse's scores (benchmarks/bench_lighthouse.py's results)."""
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
