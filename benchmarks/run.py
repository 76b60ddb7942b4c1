"""Run every benchmark, print one markdown report and write benchmarks/RESULTS.md.

    make bench          # everything (takes about an hour: it runs `make test` and
                        # Lighthouse on every page)
    python benchmarks/run.py attention explorer site   # only some sections; they
                        # replace their own sections of RESULTS.md

Each figure is a median of several runs; each comparison is a ratio of two
measurements taken side by side in the same run. Nothing here is a test: the
targets are reported as met or missed, with the numbers. The measuring is in
the bench_*.py modules, the report's prose in report.py; this file runs one,
then the other, section by section.
"""

from __future__ import annotations

import subprocess
import sys

import bench_attention
import bench_backward
import bench_browser
import bench_first_tap
import bench_import
import bench_lab
import bench_lighthouse
import bench_loop
import bench_peer
import bench_site
import report

from booktools import book


def _site():
    """The built site (built first if it is not)."""
    if not (book.SITE / "index.html").exists():
        subprocess.run(["make", "book"], cwd=book.ROOT, check=True)
    return book.SITE


def attention() -> str:
    return report.attention(bench_attention.table())


def backward() -> str:
    return report.backward(bench_backward.table())


def peer() -> str:
    return report.peer(*bench_peer.table())


def import_cost() -> str:
    return report.import_cost(*bench_import.table(bench_import.measure()))


def explorer() -> str:
    paced, paced_ok = bench_lab.table(pause=bench_lab.READER_PAUSE)
    rushed, _ = bench_lab.table(pause=0)
    return report.explorer(paced, paced_ok, rushed)


def validation() -> str:
    return report.validation(**bench_loop.measure_validation())


def build() -> str:
    return report.test_loop(bench_loop.measure_stages())


def site() -> str:
    return report.site(bench_site.measure(_site()))


def taps() -> str:
    site, pages = _site(), book.explorer_pages()
    sites = {"now": site}
    phone = bench_first_tap.table(bench_first_tap.measure(sites, pages, True))
    desktop = bench_first_tap.table(
        bench_first_tap.measure(sites, pages, False), phone=False
    )
    return report.first_tap(*phone, *desktop)


def browser() -> str:
    return report.browser(*bench_browser.page_steps(_site()))


def lighthouse() -> str:
    site, pages = _site(), book.html_pages()
    mobile = bench_lighthouse.measure(site, pages, desktop=False)
    desktop = bench_lighthouse.measure(
        site, pages, desktop=True, runs=bench_lighthouse.DESKTOP_RUNS
    )
    return report.lighthouse(mobile, desktop)


SECTIONS = {
    "import": import_cost,
    "attention": attention,
    "backward": backward,
    "peer": peer,
    "explorer": explorer,
    "validation": validation,
    "build": build,
    "site": site,
    "taps": taps,
    "browser": browser,
    "lighthouse": lighthouse,
}


def main(names: list[str]) -> None:
    names = names or list(SECTIONS)
    unknown = set(names) - set(SECTIONS)
    if unknown:
        raise SystemExit(
            f"unknown sections {sorted(unknown)}; choose from {list(SECTIONS)}"
        )
    parts = [report.header()]
    results = book.ROOT / "benchmarks" / "RESULTS.md"
    for name in names:
        print(f"running {name} …", file=sys.stderr, flush=True)
        parts.append(SECTIONS[name]())
        # Each section replaces its own in the last report as soon as it is
        # measured, so a section that fails loses none of the others.
        if results.exists():
            results.write_text(report.replace_sections(results.read_text(), parts))
    text = "\n".join(parts)
    print(text)
    if names == list(SECTIONS) or not results.exists():
        results.write_text(text)  # every section: no stale one left over


if __name__ == "__main__":
    main(sys.argv[1:])
