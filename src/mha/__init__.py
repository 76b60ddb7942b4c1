"""Helpers for the book *Multi-Head Attention, Step by Step*.

``import mha`` gives the tokenizer and vocabulary, embeddings and positional
encoding, the attention layer and its named steps, the mask builders and
converters, the running example and the figures.
"""

from mha import cost, plotting, widgets
from mha._checks import divisors
from mha.attention import (
    MultiHeadAttention,
    attention_probs,
    attention_probs_,
    merge_heads,
    scaled_dot_product,
    split_heads,
)
from mha.display import show_source
from mha.embedding import Embeddings, PositionalEncoding, sinusoids
from mha.example import SENTENCES, RunningExample, running_example
from mha.explorer import attention_explorer
from mha.interop import from_torch, packed_in_proj, to_torch
from mha.masks import (
    causal_mask,
    check_mask,
    lengths_mask,
    padding_mask,
    to_additive_mask,
    to_key_padding_mask,
    to_nn_attn_mask,
    to_sdpa_mask,
)
from mha.plotting import display_attention
from mha.text import PAD, UNK, Vocab, tokenize

__version__ = "0.1.0"

__all__ = [
    "cost",
    "plotting",
    "widgets",
    "PAD",
    "SENTENCES",
    "UNK",
    "Embeddings",
    "MultiHeadAttention",
    "PositionalEncoding",
    "RunningExample",
    "Vocab",
    "attention_explorer",
    "attention_probs",
    "attention_probs_",
    "causal_mask",
    "check_mask",
    "display_attention",
    "divisors",
    "from_torch",
    "lengths_mask",
    "merge_heads",
    "packed_in_proj",
    "padding_mask",
    "running_example",
    "scaled_dot_product",
    "show_source",
    "sinusoids",
    "split_heads",
    "to_additive_mask",
    "to_key_padding_mask",
    "to_nn_attn_mask",
    "to_sdpa_mask",
    "to_torch",
    "tokenize",
]
