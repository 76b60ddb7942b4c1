"""The running example's fixed choices, shared by the example and the toy tasks:
its three sentences and its sizes."""

from __future__ import annotations

import torch

#: The book's three sentences, in the order of the batch.
SENTENCES = (
    "I wonder what will come next!",
    "This is a basic example paragraph.",
    "Hello, what is a basic split?",
)
#: The width of every vector (``d_model``).
D_MODEL = 8
#: The running example's number of heads.
N_HEADS = 4
#: The longest sentence the position code covers.
MAX_LENGTH = 10
#: The dropout of the running example's position code and layer (training mode only).
DROPOUT = 0.1
#: The seed of the running example's random layer.
SEED = 0
#: The running example computes in float64, for the same printed digits everywhere.
DTYPE = torch.float64
