"""The README is for the people who arrive: short, a quick start that fits a
screen, a command that runs as written, and links that lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import mha_setup

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_the_readme_is_short_and_starts_with_reading():
    assert len(README.split()) <= 1500
    sections = re.findall(r"^## (.+)$", README, re.MULTILINE)
    assert sections[0] == "Quick start"
    quick = README.split("## Quick start")[1].split("```")[1]  # its code block
    assert len(quick.strip().splitlines()) <= 15 + 1  # the language line


def test_the_quick_start_uses_the_set_up_s_cpu_index():
    """The one copy of the address a reader runs as written; the set-up's
    own (mha_setup.CPU_INDEX) is the source."""
    assert re.findall(r"--extra-index-url (\S+)", README) == [mha_setup.CPU_INDEX]


def test_every_local_link_of_the_readme_and_contributing_leads_somewhere():
    for page in ("README.md", "CONTRIBUTING.md"):
        text = re.sub(r"``.+?``", "", (ROOT / page).read_text(encoding="utf-8"))
        for target in LINK.findall(text):  # (examples in ``code`` left out)
            if re.match(r"[a-z]+:", target):
                continue  # another site
            path, _, anchor = target.partition("#")
            file = ROOT / (path or page)
            assert file.exists(), f"{page}: {target}"
            if anchor:
                headings = re.findall(r"^#+ (.+)$", file.read_text(), re.MULTILINE)
                assert anchor in {slug(h) for h in headings}, f"{page}: {target}"
