"""Toy tasks whose right attention patterns are known, the model they train,
the loop, and their shipped weights.

- :mod:`mha.training.task`: a task described by data (:class:`.Task`) and
  the two copying tasks, :data:`.PREVIOUS_WORD` (*copy the previous word*)
  and :data:`.NEIGHBOURS` (*name both neighbours*);
- :mod:`mha.training.agreement`: :data:`.AGREEMENT`, subject–verb agreement
  in a small synthetic language (*the keys to the cabinet are*);
- :mod:`mha.training.model`: the one toy model (:class:`.ToyModel`);
- :mod:`mha.training.loop`: the loop (:func:`.fit`), seeded training in
  float32 on one thread (:func:`.train`) and the shipped weights
  (:func:`.load`);
- :mod:`mha.training.measures`: what a model learned (:func:`.behaviour`,
  :func:`.share_at_offset`, :func:`.without_head`).

Trained models are judged by their behaviour, never by equality with a file:
float32 training amplifies the last-bit differences between processors.
"""

from mha.training.agreement import AGREEMENT
from mha.training.loop import fit, load, train
from mha.training.measures import behaviour, share_at_offset, without_head
from mha.training.model import HEAD_COUNTS, ToyModel
from mha.training.task import NEIGHBOURS, PREVIOUS_WORD, Task

__all__ = [
    "AGREEMENT",
    "HEAD_COUNTS",
    "NEIGHBOURS",
    "PREVIOUS_WORD",
    "Task",
    "ToyModel",
    "behaviour",
    "fit",
    "load",
    "share_at_offset",
    "train",
    "without_head",
]
