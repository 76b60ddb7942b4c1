"""Helpers for the book *Multi-Head Attention, Step by Step*.

``import mha`` gives what a reader uses: the tokenizer and vocabulary, the
embeddings and positional encoding, the attention layer and its named steps,
the two mask builders, the running example, converters to and from PyTorch's
layer, and the figures. Everything else lives in the submodules, which
``import mha`` loads too: :mod:`mha.text`, :mod:`mha.embedding`,
:mod:`mha.attention`, :mod:`mha.circuits`, :mod:`mha.masks`, :mod:`mha.block`,
:mod:`mha.interop`, :mod:`mha.example`, :mod:`mha.plotting`, :mod:`mha.display`,
:mod:`mha.explorer`, :mod:`mha.training` and :mod:`mha.cost`.
"""

# The submodules (`x as x`: loaded so that `mha.masks.to_sdpa_mask` and the like work).
from mha import (
    block as block,
    circuits as circuits,
    cost as cost,
    display as display,
    embedding as embedding,
    example as example,
    interop as interop,
    masks as masks,
    plotting as plotting,
    text as text,
    training as training,
)
from mha.attention import (
    MultiHeadAttention,
    attention_probs,
    merge_heads,
    scaled_dot_product,
    split_heads,
)
from mha.display import show_source
from mha.embedding import Embeddings, PositionalEncoding
from mha.example import SENTENCES, running_example
from mha.explorer import attention_explorer
from mha.interop import from_torch, to_torch
from mha.masks import causal_mask, padding_mask
from mha.plotting import display_attention
from mha.text import Vocab, tokenize

__version__ = "0.1.0"

__all__ = [
    "SENTENCES",
    "Embeddings",
    "MultiHeadAttention",
    "PositionalEncoding",
    "Vocab",
    "attention_explorer",
    "attention_probs",
    "causal_mask",
    "display_attention",
    "from_torch",
    "merge_heads",
    "padding_mask",
    "running_example",
    "scaled_dot_product",
    "show_source",
    "split_heads",
    "to_torch",
    "tokenize",
]
