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
mha.attention, mha.circuits, mha.masks, mha.kv_cache, mha.block, mha.interop,
mha.example, mha.training and mha.cost load with ``import mha``; mha.plotting, mha.display
and mha.explorer (and the names above that come from them) load when first
used, so that a reader who wants the layer does not wait for matplotlib.
(Below, each layer's own methods come first; the long lists of methods
"inherited from torch.nn.modules.module.Module" are PyTorch's.)
"""

import importlib
import importlib.util
from importlib.metadata import version

# The submodules (`x as x`: loaded so that `mha.masks.to_sdpa_mask` and the like work).
from mha import (
    block as block,
    circuits as circuits,
    cost as cost,
    embedding as embedding,
    example as example,
    interop as interop,
    kv_cache as kv_cache,
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


_EXTRA = (
    "mha's figures and explorers need matplotlib and pillow, which a plain "
    "install leaves out: "
    'pip install "mha[book]" (or: pip install matplotlib pillow)'
)


def _load(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name not in ("matplotlib", "PIL"):
            raise
        raise ModuleNotFoundError(f"{module}: {_EXTRA}", name=error.name) from None


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        return _load(f"mha.{name}")
    if name in _LAZY_NAMES:
        value = getattr(_load(_LAZY_NAMES[name]), name)
        globals()[name] = value  # found directly from now on
        return value
    raise AttributeError(f"module 'mha' has no attribute {name!r}")


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def __dir__() -> list[str]:
    # Without matplotlib, the names that need it are left out, so that
    # help(mha) still shows the package's page (pydoc looks at every name).
    figures = _installed("matplotlib") and _installed("PIL")
    lazy = {*_LAZY_MODULES, *_LAZY_NAMES} if figures else {"display", "show_source"}
    return sorted({*globals(), *lazy})


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
