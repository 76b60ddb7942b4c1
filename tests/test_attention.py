"""mha.attention: the named steps, and MultiHeadAttention against PyTorch's own
implementations (the ``reference`` of conftest.py) on copied weights."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings, strategies as st
from refusal import refuses, row_ids

import mha
from mha.attention import check_heads, divisors

TOL = {"atol": 1e-5, "rtol": 0.0}


def forward(layer, query, key, value, mask=None):
    with torch.no_grad():
        return layer(query, key, value, mask)


# --- the head counts, split, scores, softmax, merge --------------------------------


@pytest.mark.parametrize("d_model", [1, 8, 12, 97, 512])
def test_divisors_are_the_head_counts_a_layer_accepts(d_model):
    counts = divisors(d_model)
    assert counts == sorted(counts) and counts[0] == 1 and counts[-1] == d_model
    for n_heads in range(1, d_model + 1):
        if n_heads in counts:
            check_heads(d_model, n_heads)
            assert mha.MultiHeadAttention(d_model, n_heads).d_key * n_heads == d_model
        else:
            with pytest.raises(ValueError, match="n_heads must divide d_model"):
                check_heads(d_model, n_heads)


def test_property_tests_explore_the_same_examples_every_run():
    """The profile tests/conftest.py loads once a module with property tests
    is collected: derandomized, no deadline, 40 examples."""
    assert settings.default.derandomize
    assert settings.default.deadline is None
    assert settings.default.max_examples == 40


@given(
    st.integers(1, 3),  # batch
    st.integers(1, 5),  # seq_len
    st.sampled_from([1, 2, 3, 4]),  # n_heads
    st.integers(1, 4),  # d_key
    st.booleans(),  # a strided view instead of a contiguous tensor
)
def test_split_gives_each_head_its_feature_slice_and_merge_undoes_it(
    batch, seq_len, n_heads, d_key, strided
):
    d_model = n_heads * d_key
    gen = torch.Generator().manual_seed(batch * 100 + seq_len * 10 + d_model)
    if strided:  # (batch, seq_len, d_model) as a non-contiguous view
        x = torch.randn(seq_len, batch, 2 * d_model, generator=gen).transpose(0, 1)[
            ..., ::2
        ]
    else:
        x = torch.randn(batch, seq_len, d_model, generator=gen)
    heads = mha.split_heads(x, n_heads)
    assert heads.shape == (batch, n_heads, seq_len, d_key)
    for h in range(n_heads):
        assert torch.equal(heads[:, h], x[..., h * d_key : (h + 1) * d_key])
    assert torch.equal(mha.merge_heads(heads), x)
    y = torch.randn(batch, n_heads, seq_len, d_key, generator=gen)
    merged = mha.merge_heads(y)  # the heads side by side, head 0 first
    assert torch.equal(merged, torch.cat([y[:, h] for h in range(n_heads)], dim=-1))


@pytest.mark.parametrize("d_key", [2, 64])
def test_scores_are_dot_products_over_root_d_key(gen, d_key):
    Q = torch.randn(2, 3, 4, d_key, generator=gen, dtype=torch.float64)
    K = torch.randn(2, 3, 5, d_key, generator=gen, dtype=torch.float64)
    scores = mha.scaled_dot_product(Q, K)
    assert scores.shape == (2, 3, 4, 5)
    by_hand = torch.einsum("bhqd,bhkd->bhqk", Q, K) / math.sqrt(d_key)
    torch.testing.assert_close(scores, by_hand, atol=1e-12, rtol=0)


def random_allowed(shape, gen, density=0.5):
    """A bool mask of ``shape`` in which every row (query) allows at least one key."""
    allowed = torch.rand(shape, generator=gen) < density
    keep = torch.randint(0, shape[-1], (*shape[:-1], 1), generator=gen)
    return allowed.scatter(-1, keep, True)


@pytest.mark.parametrize("masked", [False, True])
def test_each_row_is_a_softmax_over_the_allowed_keys_only(gen, masked):
    scores = 3 * torch.randn(2, 3, 5, 7, generator=gen, dtype=torch.float64)
    allowed = (
        random_allowed((2, 1, 5, 7), gen) if masked else torch.ones(1, 1, 5, 7).bool()
    )
    probs = mha.attention_probs(scores, allowed if masked else None)
    assert probs.shape == scores.shape
    full = allowed.expand(scores.shape)
    torch.testing.assert_close(probs.sum(-1), torch.ones(2, 3, 5, dtype=torch.float64))
    assert (probs[~full] == 0).all() and (probs[full] > 0).all()
    for b, h, i in torch.cartesian_prod(
        torch.arange(2), torch.arange(3), torch.arange(5)
    ):
        keys = full[b, h, i]
        expected = torch.softmax(scores[b, h, i, keys], dim=0)
        torch.testing.assert_close(probs[b, h, i, keys], expected, atol=1e-12, rtol=0)


def test_a_query_with_every_key_blocked_attends_to_nothing(gen):
    scores = torch.randn(2, 3, 4, 5, generator=gen, requires_grad=True)
    allowed = torch.ones(4, 5, dtype=torch.bool)
    allowed[2] = False
    probs = mha.attention_probs(scores, allowed)
    assert (probs[:, :, 2] == 0).all()
    torch.testing.assert_close(probs[:, :, [0, 1, 3]].sum(-1), torch.ones(2, 3, 3))
    (probs * torch.arange(5.0)).sum().backward()
    assert torch.isfinite(scores.grad).all() and (scores.grad[:, :, 2] == 0).all()


# --- the layer against PyTorch ---------------------------------------------------------

SIZES = [(3, 6, 8, 4), (32, 10, 512, 8)]  # (batch, length, d_model, n_heads)
KINDS = ["none", "causal", "padding", "causal+padding", "cross", "cross+padding"]


def make_case(size, kind, gen):
    """query, key, value and a mask in the package's convention, built by hand."""
    batch, q_len, d_model, _ = size
    cross = kind.startswith("cross")
    k_len = q_len + 3 if cross else q_len
    query = torch.randn(batch, q_len, d_model, generator=gen)
    key, value = (
        torch.randn(2, batch, k_len, d_model, generator=gen) if cross else (query,) * 2
    )
    mask = None
    if "causal" in kind:
        # (q_len, k_len): query i sees the keys up to i
        mask = torch.arange(k_len)[None, :] <= torch.arange(q_len)[:, None]
    if "padding" in kind:  # every sequence keeps at least one key
        lengths = torch.randint(1, k_len + 1, (batch,), generator=gen)
        lengths[0], lengths[-1] = k_len, 1
        real = (torch.arange(k_len)[None, :] < lengths[:, None])[:, None, None, :]
        mask = real if mask is None else mask & real  # (batch, 1, q_len or 1, k_len)
    return query, key, value, mask


@pytest.mark.parametrize("api", ["module", "functional", "sdpa"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: "b{}-L{}-d{}-h{}".format(*s))
def test_layer_equals_pytorch(make_layer, reference, gen, size, kind, api):
    batch, q_len, d_model, n_heads = size
    layer = make_layer(d_model, n_heads)
    query, key, value, mask = make_case(size, kind, gen)
    out, probs = forward(layer, query, key, value, mask)
    t_out, t_probs = reference(layer, query, key, value, mask, api=api)
    assert out.shape == (batch, q_len, d_model)
    assert probs.shape == (batch, n_heads, q_len, key.size(1))
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)


MASK_SHAPES = {
    "2-D": lambda b, h, q, k: (q, k),
    "padding": lambda b, h, q, k: (b, 1, 1, k),
    "per sequence": lambda b, h, q, k: (b, 1, q, k),
    "per head": lambda b, h, q, k: (b, h, q, k),
}
MASK_DTYPES = [torch.bool, torch.int64, torch.uint8, torch.float32, torch.float64]


@given(
    st.sampled_from([(4, 1), (4, 2), (6, 3), (8, 4), (12, 2)]),  # (d_model, n_heads)
    st.integers(1, 3),  # batch
    st.integers(1, 6),  # q_len
    st.one_of(st.none(), st.integers(1, 6)),  # k_len; None: self-attention
    st.sampled_from([None, *MASK_SHAPES]),
    st.sampled_from(MASK_DTYPES),
    st.sampled_from([0.15, 0.5, 0.9]),  # share of allowed entries
    st.integers(0, 2**16),
)
def test_property_layer_equals_pytorch_and_blocked_rows_are_zero(
    make_layer,
    reference,
    heads,
    batch,
    q_len,
    k_len,
    mask_kind,
    mask_dtype,
    density,
    seed,
):
    """Any sizes and masks of any accepted shape and dtype, fully blocked rows
    included: where PyTorch gives numbers, ours are the same; a query whose
    keys are all blocked gets zero weights."""
    (d_model, n_heads), gen = heads, torch.Generator().manual_seed(seed)
    layer = make_layer(d_model, n_heads, seed=seed)
    query = torch.randn(batch, q_len, d_model, generator=gen)
    key = query if k_len is None else torch.randn(batch, k_len, d_model, generator=gen)
    shape = (batch, n_heads, q_len, key.size(1))
    mask = None
    if mask_kind is not None:
        mask = torch.rand(MASK_SHAPES[mask_kind](*shape), generator=gen) < density
        if not mask.any():
            with pytest.raises(ValueError, match="mask blocks every key"):
                layer(query, key, key, mask.to(mask_dtype))
            return
    out, probs = forward(
        layer, query, key, key, None if mask is None else mask.to(mask_dtype)
    )
    t_out, t_probs = reference(layer, query, key, key, mask)
    allowed = torch.ones(shape, dtype=torch.bool)
    if mask is not None:
        allowed = allowed & (mask if mask.dim() == 4 else mask[None, None])
    dead = ~allowed.any(-1)  # (batch, n_heads, q_len): queries that see no key
    assert (probs[~allowed] == 0).all() and (probs[dead] == 0).all()
    torch.testing.assert_close(
        probs.sum(-1)[~dead], torch.ones(shape[:3])[~dead], **TOL
    )
    torch.testing.assert_close(probs[~dead], t_probs[~dead], **TOL)
    live = ~dead.any(1)  # (batch, q_len): every head of the query sees a key
    torch.testing.assert_close(out[live], t_out[live], **TOL)


def test_float64_layer_equals_pytorch_to_1e_12(make_layer, reference, gen):
    layer = make_layer(12, 3, dtype=torch.float64)
    query = torch.randn(2, 5, 12, generator=gen, dtype=torch.float64)
    key = torch.randn(2, 7, 12, generator=gen, dtype=torch.float64)
    mask = random_allowed((2, 3, 5, 7), gen)
    out, probs = forward(layer, query, key, key, mask)
    t_out, t_probs = reference(layer, query, key, key, mask)
    assert out.dtype == probs.dtype == torch.float64
    torch.testing.assert_close(out, t_out, atol=1e-12, rtol=0)
    torch.testing.assert_close(probs, t_probs, atol=1e-12, rtol=0)


def test_strided_and_transposed_inputs_and_masks(make_layer, reference, gen):
    layer = make_layer(8, 2)
    query = torch.randn(10, 2, 8, generator=gen).transpose(0, 1)[:, ::2]  # (2, 5, 8)
    features = torch.randn(2, 7, 16, generator=gen)
    key, value = features[..., :8], features[..., 8:]  # (2, 7, 8) feature slices
    # Random, with key 0 allowed for all queries.
    transposed = (torch.rand(2, 1, 7, 5, generator=gen) < 0.5).index_fill(
        2, torch.tensor(0), 1
    )
    transposed = transposed.transpose(-1, -2)  # (2, 1, 5, 7) view
    masks = [
        None,
        transposed,  # (2, 1, 5, 7) view
        random_allowed((2, 1, 1, 7), gen).expand(2, 2, 5, 7),  # stride-0 view
        random_allowed((2, 2, 10, 7), gen)[:, :, ::2],
    ]
    for mask in masks:
        assert not query.is_contiguous() and (mask is None or not mask.is_contiguous())
        out, probs = forward(layer, query, key, value, mask)
        t_out, t_probs = reference(layer, query, key, value, mask)
        torch.testing.assert_close(out, t_out, **TOL)
        torch.testing.assert_close(probs, t_probs, **TOL)


def test_what_sits_in_blocked_keys_changes_nothing(make_layer, gen):
    layer = make_layer(12, 3)
    query, key, value = torch.randn(3, 3, 4, 12, generator=gen)
    real = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0], [1, 0, 0, 0]]).bool()  # (3, 4)
    mask = real[:, None, None, :]
    out, probs = forward(layer, query, key, value, mask)
    garbage = 1e3 * torch.randn(3, 4, 12, generator=gen)
    pad = ~real[..., None]
    out2, probs2 = forward(
        layer, query, key.where(~pad, garbage), value.where(~pad, -garbage), mask
    )
    torch.testing.assert_close(out2, out, **TOL)
    torch.testing.assert_close(probs2, probs, **TOL)


def test_one_key_gets_all_the_attention(make_layer, gen):
    """With a single key, softmax gives it weight 1: the output is Wo(Wv(value))."""
    layer = make_layer(8, 4, dtype=torch.float64)
    query, value = torch.randn(2, 5, 1, 8, generator=gen, dtype=torch.float64)
    out, probs = forward(layer, query, value, value)
    assert torch.equal(probs, torch.ones(5, 4, 1, 1, dtype=torch.float64))
    Wv, Wo = layer.Wv, layer.Wo
    by_hand = (value @ Wv.weight.T + Wv.bias) @ Wo.weight.T + Wo.bias
    torch.testing.assert_close(out, by_hand, atol=1e-12, rtol=0)


def test_dropout_acts_in_training_mode_only_and_after_the_returned_weights(
    make_layer, gen
):
    layer = make_layer(8, 2)
    x = torch.randn(4, 6, 8, generator=gen)
    out, probs = forward(layer, x, x, x)
    train_out, train_probs = forward(layer.train(), x, x, x)
    assert not torch.allclose(train_out, out)
    assert torch.equal(train_probs, probs)  # the weights are returned before dropout
    assert torch.equal(forward(layer.eval(), x, x, x)[0], out)


# --- bad input --------------------------------------------------------------------------


def meta(shape):
    return torch.zeros(shape, device="meta")


LAYER = mha.MultiHeadAttention(8, 4).eval()
META_LAYER = mha.MultiHeadAttention(8, 2).to("meta")
X = torch.zeros(3, 6, 8)

# Each row, a case of the test below: the call, its error, and what the message
# names: the argument, what was expected, what was given.
BAD_INPUT = [
    # The constructor.
    (lambda: mha.MultiHeadAttention(512, 10), ValueError, "n_heads", "divide d_model",
     "d_model=512 is not divisible by n_heads=10 (allowed n_heads: 1, 2, 4, 8, 16"),
    (lambda: mha.MultiHeadAttention(8, 0), ValueError, "n_heads", "int >= 1", "got 0"),
    (lambda: mha.MultiHeadAttention(8, 2.0), TypeError, "n_heads", "an int", "got float 2.0"),
    (lambda: mha.MultiHeadAttention(8, True), TypeError, "n_heads", "an int", "got bool True"),
    (lambda: mha.MultiHeadAttention(8.0, 2), TypeError, "d_model", "an int", "got float 8.0"),
    (lambda: mha.MultiHeadAttention(8, 2, dropout=1.0), ValueError, "dropout",
     "probability in [0, 1)", "got 1.0"),
    # The forward pass.
    (lambda: LAYER(X, X[:2], X[:2]), ValueError, "query, key and value", "same batch size",
     "got 3, 2 and 2"),
    (lambda: LAYER(X, X[:, :5], X[:, :4]), ValueError, "key and value", "same length",
     "k_len=5 for key and 4 for value"),
    (lambda: LAYER(X, X[..., :7], X), ValueError, "key", "(batch, k_len, d_model=8)",
     "got (3, 6, 7)"),
    (lambda: LAYER(X[0], X[0], X[0]), ValueError, "query", "(batch, q_len, d_model=8)",
     "got (6, 8)"),
    (lambda: LAYER(X, X, X.double()), TypeError, "value",
     "the layer's weights have dtype torch.float32", "value has dtype torch.float64"),
    (lambda: LAYER(X.long(), X, X), TypeError, "query", "floating-point", "torch.int64"),
    (lambda: LAYER([[0.0] * 8], X, X), TypeError, "query", "torch.Tensor", "got list"),
    (lambda: LAYER(X, meta((3, 6, 8)), X), ValueError, "key", "the layer's weights are on cpu",
     "key is on device meta"),
    (lambda: META_LAYER(X, X, X), ValueError, "query", "the layer's weights are on meta",
     "query is on device cpu"),
    (lambda: LAYER(X, X, X, meta((6, 6)).bool()), ValueError, "mask",
     "the scores are on cpu", "mask is on meta"),
    # The steps.
    (lambda: mha.split_heads(X, 3), ValueError, "n_heads", "divide d_model",
     "d_model=8 is not divisible by n_heads=3"),
    (lambda: mha.split_heads(X[0], 2), ValueError, "x", "(batch, seq_len, d_model)",
     "got (6, 8)"),
    (lambda: mha.scaled_dot_product(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 5)),
     ValueError, "Q", "agree on batch, n_heads and d_key", "(1, 2, 3, 4) and (1, 2, 3, 5)"),
    (lambda: mha.merge_heads(X), ValueError, "x", "(batch, n_heads, seq_len, d_key)",
     "got (3, 6, 8)"),
    (lambda: mha.attention_probs([[1.0]]), TypeError, "scores", "torch.Tensor", "got list"),
    (lambda: divisors(0), ValueError, "n", "int >= 1", "got 0"),
    (lambda: check_heads(12, 5), ValueError, "n_heads", "divide d_model",
     "d_model=12 is not divisible by n_heads=5 (allowed n_heads: 1, 2, 3, 4, 6, 12; "
     "or give each head its width with d_key)"),
    (lambda: mha.MultiHeadAttention(8, 3, d_key=0), ValueError, "d_key", "int >= 1",
     "got 0"),
    (lambda: mha.MultiHeadAttention(8, 3, d_key=2.5), TypeError, "d_key", "an int",
     "got float 2.5"),
    (lambda: mha.MultiHeadAttention(8, 0, d_key=2), ValueError, "n_heads", "int >= 1",
     "got 0"),
    (lambda: mha.to_torch(mha.MultiHeadAttention(8, 8, d_key=2)), ValueError, "layer",
     "d_key = d_model // n_heads", "d_model=8, n_heads=8, d_key=2"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)


def test_dropout_is_off_by_default_as_in_pytorch(gen):
    """Like ``nn.MultiheadAttention``: a fresh layer in training mode gives the
    same numbers on every call, until dropout is asked for."""
    x = torch.randn(2, 5, 8, generator=gen)
    layer = mha.MultiHeadAttention(8, 2).train()
    assert layer.dropout.p == torch.nn.MultiheadAttention(8, 2).dropout == 0.0
    torch.testing.assert_close(layer(x, x, x), layer(x, x, x), rtol=0, atol=0)
    noisy = mha.MultiHeadAttention(8, 2, dropout=0.5).train()
    assert not torch.equal(noisy(x, x, x)[0], noisy(x, x, x)[0])


# --- A head width apart from the head count (d_key) -------------------------------


@pytest.mark.parametrize(
    "d_model, n_heads, d_key", [(8, 8, 2), (8, 1, 16), (8, 3, 2), (6, 2, 5)]
)
def test_heads_of_any_width_compute_attention_head_by_head(
    gen, d_model, n_heads, d_key
):
    """With d_key given, Wq, Wk, Wv map d_model to n_heads * d_key features and
    Wo maps them back; each head is softmax(q kᵀ / √d_key) v on its own d_key
    features, computed here one head at a time, independently of the layer's
    split and merge."""
    layer = mha.MultiHeadAttention(d_model, n_heads, d_key=d_key, dtype=torch.float64)
    layer.eval()
    assert layer.Wq.weight.shape == layer.Wv.weight.shape == (n_heads * d_key, d_model)
    assert layer.Wo.weight.shape == (d_model, n_heads * d_key)
    x = torch.randn(2, 5, d_model, generator=gen, dtype=torch.float64)
    mask = mha.masks.causal_mask(5)
    out, probs = layer(x, x, x, mask)
    assert out.shape == (2, 5, d_model) and probs.shape == (2, n_heads, 5, 5)
    heads = []
    for h in range(n_heads):
        rows = slice(h * d_key, (h + 1) * d_key)
        q, k, v = (
            x @ w.weight[rows].T + w.bias[rows] for w in (layer.Wq, layer.Wk, layer.Wv)
        )  # each (2, 5, d_key)
        scores = (q @ k.transpose(1, 2)) / d_key**0.5  # (2, 5, 5)
        p = scores.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        torch.testing.assert_close(probs[:, h], p, rtol=0, atol=1e-12)
        heads.append(p @ v)  # (2, 5, d_key)
    expected = layer.Wo(torch.cat(heads, dim=-1))  # (2, 5, d_model)
    torch.testing.assert_close(out, expected, rtol=0, atol=1e-12)


def test_d_key_by_convention_is_the_default_layer_and_equals_pytorch(gen):
    """d_key = d_model // n_heads given explicitly builds the default layer,
    which PyTorch's own layer matches."""
    torch.manual_seed(0)
    default = mha.MultiHeadAttention(8, 4, dtype=torch.float64).eval()
    torch.manual_seed(0)
    explicit = mha.MultiHeadAttention(8, 4, d_key=2, dtype=torch.float64).eval()
    for (name, a), b in zip(
        default.state_dict().items(), explicit.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b), name
    x = torch.randn(2, 5, 8, generator=gen, dtype=torch.float64)
    theirs, _ = mha.to_torch(explicit)(x, x, x)
    torch.testing.assert_close(explicit(x, x, x)[0], theirs, rtol=0, atol=1e-12)
