"""The stages of ``make test``, each defined once: the Makefile runs them
(``python -m booktools run STAGE``, ``python -m booktools test``) and the
benchmarks time the very same commands.

Public names:

- ``STAGES``: the stages of ``make test``, cheapest first (lint, unit tests,
  notebooks, the site, the browser tests).
- ``OTHER_MACHINE``: PyTorch's baseline CPU kernels and MKL's compatible
  mode, the settings under which ``make test`` runs the unit tests and the
  notebooks (every run is then also a run on "another machine"; outputs are
  stored by ``make execute`` with the native kernels). ``STATIC``:
  figures drawn off-screen (the site and its checks).
  ``VALIDATING``: what nbval runs the chapters with (``BOOK_NBVAL=1``).
- :func:`nbval_command`, :func:`longest_first`: the chapters' validation,
  the chapters that train or time first.
- ``BROWSER_TESTS``: the folder of the browser tests, which the unit tests'
  stage leaves out; :func:`misplaced`: the tests no stage would run.
- :func:`commands` and :func:`environment`: what a stage runs, and with
  which variables (``WORKERS``, ``BROWSER_WORKERS``: how many pytest
  workers); :func:`compile_sources`: the book's modules (``SOURCES``)
  compiled before a stage; :func:`run`: one stage, timed (a
  :class:`Timing`: wall time, and the CPU time of everything it ran, the
  steadier measure on a shared machine, counted for each command it ran);
  :func:`test`: every stage in order (``ALONGSIDE``: the site built while
  nbval runs; :func:`alongside`: the stage a stage runs beside), stopping at
  the first that fails, each one's times printed at the end.
"""

from __future__ import annotations

import compileall
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from booktools import chromium
from booktools.book import ROOT, SITE, notebooks

STAGES = ("lint", "unit", "nbval", "book", "browser")
OTHER_MACHINE = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}
STATIC = {"MPLBACKEND": "Agg"}
# Set while nbval re-runs the chapters: a chapter may then time its layers on a
# smaller grid, in a cell whose output nbval does not compare (the figure a
# reader sees is the one `make execute` stored, on the whole grid).
VALIDATING = {"BOOK_NBVAL": "1"}
# The folders ruff checks and formats.
LINTED = ["src", "tools", "tests", "benchmarks", "book", "scripts", "_ext"]
# Two workers, one per core, and each worker's PyTorch (and the kernels nbval
# starts) on one thread: two workers of two threads each on two cores wait
# on each other at every small operation (chapter 8's training took 255 s
# under nbval that way, 8 s alone).
WORKERS = ["-n", "2"]
# The browser tests on three: a page test spends about two fifths of its time
# waiting (a slow network's late files, a page settling after a resize),
# which a third worker fills (two workers kept the cores 77% busy, three 89%:
# 129 -> 110 s on this machine; four, 95%, gained only 3 s more).
BROWSER_WORKERS = ["-n", "3"]
# The unit and browser tests handed out as the workers free up ("worksteal":
# a worker that runs out takes tests queued for another), the longest first
# (``slow``, tests/conftest.py): no worker waits alone at the end, as one
# did when each had a fixed share (a fifth of the unit tests' time).
SHARED_OUT = ["--dist", "worksteal"]
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# Where the browser tests are, and they alone (tests/conftest.py stops a
# collection that finds otherwise): each test stage's workers import only
# their own stage's test modules, and the browser tests' workers load no
# nbval plugin (with Hypothesis's plugin off too, below, a browser worker's
# collection took about 5 s of CPU instead of 8).
BROWSER_TESTS = "tests/browser"

_BIN = Path(sys.executable).parent
_PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
# Hypothesis's pytest plugin, for the stages without property tests (the
# notebooks, the browser tests): loading it costs each pytest process about
# 0.9 s of CPU.
_NO_PROPERTY_TESTS = ["-p", "no:hypothesispytest"]


# A call that trains a model (``training.train(...)``, ``fit(...)``, not a
# module's ``.train()``) or times a layer: a chapter that makes such calls
# takes longest to validate.
LONG_RUNNING = re.compile(
    r"(?<![\w.])(?:training\.)?(?:train|fit)\(|\btime_(?:interleaved|forward)\("
)


def longest_first(paths: list[Path]) -> list[Path]:
    """``paths`` (notebooks) with those that train or time most first, the
    rest after them, each group in its order: two workers then start on the
    longest chapters, and the short ones fill in around them."""

    def calls(path: Path) -> int:
        code = "".join(
            "".join(cell["source"])
            for cell in json.loads(path.read_text())["cells"]
            if cell["cell_type"] == "code"
        )
        return len(LONG_RUNNING.findall(code))

    return sorted(paths, key=lambda path: -calls(path))


def misplaced(tests: Iterable[tuple[str, bool]]) -> list[str]:
    """Of ``tests``, ``(node id, marked browser)`` pairs (ids relative to the
    checkout, as pytest gives them), those marked browser outside
    ``BROWSER_TESTS`` or unmarked inside it: a stage would never run them."""
    inside = BROWSER_TESTS + "/"
    return [test for test, browser in tests if browser != test.startswith(inside)]


def nbval_command(paths: list[str] | None = None) -> list[str]:
    """pytest validating the chapters (every chapter of ``_toc.yml`` unless
    ``paths``, the longest first): each one re-executed and every output
    compared with the stored one, each chapter's cells in order on one
    worker."""
    chapters = paths or [
        str(path.relative_to(ROOT)) for path in longest_first(notebooks())
    ]
    return [
        *_PYTEST,
        *_NO_PROPERTY_TESTS,
        *WORKERS,
        "--dist",
        "loadfile",
        "--nbval",
        "--nbval-current-env",
        "--nbval-sanitize-with",
        "tests/nbval_sanitize.cfg",
        *chapters,
    ]


def commands(stage: str) -> list[list[str]]:
    """The commands of ``stage``, run in the checkout, in order."""
    if stage == "lint":
        ruff = [sys.executable, "-m", "ruff"]
        return [[*ruff, "check", *LINTED], [*ruff, "format", "--check", *LINTED]]
    if stage == "unit":
        unit = ["-m", "not browser", "--ignore", BROWSER_TESTS, "tests"]
        return [[*_PYTEST, "-p", "no:nbval", *WORKERS, *SHARED_OUT, *unit]]
    if stage == "nbval":
        return [nbval_command()]
    if stage == "book":
        # Every page rebuilt, so a change to the CSS, the assets, the
        # configuration or the package's docstrings always reaches the site.
        build = [str(_BIN / "jupyter-book"), "build", ".", "-W", "-n", "--keep-going"]
        return [[*build, "--all"]]
    if stage == "browser":
        plugins = ["-p", "no:nbval", *_NO_PROPERTY_TESTS]
        browser = ["-m", "browser", BROWSER_TESTS]
        return [[*_PYTEST, *plugins, *BROWSER_WORKERS, *SHARED_OUT, *browser]]
    raise ValueError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}")


def environment(stage: str, other_machine: bool = False) -> dict[str, str]:
    """The variables ``stage`` runs with: this process's, the static
    explorers for the notebooks and the site, and with ``other_machine``
    (``make test``'s unit tests and notebooks) ``OTHER_MACHINE``."""
    env = {**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    if stage in ("unit", "nbval"):
        env.update(ONE_THREAD)
    if stage in ("nbval", "book"):
        env.update(STATIC)
    if stage == "nbval":
        env.update(VALIDATING)
    if other_machine and stage in ("unit", "nbval"):
        env.update(OTHER_MACHINE)
    if stage == "browser":
        env["CHROMIUM"] = chromium.CHROMIUM
        env["CHROMIUM_HEADLESS_SHELL"] = chromium.HEADLESS_SHELL
    return env


# The book's own Python, which every stage's processes import (the package in
# each of nbval's kernels, the tooling, the tests, the site's extensions).
SOURCES = ["src", "tools", "tests", "_ext", "scripts", "benchmarks"]


_COMPILING = threading.Lock()


def compile_sources() -> None:
    """Compile the book's own modules to bytecode where it is missing or out
    of date. Python then reads it on every import, also where
    ``PYTHONDONTWRITEBYTECODE`` is set (as on some CI machines), which keeps
    every process from compiling them anew: about 0.8 s of CPU for each
    process that imports mha with its figures, and a stage starts dozens."""
    with _COMPILING:  # (two stages side by side: the second finds it done)
        for folder in SOURCES:
            compileall.compile_dir(ROOT / folder, quiet=2, workers=1)


class Timing(NamedTuple):
    """What a stage took: ``wall`` seconds, and ``cpu`` seconds of user and
    system time of every process it ran (on 2 cores, up to twice the wall
    time)."""

    wall: float
    cpu: float


def _call(command: list[str], env: dict[str, str], output) -> tuple[int, float]:
    """Run ``command`` in the checkout: its exit status and the CPU seconds it
    took, its own and its descendants' (counted for it alone, so that two
    stages that run side by side are timed apart)."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
    try:
        _, status, usage = os.wait4(process.pid, 0)
    except BaseException:
        process.kill()
        process.wait()
        raise
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


def run(
    stage: str, other_machine: bool = False, quiet: bool = False, output=None
) -> Timing:
    """Run ``stage`` in the checkout; its :class:`Timing`. Raises
    ``subprocess.CalledProcessError`` if a command fails (its ``timing``:
    the stage's until then). ``quiet``: its output is not shown; ``output``:
    a file it goes to instead."""
    if stage == "browser":
        try:
            chromium.executable(shell=True)
        except FileNotFoundError as error:
            raise SystemExit(str(error)) from None
    env = environment(stage, other_machine)
    output = subprocess.DEVNULL if quiet else output
    start, cpu = time.perf_counter(), 0.0
    compile_sources()
    if stage == "book":
        shutil.rmtree(SITE, ignore_errors=True)  # no page of an earlier build left
    for command in commands(stage):
        if not quiet:
            shown = command[2:] if command[0] == sys.executable else command
            print("+", " ".join(shown), file=output or sys.stdout, flush=True)
        status, seconds = _call(command, env, output)
        cpu += seconds
        if status:
            error = subprocess.CalledProcessError(status, command)
            error.timing = Timing(time.perf_counter() - start, cpu)
            raise error
    return Timing(time.perf_counter() - start, cpu)


# A stage that runs alongside another, on the core that one leaves idle: the
# site (one process, one core) is built from the chapters' stored outputs
# while nbval runs them again (its two workers wait on each other's last
# chapter at the end). Its output follows nbval's.
ALONGSIDE = {"nbval": "book"}


def alongside(stage: str) -> str | None:
    """The stage that ``stage`` runs beside in ``make test`` (``"book"``:
    ``"nbval"``), or ``None``."""
    return next((s for s, partner in ALONGSIDE.items() if partner == stage), None)


class _Background:
    """A stage run in a thread of its own, its output kept until :meth:`result`."""

    def __init__(self, stage: str, quiet: bool = False):
        self.log = tempfile.TemporaryFile("w+")
        self.outcome: Timing | BaseException | None = None

        def work() -> None:
            try:
                self.outcome = run(stage, True, quiet=quiet, output=self.log)
            except BaseException as error:  # raised again by result()
                self.outcome = error

        self.thread = threading.Thread(target=work, daemon=True)
        self.thread.start()

    def result(self) -> Timing:
        """Wait for the stage, show its output, and return its :class:`Timing`
        (raising what it raised, ``subprocess.CalledProcessError`` if a
        command failed)."""
        self.thread.join()
        self.log.seek(0)
        sys.stdout.write(self.log.read())
        sys.stdout.flush()
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def test(stages: tuple[str, ...] = STAGES, quiet: bool = False) -> dict[str, Timing]:
    """``make test``: every stage in order (those of ``ALONGSIDE`` side by
    side), the unit tests and the notebooks on ``OTHER_MACHINE``; stops at
    the first stage that fails (``SystemExit``, whose ``times`` are the
    stages' so far). Prints each stage's times at the end (also after a
    failure), and the time of the whole; returns them. ``quiet``: the
    stages' own output is not shown."""
    times: dict[str, Timing] = {}
    failed: list[str] = []
    began = time.perf_counter()
    todo = list(stages)
    try:
        while todo and not failed:
            stage = todo.pop(0)
            partner = ALONGSIDE.get(stage)
            background = None
            if partner in todo:
                todo.remove(partner)
                background = _Background(partner, quiet)
            try:
                times[stage] = run(stage, other_machine=True, quiet=quiet)
            except subprocess.CalledProcessError as error:
                times[stage] = error.timing
                failed.append(stage)
            finally:  # (also after Ctrl-C: no stage left running unseen)
                if background is not None:
                    try:
                        times[partner] = background.result()
                    except subprocess.CalledProcessError as error:
                        times[partner] = error.timing
                        failed.append(partner)
    finally:
        if not quiet:
            _summary(times, failed, time.perf_counter() - began)
    if failed:
        stop = SystemExit(f"make test: the {' and '.join(failed)} stage failed")
        stop.times = times
        raise stop
    return times


def _summary(times: dict[str, Timing], failed: list[str], whole: float) -> None:
    """The table make test ends with: each stage's times, then the whole's."""
    print("\n== make test, stage by stage: wall time (CPU time, both cores) ==")
    for stage, (wall, cpu) in times.items():
        mark = "  FAILED" if stage in failed else ""
        beside = alongside(stage)
        note = f"  (alongside {beside})" if beside in times else ""
        print(f"{stage:>8}  {wall:6.1f} s  ({cpu:6.1f} s){mark}{note}")
    cpu = sum(t.cpu for t in times.values())
    print(f"{'total':>8}  {whole:6.1f} s  ({cpu:6.1f} s)")
