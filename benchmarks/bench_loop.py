"""The test loop, measured: each stage of `make test` (booktools.stages, the
very commands the Makefile runs), its wall time, the CPU time of all it ran
and how busy the machine was meanwhile; and the chapters' validation against
its floor (a kernel start and the chapters' imports, once per chapter).

    python benchmarks/bench_loop.py        # the stages, from a clean _build/
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from booktools import book, stages
from booktools.book import ROOT

FLOOR_CODE = "import torch, matplotlib, mha"
TARGET = 180  # seconds for `make test` on 2 cores

# The stages at commit f612f04, before the unit and browser tests were handed
# out as the workers free up: wall seconds, each stage's command timed alone
# on the same quiet machine, on the day of the change.
BEFORE = {"lint": 0.4, "unit": 83.1, "nbval": 68.7, "book": 20.7, "browser": 206.8}


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


def measure_stages() -> dict[str, tuple[float, float, float | None, bool]]:
    """``{stage: (wall, cpu, busy, passed)}`` for every stage of `make test`,
    in order, from a clean ``_build/``, as `make test` runs them (the unit
    tests and the notebooks on another machine's kernel paths): wall seconds,
    CPU seconds of all the stage ran, the share of the whole machine's CPU
    time that was busy meanwhile (every process counted, the browser's and
    others' too), and whether it passed. Unlike `make test`, a stage that
    fails does not stop the next ones: each is timed."""
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    found = {}
    for stage in stages.STAGES:
        before, start, cpu = _cpu_ticks(), time.perf_counter(), stages.children_cpu()
        try:
            stages.run(stage, other_machine=True, quiet=True)
            passed = True
        except subprocess.CalledProcessError:
            passed = False
        wall, cpu = time.perf_counter() - start, stages.children_cpu() - cpu
        after = _cpu_ticks()
        busy = None
        if before and after and after[1] != before[1]:
            busy = (after[0] - before[0]) / (after[1] - before[1])
        found[stage] = (wall, cpu, busy, passed)
    return found


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
    validation (the command `make nbval` runs) and its floor."""
    chapters = book.notebooks()
    floor = sum(_kernel_floor() for _ in chapters)  # one kernel start per chapter
    start = time.perf_counter()
    subprocess.run(
        stages.nbval_command(),
        cwd=ROOT,
        env=stages.environment("nbval"),
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
    for stage, (wall, cpu, busy) in measure_stages().items():
        print(
            f"{stage:>8} {wall:7.1f} s wall {cpu:7.1f} s CPU  busy {busy}",
            file=sys.stderr,
        )
