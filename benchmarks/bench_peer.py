"""The book's layer against the plainest peer (``peer_attention.PeerAttention``),
side by side in one run: causal self-attention, eval mode, no gradients,
float32, CPU (one thread), the same weights.

    python benchmarks/bench_peer.py

Sizes: the peer's own benchmark size (batch 8, 1,024 tokens, d_model 768, 12
heads) and (batch 32, 256 tokens, d_model 512, 8 heads). Both layers are timed
with :func:`mha.cost.time_interleaved` (they take turns, in an order that
rotates every round); ``measure`` returns the medians, ``table`` the report.
"""

from __future__ import annotations

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


def measure(batch: int, length: int, d_model: int, n_heads: int) -> dict[str, float]:
    """``{"mha": seconds, "peer": seconds}``: median time of one forward pass."""
    ours, peer = layers(d_model, n_heads, length)
    x = torch.randn(batch, length, d_model)
    mask = mha.causal_mask(length)
    with torch.no_grad():
        out, _ = ours(x, x, x, mask)
        assert torch.allclose(out, peer(x), atol=1e-5), "the two layers disagree"
        return cost.time_interleaved(
            {"mha": lambda: ours(x, x, x, mask), "peer": lambda: peer(x)},
            repeats=ROUNDS,
            warmup=2,
            threads=THREADS,
        )


def table() -> tuple[str, bool]:
    """A markdown table, one row per size, and whether every ratio meets TARGET."""
    rows = [
        "| batch, tokens, d_model, heads | mha (ms) | peer (ms) | mha / peer |",
        "|---|---:|---:|---:|",
    ]
    met = True
    for size in SIZES:
        t = measure(*size)
        ratio = t["mha"] / t["peer"]
        met &= ratio <= TARGET
        rows.append(
            f"| {', '.join(f'{n:,}' for n in size)} | {1000 * t['mha']:.1f} "
            f"| {1000 * t['peer']:.1f} | {ratio:.2f} |"
        )
    return "\n".join(rows), met


if __name__ == "__main__":
    print(table()[0])
