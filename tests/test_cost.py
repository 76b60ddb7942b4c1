"""mha.cost: the counts against formulas worked out by hand and against real
tensors and the profiler; the timing helpers by what they call, never by how
long anything takes."""

from __future__ import annotations

import pytest
import torch
from refusal import refuses, row_ids

import mha
from mha import cost


def test_attention_matrix_bytes_are_those_of_a_real_matrix_and_grow_with_L_squared():
    for dtype in (torch.float16, torch.float32, torch.float64):
        probs = torch.zeros(3, 4, 6, 5, dtype=dtype)
        assert cost.attention_matrix_bytes(3, 4, 6, 5, dtype) == probs.nbytes
    assert cost.attention_matrix_bytes(32, 8, 16, 16) == 32 * 8 * 16 * 16 * 4
    sizes = [cost.attention_matrix_bytes(2, 8, n, n) for n in (16, 32, 64)]
    assert sizes[1] == 4 * sizes[0] and sizes[2] == 4 * sizes[1]


def test_activation_bytes_are_those_of_a_real_tensor_and_grow_with_L():
    assert (
        cost.activation_bytes(3, 6, 8, torch.bfloat16)
        == torch.zeros(3, 6, 8).bfloat16().nbytes
    )
    assert cost.activation_bytes(32, 32, 512) == 2 * cost.activation_bytes(32, 16, 512)


def test_flops_by_hand():
    q_len, k_len, d = 3, 7, 4
    assert cost.flops(q_len, d, k_len=k_len) == {
        "projections": 2 * (q_len + k_len + k_len + q_len) * d * d,  # Wq, Wk, Wv, Wo
        "scores": 2 * q_len * k_len * d,
        "weighting": 2 * q_len * k_len * d,
    }
    assert cost.flops(5, d) == cost.flops(5, d, k_len=5)  # self-attention by default


def test_profile_of_the_book_layer(two_threads):
    """The profiler sees the matrix products and the softmax, the largest single
    allocation is one attention matrix, the scores and the probabilities are both
    held at once, and it counts the FLOPs the formula gives (per sequence × batch)."""
    layer = mha.MultiHeadAttention(32, 4, dropout=0.0).eval()
    x = torch.randn(2, 64, 32)
    matrix = cost.attention_matrix_bytes(2, 4, 64, 64)
    with torch.inference_mode():
        profile = cost.profile_forward(lambda: layer(x, x, x))
        again = cost.profile_forward(lambda: layer(x, x, x))
    assert profile == again  # sizes, not timings: the same every time
    with pytest.raises(RuntimeError, match="boom"):
        cost.profile_forward(boom)
    assert torch.get_num_threads() == 2  # restored, also when the call fails
    assert "aten::bmm" in profile.ops and "aten::_softmax" in profile.ops
    assert profile.largest_bytes == matrix
    assert profile.peak_bytes >= 2 * matrix
    assert profile.flops == 2 * sum(cost.flops(64, 32).values())


def test_time_interleaved_rotates_the_order_and_returns_one_median_each():
    calls = []
    fns = {name: (lambda name=name: calls.append(name)) for name in "abc"}
    medians = cost.time_interleaved(fns, repeats=3, warmup=1)
    assert list(medians) == ["a", "b", "c"]
    assert all(isinstance(t, float) and t >= 0 for t in medians.values())
    assert calls == list("abc" + "abc" + "bca" + "cab")  # warm-up, then rotating rounds
    assert cost.time_forward(lambda: calls.append("f"), repeats=4, warmup=2) >= 0
    assert calls.count("f") == 6


@pytest.fixture
def two_threads():
    """Two threads during the test (the suite runs on one), so that a measurement
    that forgets to restore the thread count shows."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def test_time_interleaved_sets_and_restores_the_thread_count(two_threads):
    seen = []
    cost.time_interleaved(
        {"f": lambda: seen.append(torch.get_num_threads())}, threads=1
    )
    assert seen and set(seen) == {1}
    assert torch.get_num_threads() == 2
    with pytest.raises(RuntimeError, match="boom"):
        cost.time_interleaved({"f": boom}, threads=1)
    assert torch.get_num_threads() == 2


def boom():
    raise RuntimeError("boom")


def test_kv_cache_bytes_are_those_of_the_cached_keys_and_values():
    assert cost.kv_cache_bytes(1, 8, 64) == 2 * 8 * 64 * 4
    assert cost.kv_cache_bytes(1, 8, 64) == 8 * cost.kv_cache_bytes(1, 1, 64)
    size = cost.kv_cache_bytes(4096, 8, 128, n_layers=32, dtype=torch.float16, batch=2)
    assert size == 2 * 2 * 32 * 4096 * 8 * 128 * 2
    K = torch.empty(3, 2, 10, 16)  # (batch, n_kv_heads, seq_len, d_key); values as many
    assert (
        cost.kv_cache_bytes(10, 2, 16, batch=3) == 2 * K.element_size() * K.nelement()
    )


# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    (lambda: cost.attention_matrix_bytes(0, 8, 16, 16), ValueError, "batch", "int >= 1",
     "got 0"),
    (lambda: cost.attention_matrix_bytes(1, 8, 16.0, 16), TypeError, "q_len", "an int",
     "got float 16.0"),
    (lambda: cost.attention_matrix_bytes(1, 8, 16, 16, "float32"), TypeError, "dtype",
     "a torch.dtype", "got str 'float32'"),
    (lambda: cost.activation_bytes(1, 0, 8), ValueError, "seq_len", "int >= 1", "got 0"),
    (lambda: cost.flops(4, "8"), TypeError, "d_model", "an int", "got str '8'"),
    (lambda: cost.flops(4, 8, k_len=0), ValueError, "k_len", "int >= 1", "got 0"),
    (lambda: cost.time_interleaved([print]), TypeError, "fns", "non-empty mapping",
     "got list"),
    (lambda: cost.time_interleaved({"x": 3}), TypeError, "fns['x']", "a callable", "got int"),
    (lambda: cost.time_interleaved({"f": print}, warmup=-1), ValueError, "warmup", "int >= 0",
     "got -1"),
    (lambda: cost.time_interleaved({"f": print}, threads="1"), TypeError, "threads", "an int",
     "got str '1'"),
    (lambda: cost.time_forward(42), TypeError, "fn", "a callable", "got int"),
    (lambda: cost.profile_forward(None), TypeError, "fn", "a callable", "got NoneType"),
    (lambda: cost.kv_cache_bytes(0, 2, 8), ValueError, "seq_len", "int >= 1", "got 0"),
    (lambda: cost.kv_cache_bytes(4, 1.5, 8), TypeError, "n_kv_heads", "an int",
     "got float 1.5"),
    (lambda: cost.kv_cache_bytes(4, 2, 8, n_layers=0), ValueError, "n_layers", "int >= 1",
     "got 0"),
    (lambda: cost.kv_cache_bytes(4, 2, 8, dtype="float16"), TypeError, "dtype",
     "a torch.dtype", "got str 'float16'"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
