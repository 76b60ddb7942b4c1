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
D_MODEL = 8
N_HEADS = 4
MAX_LENGTH = 10  # the longest sentence the position code covers
DROPOUT = 0.1
SEED = 0
DTYPE = torch.float64
