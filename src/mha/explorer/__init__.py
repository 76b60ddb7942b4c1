"""The attention explorer: a model's attention maps for any sentence it can
read, computed in the reader's page from the model's weights.

:func:`attention_explorer` makes one. :mod:`~mha.explorer.models` turns what
it is given into networks (the weights, the vocabulary, the layers) and
computes what each setting shows; ``mha.explorer.look`` holds every word
and colour the page shows; :mod:`~mha.explorer.notebook` is the explorer as
a notebook output, `~mha.explorer.widget.ExplorerWidget` as a Jupyter
widget; ``explorer.js``, joined from the ES modules in ``static/``, is its
one front end, on the book's site and in Jupyter alike.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from mha.example import WEIGHTS
from mha.explorer.models import MASKS, networks
from mha.training import HEAD_COUNTS

__all__ = ["attention_explorer"]


def attention_explorer(
    model=None,
    *,
    weights: Sequence[str] = WEIGHTS,
    head_counts: Sequence[int] = HEAD_COUNTS,
    masks: Sequence[str] = MASKS,
    sentences: Sequence[str] | None = None,
    seed: int = 0,
    vocab=None,
):
    """An explorer of ``model``'s attention: maps for each head (and layer),
    the model's answers where it has readouts, with controls for the
    sentence (a list, or one the reader types or taps together from the
    model's words), the mask, the padding, the head count and the model.
    Everything is computed in the page from the weights, so it works on the
    book's site without a kernel.

    Args:
        model: what to explore. ``None``: the running example's layer, with
            a control for ``weights``. A `mha.training.task.Task` (such as
            ``training.AGREEMENT``): the models shipped for it, one for each
            of ``head_counts``, trained with ``seed``. A layer you built, a
            `mha.attention.MultiHeadAttention` or ``nn.MultiheadAttention`` of width 8:
            it reads the running example's embeddings and positions. A model you built or
            trained: a ``training.train(...)`` run, a
            `mha.example.RunningExample`, or a model with ``embed``,
            ``position``, ``layers`` (or one ``attention``) and optional
            ``readouts``, given with its ``vocab``.
            A dict ``{label: model}``: a control that switches between them.
        weights: with ``model=None``, the running example's weights offered:
            ``"trained"`` (the previous-word model trained with that many
            heads; with four, the running example's layer) and ``"random"``
            (the untrained layer, cut into that many heads).
        head_counts: the head counts offered (a Task or the running example).
        masks: the masks offered, of ``"none"``, ``"causal"`` and ``"padding"``
            (which replaces the last 1 to 3 words by ``<pad>`` and blocks them).
        sentences: the sentences offered; by default the book's three, or
            three of the task's own when the model does not know their words.
        seed: with a Task, the seed of the shipped models shown.
        vocab: with a model given alone, its `mha.text.Vocab`, or the
            `mha.training.task.Task` it was trained on (which also names its answers).

    Returns:
        In a Jupyter kernel, an `mha.explorer.widget.ExplorerWidget`: a
        widget whose setting is Python's too (``ex.heads = 2`` redraws it,
        ``ex.observe(...)`` follows the reader's clicks, ``ex.reading()``
        computes what it shows). Elsewhere (a script, the book's build), an
        `mha.explorer.notebook.Explorer`, which a notebook shows as the
        page's explorer. A control appears only where there is more than
        one option.
    """
    try:  # the explorer's picture and colours are matplotlib's
        import matplotlib  # noqa: F401
        import PIL  # noqa: F401
    except ModuleNotFoundError as error:
        from mha import _EXTRA

        raise ModuleNotFoundError(
            f"mha.attention_explorer: {_EXTRA}", name=error.name
        ) from None
    from mha.explorer.models import _check_subset, example_sentences, padded
    from mha.explorer.notebook import Explorer
    from mha.text import tokenize

    choice, found = networks(model, vocab, weights, head_counts, seed)
    masks = _check_subset("masks", masks, MASKS)
    every = [n for by_heads in found.values() for n in by_heads.values()]
    if sentences is None:
        sentences = example_sentences(every[0])
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError(
            f"sentences must be a list of str, got {type(sentences).__name__} "
            f"{sentences!r}"
        )
    if not sentences:
        raise ValueError(
            f"sentences must hold at least one sentence, got {sentences!r}"
        )
    for sentence in sentences:
        try:
            tokens = tokenize(sentence)
        except (TypeError, ValueError) as error:
            raise type(error)(
                f"sentences must be ones a model can read: {error}"
            ) from None
        for some in every:
            unknown = [t for t in tokens if t not in some.vocab]
            if unknown:
                raise ValueError(
                    f"sentences must use the model's words, got {sentence!r} "
                    f"(unknown: {', '.join(unknown)})"
                )
            length = len(padded(tokens, "none", 0))
            if length > some.max_length:
                raise ValueError(
                    f"sentences must hold at most {some.max_length} words, got "
                    f"{length} in {sentence!r}: too long"
                )
    explorer = Explorer(choice, found, masks, sentences)
    if not _in_kernel():
        return explorer
    try:
        from mha.explorer.widget import ExplorerWidget
    except ImportError:  # no anywidget: the page's explorer, which needs no widget
        return explorer
    return ExplorerWidget(explorer)


def _in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (where a widget can be shown)."""
    ipython = sys.modules.get("IPython")  # a kernel has imported it; else not
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None
