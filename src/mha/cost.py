"""What attention costs: sizes, operation counts, timings and memory.

Counting (exact, deterministic):

- :func:`attention_matrix_bytes`: bytes of one ``(batch, n_heads, q_len, k_len)``
  tensor, the scores or the probabilities;
- :func:`activation_bytes`: bytes of one ``(batch, seq_len, d_model)`` tensor;
- :func:`flops`: floating-point operations of one forward pass, per sequence;
- :func:`kv_cache_bytes`: bytes of the keys and values a decoder keeps, with
  as many key/value heads as query heads or fewer (multi-query and
  grouped-query attention).

Measuring:

- :func:`time_forward` and :func:`time_interleaved`: median wall-clock times,
  robust to a busy machine (several runs, implementations interleaved);
- :func:`profile_forward`: the ATen operators one call runs and the memory it
  allocates, from ``torch.profiler`` (deterministic: sizes, not timings).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

from mha import _threads
from mha._checks import check_int


def _check_dtype(dtype: object) -> torch.dtype:
    if not isinstance(dtype, torch.dtype):
        raise TypeError(
            f"dtype must be a torch.dtype such as torch.float32, got "
            f"{type(dtype).__name__} {dtype!r}"
        )
    return dtype


def _element_size(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=_check_dtype(dtype)).element_size()


def attention_matrix_bytes(
    batch: int, n_heads: int, q_len: int, k_len: int, dtype: torch.dtype = torch.float32
) -> int:
    """Bytes of one attention matrix, ``(batch, n_heads, q_len, k_len)`` of ``dtype``.

    That is the size of the scores and, again, of the probabilities: one entry
    per query, key, head and sequence. It grows with ``q_len * k_len``, so for
    self-attention (``q_len = k_len = L``) with ``L²``.
    """
    for name, value in (
        ("batch", batch),
        ("n_heads", n_heads),
        ("q_len", q_len),
        ("k_len", k_len),
    ):
        check_int(name, value)
    return batch * n_heads * q_len * k_len * _element_size(dtype)


def activation_bytes(
    batch: int, seq_len: int, d_model: int, dtype: torch.dtype = torch.float32
) -> int:
    """Bytes of one ``(batch, seq_len, d_model)`` tensor of ``dtype`` (an input,
    ``Q``, ``K``, ``V`` or the output): it grows linearly with ``seq_len``."""
    for name, value in (("batch", batch), ("seq_len", seq_len), ("d_model", d_model)):
        check_int(name, value)
    return batch * seq_len * d_model * _element_size(dtype)


def flops(q_len: int, d_model: int, k_len: int | None = None) -> dict[str, int]:
    """Floating-point operations of one multi-head attention forward, per sequence.

    A matrix product ``(m, n) @ (n, p)`` counts ``2·m·n·p`` (one multiply and
    one add per term). Biases, the ``1/√d_key`` scaling and the softmax are
    left out: they cost ``O(L·d_model)`` and ``O(n_heads·L²)``, far less than
    the products. The number of heads does not appear: ``n_heads`` products
    of width ``d_key = d_model / n_heads`` cost as much as one of width
    ``d_model``.

    Args:
        q_len: number of queries.
        d_model: feature size.
        k_len: number of keys and values; ``None`` means ``q_len``
            (self-attention).

    Returns:
        A dict with three counts, ``projections``, ``scores`` and ``weighting``.

        - projections: ``Wq``, ``Wo`` on ``q_len`` rows and ``Wk``, ``Wv`` on
          ``k_len`` rows, ``2·(2·q_len + 2·k_len)·d_model²``
          (``8·L·d_model²`` for self-attention);
        - scores: ``Q Kᵀ``, ``2·q_len·k_len·d_model``;
        - weighting: ``probs @ V``, ``2·q_len·k_len·d_model``.
    """
    check_int("q_len", q_len)
    check_int("d_model", d_model)
    if k_len is None:
        k_len = q_len
    check_int("k_len", k_len)
    return {
        "projections": 2 * (2 * q_len + 2 * k_len) * d_model * d_model,
        "scores": 2 * q_len * k_len * d_model,
        "weighting": 2 * q_len * k_len * d_model,
    }


def kv_cache_bytes(
    seq_len: int,
    n_kv_heads: int,
    d_key: int,
    *,
    batch: int = 1,
    n_layers: int = 1,
    dtype: torch.dtype = torch.float32,
) -> int:
    """Bytes of the keys and values a decoder keeps for ``seq_len`` tokens.

    A decoder that generates text one token at a time computes each token's
    keys and values once and keeps them for every later token (the *KV
    cache*): per token, layer and sequence, one key and one value of
    ``d_key`` numbers for each key/value head, ``2 · n_kv_heads · d_key``
    numbers. Multi-head attention has one key/value head per query head
    (``n_kv_heads = n_heads``); multi-query attention one for all query heads
    (``n_kv_heads = 1``); grouped-query attention one per group of query
    heads, in between.

    Returns:
        ``2 · batch · n_layers · seq_len · n_kv_heads · d_key`` times the size
        of one number of ``dtype``.
    """
    for name, value in (
        ("seq_len", seq_len),
        ("n_kv_heads", n_kv_heads),
        ("d_key", d_key),
        ("batch", batch),
        ("n_layers", n_layers),
    ):
        check_int(name, value)
    return 2 * batch * n_layers * seq_len * n_kv_heads * d_key * _element_size(dtype)


def _check_callable(name: str, fn: object) -> None:
    if not callable(fn):
        raise TypeError(
            f"{name} must be a callable taking no arguments, got {type(fn).__name__}"
        )


def time_interleaved(
    fns: Mapping[str, Callable[[], object]],
    repeats: int = 5,
    warmup: int = 1,
    threads: int | None = None,
) -> dict[str, float]:
    """Median wall-clock seconds of each of several no-argument callables.

    The callables take turns: every round calls each one once, and the order
    rotates from round to round. A background hiccup then slows all of them
    alike, and no one always runs first (cold) or last. Wrap the call in
    ``torch.inference_mode()`` (and put the modules in ``eval()``) to time
    inference.

    Args:
        fns: ``{name: fn}``; each ``fn()`` runs one forward pass.
        repeats: timed rounds (the median of ``repeats`` runs is returned).
        warmup: untimed rounds first (allocations, lazy initialisation).
        threads: run on this many threads (``torch.set_num_threads``; the
            previous setting is restored afterwards); ``None`` keeps
            PyTorch's setting. One thread is the least disturbed by other
            work on a shared machine.

    Returns:
        A dict from each name to its median time in seconds, in the order of ``fns``.
    """
    if not isinstance(fns, Mapping) or not fns:
        got = f"{type(fns).__name__} {fns!r}"[:100]
        raise TypeError(
            f"fns must be a non-empty mapping {{name: callable}}, got {got}"
        )
    for name, fn in fns.items():
        _check_callable(f"fns[{name!r}]", fn)
    check_int("repeats", repeats)
    check_int("warmup", warmup, minimum=0)
    if threads is not None:
        check_int("threads", threads)
    names = list(fns)
    times: dict[str, list[float]] = {name: [] for name in names}
    with _threads.threads(threads):
        for _ in range(warmup):
            for name in names:
                fns[name]()
        for round_ in range(repeats):
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                start = time.perf_counter()
                fns[name]()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(times[name]) for name in names}


def time_forward(
    fn: Callable[[], object],
    repeats: int = 5,
    warmup: int = 1,
    threads: int | None = None,
) -> float:
    """Median wall-clock seconds of ``fn()`` over ``repeats`` runs, after
    ``warmup`` untimed runs (``threads`` as in :func:`time_interleaved`)."""
    _check_callable("fn", fn)
    return time_interleaved(
        {"fn": fn}, repeats=repeats, warmup=warmup, threads=threads
    )["fn"]


@dataclass(frozen=True)
class ForwardProfile:
    """What one call ran and allocated, as seen by :func:`profile_forward`.

    Attributes:
        ops: names of the ATen operators called, outer before inner, in call
            order (e.g. ``"aten::bmm"``, ``"aten::_softmax"``).
        peak_bytes: the most memory held at once by tensors allocated during
            the call (what existed before the call is not counted; what the
            call returns is), an estimate from each operator's net allocation
            (what it allocated minus what it freed). A buffer an operator
            allocates and frees before it returns is not seen, so the true
            peak can be higher; memory an operator frees before it ends is
            counted until it ends, so the true peak can also be lower. Exact
            for a chain of top-level operators that allocate only what they
            return (the book's layer).
        largest_bytes: the most memory one operator allocated (beyond
            what it freed).
        flops: floating-point operations of the matrix products, as the
            profiler counts them (``2·m·n·p`` per product, like :func:`flops`);
            operators it has no formula for, such as a fused attention
            kernel, count 0.
    """

    ops: tuple[str, ...]
    peak_bytes: int
    largest_bytes: int
    flops: int


def profile_forward(fn: Callable[[], object]) -> ForwardProfile:
    """Run ``fn()`` once under ``torch.profiler``: its operators, memory and FLOPs.

    The sizes are deterministic: the call runs on one thread, so scratch
    buffers that some kernels allocate per thread do not depend on the
    machine. Only CPU memory allocated through PyTorch is seen; memory is
    attributed to the operator that allocates or frees it, so a buffer an
    operator allocates and frees again before it returns is not counted.
    """
    _check_callable("fn", fn)
    # Kineto, the profiler's engine, writes a line to the process's standard
    # error at every start and stop; its log level 6 silences that. It is read
    # when the profiler first starts, and a level set by the user is kept.
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    with (
        _threads.one_thread(),
        torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU],
            profile_memory=True,
            with_flops=True,
        ) as prof,
    ):
        fn()
    events = sorted(prof.events(), key=lambda event: event.time_range.start)
    # Each operator's own net allocation (what it allocated minus what it
    # freed), counted as held from its start if positive, released at its end
    # if negative (see ForwardProfile.peak_bytes for what this misses).
    changes = sorted(
        (
            event.time_range.start
            if event.self_cpu_memory_usage > 0
            else event.time_range.end,
            event.self_cpu_memory_usage,
        )
        for event in events
        if event.self_cpu_memory_usage
    )
    held = peak = largest = 0
    for _, change in changes:
        held += change
        peak = max(peak, held)
        largest = max(largest, change)
    ops = tuple(event.name for event in events if event.name != "[memory]")
    total_flops = sum(int(event.flops or 0) for event in events)
    return ForwardProfile(
        ops=ops, peak_bytes=peak, largest_bytes=largest, flops=total_flops
    )
