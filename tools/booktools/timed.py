"""One stage of ``make test``, timed: the Makefile runs each stage's command
through this module, which records its wall time and the CPU time of every
process it started, and prints the table ``make test`` ends with.

    python -m booktools.timed STAGE COMMAND...   run COMMAND; its exit status
    python -m booktools.timed --table FILE       the table of the times in FILE

Where make or ``time`` fall short (the one job kept in Python): they count the
CPU time of the processes their child waited for, and a browser leaves
processes that no one waits for (its renderers, outliving the browser that a
test closes, go to init with their CPU time). Here the timer is the stage's
*subreaper* (Linux's ``PR_SET_CHILD_SUBREAPER``): every process of the stage
whose parent is gone is handed to it, waited for and counted. Where
``$BOOK_TIMES`` names a file, each stage appends a line to it: the stage,
when it began and ended, its CPU seconds and its exit status.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
# Processes of the stage still running when its command has ended (a server
# some test left behind) are waited for this long, then ended.
LEFT_RUNNING_GRACE = 10.0


def _become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _reap_all(deadline: float) -> None:
    """Wait for every remaining child (orphans handed to this subreaper
    included); those still running at ``deadline`` are ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left
        if pid:
            continue
        if time.time() > deadline:
            for child in _children():
                try:
                    os.kill(child, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            deadline = float("inf")
        time.sleep(0.05)


def _children() -> list[int]:
    """The pids of this process's children (from /proc)."""
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == me:  # (field 4: the parent)
                found.append(int(entry.name))
    return found


def run(stage: str, command: list[str]) -> int:
    """Run ``command`` as ``stage``; its exit status. Records the stage's times
    in ``$BOOK_TIMES`` if set."""
    _become_subreaper()
    began = time.time()
    try:
        status = subprocess.call(command)
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        status = 127
    _reap_all(time.time() + LEFT_RUNNING_GRACE)
    ended = time.time()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    record = {"stage": stage, "began": began, "ended": ended, "cpu": cpu}
    record["status"] = status
    if os.environ.get("BOOK_TIMES"):
        with open(os.environ["BOOK_TIMES"], "a") as times:
            times.write(json.dumps(record) + "\n")
    return status


def read(path: Path) -> dict[str, dict]:
    """``{stage: {"began", "ended", "wall", "cpu", "failed"}}`` from a times
    file, in the order the stages began (a stage's several commands summed)."""
    stages: dict[str, dict] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    for record in sorted(
        (json.loads(line) for line in lines), key=lambda r: r["began"]
    ):
        stage = stages.setdefault(
            record["stage"],
            {"began": record["began"], "wall": 0.0, "cpu": 0.0, "failed": False},
        )
        stage["ended"] = record["ended"]
        stage["wall"] += record["ended"] - record["began"]
        stage["cpu"] += record["cpu"]
        stage["failed"] |= record["status"] != 0
    return stages


def table(stages: dict[str, dict]) -> str:
    """Each stage's wall and CPU time, which it ran beside, and the whole's."""
    lines = ["== make test, stage by stage: wall time (CPU time, every process) =="]
    for name, stage in stages.items():
        beside = [
            other
            for other, o in stages.items()
            if other != name and o["began"] < stage["began"] < o["ended"]
        ]
        mark = "  FAILED" if stage["failed"] else ""
        note = f"  (alongside {', '.join(beside)})" if beside else ""
        lines.append(
            f"{name:>8}  {stage['wall']:6.1f} s  ({stage['cpu']:6.1f} s){mark}{note}"
        )
    if stages:
        whole = max(s["ended"] for s in stages.values()) - min(
            s["began"] for s in stages.values()
        )
        cpu = sum(s["cpu"] for s in stages.values())
        lines.append(f"{'total':>8}  {whole:6.1f} s  ({cpu:6.1f} s)")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--table"] and len(argv) == 2:
        print("\n" + table(read(Path(argv[1]))))
        return 0
    if len(argv) >= 2 and not argv[0].startswith("-"):
        return run(argv[0], argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
