"""The tooling package the tests, benchmarks and Makefile stand on
(tools/booktools): the pages of _toc.yml, the site server, the stages."""

from __future__ import annotations

import gzip
import json
import sys
import urllib.request

import pytest

from booktools import book, chromium, server, stages


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
    timed = chapter("timed", "cost.time_interleaved(runs)")
    trained = chapter("trained", "training.train(task)\n", "fit(model, data)")
    assert stages.longest_first([plain, timed, trained]) == [trained, timed, plain]


def test_every_stage_has_its_commands_and_a_bad_one_is_named(monkeypatch):
    for name in stages.OTHER_MACHINE:  # (set when `make test` runs this test)
        monkeypatch.delenv(name, raising=False)
    for stage in stages.STAGES:
        assert stages.commands(stage)
    assert "--nbval" in stages.nbval_command()
    env = stages.environment("nbval", other_machine=True)
    assert env.items() >= {**stages.OTHER_MACHINE, **stages.STATIC}.items()
    assert "ATEN_CPU_CAPABILITY" not in stages.environment("book", other_machine=True)
    for stage in ("unit", "nbval"):  # two workers on two cores: one thread each
        assert stages.environment(stage).items() >= stages.ONE_THREAD.items()
    with pytest.raises(ValueError, match="stage must be one of lint, unit"):
        stages.commands("nope")


def test_each_test_stage_collects_its_own_directory_and_a_misplaced_test_is_named():
    unit, browser = stages.commands("unit")[0], stages.commands("browser")[0]
    assert browser[-1] == stages.BROWSER_TESTS and "--ignore" in unit
    assert unit[unit.index("--ignore") + 1] == stages.BROWSER_TESTS
    # Hypothesis's plugin only where there are property tests.
    assert "no:hypothesispytest" not in unit
    assert "no:hypothesispytest" in browser
    assert "no:hypothesispytest" in stages.nbval_command()
    tests = [
        ("tests/test_a.py::test_x", False),
        ("tests/browser/test_b.py::test_y", True),
        ("tests/test_a.py::test_page", True),  # the browser stage would miss it
        ("tests/browser/test_b.py::test_z", False),  # the unit stage would
        ("tests/browserish/test_c.py::test_w", False),
    ]
    assert stages.misplaced(tests) == [
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


def test_the_book_s_modules_are_compiled_before_a_stage_runs(tmp_path, monkeypatch):
    """Where PYTHONDONTWRITEBYTECODE is set, Python would compile mha in every
    process that imports it; a stage compiles the book's modules first."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("X = 1\n")
    monkeypatch.setattr(stages, "ROOT", tmp_path)
    monkeypatch.setattr(stages, "SOURCES", ["src"])
    stages.compile_sources()
    assert [
        p.name.split(".")[0] for p in (tmp_path / "src" / "__pycache__").iterdir()
    ] == ["m"]


def test_a_stage_alongside_another_runs_meanwhile_and_its_failure_counts(
    monkeypatch, capfd, tmp_path
):
    """make test builds the site while nbval runs (one process beside two
    workers): the first stage waits for a sign that the second has started,
    which it could not get one after the other; both are timed on their own,
    the second's output follows the first's, and a failure of either (or both)
    stops make test, timed and named."""
    sign = tmp_path / "second started"
    wait = (
        "import pathlib, sys, time\n"
        "for _ in range(200):\n"
        f"    if pathlib.Path({str(sign)!r}).exists(): break\n"
        "    time.sleep(0.05)\n"
        "else: sys.exit('the second stage never started')\n"
        "print('first done')"
    )
    mark = f"import pathlib; pathlib.Path({str(sign)!r}).touch(); print('second done')"
    work = {
        "first": [[sys.executable, "-c", wait]],
        "second": [[sys.executable, "-c", mark]],
        "last": [[sys.executable, "-c", "print('last done')"]],
    }
    monkeypatch.setattr(stages, "commands", lambda stage: work[stage])
    monkeypatch.setattr(stages, "ALONGSIDE", {"first": "second"})
    monkeypatch.setattr(stages, "compile_sources", lambda: None)
    times = stages.test(("first", "second", "last"))
    assert list(times) == ["first", "second", "last"]
    out = capfd.readouterr().out
    assert out.index("first done") < out.index("second done") < out.index("last done")
    assert "(alongside first)" in out

    sign.unlink()
    work["second"] = [[sys.executable, "-c", f"{mark}; raise SystemExit(3)"]]
    with pytest.raises(SystemExit, match="the second stage failed") as stop:
        stages.test(("first", "second", "last"))
    assert list(stop.value.times) == ["first", "second"]
    out = capfd.readouterr().out
    assert "last done" not in out
    (line,) = [
        line
        for line in out.splitlines()
        if line.strip().startswith("second") and " s  (" in line  # the table's
    ]
    assert "FAILED" in line and "nan" not in line  # timed, failure and all

    sign.unlink()
    work["first"] = [[sys.executable, "-c", f"{wait}; raise SystemExit(2)"]]
    with pytest.raises(SystemExit, match="the first and second stage failed"):
        stages.test(("first", "second", "last"))


def test_an_error_in_the_stage_alongside_is_raised_not_lost(monkeypatch, capfd):
    """Not a command that fails but an error of the runner itself (here a
    command that does not exist) in the stage run alongside: make test stops
    with it, rather than going on to the next stage."""
    python = [sys.executable, "-c"]
    work = {
        "first": [[*python, "print('first done')"]],
        "second": [["/no/such/command"]],
        "last": [[*python, "print('last done')"]],
    }
    monkeypatch.setattr(stages, "commands", lambda stage: work[stage])
    monkeypatch.setattr(stages, "ALONGSIDE", {"first": "second"})
    monkeypatch.setattr(stages, "compile_sources", lambda: None)
    with pytest.raises(FileNotFoundError):
        stages.test(("first", "second", "last"))
    assert "last done" not in capfd.readouterr().out
