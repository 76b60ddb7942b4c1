# Sets this chapter up wherever it is opened. In a clone of the book's repository,
# where `import mha` works, it does nothing. On Colab, Binder or in a downloaded
# notebook it installs the book's helper package `mha` (once; about a minute).
def _set_up_mha():
    import importlib
    import importlib.metadata as metadata
    import importlib.util
    import os
    import subprocess
    import sys
    import tempfile

    class MhaSetupError(Exception):
        # Jupyter shows the message alone, no traceback.
        def _render_traceback_(self):
            return [f"{type(self).__name__}: {self}"]

    def version(distribution):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            return None

    if importlib.util.find_spec("mha") is None:
        source = os.environ.get("MHA_INSTALL_SOURCE") or "@MHA_SOURCE@"
        if not source:
            raise MhaSetupError(
                "This chapter needs the book's helper package `mha`, and this copy of the "
                "chapter does not say where the book's repository is. Install mha with "
                "`pip install .` in the top folder of a copy of the repository (or set "
                "MHA_INSTALL_SOURCE to anything pip can install it from), then restart "
                "the kernel and run the chapter again."
            )
        # The platform's own torch, ipykernel and ipython stay exactly as they are;
        # everything else only has to meet the package's minimum versions.
        keep = [
            f"{name}=={version(name)}"
            for name in ("torch", "ipykernel", "ipython")
            if version(name)
        ]
        with tempfile.NamedTemporaryFile(
            "w", suffix=".txt", delete=False
        ) as constraints:
            constraints.write("\n".join(keep) + "\n")
        command = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--constraint",
            constraints.name,
            source,
        ]
        if not version("torch") and sys.platform.startswith("linux"):
            # PyPI's Linux torch is the multi-gigabyte CUDA build; the book needs the CPU one.
            command += ["--extra-index-url", "https://download.pytorch.org/whl/cpu"]
        watched = {
            "numpy": "numpy",
            "matplotlib": "matplotlib",
            "PIL": "pillow",
            "ipywidgets": "ipywidgets",
        }
        loaded = {
            dist: version(dist)
            for module, dist in watched.items()
            if module in sys.modules
        }
        print(f"Installing the book's package mha from {source} ...")
        failed = subprocess.run(command).returncode != 0
        os.remove(constraints.name)
        if failed:
            raise MhaSetupError(
                f"Installing `mha` from {source} failed (pip says why above). Install it "
                f'with `pip install "{source}"`, then restart the kernel and run the '
                "chapter again."
            )
        importlib.invalidate_caches()
        stale = [dist for dist, was in loaded.items() if version(dist) != was]
        if stale or importlib.util.find_spec("mha") is None:
            raise MhaSetupError(
                "`mha` is installed, but this session cannot use it yet (it had already "
                "loaded older versions of the packages mha needs): restart the kernel "
                "(on Colab: Runtime > Restart session) and run the chapter again."
            )
    try:
        from google.colab import output
    except ImportError:
        pass
    else:  # Colab shows ipywidgets 8 only with this
        output.enable_custom_widget_manager()


_set_up_mha()
del _set_up_mha
