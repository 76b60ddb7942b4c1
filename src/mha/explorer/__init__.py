"""The attention explorer: change the heads, the mask, the sentence, the weights.

:func:`attention_explorer` builds it. :mod:`~mha.explorer.model` computes what
each state of the controls shows, :mod:`~mha.explorer.choices` says which
controls there are, and :mod:`~mha.explorer.frames` draws the frames. The
explorer comes in one of two modes: **live** (:mod:`~mha.explorer.live`)
when a Python kernel runs the notebook, where every change recomputes;
**static** (:mod:`~mha.explorer.static`) for the book's web page, where
every state is drawn in advance and the page switches between them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from mha._checks import check_choice
from mha.example import SENTENCES
from mha.explorer.choices import Choices
from mha.explorer.model import MASKS, WEIGHTS
from mha.explorer.static import StaticExplorer
from mha.training import HEAD_COUNTS
from mha_setup import check_loaded

__all__ = ["attention_explorer"]


def attention_explorer(
    sentences: Sequence[str] = SENTENCES,
    head_counts: Sequence[int] = HEAD_COUNTS,
    masks: Sequence[str] = MASKS,
    weights: Sequence[str] = WEIGHTS,
    mode: str | None = None,
):
    """The attention explorer with the given options (a control appears only
    where there is more than one option).

    ``mode`` is ``"live"``, ``"static"`` or, by default, taken from the
    environment variable ``MHA_EXPLORER`` (``"live"`` when it is unset; the
    book's ``make execute`` sets ``static`` to store the web page's explorers).
    Returns a `mha.explorer.live.LiveExplorer` (an ipywidget) or a
    `mha.explorer.static.StaticExplorer`. A live explorer in a session
    that runs ipywidgets 7 (Colab's, loaded before ``mha`` brought ipywidgets
    8) is refused with one line that says what to do.
    """
    mode = check_choice(
        "mode", mode or os.environ.get("MHA_EXPLORER", "live"), ("live", "static")
    )
    choices = Choices(sentences, head_counts, masks, weights)
    if mode == "static":
        return StaticExplorer(choices)
    check_loaded("ipywidgets", "8")  # the live explorer's widgets are ipywidgets 8's
    from mha.explorer.live import LiveExplorer  # ipywidgets only where it runs

    return LiveExplorer(choices)
