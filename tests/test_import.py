"""``import mha`` costs little beyond ``import torch``: the figures, the
display helpers and the explorer (matplotlib, PIL, ipywidgets) load when
first used, and then give what they always gave."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("matplotlib", "PIL", "ipywidgets", "IPython")


# Each snippet in a fresh copy of one Python that has imported torch alone
# (a fork: torch is imported once for all of them, and loads none of HEAVY,
# which the parent checks first): what a fresh Python loads beyond torch.
PROBE = """
import os, sys, torch
HEAVY = {heavy!r}
print(' '.join(m for m in HEAVY if m in sys.modules), flush=True)
for code in {codes!r}:
    pid = os.fork()
    if pid == 0:
        exec(code, {{}})
        print(' '.join(m for m in HEAVY if m in sys.modules), flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
"""


def loaded_after(*codes: str) -> list[set[str]]:
    """For each snippet of ``codes``, the HEAVY modules loaded in a fresh
    Python after running it."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY, codes=codes)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert out[0] == "", f"import torch alone loads {out[0]}"
    assert len(out) == len(codes) + 2, out  # a line each, and the last line's end
    return [set(line.split()) for line in out[1:-1]]


@pytest.mark.slow
def test_import_mha_loads_no_figure_or_widget_library_until_a_figure_is_used():
    alone, display, plotting = loaded_after(
        "import mha; mha.MultiHeadAttention(8, 2)",
        "import mha; mha.display_attention",
        "import mha; mha.plotting.CMAP",
    )
    assert alone == set()
    assert "matplotlib" in display
    assert "matplotlib" in plotting


def test_the_lazy_names_are_the_submodules_own():
    import mha
    import mha.display
    import mha.explorer
    import mha.plotting

    assert mha.display_attention is mha.plotting.display_attention
    assert mha.attention_explorer is mha.explorer.attention_explorer
    assert mha.show_source is mha.display.show_source
    assert {"plotting", "display", "explorer", "show_source"} <= set(dir(mha))


def test_an_unknown_name_is_an_attribute_error():
    import pytest

    import mha

    with pytest.raises(AttributeError, match="module 'mha' has no attribute 'nope'"):
        mha.nope  # noqa: B018
