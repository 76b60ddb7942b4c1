"""The book's layer against the plainest peer (``peer_attention.PeerAttention``),
side by side in one run: causal self-attention, eval mode, no gradients,
float32, CPU (one thread), the same weights.

    python benchmarks/bench_peer.py

Sizes: the peer's own benchmark size (batch 8, 1,024 tokens, d_model 768, 12
heads) and (batch 32, 256 tokens, d_model 512, 8 heads). Both layers are timed
with :func:`mha.cost.time_interleaved` (they take turns, in an order that
rotates every round): the wall time of each forward pass, and its CPU time
(the thread's, where PyTorch runs on this one thread), which other work on a
shared machine does not stretch. ``measure`` returns the medians, ``table``
the report; the ratio is of the CPU times.
"""

from __future__ import annotations

import statistics
import time

import torch
from peer_attention import PeerAttention

import mha
from mha import cost

SIZES = ((8, 1024, 768, 12), (32, 256, 512, 8))  # (batch, length, d_model, n_heads)
ROUNDS = 15
THREADS = 1  # the least disturbed by other work on a shared machine
TARGET = 1.05  # the book's layer at most this many times the peer's time


def layers(d_model: int, n_heads: int, length: int):
    """The book's layer and the peer with the same weights, in eval mode."""
    torch.manual_seed(0)
    ours = mha.MultiHeadAttention(d_model, n_heads).eval()
    peer = PeerAttention(d_model, n_heads, context_length=length).eval()
    with torch.no_grad():
        pairs = ((ours.Wq, peer.W_query), (ours.Wk, peer.W_key))
        pairs += ((ours.Wv, peer.W_value), (ours.Wo, peer.out_proj))
        for mine, theirs in pairs:
            theirs.load_state_dict(mine.state_dict())
    return ours, peer


def measure(
    batch: int, length: int, d_model: int, n_heads: int
) -> dict[str, tuple[float, float]]:
    """``{"mha": (wall, cpu), "peer": (wall, cpu)}``: median seconds of one
    forward pass."""
    ours, peer = layers(d_model, n_heads, length)
    x = torch.randn(batch, length, d_model)
    mask = mha.causal_mask(length)
    cpu: dict[str, list[float]] = {"mha": [], "peer": []}

    def counted(name, forward):
        def run():
            start = time.thread_time()
            forward()
            cpu[name].append(time.thread_time() - start)

        return run

    with torch.no_grad():
        out, _ = ours(x, x, x, mask)
        assert torch.allclose(out, peer(x), atol=1e-5), "the two layers disagree"
        wall = cost.time_interleaved(
            {
                "mha": counted("mha", lambda: ours(x, x, x, mask)),
                "peer": counted("peer", lambda: peer(x)),
            },
            repeats=ROUNDS,
            warmup=2,
            threads=THREADS,
        )
    # (the warm-up rounds' CPU times left out)
    return {n: (wall[n], statistics.median(cpu[n][-ROUNDS:])) for n in wall}


def table() -> tuple[str, bool]:
    """A markdown table, one row per size, and whether every ratio meets TARGET."""
    rows = [
        "| batch, tokens, d_model, heads | mha: wall, CPU (ms) "
        "| peer: wall, CPU (ms) | mha / peer (CPU) |",
        "|---|---:|---:|---:|",
    ]
    met = True
    for size in SIZES:
        (mha_wall, mha_cpu), (peer_wall, peer_cpu) = measure(*size).values()
        ratio = mha_cpu / peer_cpu
        met &= ratio <= TARGET
        rows.append(
            f"| {', '.join(f'{n:,}' for n in size)} "
            f"| {1000 * mha_wall:,.0f}, {1000 * mha_cpu:,.0f} "
            f"| {1000 * peer_wall:,.0f}, {1000 * peer_cpu:,.0f} | {ratio:.2f} |"
        )
    return "\n".join(rows), met


if __name__ == "__main__":
    print(table()[0])
