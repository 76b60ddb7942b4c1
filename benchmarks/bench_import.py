"""What ``import mha`` costs beyond ``import torch``: each in a fresh Python,
``import torch`` timed first, then ``import mha``, the median of RUNS runs.

    python benchmarks/bench_import.py

Wall time and the process's CPU time are both reported (on a shared machine
the CPU time is the steadier of the two), with the heavy modules the import
left loaded.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

RUNS = 7
TARGET = 0.5  # seconds beyond import torch
HEAVY = ("matplotlib", "PIL", "ipywidgets", "IPython")

PROBE = f"""
import json, sys, time
HEAVY = {HEAVY!r}
t0, c0 = time.perf_counter(), time.process_time()
import torch
t1, c1 = time.perf_counter(), time.process_time()
import mha
t2, c2 = time.perf_counter(), time.process_time()
heavy = [m for m in HEAVY if m in sys.modules]
print(json.dumps({{"torch": [t1 - t0, c1 - c0], "mha": [t2 - t1, c2 - c1], "heavy": heavy}}))
"""


def measure(python: str = sys.executable, runs: int = RUNS) -> dict:
    """``{"torch": (wall, cpu), "mha": (wall, cpu), "heavy": [...]}``, medians
    in seconds; ``mha`` is the time beyond ``import torch``."""
    found = [
        json.loads(
            subprocess.run(
                [python, "-c", PROBE], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return {
        part: tuple(statistics.median(run[part][i] for run in found) for i in (0, 1))
        for part in ("torch", "mha")
    } | {"heavy": found[-1]["heavy"]}


def table(result: dict) -> tuple[str, bool]:
    """A markdown table of ``measure``'s result, and whether TARGET is met."""
    (torch_wall, torch_cpu), (mha_wall, mha_cpu) = result["torch"], result["mha"]
    rows = [
        "| | wall | CPU |",
        "|---|---:|---:|",
        f"| `import torch` | {torch_wall:.2f} s | {torch_cpu:.2f} s |",
        f"| `import mha` after it | {mha_wall:.2f} s | {mha_cpu:.2f} s |",
    ]
    loaded = ", ".join(result["heavy"]) or "none"
    return "\n".join(rows) + f"\n\nLoaded by `import mha`: {loaded}.", (
        mha_wall <= TARGET
    )


if __name__ == "__main__":
    print(table(measure())[0])
