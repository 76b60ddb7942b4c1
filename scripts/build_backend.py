"""The package's build backend: setuptools', always from an empty build folder.

setuptools builds a wheel through ``build/lib/`` and never empties it, so a file
an earlier build left there (one since renamed or deleted in ``src/``, or put
there by hand) would ship in every later wheel. Here ``build/`` is removed
before a wheel is built and after, so a wheel holds what ``src/`` holds and
``pip install <a clone>`` leaves no ``build/`` behind. Every other hook is
setuptools' own. ``pyproject.toml`` names this module (``backend-path``).
"""

from __future__ import annotations

import shutil

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (every hook but the one below)

BUILD = "build"  # setuptools' working folder, relative to the project (the hooks' cwd)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """setuptools' ``build_wheel``, between two removals of ``build/``."""
    shutil.rmtree(BUILD, ignore_errors=True)
    try:
        return build_meta.build_wheel(
            wheel_directory, config_settings, metadata_directory
        )
    finally:
        shutil.rmtree(BUILD, ignore_errors=True)
