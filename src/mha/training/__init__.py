"""Two toy tasks whose right attention patterns are known, their models, the
training loop they share, and their shipped weights.

- :mod:`mha.training.loop`: the loop (:func:`.fit`), seeded training in float32
  on one thread, and measures of what a model learned (:func:`.share_at_offset`,
  :func:`.without_head`);
- :mod:`mha.training.previous_word`: *copy the previous word*;
- :mod:`mha.training.neighbours`: *name both neighbours*.

Trained models are judged by their behaviour, never by equality with a file:
float32 training amplifies the last-bit differences between processors.
Everything is available here, as ``mha.training.<name>``.
"""

from mha.training.loop import (
    HEAD_COUNTS,
    IGNORE,
    TrainingRun,
    fit,
    share_at_offset,
    without_head,
)
from mha.training.neighbours import (
    NEIGHBOURS_FILE,
    NEIGHBOURS_LENGTHS,
    NEIGHBOURS_SEEDS,
    NeighboursModel,
    neighbours_accuracy,
    neighbours_batch,
    neighbours_behaviour,
    save_trained_neighbours,
    train_neighbours,
    trained_neighbours,
)
from mha.training.previous_word import (
    TRAIN_LENGTHS,
    WEIGHTS_FILE,
    PreviousWordModel,
    behaviour,
    previous_word_accuracy,
    previous_word_batch,
    previous_word_share,
    save_trained,
    train_previous_word,
    trained_model,
)

__all__ = [
    "HEAD_COUNTS",
    "IGNORE",
    "NEIGHBOURS_FILE",
    "NEIGHBOURS_LENGTHS",
    "NEIGHBOURS_SEEDS",
    "TRAIN_LENGTHS",
    "WEIGHTS_FILE",
    "NeighboursModel",
    "PreviousWordModel",
    "TrainingRun",
    "behaviour",
    "fit",
    "neighbours_accuracy",
    "neighbours_batch",
    "neighbours_behaviour",
    "previous_word_accuracy",
    "previous_word_batch",
    "previous_word_share",
    "save_trained",
    "save_trained_neighbours",
    "share_at_offset",
    "train_neighbours",
    "train_previous_word",
    "trained_model",
    "trained_neighbours",
    "without_head",
]
