"""Toy tasks whose right attention patterns are known, the model they train,
the loop, and their shipped weights.

- :mod:`mha.training.task`: a task described by data (:class:`.Task`) and
  the two copying tasks, :data:`.PREVIOUS_WORD` (*copy the previous word*)
  and :data:`.NEIGHBOURS` (*name both neighbours*);
- :mod:`mha.training.agreement`: :data:`.AGREEMENT`, subject–verb agreement
  in a small synthetic language (*the keys to the cabinet are*), and
  :data:`.FRONTED`, the same with phrases before the subject too (*by the
  door the lamps are*), and sentences of one shape to test a model with;
- :mod:`mha.training.induction`: :data:`.INDUCTION`, random letters whose
  first part repeats (*continue the repeat*), the task of an induction head;
- :mod:`mha.training.model`: the toy model (:class:`.ToyModel`: layers,
  on a residual stream or not, causal or not) and its reading of a sentence
  (:func:`.read`);
- :mod:`mha.training.loop`: the loop (:func:`.fit`), seeded training in
  float32 on one thread (:func:`.train`) and the shipped weights
  (:func:`.load`);
- :mod:`mha.training.measures`: what a model learned (:func:`.behaviour`,
  :func:`.share_at_offset`), and what it loses without a head, zeroed
  (:func:`.without_head`) or replaced by its mean (:func:`.mean_ablated`);
- :mod:`mha.training.composition`: how the two layers of a model trained on
  :data:`.FRONTED` work together;
- :mod:`mha.training.variants`: the controls shipped beside its models.

Trained models are judged by their behaviour, never by equality with a file:
float32 training amplifies the last-bit differences between processors.
"""

from mha.training import composition, induction, variants
from mha.training.agreement import AGREEMENT, FRONTED
from mha.training.induction import INDUCTION
from mha.training.loop import fit, load, train
from mha.training.measures import (
    behaviour,
    head_mean,
    mean_ablated,
    share_at_offset,
    without_head,
)
from mha.training.model import HEAD_COUNTS, ToyModel, read
from mha.training.task import NEIGHBOURS, PREVIOUS_WORD, Task

__all__ = [
    "AGREEMENT",
    "FRONTED",
    "HEAD_COUNTS",
    "INDUCTION",
    "NEIGHBOURS",
    "PREVIOUS_WORD",
    "Task",
    "ToyModel",
    "behaviour",
    "composition",
    "fit",
    "head_mean",
    "induction",
    "load",
    "mean_ablated",
    "read",
    "share_at_offset",
    "train",
    "variants",
    "without_head",
]
