"""The attention explorer: change the heads, the mask, the sentence, the weights.

:func:`attention_explorer` builds it. :mod:`~mha.explorer.model` computes what
each state of the controls shows, :mod:`~mha.explorer.frames` draws it, and
:mod:`~mha.explorer.view` holds the widgets, in one of two modes: **live** when
a Python kernel runs the notebook (every change recomputes), **static** for the
built web page (every combination drawn in advance, switched in the browser).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from mha._checks import check_choice
from mha.example import SENTENCES
from mha.explorer.model import MASKS, WEIGHTS, sentence_tokens
from mha.explorer.view import Explorer, live_explorer, static_explorer
from mha.training import HEAD_COUNTS
from mha_setup import check_loaded

__all__ = ["attention_explorer"]


def attention_explorer(
    sentences: Sequence[str] = SENTENCES,
    head_counts: Sequence[int] = HEAD_COUNTS,
    masks: Sequence[str] = MASKS,
    weights: Sequence[str] = WEIGHTS,
    mode: str | None = None,
) -> Explorer:
    """The attention explorer with the given options (a control appears only
    where there is more than one option).

    ``mode`` is ``"live"``, ``"static"`` or, by default, taken from the
    environment variable ``MHA_EXPLORER`` (``"live"`` when it is unset; the
    book's ``make execute`` sets ``static`` to store the web page's explorers).
    In a session that runs ipywidgets 7 (Colab's, loaded before ``mha`` brought
    ipywidgets 8) it refuses with one line that says what to do.
    """
    check_loaded("ipywidgets", "8")  # the explorer's widgets (Stack, ...) are 8's
    mode = check_choice(
        "mode", mode or os.environ.get("MHA_EXPLORER", "live"), ("live", "static")
    )
    sentences, head_counts = tuple(sentences), tuple(head_counts)
    masks, weights = tuple(masks), tuple(weights)
    for name, values, allowed in (
        ("head_counts", head_counts, HEAD_COUNTS),
        ("masks", masks, MASKS),
        ("weights", weights, WEIGHTS),
    ):
        if not values or any(v not in allowed for v in values):
            raise ValueError(
                f"{name} must be a non-empty subset of {allowed}, got {values}"
            )
    if not sentences:
        raise ValueError(
            f"sentences must hold at least one sentence, got {sentences!r}"
        )
    for sentence in sentences:
        try:
            sentence_tokens(sentence)
        except (TypeError, ValueError) as error:
            raise type(error)(
                f"sentences must be ones the explorer can show: {error}"
            ) from None
    build = live_explorer if mode == "live" else static_explorer
    return build(sentences, head_counts, masks, weights)
