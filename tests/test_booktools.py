"""The tooling package the tests, benchmarks and Makefile stand on
(tools/booktools): the pages of _toc.yml, the site server, the stages' timer,
and the Makefile's stages themselves."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import urllib.request

import pytest

from booktools import book, chromium, server, timed


def test_the_pages_are_those_of_the_table_of_contents_in_order(tmp_path):
    (tmp_path / "toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n"
        "  - caption: One\n    chapters:\n      - file: a\n        sections:\n"
        "          - file: a1\n      - file: b\n"
        "  - caption: Two\n    chapters:\n      - file: c\n"
    )
    for name in ("a", "c"):
        (tmp_path / f"{name}.ipynb").write_text("{}")
    toc = tmp_path / "toc.yml"
    assert book.parts(toc) == {
        "intro": ["intro"],
        "One": ["a", "a1", "b"],
        "Two": ["c"],
    }
    assert book.pages(toc) == ["intro", "a", "a1", "b", "c"]
    assert book.notebooks(toc) == [tmp_path / "a.ipynb", tmp_path / "c.ipynb"]
    assert book.html_pages(toc)[0] == "intro.html"


def test_the_book_s_own_pages_start_at_its_root_and_hold_every_chapter():
    pages = book.pages()
    assert pages[0] == "book/intro" and len(pages) == len(set(pages))
    assert all(path.exists() for path in book.notebooks())
    assert set(book.PAGES.values()) <= set(book.html_pages())


def test_a_site_extension_loads_from_its_file_and_a_missing_one_is_named():
    assert book.load_extension("book_code").LONG == 16
    with pytest.raises(ValueError, match="no site extension 'nope'"):
        book.load_extension("nope")


def test_the_server_serves_the_site_plain_late_or_gzipped(tmp_path):
    (tmp_path / "index.html").write_text("<p>" + "hello " * 100 + "</p>")
    with server.serve(tmp_path) as url:
        assert urllib.request.urlopen(url + "index.html").read().startswith(b"<p>")
    with server.serve(tmp_path, gzip=True) as url:
        request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            assert response.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(response.read()).startswith(b"<p>")
    with pytest.raises(FileNotFoundError, match="run `make book` first"):
        with server.serve(tmp_path / "nothing"):
            pass


def test_the_tests_take_the_headless_shell_where_it_is_installed(tmp_path, monkeypatch):
    browser, shell = tmp_path / "chromium", tmp_path / "chromium-headless-shell"
    browser.touch()
    monkeypatch.setattr(chromium, "CHROMIUM", str(browser))
    monkeypatch.setattr(chromium, "HEADLESS_SHELL", str(shell))
    assert chromium.executable(shell=True) == str(browser)  # no shell: the browser
    shell.touch()
    assert chromium.executable(shell=True) == str(shell)
    assert chromium.executable() == str(browser)  # the benchmarks: the browser
    browser.unlink()
    with pytest.raises(FileNotFoundError, match="apt-get install chromium"):
        chromium.executable()


def test_chapters_that_train_or_time_are_validated_first(tmp_path):
    def chapter(name, *code):
        cells = [{"cell_type": "code", "source": c} for c in code]
        path = tmp_path / f"{name}.ipynb"
        path.write_text(json.dumps({"cells": cells}))
        return path

    plain = chapter("plain", "layer.train()\nmodel.eval()")  # a module's .train()
    timed_ = chapter("timed", "cost.time_interleaved(runs)")
    trained = chapter("trained", "training.train(task)\n", "fit(model, data)")
    assert book.longest_first([plain, timed_, trained]) == [trained, timed_, plain]


def test_the_fullest_explorer_is_read_from_the_page_s_data(tmp_path):
    site = tmp_path / "site"
    (site / "book").mkdir(parents=True)
    data = {"models": [{"option": "a"}, {"option": "b"}], "masks": ["none", "causal"]}
    (site / "book" / "a.html").write_text(
        '<p>"models": a word</p><div class="mha-explorer"><script '
        f'type="application/json" class="mha-data">{json.dumps(data)}</script></div>'
    )
    assert book.explorer_data("book/a.html", site) == [data]


def _make(*arguments: str) -> str:
    """What make would run for ``arguments`` (``make -n``: nothing is run),
    whatever the make that runs this test was given (``make unit
    OTHER_MACHINE=1`` passes it on, in MAKEFLAGS and as a variable)."""
    command = ["make", "-n", "--no-print-directory", *arguments]
    passed_on = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "OTHER_MACHINE", "BESIDE")
    env = {k: v for k, v in os.environ.items() if k not in passed_on}
    return subprocess.run(
        command, cwd=book.ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout


def test_make_runs_the_unit_tests_and_notebooks_on_another_machine_one_thread_each():
    other = "ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE"
    one_thread = "OMP_NUM_THREADS=1 MKL_NUM_THREADS=1"
    for stage in ("unit", "nbval"):
        assert other in _make(stage, "OTHER_MACHINE=1")
        assert other not in _make(stage)
        assert one_thread in _make(stage)
    for stage in ("book", "browser"):
        assert "ATEN_CPU_CAPABILITY" not in _make(stage, "OTHER_MACHINE=1")
    assert "-n 2" in _make("nbval") and "-n 3" in _make("browser")
    nbval = _make("nbval", "CHAPTERS=book/02_qkv.ipynb")
    assert (
        "BOOK_NBVAL=1" in nbval and "--nbval " in nbval and "book/02_qkv.ipynb" in nbval
    )


def test_make_test_lints_first_then_runs_the_stages_side_by_side_the_site_built_first():
    """The linter alone; then the unit tests, nbval and the site at once, the
    browser tests after the site's build, the unit tests and nbval at a lower
    priority than the site's chain (every stage still runs: none is left out
    of the schedule)."""
    lines = _make("stages").replace("\\\n", " ").splitlines()
    makes = [line for line in lines if line.startswith("make ")]
    assert makes[0].endswith(" lint")
    assert "-j3" in makes[1] and makes[1].split()[-3:] == [
        "unit",
        "nbval",
        "tested-site",
    ]
    stage = {
        name: next(line for line in lines if f"booktools.timed {name} " in line)
        for name in ("unit", "nbval", "book", "browser")
    }
    for name in ("unit", "nbval"):
        assert f"nice -n 10 .venv/bin/python -m booktools.timed {name} " in stage[name]
    assert "nice" not in stage["book"] + stage["browser"]
    assert "nice" not in _make("unit") + _make("nbval")  # alone: at their own priority
    site = _make("tested-site")
    assert site.index("jupyter-book build") < site.index("-m browser")
    # A module's tests that share one page go to one worker together.
    assert "--dist loadscope --no-loadscope-reorder" in _make("browser")


def test_each_test_stage_collects_its_own_directory_and_a_misplaced_test_is_named():
    unit, browser = _make("unit"), _make("browser")
    assert f"--ignore {book.BROWSER_TESTS} tests" in unit
    assert f"-m browser {book.BROWSER_TESTS}" in browser
    # Hypothesis's plugin only where there are property tests.
    assert "no:hypothesispytest" not in unit
    assert "no:hypothesispytest" in browser
    assert "no:hypothesispytest" in _make("nbval")
    tests = [
        ("tests/test_a.py::test_x", False),
        ("tests/browser/test_b.py::test_y", True),
        ("tests/test_a.py::test_page", True),  # the browser stage would miss it
        ("tests/browser/test_b.py::test_z", False),  # the unit stage would
        ("tests/browserish/test_c.py::test_w", False),
    ]
    assert book.misplaced(tests) == [
        "tests/test_a.py::test_page",
        "tests/browser/test_b.py::test_z",
    ]


def test_colours_are_read_in_every_form_a_browser_gives_them():
    from booktools.colours import contrast, rgb

    assert rgb("#fff") == rgb("#ffffff") == rgb("rgb(255, 255, 255)") == (255, 255, 255)
    assert rgb(" rgba(0, 114, 178, 0.5)") == (0, 114, 178)
    assert round(contrast((0, 0, 0), (255, 255, 255)), 1) == 21.0
    assert contrast((0, 114, 178), (0, 114, 178)) == 1.0
    with pytest.raises(ValueError, match="colour must be .* got 'blue'"):
        rgb("blue")


def test_a_stage_s_cpu_time_counts_the_processes_its_command_left_behind(tmp_path):
    """A browser leaves processes whose parent does not wait for them; the
    timer, the stage's subreaper, waits for them and counts their CPU time."""
    orphan = (
        "import os, time\n"
        "if os.fork() == 0:  # a child left behind, busy after its parent ended\n"
        "    time.sleep(0.2); start = time.process_time()\n"
        "    while time.process_time() - start < 0.5: pass\n"
        "    os._exit(0)\n"
        "raise SystemExit(3)"
    )
    times = tmp_path / "times.jsonl"
    env = {**os.environ, "BOOK_TIMES": str(times)}
    command = [sys.executable, "-m", "booktools.timed", "late"]
    status = subprocess.call([*command, sys.executable, "-c", orphan], env=env)
    assert status == 3  # the command's own
    (record,) = timed.read(times).values()
    assert record["cpu"] >= 0.5 and record["wall"] >= 0.7 and record["failed"]


def test_the_stage_table_names_stages_side_by_side_and_failures():
    stages = {
        "lint": {"began": 0, "ended": 1, "wall": 1, "cpu": 0.5, "failed": False},
        "nbval": {"began": 1, "ended": 50, "wall": 49, "cpu": 90, "failed": False},
        "book": {"began": 2, "ended": 30, "wall": 28, "cpu": 25, "failed": True},
    }
    lines = timed.table(stages).splitlines()
    assert lines[1].split() == ["lint", "1.0", "s", "(", "0.5", "s)"]
    assert lines[3].endswith("FAILED  (alongside nbval)")
    assert lines[-1].split() == ["total", "50.0", "s", "(", "115.5", "s)"]


def test_the_site_s_phone_rules_apply_where_figures_switch_to_their_phone_layout():
    """book.css's rules for a phone and the figures' phone layouts share one
    breakpoint (``PHONE_SCREEN``; CSS cannot read it, this test does)."""
    import re

    from mha.plotting.screens import PHONE_SCREEN

    css = (book.ROOT / "assets" / "book.css").read_text()
    widths = re.findall(r"@media[^{]*max-width:\s*([\d.]+)px", css)
    phone = [width for width in widths if float(width) < 600]  # (not a tablet's)
    assert phone and set(phone) == {str(PHONE_SCREEN)}, widths


def test_explorer_data_compares_weights_to_their_last_digits_and_the_rest_exactly():
    import torch

    from booktools.explorers import assert_same_data
    from mha.explorer.models import _tensor

    w = torch.tensor([[0.1, -0.2], [0.3, 0.7]], dtype=torch.float64)
    page = {"heads": [1, 2], "weights": [_tensor(w)]}
    last_bit = {"heads": [1, 2], "weights": [_tensor(w * (1 + 2**-52))]}
    assert_same_data(page, last_bit)  # another processor's kernels: passes
    as_float32 = {"heads": [1, 2], "weights": [_tensor(torch.tensor([[0.5]]))]}
    assert_same_data(
        as_float32,
        {
            "heads": [1, 2],
            "weights": [_tensor(torch.tensor([[0.5]], dtype=torch.float64))],
        },
    )
    with pytest.raises(AssertionError):
        assert_same_data(page, {"heads": [1, 2], "weights": [_tensor(w + 1e-6)]})
    with pytest.raises(AssertionError):
        assert_same_data(page, {"heads": [1, 3], "weights": [_tensor(w)]})
