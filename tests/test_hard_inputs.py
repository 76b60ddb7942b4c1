"""Hard inputs to the package, each with a clear expected behaviour.

Very long and one-token sentences, a batch of one, float64, inputs and masks on
another device, non-contiguous views, masks of every accepted shape and dtype
(and the ones that are refused), cross-attention with padding, and the
split/merge round trip. Expected values come from PyTorch's own layer (with
masks built by hand here) or from formulas computed independently.
"""

from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mha

TOL = {"atol": 1e-5, "rtol": 0.0}


def esc(value) -> str:
    return re.escape(str(value))


def make_layer(d_model: int, n_heads: int, seed: int = 5) -> mha.MultiHeadAttention:
    """A layer in eval mode, dropout 0, with non-zero biases everywhere."""
    torch.manual_seed(seed)
    layer = mha.MultiHeadAttention(d_model, n_heads, dropout=0.0).eval()
    with torch.no_grad():
        for linear in (layer.Wq, layer.Wk, layer.Wv, layer.Wo):
            linear.bias.uniform_(-0.5, 0.5)
    return layer


def torch_forward(layer, query, key, value, **masks):
    """nn.MultiheadAttention with the layer's weights: (output, per-head weights)."""
    with torch.no_grad():
        return mha.to_torch(layer)(
            query, key, value, need_weights=True, average_attn_weights=False, **masks
        )


def ours(layer, query, key, value, mask=None):
    with torch.no_grad():
        return layer(query, key, value, mask=mask)


def hand_blocked(allowed: torch.Tensor, shape: tuple[int, int, int, int]) -> torch.Tensor:
    """Our mask (True = may attend) as nn.MultiheadAttention's (B*H, q, k), True = blocked."""
    batch, n_heads, q_len, k_len = shape
    full = allowed.bool() if allowed.dim() == 4 else allowed.bool()[None, None]
    return ~full.expand(shape).reshape(batch * n_heads, q_len, k_len)


def reference_sinusoids(length: int, d_model: int) -> torch.Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...), in float64 loops."""
    table = torch.zeros(length, d_model, dtype=torch.float64)
    for pos in range(length):
        for j in range(d_model):
            angle = pos / 10000 ** ((j - j % 2) / d_model)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


def rows_with_a_key(shape, gen, p=0.5) -> torch.Tensor:
    """Random bool mask of ``shape`` in which every row (last axis) allows >= 1 key."""
    mask = torch.rand(shape, generator=gen) < p
    keep = torch.randint(0, shape[-1], (*shape[:-1], 1), generator=gen)
    return mask.scatter(-1, keep, True)


# ===================================================================== very long sentences


def sentence_of(n_words: int, vocabulary: list[str]) -> tuple[str, list[str]]:
    """A sentence of exactly ``n_words`` words (with punctuation the tokenizer drops)."""
    words = [vocabulary[(7 * i) % len(vocabulary)] for i in range(n_words)]
    text = " ".join(w + ("," if i % 3 == 0 else "") for i, w in enumerate(words)) + "!"
    return text.capitalize(), words


@pytest.mark.parametrize("max_length", [32, 257])
def test_sentence_of_exactly_max_length_goes_through_the_whole_pipeline(max_length):
    d_model, n_heads = 16, 4
    vocabulary = [f"word{i}" for i in range(23)]
    text, words = sentence_of(max_length, vocabulary)
    vocab = mha.Vocab.from_corpus([text])
    ids = torch.tensor([vocab.encode(text)])  # (1, max_length)
    assert ids.shape == (1, max_length)
    assert vocab.decode(ids[0]) == words

    torch.manual_seed(0)
    embed = mha.Embeddings(len(vocab), d_model).eval()
    position = mha.PositionalEncoding(d_model, dropout=0.1, max_length=max_length).eval()
    layer = make_layer(d_model, n_heads)
    with torch.no_grad():
        X = position(embed(ids))  # (1, max_length, d_model)
    expected_X = (embed.lut.weight[ids].double() * math.sqrt(d_model)
                  + reference_sinusoids(max_length, d_model))
    torch.testing.assert_close(X.double(), expected_X, atol=1e-4, rtol=0)

    causal = torch.ones(max_length, max_length, dtype=torch.bool).tril()  # by hand
    out, probs = ours(layer, X, X, X, mask=causal)
    t_out, t_probs = torch_forward(layer, X, X, X, attn_mask=~causal)
    assert out.shape == (1, max_length, d_model)
    assert probs.shape == (1, n_heads, max_length, max_length)
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)
    # The last query sees every key; the first one only itself.
    assert (probs[0, :, -1] > 0).all()
    assert (probs[0, :, 0, 0] == 1.0).all()


def test_running_example_takes_ten_tokens_and_refuses_eleven(ex):
    """The running example's PositionalEncoding covers max_length = 10 positions."""
    assert ex.position.max_length == 10
    known = ex.vocab.itos[2:]  # real words of the vocabulary
    ten, words = sentence_of(10, known)
    ids = torch.tensor([ex.vocab.encode(ten)])
    assert ex.vocab.decode(ids[0]) == words  # no <unk>
    with torch.no_grad():
        X = ex.position(ex.embed(ids))
    out, probs = ours(ex.attention, X, X, X)
    t_out, t_probs = torch_forward(ex.attention, X, X, X)
    assert out.shape == (1, 10, 8)
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)

    eleven, _ = sentence_of(11, known)
    ids = torch.tensor([ex.vocab.encode(eleven)])
    assert ids.shape == (1, 11)
    embedded = ex.embed(ids)  # embedding has no length limit
    with pytest.raises(ValueError, match=r"x has 11 positions but max_length is 10"):
        ex.position(embedded)


@pytest.mark.parametrize("max_length", [1, 64])
def test_max_length_plus_one_is_refused_naming_max_length(max_length):
    position = mha.PositionalEncoding(8, max_length=max_length)
    position(torch.zeros(2, max_length, 8))  # exactly max_length is fine
    with pytest.raises(ValueError, match=rf"max_length is {max_length}.*max_length >= "
                                         rf"{max_length + 1}"):
        position(torch.zeros(2, max_length + 1, 8))


# ===================================================================== one-token sentences


def project_by_hand(layer, x: torch.Tensor) -> torch.Tensor:
    """Wo(Wv(x)) with explicit float64 matrix products (no nn.Linear call)."""
    x = x.double()
    v = x @ layer.Wv.weight.double().T + layer.Wv.bias.double()
    return v @ layer.Wo.weight.double().T + layer.Wo.bias.double()


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_one_token_sentence_attends_fully_to_itself(ex, n_heads):
    """q_len = k_len = 1: softmax over one key is exactly 1, so output = Wo(Wv(x))."""
    ids = torch.tensor([ex.vocab.encode("Hello!")])
    assert ids.shape == (1, 1)
    with torch.no_grad():
        X = ex.position(ex.embed(ids))  # (1, 1, 8)
    layer = mha.MultiHeadAttention(8, n_heads).eval()
    layer.load_state_dict(ex.attention.state_dict())  # same weights, other head split
    for mask in (None, torch.ones(1, 1, dtype=torch.bool), torch.ones(1, 1, 1, 1)):
        out, probs = ours(layer, X, X, X, mask=mask)
        assert probs.shape == (1, n_heads, 1, 1)
        assert torch.equal(probs, torch.ones(1, n_heads, 1, 1))
        torch.testing.assert_close(out.double(), project_by_hand(layer, X), atol=1e-6, rtol=0)


def test_batch_of_one_token_sentences(gen):
    """Each of 5 sequences has a single token; the query differs from the key/value."""
    layer = make_layer(12, 3)
    q = torch.randn(5, 1, 12, generator=gen)
    kv = torch.randn(5, 1, 12, generator=gen)
    out, probs = ours(layer, q, kv, kv)
    assert torch.equal(probs, torch.ones(5, 3, 1, 1))
    # The query plays no role at all: only the value matters.
    torch.testing.assert_close(out.double(), project_by_hand(layer, kv), atol=1e-6, rtol=0)
    out_other_query, _ = ours(layer, 10 * q, kv, kv)
    torch.testing.assert_close(out_other_query, out, atol=1e-6, rtol=0)


# ===================================================================== a batch of one


@pytest.mark.parametrize("mask_kind", ["none", "causal", "padding"])
def test_batch_of_one_matches_torch_and_the_batched_row(gen, mask_kind):
    layer = make_layer(8, 2)
    x = torch.randn(4, 6, 8, generator=gen)
    masks = {
        "none": (None, {}),
        "causal": (torch.ones(6, 6, dtype=torch.bool).tril(),
                   {"attn_mask": torch.ones(6, 6, dtype=torch.bool).triu(1)}),
        "padding": (torch.tensor([1, 1, 1, 0, 0, 0], dtype=torch.bool)[None, None, None],
                    {"key_padding_mask": torch.tensor([[0, 0, 0, 1, 1, 1]], dtype=torch.bool)}),
    }
    mask, torch_masks = masks[mask_kind]
    # The whole batch through PyTorch, the padding mask repeated for every sequence.
    batched = dict(torch_masks)
    if mask_kind == "padding":
        batched["key_padding_mask"] = torch_masks["key_padding_mask"].expand(4, 6)
    tb_out, tb_probs = torch_forward(layer, x, x, x, **batched)
    for b in range(4):
        one = x[b:b + 1]  # (1, 6, 8)
        out, probs = ours(layer, one, one, one, mask=mask)
        t_out, t_probs = torch_forward(layer, one, one, one, **torch_masks)
        assert out.shape == (1, 6, 8) and probs.shape == (1, 2, 6, 6)
        torch.testing.assert_close(out, t_out, **TOL)
        torch.testing.assert_close(probs, t_probs, **TOL)
        # Same numbers as row b of the batch.
        torch.testing.assert_close(out[0], tb_out[b], **TOL)
        torch.testing.assert_close(probs[0], tb_probs[b], **TOL)


# ===================================================================== float64


@pytest.mark.parametrize("mask_kind", ["none", "causal", "per-head"])
def test_float64_layer_matches_torch_float64_to_1e_12(gen, mask_kind):
    layer = make_layer(12, 3).double()
    assert layer.Wq.weight.dtype == torch.float64
    q = torch.randn(2, 5, 12, generator=gen, dtype=torch.float64)
    kv = torch.randn(2, 5, 12, generator=gen, dtype=torch.float64)
    shape = (2, 3, 5, 5)
    mask = {"none": None,
            "causal": torch.ones(5, 5, dtype=torch.bool).tril(),
            "per-head": rows_with_a_key(shape, gen)}[mask_kind]
    torch_masks = {} if mask is None else {"attn_mask": hand_blocked(mask, shape)}
    out, probs = ours(layer, q, kv, kv, mask=mask)
    t_out, t_probs = torch_forward(layer, q, kv, kv, **torch_masks)
    assert out.dtype == probs.dtype == t_out.dtype == torch.float64
    torch.testing.assert_close(out, t_out, atol=1e-12, rtol=0)
    torch.testing.assert_close(probs, t_probs, atol=1e-12, rtol=0)


@pytest.mark.parametrize("name", ["query", "key", "value"])
def test_float64_input_to_float32_layer_names_argument_and_dtypes(name):
    layer = make_layer(8, 2)
    inputs = {n: torch.zeros(2, 3, 8) for n in ("query", "key", "value")}
    inputs[name] = inputs[name].double()
    pattern = (rf"{name} has dtype torch\.float64 but the layer's weights have dtype "
               r"torch\.float32")
    with pytest.raises(TypeError, match=pattern):
        layer(**inputs)


@pytest.mark.parametrize("name", ["query", "key", "value"])
def test_float32_input_to_float64_layer_names_argument_and_dtypes(name):
    layer = make_layer(8, 2).double()
    inputs = {n: torch.zeros(2, 3, 8, dtype=torch.float64) for n in ("query", "key", "value")}
    inputs[name] = inputs[name].float()
    pattern = (rf"{name} has dtype torch\.float32 but the layer's weights have dtype "
               r"torch\.float64")
    with pytest.raises(TypeError, match=pattern):
        layer(**inputs)


# ===================================================================== devices


@pytest.mark.parametrize("name", ["query", "key", "value"])
def test_input_on_another_device_names_argument_and_devices(name):
    layer = make_layer(8, 2)
    inputs = {n: torch.zeros(2, 3, 8) for n in ("query", "key", "value")}
    inputs[name] = inputs[name].to("meta")
    pattern = rf"{name} is on device meta but the layer's weights are on cpu"
    with pytest.raises(ValueError, match=pattern):
        layer(**inputs)


def test_cpu_input_to_a_layer_on_another_device():
    layer = make_layer(8, 2).to("meta")
    x = torch.zeros(2, 3, 8)
    with pytest.raises(ValueError, match=r"query is on device cpu but the layer's weights are "
                                         r"on meta"):
        layer(x, x, x)


def test_cpu_mask_with_scores_on_another_device():
    layer = make_layer(8, 2).to("meta")
    x = torch.zeros(2, 3, 8, device="meta")
    with pytest.raises(ValueError, match=r"mask is on cpu but the scores are on meta"):
        layer(x, x, x, mask=torch.ones(3, 3, dtype=torch.bool))


@pytest.mark.parametrize("dtype", [torch.bool, torch.float32])
def test_mask_on_another_device_than_the_scores(dtype):
    layer = make_layer(8, 2)
    x = torch.zeros(2, 3, 8)
    mask = torch.ones(3, 3, dtype=dtype, device="meta")
    with pytest.raises(ValueError, match=r"mask is on meta but the scores are on cpu"):
        layer(x, x, x, mask=mask)


# ===================================================================== non-contiguous inputs


def test_transposed_sequence_first_input_equals_contiguous_copy(gen):
    layer = make_layer(8, 4)
    x_lbe = torch.randn(6, 3, 8, generator=gen)  # (L, B, E), sequence first
    x = x_lbe.transpose(0, 1)  # (B, L, E) view
    assert not x.is_contiguous()
    xc = x.contiguous()
    mask = torch.ones(6, 6, dtype=torch.bool).tril()
    out, probs = ours(layer, x, x, x, mask=mask)
    c_out, c_probs = ours(layer, xc, xc, xc, mask=mask)
    torch.testing.assert_close(out, c_out, atol=1e-6, rtol=0)
    torch.testing.assert_close(probs, c_probs, atol=1e-6, rtol=0)
    t_out, _ = torch_forward(layer, xc, xc, xc, attn_mask=~mask)
    torch.testing.assert_close(out, t_out, **TOL)


def test_strided_and_feature_sliced_views_equal_contiguous_copies(gen):
    layer = make_layer(8, 2)
    wide_q = torch.randn(2, 10, 8, generator=gen)
    query = wide_q[:, ::2]  # every other position: (2, 5, 8)
    kv_features = torch.randn(2, 7, 16, generator=gen)
    key, value = kv_features[..., :8], kv_features[..., 8:]  # feature slices: (2, 7, 8)
    for view in (query, key, value):
        assert not view.is_contiguous()
    mask_kq = rows_with_a_key((2, 1, 7, 5), gen).transpose(-1, -2)  # (2, 1, 5, 7) view
    mask_kq = mask_kq | torch.eye(5, 7, dtype=torch.bool)  # every query keeps a key
    pad = torch.tensor([[1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0, 0]], dtype=torch.bool)
    masks = [
        None,
        mask_kq,
        pad[:, None, None, :].expand(2, 2, 5, 7),  # stride-0 view
        rows_with_a_key((2, 2, 10, 7), gen)[:, :, ::2],  # strided view
    ]
    for mask in masks:
        out, probs = ours(layer, query, key, value, mask=mask)
        plain_mask = None if mask is None else mask.contiguous()
        c_out, c_probs = ours(layer, query.contiguous(), key.contiguous(), value.contiguous(),
                              mask=plain_mask)
        torch.testing.assert_close(out, c_out, atol=1e-6, rtol=0)
        torch.testing.assert_close(probs, c_probs, atol=1e-6, rtol=0)
        torch_masks = {} if mask is None else {"attn_mask": hand_blocked(mask, (2, 2, 5, 7))}
        t_out, t_probs = torch_forward(layer, query.contiguous(), key.contiguous(),
                                       value.contiguous(), **torch_masks)
        torch.testing.assert_close(out, t_out, **TOL)
        torch.testing.assert_close(probs, t_probs, **TOL)


# ===================================================================== masks: accepted forms

B, H, Q, K = 2, 4, 5, 7  # cross-attention, so that q_len and k_len cannot be confused
MASK_SHAPES = {
    "2-D (q, k)": (Q, K),
    "(1, 1, q, k)": (1, 1, Q, K),
    "(B, 1, 1, k)": (B, 1, 1, K),
    "(B, 1, q, k)": (B, 1, Q, K),
    "(B, H, q, k)": (B, H, Q, K),
    "(1, H, q, k)": (1, H, Q, K),
}
MASK_DTYPES = [torch.bool, torch.int64, torch.int32, torch.uint8, torch.float32, torch.float64]


@pytest.fixture
def mask_layer() -> mha.MultiHeadAttention:
    return make_layer(16, H)


@pytest.fixture
def qkv(gen):
    return (torch.randn(B, Q, 16, generator=gen), torch.randn(B, K, 16, generator=gen),
            torch.randn(B, K, 16, generator=gen))


@pytest.mark.parametrize("dtype", MASK_DTYPES, ids=str)
@pytest.mark.parametrize("shape_name", list(MASK_SHAPES))
def test_every_accepted_mask_shape_and_dtype(mask_layer, qkv, gen, shape_name, dtype):
    allowed = rows_with_a_key(MASK_SHAPES[shape_name], gen)
    assert allowed.any() and not allowed.all()
    query, key, value = qkv
    # Reference: PyTorch with the mask expanded to (B*H, q, k) by hand.
    t_out, t_probs = torch_forward(mask_layer, query, key, value,
                                   attn_mask=hand_blocked(allowed, (B, H, Q, K)))
    bool_out, bool_probs = ours(mask_layer, query, key, value, mask=allowed)
    torch.testing.assert_close(bool_out, t_out, **TOL)
    torch.testing.assert_close(bool_probs, t_probs, **TOL)
    out, probs = ours(mask_layer, query, key, value, mask=allowed.to(dtype))
    assert torch.equal(probs, bool_probs)
    assert torch.equal(out, bool_out)
    blocked = ~(allowed if allowed.dim() == 4 else allowed[None, None]).expand(B, H, Q, K)
    assert (probs[blocked] == 0.0).all()


# ===================================================================== masks: refused forms


def bad_value(dtype, value, shape=(Q, K)) -> torch.Tensor:
    mask = torch.ones(shape, dtype=dtype)
    mask.view(-1)[1] = value
    return mask


EXPECTED_SHAPES = (r"mask must be 2-D \(q_len, k_len\) or 4-D \(batch, n_heads, q_len, k_len\)"
                   r" with size-1 axes allowed, got shape ")
VALUES = r"mask must hold only 0/False \(blocked\) and 1/True \(may attend\), got the value "
BROADCAST = rf"does not broadcast to \(batch, n_heads, q_len, k_len\) = {esc((B, H, Q, K))}"

BAD_MASKS = {
    "1-D": (lambda: torch.ones(K, dtype=torch.bool), ValueError,
            EXPECTED_SHAPES + esc((K,)) + r"\.$"),
    "3-D": (lambda: torch.ones(B, Q, K, dtype=torch.bool), ValueError,
            EXPECTED_SHAPES + esc((B, Q, K))
            + r"\. A 3-D mask is ambiguous .*mask\.unsqueeze\(1\)"),
    "5-D": (lambda: torch.ones(1, B, H, Q, K, dtype=torch.bool), ValueError,
            EXPECTED_SHAPES + esc((1, B, H, Q, K))),
    "2-D (k, q)": (lambda: torch.ones(K, Q, dtype=torch.bool), ValueError,
                   rf"mask of shape {esc((K, Q))} " + BROADCAST),
    "2-D (q, k-1)": (lambda: torch.ones(Q, K - 1, dtype=torch.bool), ValueError,
                     rf"mask of shape {esc((Q, K - 1))} " + BROADCAST),
    "(B+1, 1, 1, k)": (lambda: torch.ones(B + 1, 1, 1, K, dtype=torch.bool), ValueError,
                       rf"mask of shape {esc((B + 1, 1, 1, K))} " + BROADCAST),
    "(1, 2, q, k) with 4 heads": (lambda: torch.ones(1, 2, Q, K, dtype=torch.bool), ValueError,
                                  rf"mask of shape {esc((1, 2, Q, K))} " + BROADCAST),
    "(B, k) padding as 2-D": (lambda: torch.ones(B, K, dtype=torch.bool), ValueError,
                              rf"mask of shape {esc((B, K))} " + BROADCAST),
    "int64 2": (lambda: bad_value(torch.int64, 2), ValueError,
                VALUES + r"2 \(dtype torch\.int64\)"),
    "int32 -1": (lambda: bad_value(torch.int32, -1), ValueError,
                 VALUES + r"-1 \(dtype torch\.int32\)"),
    "uint8 2": (lambda: bad_value(torch.uint8, 2), ValueError,
                VALUES + r"2 \(dtype torch\.uint8\)"),
    "float 0.5": (lambda: bad_value(torch.float32, 0.5), ValueError,
                  VALUES + r"0\.5 \(dtype torch\.float32\)"),
    "float64 2.0": (lambda: bad_value(torch.float64, 2.0, (B, 1, 1, K)), ValueError,
                    VALUES + r"2\.0 \(dtype torch\.float64\)"),
    "float -inf": (lambda: bad_value(torch.float32, float("-inf")), ValueError,
                   VALUES + r"-inf \(dtype torch\.float32\)\. An additive mask of 0 and -inf "
                   r"is PyTorch's convention; convert it with `mask == 0`"),
    "complex64": (lambda: torch.ones(Q, K, dtype=torch.complex64), TypeError,
                  r"mask must be bool, integer or float, got dtype torch\.complex64"),
    "complex128 4-D": (lambda: torch.ones(B, 1, 1, K, dtype=torch.complex128), TypeError,
                       r"mask must be bool, integer or float, got dtype torch\.complex128"),
    "list": (lambda: [[True] * K] * Q, TypeError,
             r"mask must be a torch\.Tensor or None, got list"),
    "all blocked": (lambda: torch.zeros(B, 1, 1, K, dtype=torch.uint8), ValueError,
                    r"mask blocks every key for every query \(all 14 entries are 0/False\)"),
}


@pytest.mark.parametrize("case", list(BAD_MASKS))
def test_refused_mask_gives_a_clear_error(mask_layer, qkv, case):
    make, error, pattern = BAD_MASKS[case]
    query, key, value = qkv
    with pytest.raises(error, match=pattern):
        mask_layer(query, key, value, mask=make())


@pytest.mark.parametrize("case", ["3-D", "int64 2", "float -inf", "complex64"])
def test_converters_refuse_the_same_masks(case):
    make, error, pattern = BAD_MASKS[case]
    with pytest.raises(error, match=pattern):
        mha.to_nn_attn_mask(make(), (B, H, Q, K))


@pytest.mark.parametrize(
    "convert",
    [
        lambda m: mha.to_nn_attn_mask(m, (B, H, Q, K)),
        mha.to_sdpa_mask,
        mha.to_additive_mask,
        mha.to_key_padding_mask,
    ],
    ids=["to_nn_attn_mask", "to_sdpa_mask", "to_additive_mask", "to_key_padding_mask"],
)
def test_converters_refuse_a_list_naming_mask(convert):
    with pytest.raises(TypeError, match=r"mask must be a torch\.Tensor.*got list"):
        convert([[True] * K] * B)


# ===================================================================== cross-attention + padding


@pytest.mark.parametrize(("q_len", "k_len"), [(4, 9), (9, 4), (1, 6), (6, 1)])
def test_cross_attention_with_padding_mask(gen, q_len, k_len):
    layer = make_layer(12, 3)
    batch = 3
    query = torch.randn(batch, q_len, 12, generator=gen)
    key = torch.randn(batch, k_len, 12, generator=gen)
    value = torch.randn(batch, k_len, 12, generator=gen)
    lengths = torch.tensor([k_len, max(1, k_len // 2), 1])
    real = torch.arange(k_len)[None, :] < lengths[:, None]  # (batch, k_len), by hand
    mask = real[:, None, None, :]  # (batch, 1, 1, k_len)

    out, probs = ours(layer, query, key, value, mask=mask)
    assert out.shape == (batch, q_len, 12) and probs.shape == (batch, 3, q_len, k_len)
    for kpm in (~real, mha.to_key_padding_mask(mask)):
        t_out, t_probs = torch_forward(layer, query, key, value, key_padding_mask=kpm)
        torch.testing.assert_close(out, t_out, **TOL)
        torch.testing.assert_close(probs, t_probs, **TOL)

    # Padded keys get exactly zero weight, so whatever sits there changes nothing.
    assert (probs[(~real)[:, None, None, :].expand_as(probs)] == 0.0).all()
    garbage = 1e3 * torch.randn(batch, k_len, 12, generator=gen)
    pad = ~real[..., None]
    out2, probs2 = ours(layer, query, torch.where(pad, garbage, key),
                        torch.where(pad, -garbage, value), mask=mask)
    torch.testing.assert_close(out2, out, **TOL)
    torch.testing.assert_close(probs2, probs, **TOL)


# ===================================================================== split / merge heads


@st.composite
def head_shapes(draw):
    return (draw(st.integers(1, 4)), draw(st.integers(1, 6)), draw(st.integers(1, 6)),
            draw(st.integers(1, 5)), draw(st.integers(0, 2**31 - 1)))


@settings(max_examples=60, deadline=None)
@given(head_shapes(), st.booleans())
def test_split_and_merge_heads_round_trip(shape, strided):
    batch, seq_len, n_heads, d_key, seed = shape
    d_model = n_heads * d_key
    gen = torch.Generator().manual_seed(seed)
    if strided:  # a non-contiguous (batch, seq_len, d_model) view
        x = torch.randn(seq_len, batch, 2 * d_model, generator=gen).transpose(0, 1)[..., ::2]
    else:
        x = torch.randn(batch, seq_len, d_model, generator=gen)
    heads = mha.split_heads(x, n_heads)
    assert heads.shape == (batch, n_heads, seq_len, d_key)
    for h in range(n_heads):  # head h holds features h*d_key ... (h+1)*d_key - 1
        assert torch.equal(heads[:, h], x[:, :, h * d_key:(h + 1) * d_key])
    assert torch.equal(mha.merge_heads(heads), x)

    y = torch.randn(batch, n_heads, seq_len, d_key, generator=gen)
    merged = mha.merge_heads(y)
    assert merged.shape == (batch, seq_len, d_model)
    assert torch.equal(merged, torch.cat([y[:, h] for h in range(n_heads)], dim=-1))
    assert torch.equal(mha.split_heads(merged, n_heads), y)
