"""Helpers for the book *Multi-Head Attention, Step by Step*.

What ``import mha`` gives (``help(mha.NAME)`` shows one of them):

    words and their ids      tokenize, Vocab
    vectors and positions    Embeddings, PositionalEncoding
    the steps of attention   split_heads, scaled_dot_product, attention_probs,
                             merge_heads
    the layer                MultiHeadAttention
    the two masks            causal_mask, padding_mask
    PyTorch's layer          to_torch, from_torch
    the book's example       SENTENCES, running_example
    figures and code         display_attention, attention_explorer, show_source

Everything else lives in the submodules: mha.defaults, mha.text, mha.embedding,
mha.attention, mha.circuits, mha.masks, mha.block, mha.interop, mha.example,
mha.training and mha.cost load with ``import mha``; mha.plotting, mha.display
and mha.explorer (and the names above that come from them) load when first
used, so that a reader who wants the layer does not wait for matplotlib.
(Below, each layer's own methods come first; the long lists of methods
"inherited from torch.nn.modules.module.Module" are PyTorch's.)
"""

import importlib
from importlib.metadata import version

# The submodules (`x as x`: loaded so that `mha.masks.to_sdpa_mask` and the like work).
from mha import (
    block as block,
    circuits as circuits,
    cost as cost,
    embedding as embedding,
    example as example,
    interop as interop,
    masks as masks,
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
from mha.embedding import Embeddings, PositionalEncoding
from mha.example import SENTENCES, running_example
from mha.interop import from_torch, to_torch
from mha.masks import causal_mask, padding_mask
from mha.text import Vocab, tokenize

__version__ = version("mha")  # the one place it is written: pyproject.toml

# Loaded when first used (PEP 562): {name: the module that holds it}.
_LAZY_MODULES = ("plotting", "display", "explorer")
_LAZY_NAMES = {
    "display_attention": "mha.plotting",
    "attention_explorer": "mha.explorer",
    "show_source": "mha.display",
}


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        return importlib.import_module(f"mha.{name}")
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value  # found directly from now on
        return value
    raise AttributeError(f"module 'mha' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_MODULES, *_LAZY_NAMES})


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
