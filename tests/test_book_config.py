"""scripts/book_config.py: the build's configuration, derived from _config.yml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def derive(tmp_path: Path, *args: str, url: str | None = None) -> dict:
    env = {"PATH": "/usr/bin:/bin", "BOOK_REPOSITORY_URL": url or ""}
    out = tmp_path / "config.yml"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "book_config.py"), str(out), *args],
                   cwd=tmp_path, env=env, check=True)
    return yaml.safe_load(out.read_text())


def test_stored_outputs_switch_execution_off(tmp_path):
    original = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert original["execute"]["execute_notebooks"] == "cache"
    assert original["execute"]["raise_on_error"] is True
    derived = derive(tmp_path, "--stored-outputs", url="https://github.com/a/b")
    assert derived["execute"]["execute_notebooks"] == "off"
    # Everything else is carried over unchanged, but for the folders of local
    # extensions, made absolute (the copy is read from another folder).
    local = derived["sphinx"].pop("local_extensions", {})
    assert local.keys() == original["sphinx"].pop("local_extensions", {}).keys()
    assert all(Path(folder).is_absolute() and Path(folder).is_dir() for folder in local.values())
    assert derived["sphinx"] == original["sphinx"]
    assert derive(tmp_path, url="https://github.com/a/b")["execute"] == original["execute"]


def test_launch_buttons_point_at_the_repository(tmp_path):
    derived = derive(tmp_path, url="git@github.com:someone/the-book.git")
    assert derived["repository"]["url"] == "https://github.com/someone/the-book"
    assert derived["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert derived["html"]["use_repository_button"] is True


def test_without_a_repository_there_are_no_launch_buttons(tmp_path):
    derived = derive(tmp_path, url="https://example.org/not/github")
    assert derived["repository"]["url"] == ""
    assert not any(derived["launch_buttons"][k] for k in ("binderhub_url", "colab_url"))
    assert derived["html"]["use_repository_button"] is False
