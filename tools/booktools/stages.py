"""Kept only for scripts written against the former stage runner: the stages
of ``make test`` are the Makefile's targets now (``make nbval``,
``make unit``, ...). To be deleted once nothing imports it."""

from __future__ import annotations

import os


def nbval_command(paths: list[str] | None = None) -> list[str]:
    """``make nbval``, on ``paths`` (chapters) if given."""
    return [
        "make",
        "--no-print-directory",
        "nbval",
        f"CHAPTERS={' '.join(paths or [])}",
    ]


def environment(stage: str, other_machine: bool = False) -> dict[str, str]:
    """This process's variables (the Makefile adds each stage's own)."""
    extra = {"OTHER_MACHINE": "1"} if other_machine else {}
    return {**os.environ, **extra}
