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

Everything else lives in the submodules, which ``import mha`` loads too:
mha.text, mha.embedding, mha.attention, mha.circuits, mha.masks, mha.block, mha.defaults,
mha.interop, mha.example, mha.plotting, mha.display, mha.explorer,
mha.training and mha.cost. (Below, each layer's own methods come first; the long lists of
methods "inherited from torch.nn.modules.module.Module" are PyTorch's.)
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
