"""The test loop, measured: `make test` itself, each stage's wall time and
the CPU time of all it ran (the table make test ends with: booktools.timed),
the whole's wall time and how busy the machine was meanwhile; and
the chapters' validation against its floor (a kernel start and the chapters'
imports, once per chapter).

    python benchmarks/bench_loop.py        # the stages, from a clean _build/
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from booktools import book, timed
from booktools.book import ROOT

FLOOR_CODE = "import torch, matplotlib, mha"
TARGET = 180  # seconds for `make test` on 2 cores

# make test with its stages one group after another (lint and unit; nbval
# beside the site's build; then the browser tests), as before they ran side by
# side, measured by this benchmark on 2026-12-06 on a quiet machine (busy 89%):
# wall and CPU seconds per stage, every process counted.
BEFORE = {
    "lint": (0.0, 0.0),
    "unit": (42.7, 78.4),
    "book": (21.7, 14.2),
    "nbval": (65.9, 110.8),
    "browser": (86.1, 142.5),
}
BEFORE_UNCOUNTED: dict[str, float] = {}
BEFORE_WHOLE = 195.2
BEFORE_WHAT = (
    "the stages one group after another (lint and unit; nbval beside the "
    "site's build; then the browser tests), measured by this benchmark on "
    "2026-12-06 on a quiet machine (busy 89%), not back to back with the run "
    "below: the machine's speed varies with the other work on it, so the CPU "
    "times compare better than the wall times."
)


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


def measure_stages() -> dict:
    """`make test` from a clean ``_build/``: ``{"stages": {stage: (wall,
    cpu)}, "wall": seconds of the whole, "cpu": CPU seconds of all it ran,
    "busy": the share of the whole machine's CPU time that was busy meanwhile
    (other work included), "failed": the stages that failed, or None}``."""
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    before, start = _cpu_ticks(), time.perf_counter()
    subprocess.run(["make", "test"], cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = _cpu_ticks()
    stages = timed.read(ROOT / "_build" / "times.jsonl")
    busy = None
    if before and after and after[1] != before[1]:
        busy = (after[0] - before[0]) / (after[1] - before[1])
    failed = [stage for stage, t in stages.items() if t["failed"]]
    return {
        "stages": {stage: (t["wall"], t["cpu"]) for stage, t in stages.items()},
        "alongside": {  # the stages each one shared the machine with
            stage: ", ".join(
                other
                for other, o in stages.items()
                if other != stage
                and o["began"] < t["ended"]
                and t["began"] < o["ended"]
            )
            for stage, t in stages.items()
        },
        "wall": wall,
        "cpu": sum(t["cpu"] for t in stages.values()),
        "busy": busy,
        "failed": ", ".join(failed) + " failed" if failed else None,
    }


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


def measure_validation() -> dict[str, float]:
    """``{"chapters": n, "nbval": seconds, "floor": seconds}``: the chapters'
    validation (`make nbval`) and its floor."""
    chapters = book.notebooks()
    floor = sum(_kernel_floor() for _ in chapters)  # one kernel start per chapter
    start = time.perf_counter()
    subprocess.run(
        ["make", "nbval"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return {
        "chapters": len(chapters),
        "nbval": time.perf_counter() - start,
        "floor": floor,
    }


if __name__ == "__main__":
    print(measure_stages(), file=sys.stderr)
