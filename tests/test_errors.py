"""Bad input fails early with a message naming the argument, what was expected and
what was given. Each regex checks the argument name AND the value passed."""

import re

import pytest
import torch

import mha


@pytest.fixture
def layer() -> mha.MultiHeadAttention:
    return mha.MultiHeadAttention(8, 4).eval()


def esc(value) -> str:
    return re.escape(str(value))


# --------------------------------------------------------------------------- n_heads


@pytest.mark.parametrize(("d_model", "n_heads"), [(512, 10), (512, 12), (8, 3), (6, 4)])
def test_n_heads_must_divide_d_model(d_model, n_heads):
    allowed = ", ".join(str(k) for k in range(1, d_model + 1) if d_model % k == 0)
    pattern = (
        rf"n_heads must divide d_model.*d_model={d_model} is not divisible by "
        rf"n_heads={n_heads} \(allowed n_heads: {allowed}\)"
    )
    with pytest.raises(ValueError, match=pattern):
        mha.MultiHeadAttention(d_model, n_heads)


def test_split_heads_checks_divisibility_too():
    with pytest.raises(ValueError, match=r"d_model=8 is not divisible by n_heads=3"):
        mha.split_heads(torch.zeros(1, 2, 8), 3)


@pytest.mark.parametrize("n_heads", [0, -4])
def test_n_heads_must_be_positive(n_heads):
    with pytest.raises(ValueError, match=rf"n_heads must be a positive int, got {n_heads}"):
        mha.MultiHeadAttention(8, n_heads)


@pytest.mark.parametrize(
    ("n_heads", "shown"), [(2.0, "float 2.0"), ("4", "str '4'"), (True, "bool True")]
)
def test_n_heads_must_be_int(n_heads, shown):
    with pytest.raises(TypeError, match=rf"n_heads must be an int, got {re.escape(shown)}"):
        mha.MultiHeadAttention(8, n_heads)


def test_d_model_must_be_int():
    with pytest.raises(TypeError, match=r"d_model must be an int, got float 8.0"):
        mha.MultiHeadAttention(8.0, 2)


@pytest.mark.parametrize("p", [-0.5, 1.0, 1.5])
def test_dropout_must_be_probability(p):
    with pytest.raises(ValueError, match=rf"dropout must be a probability in \[0, 1\), got {p}"):
        mha.MultiHeadAttention(8, 2, dropout=p)


# --------------------------------------------------------------------------- forward inputs


def test_batch_sizes_differ(layer):
    q, kv = torch.zeros(3, 6, 8), torch.zeros(2, 6, 8)
    with pytest.raises(
        ValueError, match=r"query, key and value must have the same batch size, got 3, 2 and 2"
    ):
        layer(q, kv, kv)


def test_key_and_value_lengths_differ(layer):
    q, k, v = torch.zeros(3, 6, 8), torch.zeros(3, 5, 8), torch.zeros(3, 4, 8)
    with pytest.raises(
        ValueError,
        match=r"key and value must have the same length .*got k_len=5 for key and 4 for value",
    ):
        layer(q, k, v)


@pytest.mark.parametrize("name", ["query", "key", "value"])
@pytest.mark.parametrize("bad_shape", [(3, 6, 7), (3, 6, 16)])
def test_last_dimension_must_be_d_model(layer, name, bad_shape):
    inputs = {n: torch.zeros(3, 6, 8) for n in ("query", "key", "value")}
    inputs[name] = torch.zeros(bad_shape)
    pattern = rf"{name} must have shape \(batch, [qk]_len, d_model=8\), got {esc(bad_shape)}"
    with pytest.raises(ValueError, match=pattern):
        layer(**inputs)


@pytest.mark.parametrize("bad_shape", [(6, 8), (1, 3, 6, 8)])
def test_input_must_be_3d(layer, bad_shape):
    x = torch.zeros(bad_shape)
    pattern = rf"query must have shape \(batch, q_len, d_model=8\), got {esc(bad_shape)}"
    with pytest.raises(ValueError, match=pattern):
        layer(x, x, x)


def test_float64_input_to_float32_layer(layer):
    x = torch.zeros(3, 6, 8, dtype=torch.float64)
    with pytest.raises(
        TypeError,
        match=r"query has dtype torch.float64 but the layer's weights have dtype torch.float32",
    ):
        layer(x, x, x)


def test_integer_input(layer):
    x = torch.zeros(3, 6, 8, dtype=torch.long)
    pattern = r"query must be a floating-point tensor, got dtype torch.int64"
    with pytest.raises(TypeError, match=pattern):
        layer(x, x, x)


def test_non_tensor_input(layer):
    with pytest.raises(TypeError, match=r"query must be a torch.Tensor .*got list"):
        layer([[0.0] * 8], torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))


@pytest.mark.parametrize("bad_shape", [(6, 5), (2, 1, 1, 6)])
def test_mask_that_does_not_broadcast(layer, bad_shape):
    x = torch.zeros(3, 6, 8)
    pattern = (
        rf"mask of shape {esc(bad_shape)} does not broadcast to "
        rf"\(batch, n_heads, q_len, k_len\) = \(3, 4, 6, 6\)"
    )
    with pytest.raises(ValueError, match=pattern):
        layer(x, x, x, mask=torch.ones(bad_shape, dtype=torch.bool))


def test_scaled_dot_product_shape_mismatch():
    pattern = r"Q .* and K .* must agree .*got \(1, 2, 3, 4\) and \(1, 2, 3, 5\)"
    with pytest.raises(ValueError, match=pattern):
        mha.scaled_dot_product(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 5))


def test_merge_heads_needs_4d():
    with pytest.raises(ValueError, match=r"x must have shape \(batch, n_heads, seq_len, d_key\), "
                                         r"got \(2, 3, 4\)"):
        mha.merge_heads(torch.zeros(2, 3, 4))


# --------------------------------------------------------------------------- positional encoding


@pytest.mark.parametrize(("max_length", "seq_len"), [(10, 11), (4, 20)])
def test_sequence_longer_than_max_length(max_length, seq_len):
    pe = mha.PositionalEncoding(8, max_length=max_length)
    pattern = (
        rf"x has {seq_len} positions but max_length is {max_length}; "
        rf"use a PositionalEncoding with max_length >= {seq_len}"
    )
    with pytest.raises(ValueError, match=pattern):
        pe(torch.zeros(1, seq_len, 8))


# --------------------------------------------------------------------------- display_attention


def test_display_attention_grid_must_hold_n_heads():
    attn = torch.full((4, 2, 3), 1 / 3)
    pattern = r"n_rows \* n_cols must equal n_heads, got 1 \* 3 = 3 panels for n_heads=4"
    with pytest.raises(ValueError, match=pattern):
        mha.display_attention(["a", "b"], ["x", "y", "z"], attn, 4, 1, 3)


def test_display_attention_token_counts_must_match():
    attn = torch.full((2, 2, 3), 1 / 3)
    pattern = (
        r"query_tokens and key_tokens must label the 2 rows and 3 columns of attention, "
        r"got 3 query and 3 key tokens"
    )
    with pytest.raises(ValueError, match=pattern):
        mha.display_attention(["a", "b", "c"], ["x", "y", "z"], attn, 2, 1, 2)
    with pytest.raises(ValueError, match=r"got 2 query and 2 key tokens"):
        mha.display_attention(["a", "b"], ["x", "y"], attn, 2, 1, 2)


def test_display_attention_number_of_maps():
    attn = torch.full((3, 2, 3), 1 / 3)
    pattern = r"attention must have n_heads=4 maps on its first axis, got shape \(3, 2, 3\)"
    with pytest.raises(ValueError, match=pattern):
        mha.display_attention(["a", "b"], ["x", "y", "z"], attn, 4, 2, 2)


def test_display_attention_needs_3d_tensor():
    with pytest.raises(ValueError, match=r"attention must be 3-D, got shape \(2, 3\)"):
        mha.display_attention(["a", "b"], ["x", "y", "z"], torch.zeros(2, 3), 1, 1, 1)
    with pytest.raises(TypeError, match=r"attention must be a torch.Tensor, got list"):
        mha.display_attention(["a"], ["x"], [[[1.0]]], 1, 1, 1)


# --------------------------------------------------------------------------- text


@pytest.mark.parametrize("text", ["", "   ", "\n\t ", "?!,"])
def test_tokenize_empty_or_whitespace(text):
    with pytest.raises(ValueError, match=r"text must contain at least one word .*got " +
                       re.escape(repr(text))):
        mha.tokenize(text)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.float32])
def test_a_mask_that_blocks_everything_is_refused(dtype):
    """All zeros is also what an all-allowed *additive* PyTorch mask looks like."""
    scores = torch.randn(1, 2, 3, 3)
    with pytest.raises(ValueError, match=r"mask blocks every key.*all 9 entries.*mask == 0"):
        mha.attention_probs(scores, torch.zeros(3, 3, dtype=dtype))
