"""Forward time of mha.MultiHeadAttention against PyTorch's implementations.

Batch 32, d_model 512, 8 heads, self-attention, CPU, eval mode, inference
mode. Each row times the three implementations with
:func:`mha.cost.time_interleaved`: they take turns in every round, in an order
that rotates from round to round (so a background hiccup or a warm cache
favours none of them), for at least nine rounds and two seconds of ours. It
reports the median time of each and the ratios of those medians.
"""

from __future__ import annotations

import math

import torch
from torch.nn import functional as F

import mha
from mha import cost

BATCH, D_MODEL, N_HEADS = 32, 512, 8
LENGTHS = (16, 32, 64, 128, 256, 512, 1024)
MIN_ROUNDS, MIN_SECONDS = 9, 2.0  # per length


def measure(length: int) -> dict[str, float]:
    """``{name: median seconds}`` of one forward pass of each implementation."""
    torch.manual_seed(0)
    ours = mha.MultiHeadAttention(D_MODEL, N_HEADS, dropout=0.0).eval()
    theirs = mha.to_torch(ours).eval()
    x = torch.randn(BATCH, length, D_MODEL)

    def run_sdpa():
        q = mha.split_heads(ours.Wq(x), N_HEADS)  # (batch, n_heads, length, d_key)
        k = mha.split_heads(ours.Wk(x), N_HEADS)
        v = mha.split_heads(ours.Wv(x), N_HEADS)
        return ours.Wo(mha.merge_heads(F.scaled_dot_product_attention(q, k, v)))

    runs = {
        "mha": lambda: ours(x, x, x),
        "nn.MultiheadAttention": lambda: theirs(
            x, x, x, need_weights=True, average_attn_weights=False
        ),
        "sdpa": run_sdpa,
    }
    with torch.inference_mode():
        once = cost.time_forward(runs["mha"], repeats=1)
        rounds = max(MIN_ROUNDS, math.ceil(MIN_SECONDS / once))
        return cost.time_interleaved(runs, repeats=rounds)


def table() -> str:
    """A markdown table: one row per length."""
    rows = [
        "| length | mha (ms) | nn.MultiheadAttention, per-head weights (ms) "
        "| sdpa, no weights (ms) | mha / nn | mha / sdpa |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for length in LENGTHS:
        t = {name: 1000 * seconds for name, seconds in measure(length).items()}
        mha_ms, nn_ms, sdpa_ms = t["mha"], t["nn.MultiheadAttention"], t["sdpa"]
        rows.append(
            f"| {length} | {mha_ms:.1f} | {nn_ms:.1f} | {sdpa_ms:.1f} "
            f"| {mha_ms / nn_ms:.2f} | {mha_ms / sdpa_ms:.2f} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
