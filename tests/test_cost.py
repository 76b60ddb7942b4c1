"""mha.cost: counts against hand-computed formulas, timing helpers, profiling.

No test asserts anything about how long something takes.
"""

import pytest
import torch
from torch.nn import functional as F

import mha
from mha import cost

# ---- counting -------------------------------------------------------------


def test_attention_matrix_bytes_by_hand():
    assert cost.attention_matrix_bytes(32, 8, 16, 16) == 32 * 8 * 16 * 16 * 4 == 262_144
    assert cost.attention_matrix_bytes(1, 1, 3, 5) == 60
    assert cost.attention_matrix_bytes(2, 4, 6, 6, torch.float16) == 2 * 4 * 36 * 2
    assert cost.attention_matrix_bytes(2, 4, 6, 6, torch.float64) == 2 * 4 * 36 * 8


def test_attention_matrix_bytes_is_quadratic_in_length():
    sizes = [cost.attention_matrix_bytes(32, 8, n, n) for n in (16, 32, 64)]
    assert sizes[1] == 4 * sizes[0] and sizes[2] == 4 * sizes[1]


def test_attention_matrix_bytes_matches_a_real_tensor(ex):
    _, probs = ex.attention(ex.X, ex.X, ex.X)
    assert probs.shape == (3, 4, 6, 6)
    assert cost.attention_matrix_bytes(3, 4, 6, 6) == probs.element_size() * probs.nelement()


def test_activation_bytes_by_hand_and_linear_in_length(ex):
    assert cost.activation_bytes(32, 16, 512) == 32 * 16 * 512 * 4
    assert cost.activation_bytes(1, 2, 3, torch.bfloat16) == 12
    assert cost.activation_bytes(32, 32, 512) == 2 * cost.activation_bytes(32, 16, 512)
    assert cost.activation_bytes(3, 6, 8) == ex.X.element_size() * ex.X.nelement()


def test_flops_by_hand():
    L, d = 10, 4
    assert cost.flops(L, d) == {
        "projections": 8 * L * d * d,  # 4 products (L, d) @ (d, d), 2·L·d·d each
        "scores": 2 * L * L * d,
        "weighting": 2 * L * L * d,
    }
    # cross-attention: Wq and Wo on the 3 queries, Wk and Wv on the 7 keys
    assert cost.flops(3, 2, k_len=7) == {
        "projections": 2 * 3 * 4 * 2 + 2 * 7 * 4 * 2,
        "scores": 2 * 3 * 7 * 2,
        "weighting": 2 * 3 * 7 * 2,
    }


def test_flops_cross_over_at_twice_d_model():
    d = 64
    counts = cost.flops(2 * d, d)
    assert counts["projections"] == counts["scores"] + counts["weighting"]


# ---- timing ---------------------------------------------------------------


def test_time_interleaved_returns_one_median_per_implementation():
    calls = []
    fns = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b"),
           "c": lambda: calls.append("c")}
    medians = cost.time_interleaved(fns, repeats=3, warmup=1)
    assert list(medians) == ["a", "b", "c"]
    assert all(isinstance(t, float) and t >= 0 for t in medians.values())
    assert sorted(calls) == ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    # warm-up in order, then one call of each per round, the order rotating
    assert calls == list("abc" "abc" "bca" "cab")


def test_time_forward_returns_a_median():
    calls = []
    seconds = cost.time_forward(lambda: calls.append(1), repeats=4, warmup=2)
    assert isinstance(seconds, float) and seconds >= 0
    assert len(calls) == 6


def test_time_interleaved_runs_real_layers():
    layer = mha.MultiHeadAttention(16, 4, dropout=0.0).eval()
    x = torch.randn(2, 5, 16)
    with torch.inference_mode():
        medians = cost.time_interleaved({"mha": lambda: layer(x, x, x),
                                         "nn": lambda: mha.to_torch(layer)(x, x, x)},
                                        repeats=2, warmup=0)
    assert set(medians) == {"mha", "nn"}


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"fns": {}}, TypeError, r"fns must be a non-empty mapping"),
        ({"fns": [lambda: None]}, TypeError, r"fns must be a non-empty mapping"),
        ({"fns": {"x": 3}}, TypeError, r"fns\['x'\] must be a callable"),
        ({"repeats": 0}, ValueError, r"repeats must be a positive int, got 0"),
        ({"repeats": 2.5}, TypeError, r"repeats must be an int"),
        ({"warmup": -1}, ValueError, r"warmup must be an int >= 0, got -1"),
        ({"threads": 0}, ValueError, r"threads must be a positive int, got 0"),
        ({"threads": "1"}, TypeError, r"threads must be an int, got str"),
    ],
)
def test_time_interleaved_bad_arguments(kwargs, error, pattern):
    args = {"fns": {"f": lambda: None}}
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        cost.time_interleaved(**args)


def test_time_interleaved_sets_and_restores_the_thread_count():
    before = torch.get_num_threads()
    seen = []
    cost.time_interleaved({"f": lambda: seen.append(torch.get_num_threads())},
                          repeats=2, warmup=0, threads=1)
    assert seen == [1, 1]
    assert torch.get_num_threads() == before


def test_time_interleaved_restores_the_thread_count_when_fn_raises():
    before = torch.get_num_threads()

    def boom():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cost.time_interleaved({"f": boom}, threads=1)
    assert torch.get_num_threads() == before


def test_time_forward_bad_arguments():
    with pytest.raises(TypeError, match=r"fn must be a callable"):
        cost.time_forward(42)


# ---- profiling ------------------------------------------------------------


def test_profile_sees_the_attention_matrix_of_the_book_layer():
    layer = mha.MultiHeadAttention(32, 4, dropout=0.0).eval()
    x = torch.randn(2, 64, 32)
    matrix = cost.attention_matrix_bytes(2, 4, 64, 64)
    with torch.inference_mode():
        prof = cost.profile_forward(lambda: layer(x, x, x))
    assert "aten::bmm" in prof.ops and "aten::_softmax" in prof.ops
    assert prof.largest_bytes == matrix
    # in inference the probabilities overwrite the scores: one matrix, not two
    assert matrix <= prof.peak_bytes < 2 * matrix
    assert prof.flops == 2 * sum(cost.flops(64, 32).values())


def test_profile_of_the_fused_kernel_holds_no_attention_matrix():
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 4, 64, 8).unbind(0)  # each (batch, n_heads, L, d_key)
    matrix = cost.attention_matrix_bytes(2, 4, 64, 64)
    with torch.inference_mode():
        prof = cost.profile_forward(lambda: F.scaled_dot_product_attention(q, k, v))
    assert "aten::_softmax" not in prof.ops
    assert prof.largest_bytes < matrix
    assert prof.peak_bytes < matrix


def test_profile_is_deterministic_and_restores_the_thread_count():
    threads = torch.get_num_threads()
    layer = mha.MultiHeadAttention(16, 2, dropout=0.0).eval()
    x = torch.randn(2, 8, 16)
    with torch.inference_mode():
        first = cost.profile_forward(lambda: layer(x, x, x))
        second = cost.profile_forward(lambda: layer(x, x, x))
    assert first == second
    assert torch.get_num_threads() == threads


def test_profile_restores_the_thread_count_when_fn_raises():
    threads = torch.get_num_threads()

    def boom():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cost.profile_forward(boom)
    assert torch.get_num_threads() == threads


# ---- bad arguments of the counts -------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: cost.attention_matrix_bytes(0, 8, 16, 16), ValueError,
         r"batch must be a positive int, got 0"),
        (lambda: cost.attention_matrix_bytes(1, 8, 16.0, 16), TypeError,
         r"q_len must be an int, got float"),
        (lambda: cost.attention_matrix_bytes(1, True, 16, 16), TypeError,
         r"n_heads must be an int, got bool"),
        (lambda: cost.attention_matrix_bytes(1, 8, 16, -2), ValueError,
         r"k_len must be a positive int, got -2"),
        (lambda: cost.attention_matrix_bytes(1, 8, 16, 16, "float32"), TypeError,
         r"dtype must be a torch.dtype"),
        (lambda: cost.activation_bytes(1, 0, 8), ValueError, r"seq_len must be a positive int"),
        (lambda: cost.activation_bytes(1, 4, 8, float), TypeError, r"dtype must be a torch.dtype"),
        (lambda: cost.flops(0, 8), ValueError, r"q_len must be a positive int"),
        (lambda: cost.flops(4, "8"), TypeError, r"d_model must be an int, got str"),
        (lambda: cost.flops(4, 8, k_len=0), ValueError, r"k_len must be a positive int"),
        (lambda: cost.profile_forward(None), TypeError, r"fn must be a callable"),
    ],
)
def test_bad_arguments(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
