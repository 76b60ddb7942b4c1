"""Forward time of mha.MultiHeadAttention against PyTorch's implementations.

Batch 32, d_model 512, 8 heads, self-attention, CPU, eval mode, no grad.
Each row interleaves the three implementations in the same loop, rotating
their order every round (so a background hiccup or a warm cache favours none
of them), runs each for at least two seconds, and reports the median time of
each and, as the ratio, the median of the per-round ratios: every ratio
compares two runs made a few milliseconds apart.
"""

from __future__ import annotations

import statistics
import time

import torch
from torch.nn import functional as F

import mha

BATCH, D_MODEL, N_HEADS = 32, 512, 8
LENGTHS = (16, 32, 64, 128, 256, 512, 1024)


MIN_ROUNDS, MIN_SECONDS = 9, 2.0  # per implementation and length


def measure(length: int) -> tuple[dict[str, float], dict[str, float]]:
    """({name: median ms}, {name: median of per-round ratios mha / name})."""
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

    runs = [("mha", run_ours), ("nn.MultiheadAttention", run_nn), ("sdpa", run_sdpa)]
    times: dict[str, list[float]] = {name: [] for name, _ in runs}
    with torch.inference_mode():
        for _, fn in runs:  # warm-up
            fn()
        round_ = 0
        while round_ < MIN_ROUNDS or sum(times["mha"]) < MIN_SECONDS:
            shift = round_ % len(runs)
            for name, fn in runs[shift:] + runs[:shift]:
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
            round_ += 1
    medians = {name: statistics.median(t) * 1000 for name, t in times.items()}
    ratios = {
        name: statistics.median(a / b for a, b in zip(times["mha"], t, strict=True))
        for name, t in times.items()
    }
    return medians, ratios


def table() -> tuple[str, bool]:
    """A markdown table, and whether ours stays within 1.2× nn.MultiheadAttention everywhere."""
    rows = [
        "| length | mha (ms) | nn.MultiheadAttention, per-head weights (ms) "
        "| sdpa, no weights (ms) | mha / nn | mha / sdpa |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    ok = True
    for length in LENGTHS:
        t, ratios = measure(length)
        ratio_nn, ratio_sdpa = ratios["nn.MultiheadAttention"], ratios["sdpa"]
        ok &= ratio_nn <= 1.2
        rows.append(
            f"| {length} | {t['mha']:.1f} | {t['nn.MultiheadAttention']:.1f} | {t['sdpa']:.1f} "
            f"| {ratio_nn:.2f} | {ratio_sdpa:.2f} |"
        )
    return "\n".join(rows), ok


if __name__ == "__main__":
    text, ok = table()
    print(text)
    print(
        "target mha ≤ 1.2 × nn.MultiheadAttention at every length:",
        "met" if ok else "MISSED",
    )
