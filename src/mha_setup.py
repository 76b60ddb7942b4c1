"""What a chapter's first cell does once ``mha`` is on the machine.

The cell itself only installs the package ``mha`` where it is missing (alone,
without its dependencies: this module comes with it) and then calls
:func:`run`, which

1. installs what ``mha`` and its extra ``book`` (the figures and the
   explorers) need and the machine lacks, keeping the platform's own
   ``torch``, ``ipykernel`` and ``ipython`` exactly as they are (Colab's, say),
   and asking for PyTorch's CPU build where there is no ``torch`` on Linux;
2. on every run, stops with one line if this session had already loaded a
   version of a package that the install replaced (numpy, say): only a
   restart lets it use the new one. The explorers' widget library,
   anywidget, works with ipywidgets 7 and 8, so a platform's own ipywidgets
   (Colab's 7.7.1, loaded before the cell runs) is kept and needs no restart;
3. on Colab, switches on the widget manager that custom widgets (the
   explorers) need.

In a set-up copy of the repository (``make lab``) everything is in place and
it only checks. It uses the standard library alone, since it runs before the
dependencies of ``mha`` are there, and never imports ``mha`` itself.
"""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import os
import re
import subprocess
import sys
import tempfile

# The platform's own packages, which the install must leave exactly as they are.
KEPT = ("torch", "ipykernel", "ipython")
# Modules a session may have loaded before the install changed them, with the
# distribution each comes from.
WATCHED = {
    "torch": "torch",
    "numpy": "numpy",
    "matplotlib": "matplotlib",
    "PIL": "pillow",
    "ipywidgets": "ipywidgets",
    "mha": "mha",
}
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
RESTART = (
    "restart the kernel (on Colab: Runtime > Restart session) and run the chapter again"
)
# The form of every requirement of mha (pyproject.toml; a unit test keeps them
# so): name>=version, maybe for an extra only (`; extra == "book"`).
REQUIREMENT = re.compile(
    r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*>=\s*(\d+(?:\.\d+)*)"
    r"(?:\s*;\s*extra\s*==\s*[\"'](\w+)[\"'])?"
)
# The extra of mha the chapters need: the figures' and the explorers' packages.
EXTRA = "book"


class MhaSetupError(Exception):
    """The machine or the session is not ready for the book; the message says
    what to do. Jupyter shows the message alone, without a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, None if it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version: ``"8.1.9"`` -> ``(8, 1, 9)``, ``"2.13.0+cpu"``
    -> ``(2, 13, 0)``."""
    found = re.match(r"\d+(?:\.\d+)*", version)
    if not found:
        raise ValueError(f"version must start with a number, got {version!r}")
    return tuple(int(part) for part in found.group().split("."))


def unmet_requirements(package: str = "mha", extra: str = EXTRA) -> list[str]:
    """The requirements of ``package`` and of its ``extra`` (``name>=version``)
    that the installed distributions do not meet: missing, or older than the
    minimum."""
    unmet = []
    for requirement in metadata.requires(package) or []:
        found = REQUIREMENT.fullmatch(requirement.strip())
        if not found:
            raise ValueError(
                f"requirements of {package} must read name>=version, got {requirement!r}"
            )
        name, minimum, needed_for = found.groups()
        if needed_for not in (None, extra):
            continue
        version = installed_version(name)
        if version is None or release(version) < release(minimum):
            unmet.append(f"{name}>={minimum}")
    return unmet


def install(requirements: list[str]) -> None:
    """pip-install ``requirements``, keeping the installed versions of
    :data:`KEPT` exactly; on Linux without torch, from PyTorch's CPU index."""
    kept = [
        f"{name}=={installed_version(name)}" for name in KEPT if installed_version(name)
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as constraints:
        constraints.write("\n".join(kept) + "\n")
    command = [sys.executable, "-m", "pip", "install", "--quiet"]
    command += ["--constraint", constraints.name, *requirements]
    if not installed_version("torch") and sys.platform.startswith("linux"):
        # PyPI's Linux torch is the multi-gigabyte CUDA build; the book needs the CPU one.
        command += ["--extra-index-url", CPU_INDEX]
    print(f"Installing what mha needs: {', '.join(requirements)} ...")
    try:
        failed = subprocess.run(command).returncode != 0
    finally:
        os.remove(constraints.name)
    if failed:
        wanted = " ".join(f'"{r}"' for r in requirements)
        raise MhaSetupError(
            f"Installing {', '.join(requirements)} failed (pip says why above). "
            f"Install them with `pip install {wanted}`, then {RESTART}."
        )
    importlib.invalidate_caches()


def changed_since_loaded() -> list[str]:
    """``"numpy 1.26.4 → 2.4.6"`` for each watched module this session loaded
    at a version other than the one installed now."""
    changed = []
    for module, distribution in WATCHED.items():
        loaded = getattr(sys.modules.get(module), "__version__", None)
        now = installed_version(distribution)
        if isinstance(loaded, str) and now is not None and loaded != now:
            changed.append(f"{distribution} {loaded} → {now}")
    return changed


def run() -> None:
    """Set up this session for the book (see the module's description): install
    what is missing, refuse a session that runs outdated packages, switch on
    Colab's widget manager. Raises :class:`MhaSetupError` with what to do."""
    unmet = unmet_requirements()
    if unmet:
        install(unmet)
    changed = changed_since_loaded()
    if changed:
        raise MhaSetupError(
            f"This session still runs the versions it loaded before they were "
            f"replaced ({', '.join(changed)}): {RESTART}."
        )
    try:
        from google.colab import output
    except ImportError:
        return
    output.enable_custom_widget_manager()  # Colab shows custom widgets only with this
