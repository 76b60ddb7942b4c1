"""Forward time of mha.MultiHeadAttention against PyTorch's implementations.

Batch 32, d_model 512, 8 heads, self-attention, CPU, eval mode, no grad.
Each row interleaves the three implementations in the same loop (so a
background hiccup hits all of them) and reports medians and the ratios of
the medians.
"""

from __future__ import annotations

import statistics
import time

import torch
from torch.nn import functional as F

import mha

BATCH, D_MODEL, N_HEADS = 32, 512, 8
LENGTHS = (16, 32, 64, 128, 256, 512, 1024)


def _repeats(length: int) -> int:
    return 15 if length <= 256 else 7 if length <= 512 else 5


def measure(length: int) -> dict[str, float]:
    torch.manual_seed(0)
    ours = mha.MultiHeadAttention(D_MODEL, N_HEADS, dropout=0.0).eval()
    theirs = mha.to_torch(ours).eval()
    x = torch.randn(BATCH, length, D_MODEL)

    def run_ours():
        return ours(x, x, x)

    def run_nn():
        return theirs(x, x, x, need_weights=True, average_attn_weights=False)

    def run_sdpa():
        q = mha.split_heads(ours.Wq(x), N_HEADS)  # (batch, n_heads, length, d_key)
        k = mha.split_heads(ours.Wk(x), N_HEADS)
        v = mha.split_heads(ours.Wv(x), N_HEADS)
        return ours.Wo(mha.merge_heads(F.scaled_dot_product_attention(q, k, v)))

    runs = {"mha": run_ours, "nn.MultiheadAttention": run_nn, "sdpa": run_sdpa}
    times: dict[str, list[float]] = {name: [] for name in runs}
    with torch.inference_mode():
        for fn in runs.values():  # warm-up
            fn()
        for _ in range(_repeats(length)):
            for name, fn in runs.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) * 1000 for name, t in times.items()}


def table() -> tuple[str, bool]:
    """A markdown table, and whether ours stays within 1.2× nn.MultiheadAttention everywhere."""
    rows = [
        "| length | mha (ms) | nn.MultiheadAttention, per-head weights (ms) "
        "| sdpa, no weights (ms) | mha / nn | mha / sdpa |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    ok = True
    for length in LENGTHS:
        t = measure(length)
        ratio_nn = t["mha"] / t["nn.MultiheadAttention"]
        ratio_sdpa = t["mha"] / t["sdpa"]
        ok &= ratio_nn <= 1.2
        rows.append(
            f"| {length} | {t['mha']:.1f} | {t['nn.MultiheadAttention']:.1f} | {t['sdpa']:.1f} "
            f"| {ratio_nn:.2f} | {ratio_sdpa:.2f} |"
        )
    return "\n".join(rows), ok


if __name__ == "__main__":
    text, ok = table()
    print(text)
    print("target mha ≤ 1.2 × nn.MultiheadAttention at every length:", "met" if ok else "MISSED")
