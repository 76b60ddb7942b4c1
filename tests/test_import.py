"""``import mha`` costs little beyond ``import torch``: the figures, the
display helpers and the explorer (matplotlib, PIL, ipywidgets) load when
first used, and then give what they always gave."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("matplotlib", "PIL", "ipywidgets", "IPython")


def loaded_after(code: str) -> set[str]:
    """The HEAVY modules loaded in a fresh Python after running ``code``."""
    probe = (
        f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_import_mha_loads_no_figure_or_widget_library():
    assert loaded_after("import mha; mha.MultiHeadAttention(8, 2)") == set()


@pytest.mark.slow
def test_the_figures_load_when_first_used():
    assert "matplotlib" in loaded_after("import mha; mha.display_attention")
    assert "matplotlib" in loaded_after("import mha; mha.plotting.CMAP")


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
