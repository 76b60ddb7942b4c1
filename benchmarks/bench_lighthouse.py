"""Lighthouse scores of every page of the built site, served compressed as
GitHub Pages serves it.

    python benchmarks/bench_lighthouse.py [PAGE ...] [--desktop]

The site is served by a small local server that gzips text (HTML, scripts,
styles, JSON, SVG, fonts other than WOFF2) when the browser asks for it, like
GitHub Pages. Lighthouse 12 comes from npm (`npx --yes lighthouse@12`, only
here: nothing else needs Node) and drives Debian's Chromium in headless mode
with its default mobile preset (simulated slow 4G, 4x slower CPU) or its
desktop preset. Each page is measured RUNS times; the median run by
performance score is reported. (Lighthouse measures a visit without any
input; what a reader's taps cost is benchmarks/bench_first_tap.py's.)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from booktools.book import SITE, html_pages
from booktools.chromium import CHROMIUM, CHROMIUM_ARGS
from booktools.server import serve

LIGHTHOUSE = os.environ.get("LIGHTHOUSE", "lighthouse@12")
RUNS = int(os.environ.get("LIGHTHOUSE_RUNS", "3"))
DESKTOP_RUNS = int(os.environ.get("LIGHTHOUSE_DESKTOP_RUNS", "1"))
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {  # audit id -> short name
    "first-contentful-paint": "FCP",
    "largest-contentful-paint": "LCP",
    "total-blocking-time": "TBT",
    "cumulative-layout-shift": "CLS",
    "speed-index": "SI",
}


def lighthouse(url: str, desktop: bool, out: Path) -> dict:
    """One Lighthouse run: {category: score 0-100, metric: value (ms or CLS)}."""
    flags = " ".join(["--headless=new", *CHROMIUM_ARGS])
    command = [
        "npx",
        "--yes",
        LIGHTHOUSE,
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={flags}",
    ]
    if desktop:
        command.append("--preset=desktop")
    subprocess.run(
        command,
        check=True,
        env={**os.environ, "CHROME_PATH": CHROMIUM},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    report = json.loads(out.read_text())
    result = {c: round(100 * report["categories"][c]["score"]) for c in CATEGORIES}
    for audit, name in METRICS.items():
        result[name] = report["audits"][audit]["numericValue"]
    result["failed audits"] = sorted(
        a["id"]
        for a in report["audits"].values()
        if a.get("score") is not None
        and a["score"] < 1
        and a.get("scoreDisplayMode") in ("binary", "numeric", "metricSavings")
        and a["id"] not in METRICS
    )
    return result


def measure(
    site: Path, pages: list[str], desktop: bool = False, runs: int = RUNS
) -> dict[str, dict]:
    """{page: the median run (by performance score) of `runs` Lighthouse runs}."""
    results = {}
    with serve(site, gzip=True) as url:
        with tempfile.TemporaryDirectory() as tmp:
            for page in pages:
                done = [
                    lighthouse(url + page, desktop, Path(tmp) / "report.json")
                    for _ in range(runs)
                ]
                done.sort(key=lambda r: r["performance"])
                results[page] = done[len(done) // 2]
                results[page]["spread"] = (
                    done[0]["performance"],
                    done[-1]["performance"],
                )
                print(
                    f"{'desktop' if desktop else 'mobile'} {page}: "
                    f"{[r['performance'] for r in done]}",
                    file=sys.stderr,
                    flush=True,
                )
    return results


def table(results: dict[str, dict]) -> str:
    rows = [
        "| page | performance | FCP | LCP | TBT | CLS | SI | accessibility "
        "| best practices | SEO |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for page, r in results.items():
        low, high = r["spread"]
        spread = f" ({low}–{high})" if low != high else ""
        rows.append(
            f"| {page} | {r['performance']}{spread} | {r['FCP'] / 1000:.1f} s "
            f"| {r['LCP'] / 1000:.1f} s | {r['TBT']:.0f} ms | {r['CLS']:.3f} "
            f"| {r['SI'] / 1000:.1f} s | {r['accessibility']} | {r['best-practices']} "
            f"| {r['seo']} |"
        )
    return "\n".join(rows)


def main(args: list[str]) -> None:
    site = SITE
    desktop = "--desktop" in args
    pages = [a for a in args if not a.startswith("--")] or html_pages()
    results = measure(site, pages, desktop, DESKTOP_RUNS if desktop else RUNS)
    print(table(results))
    for page, r in results.items():
        if r["failed audits"]:
            print(f"{page}: {', '.join(r['failed audits'])}")
    print(
        "median performance:",
        statistics.median(r["performance"] for r in results.values()),
    )


if __name__ == "__main__":
    main(sys.argv[1:])
