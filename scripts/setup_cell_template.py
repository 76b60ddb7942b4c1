# @title Set-up: installs the book's package `mha` where it is missing
def _set_up(source="@MHA_SOURCE@"):
    import importlib.util
    import os
    import subprocess
    import sys

    class MhaSetupError(Exception):
        def _render_traceback_(self):  # Jupyter shows the message alone
            return [f"MhaSetupError: {self}"]

    source = os.environ.get("MHA_INSTALL_SOURCE") or source
    # Where mha is missing, mha alone (seconds): its module mha_setup does the rest.
    if importlib.util.find_spec("mha_setup") is None:
        if not source:
            raise MhaSetupError(
                "This chapter needs the book's package `mha`, and this copy of "
                "the chapter does not say where the book's repository is: install "
                "mha with `pip install .` in the top folder of a copy of the "
                "repository (or set MHA_INSTALL_SOURCE to anything pip can install "
                "it from), then restart the kernel and run the chapter again."
            )
        print(f"Installing the book's package mha from {source} ...")
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", source]
        failed = subprocess.run(pip).returncode != 0
        importlib.invalidate_caches()
        if failed or importlib.util.find_spec("mha_setup") is None:
            raise MhaSetupError(
                f"mha could not be installed here from {source} (pip says why "
                f'above): install it with `pip install "{source}"`, then restart '
                "the kernel and run the chapter again."
            )
    import mha_setup

    mha_setup.run()


_set_up()
del _set_up
