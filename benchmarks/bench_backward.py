"""The backward pass's memory: the peak of one forward and backward pass of
the book's layer, which keeps its ``(batch, n_heads, L, L)`` probabilities for
autograd, against the same projections around ``F.scaled_dot_product_attention``,
whose fused kernel keeps one number per query and head and recomputes the
rest (chapter 10 shows three lengths of this table).

Sizes come from ``mha.cost.profile_forward`` (PyTorch's profiler, one
thread): memory allocated through PyTorch on the CPU, the same on every run
of one PyTorch version; a buffer an operator frees before it returns is not
seen. It says nothing of time, nor of a GPU's memory."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import mha
from mha import cost

BATCH, D_MODEL, N_HEADS = 8, 256, 8
LENGTHS = (128, 256, 512, 1024, 2048)
MIB = 2**20


def _peak(layer: mha.MultiHeadAttention, run) -> float:
    """MiB held at most by ``run()`` and its backward pass, gradients included."""
    layer.zero_grad(set_to_none=True)
    return cost.profile_forward(lambda: run().sum().backward()).peak_bytes / MIB


def table() -> str:
    """A markdown table: per length, one attention matrix, the two peaks and
    how each grew since the length before."""
    torch.manual_seed(0)
    layer = mha.MultiHeadAttention(D_MODEL, N_HEADS, dtype=torch.float32)

    def fused(x):  # the same projections, SDPA in place of the plain steps
        Q, K, V = (
            mha.split_heads(W(x), N_HEADS) for W in (layer.Wq, layer.Wk, layer.Wv)
        )
        return layer.Wo(mha.merge_heads(F.scaled_dot_product_attention(Q, K, V)))

    rows, before = [], None
    for length in LENGTHS:
        x = torch.randn(BATCH, length, D_MODEL, requires_grad=True)
        book = _peak(layer, lambda x=x: layer(x, x, x)[0])
        sdpa = _peak(layer, lambda x=x: fused(x))
        matrix = cost.attention_matrix_bytes(BATCH, N_HEADS, length, length) / MIB
        grown = (
            ""
            if before is None
            else f"×{book / before[0]:.1f} | ×{sdpa / before[1]:.1f}"
        )
        rows.append(
            f"| {length:,} | {matrix:,.0f} | {book:,.0f} | {sdpa:,.0f} | "
            f"{book / matrix:.2f} | {grown or '— | —'} |"
        )
        before = (book, sdpa)
    head = (
        "| L | one matrix (MiB) | book's layer (MiB) | SDPA (MiB) | book / matrix "
        "| book grew | SDPA grew |\n|---:|---:|---:|---:|---:|---:|---:|"
    )
    return head + "\n" + "\n".join(rows)


if __name__ == "__main__":
    print(table())
