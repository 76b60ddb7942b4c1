"""What the chapter *PyTorch's built-ins* (book/10_pytorch) shows and asserts.

tests/test_equivalence.py already checks, on random layers, that
``mha.MultiHeadAttention`` equals ``nn.MultiheadAttention``,
``F.multi_head_attention_forward`` and ``F.scaled_dot_product_attention`` with
explicit masks, and that ``nn.MultiheadAttention`` gives NaN on fully blocked
rows. This file covers what that one does not:

- the reference page's three examples: the facts the chapter states about their
  real output (recomputed here from scratch, not compared with printed numbers);
- the running example itself, with the three masks of the chapter, through the
  functional form in its sequence-first layout and through SDPA's ``is_causal``;
- the mix-ups the chapter demonstrates: each one really changes the numbers,
  and in exactly the way the chapter explains;
- PyTorch behaviours the chapter relies on (averaged weights, ``need_weights``,
  fully blocked rows in SDPA and with a finite fill, the ``is_causal`` hint).
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import mha

ATOL = {"atol": 1e-6, "rtol": 0.0}  # the bound the chapter asserts


# --------------------------------------------------------------------------- helpers


def page_inputs(seed: int, N: int, E: int, L: int, S: int) -> dict:
    """The reference page's random tensors, drawn in the page's order."""
    torch.manual_seed(seed)
    return {
        "query": torch.randn(L, N, E),
        "key": torch.randn(S, N, E),
        "value": torch.randn(S, N, E),
        "in_proj_weight": torch.randn(3 * E, E),
        "in_proj_bias": torch.randn(3 * E),
        "out_proj_weight": torch.randn(E, E),
        "out_proj_bias": torch.randn(E),
    }


def run_page_call(t: dict, num_heads: int, **kwargs):
    """The page's call of F.multi_head_attention_forward (keyword for keyword)."""
    E = t["query"].size(-1)
    return F.multi_head_attention_forward(
        t["query"], t["key"], t["value"],
        embed_dim_to_check=E, num_heads=num_heads,
        in_proj_weight=t["in_proj_weight"], in_proj_bias=t["in_proj_bias"],
        bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0.0,
        out_proj_weight=t["out_proj_weight"], out_proj_bias=t["out_proj_bias"],
        training=False, need_weights=True, **kwargs,
    )


def weights_by_hand(t: dict, num_heads: int, additive: torch.Tensor) -> torch.Tensor:
    """Per-head attention weights (N, h, L, S) from plain tensor operations.

    ``additive`` is added to the scores and broadcasts to (N, h, L, S).
    """
    L, N, E = t["query"].shape
    S = t["key"].size(0)
    d_key = E // num_heads
    wq, wk, _ = t["in_proj_weight"].chunk(3)
    bq, bk, _ = t["in_proj_bias"].chunk(3)
    q = t["query"].transpose(0, 1) @ wq.T + bq  # (N, L, E)
    k = t["key"].transpose(0, 1) @ wk.T + bk  # (N, S, E)
    q = q.reshape(N, L, num_heads, d_key).transpose(1, 2)  # (N, h, L, d_key)
    k = k.reshape(N, S, num_heads, d_key).transpose(1, 2)  # (N, h, S, d_key)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_key)  # (N, h, L, S)
    return torch.softmax(scores + additive, dim=-1)


@pytest.fixture
def example_1() -> dict:
    return page_inputs(0, N=2, E=8, L=4, S=6)


@pytest.fixture
def example_2():
    t = page_inputs(42, N=1, E=6, L=3, S=5)
    attn_mask = torch.zeros(3, 5)
    attn_mask[:, -2:] = float("-inf")
    return t, attn_mask


@pytest.fixture
def example_3():
    t = page_inputs(123, N=2, E=4, L=3, S=5)
    key_padding_mask = torch.zeros(2, 5, dtype=torch.bool)
    key_padding_mask[0, -2:] = True
    key_padding_mask[1, -3:] = True
    return t, key_padding_mask


# --------------------------------------------------------------------------- the page's examples


def test_example_1_shapes_and_averaged_weights(example_1):
    out, weights = run_page_call(example_1, num_heads=2)
    assert out.shape == (4, 2, 8)  # (L, N, E): sequence-first
    assert weights.shape == (2, 4, 6)  # (N, L, S): no head axis
    _, per_head = run_page_call(example_1, num_heads=2, average_attn_weights=False)
    assert per_head.shape == (2, 2, 4, 6)
    torch.testing.assert_close(weights, per_head.mean(dim=1), **ATOL)
    # And the per-head maps are the plain softmax of the scaled scores.
    torch.testing.assert_close(per_head, weights_by_hand(example_1, 2, torch.zeros(())), **ATOL)


def test_example_2_real_weights(example_2):
    t, attn_mask = example_2
    _, weights = run_page_call(t, num_heads=3, attn_mask=attn_mask)
    assert weights.shape == (1, 3, 5)
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(1, 3), **ATOL)
    assert (weights[..., -2:] == 0).all()  # -inf was added there: exactly 0
    assert (weights[..., :3] > 0).all()  # every query keeps its three keys
    by_hand = weights_by_hand(t, 3, attn_mask).mean(dim=1)
    torch.testing.assert_close(weights, by_hand, **ATOL)


def test_example_2_printed_output_of_the_page_is_impossible(example_2):
    """The page's printed tensor breaks the facts the real output satisfies."""
    page = torch.tensor([[[0.0, 0.0, 0.0, 0.0, 0.0],
                          [2.5772e-01, 2.7042e-01, 2.2919e-01, 2.2134e-01, 2.2134e-02],
                          [0.0, 0.0, 0.0, 0.0, 0.0]]])
    sums = page.sum(dim=-1)[0]
    assert sums[0] == 0 and sums[2] == 0  # rows of zeros: no softmax row does that
    assert abs(sums[1].item() - 1.0008) < 1e-4  # more than 1
    assert (page[0, 1, -2:] > 0).all()  # weight on the -inf columns
    t, attn_mask = example_2
    _, weights = run_page_call(t, num_heads=3, attn_mask=attn_mask)
    assert not torch.allclose(weights, page, atol=1e-3)


def test_example_3_padding_keys_get_no_weight(example_3):
    t, key_padding_mask = example_3
    out, weights = run_page_call(t, num_heads=2, key_padding_mask=key_padding_mask)
    assert out.shape == (3, 2, 4)
    assert weights.shape == (2, 3, 5)
    assert torch.equal(weights[0, 0, -2:], torch.zeros(2))  # what the page prints
    assert (weights[0, :, -2:] == 0).all() and (weights[1, :, -3:] == 0).all()
    assert (weights[0, :, :3] > 0).all() and (weights[1, :, :2] > 0).all()
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(2, 3), **ATOL)
    additive = torch.zeros(2, 1, 1, 5).masked_fill(
        key_padding_mask[:, None, None, :], float("-inf")
    )
    torch.testing.assert_close(weights, weights_by_hand(t, 2, additive).mean(dim=1), **ATOL)


# --------------------------------------------------------------------------- the running example


@pytest.fixture
def chapter(ex):
    """The chapter's tensors: X, the layer, its three masks and our results."""
    X, layer = ex.X, ex.attention
    masks = {
        "none": None,
        "causal": mha.causal_mask(6),
        "padding": mha.lengths_mask([6, 4, 2], 6),
    }
    ours = {name: layer(X, X, X, mask=m) for name, m in masks.items()}
    return X, layer, masks, ours


def split(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(N, L, E) -> (N, h, L, d_key), written out independently of mha.split_heads."""
    N, L, E = x.shape
    return x.view(N, L, n_heads, E // n_heads).transpose(1, 2)


def test_running_example_has_the_shapes_the_chapter_prints(ex, chapter):
    X, layer, _, ours = chapter
    assert X.shape == (3, 6, 8)
    assert (layer.d_model, layer.n_heads, layer.d_key) == (8, 4, 2)
    out, probs = ours["none"]
    assert out.shape == (3, 6, 8) and probs.shape == (3, 4, 6, 6)
    weight, bias = mha.packed_in_proj(layer)
    assert weight.shape == (24, 8) and bias.shape == (24,)


def test_packed_projection_is_three_projections(chapter):
    X, layer, _, _ = chapter
    weight, bias = mha.packed_in_proj(layer)
    q, k, v = (X @ weight.T + bias).split(8, dim=-1)
    torch.testing.assert_close(q, layer.Wq(X))
    torch.testing.assert_close(k, layer.Wk(X))
    torch.testing.assert_close(v, layer.Wv(X))


@pytest.mark.parametrize("kind", ["none", "causal", "padding"])
def test_functional_sequence_first_equals_ours(chapter, kind):
    X, layer, masks, ours = chapter
    mask = masks[kind]
    kwargs = {}
    if kind == "causal":
        kwargs["attn_mask"] = mha.to_nn_attn_mask(mask, (3, 4, 6, 6))
    elif kind == "padding":
        kwargs["key_padding_mask"] = mha.to_key_padding_mask(mask)
    weight, bias = mha.packed_in_proj(layer)
    Xs = X.transpose(0, 1)  # (L, N, E)
    out_s, weights = F.multi_head_attention_forward(
        Xs, Xs, Xs, 8, 4, weight, bias, None, None, False, 0.1,
        layer.Wo.weight, layer.Wo.bias,
        training=False, average_attn_weights=False, **kwargs,
    )
    assert out_s.shape == (6, 3, 8)
    torch.testing.assert_close(out_s.transpose(0, 1), ours[kind][0], **ATOL)
    torch.testing.assert_close(weights, ours[kind][1], **ATOL)


def sdpa_with_weights(layer, X, **kwargs):
    """SDPA output after Wo, and its weights (attending over one-hot values)."""
    Q, K, V = (split(linear(X), layer.n_heads) for linear in (layer.Wq, layer.Wk, layer.Wv))
    N, h, L, _ = Q.shape
    A = F.scaled_dot_product_attention(Q, K, V, **kwargs)  # (N, h, L, d_key)
    eye = torch.eye(K.size(2)).expand(N, h, K.size(2), K.size(2))
    weights = F.scaled_dot_product_attention(Q, K, eye, **kwargs)  # (N, h, L, S)
    return layer.Wo(A.transpose(1, 2).reshape(N, L, -1)), weights


def test_sdpa_is_causal_equals_ours_with_causal_mask(chapter):
    X, layer, masks, ours = chapter
    out, weights = sdpa_with_weights(layer, X, is_causal=True)
    torch.testing.assert_close(out, ours["causal"][0], **ATOL)
    torch.testing.assert_close(weights, ours["causal"][1], **ATOL)


@pytest.mark.parametrize("length", [1, 2, 7])
def test_sdpa_is_causal_equals_ours_on_random_layers(gen, length):
    layer = mha.MultiHeadAttention(12, 3, dropout=0.0).eval()
    x = torch.randn(2, length, 12, generator=gen)
    with torch.no_grad():
        out, probs = layer(x, x, x, mask=mha.causal_mask(length))
        s_out, s_probs = sdpa_with_weights(layer, x, is_causal=True)
    torch.testing.assert_close(s_out, out, atol=1e-5, rtol=0)
    torch.testing.assert_close(s_probs, probs, atol=1e-5, rtol=0)


def test_default_weights_are_the_mean_over_heads_and_need_weights_false(chapter):
    X, layer, _, ours = chapter
    torch_layer = mha.to_torch(layer).requires_grad_(False)
    out, mean_probs = torch_layer(X, X, X)
    assert mean_probs.shape == (3, 6, 6)
    torch.testing.assert_close(mean_probs, ours["none"][1].mean(dim=1), **ATOL)
    fast_out, nothing = torch_layer(X, X, X, need_weights=False)
    assert nothing is None
    torch.testing.assert_close(fast_out, ours["none"][0], **ATOL)


@pytest.mark.parametrize(
    ("kind", "make"),
    [
        ("causal", lambda m: {"attn_mask": mha.to_additive_mask(m)}),
        ("padding", lambda m: {"key_padding_mask": mha.to_additive_mask(m[:, 0, 0])}),
        ("padding", lambda m: {"attn_mask": mha.to_nn_attn_mask(m, (3, 4, 6, 6))}),
    ],
    ids=["float-attn_mask", "float-key_padding_mask", "per-sequence-attn_mask"],
)
def test_other_right_conversions_for_nn(chapter, kind, make):
    X, layer, masks, ours = chapter
    torch_layer = mha.to_torch(layer).requires_grad_(False)
    out, weights = torch_layer(X, X, X, average_attn_weights=False, **make(masks[kind]))
    torch.testing.assert_close(out, ours[kind][0], **ATOL)
    torch.testing.assert_close(weights, ours[kind][1], **ATOL)


def test_float_additive_mask_for_sdpa(chapter):
    X, layer, masks, ours = chapter
    out, weights = sdpa_with_weights(layer, X, attn_mask=mha.to_additive_mask(masks["causal"]))
    torch.testing.assert_close(out, ours["causal"][0], **ATOL)
    torch.testing.assert_close(weights, ours["causal"][1], **ATOL)


# --------------------------------------------------------------------------- the mix-ups


def scores_of(layer, X) -> torch.Tensor:
    """Scaled scores (N, h, L, S), computed without mha's steps."""
    Q, K = split(layer.Wq(X), layer.n_heads), split(layer.Wk(X), layer.n_heads)
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))


def test_batch_first_data_in_a_sequence_first_layer(chapter):
    """No error, same output shape, other numbers: it attends across the batch."""
    X, layer, _, ours = chapter
    seq_first = mha.to_torch(layer, batch_first=False).requires_grad_(False)
    wrong_out, wrong_probs = seq_first(X, X, X, average_attn_weights=False)
    assert wrong_out.shape == X.shape
    assert wrong_probs.shape == (6, 4, 3, 3)  # 6 "sequences" of 3 "tokens"
    assert not torch.allclose(wrong_out, ours["none"][0], atol=1e-2)
    # Exactly what the chapter says it computed: position t of the three sentences
    # treated as one sequence.
    Xt = X.transpose(0, 1)  # (6, 3, 8)
    expected_out, expected_probs = layer(Xt, Xt, Xt)
    torch.testing.assert_close(wrong_out, expected_out.transpose(0, 1), **ATOL)
    torch.testing.assert_close(wrong_probs, expected_probs, **ATOL)
    right_out, _ = seq_first(Xt, Xt, Xt)
    torch.testing.assert_close(right_out.transpose(0, 1), ours["none"][0], **ATOL)


def test_our_causal_mask_straight_into_nn_blocks_the_allowed_keys(chapter):
    X, layer, masks, ours = chapter
    allowed = masks["causal"]
    torch_layer = mha.to_torch(layer).requires_grad_(False)
    _, w = torch_layer(X, X, X, attn_mask=allowed, average_attn_weights=False)
    # The last query may attend to nothing: NaN. Every other row attends only to
    # keys strictly after the query.
    assert torch.isnan(w[:, :, -1]).all()
    rows = w[:, :, :-1]  # (3, 4, 5, 6)
    assert not torch.isnan(rows).any()
    assert (rows[allowed[:-1].expand_as(rows)] == 0).all()
    assert (rows[~allowed[:-1].expand_as(rows)] > 0).all()
    scores = scores_of(layer, X).masked_fill(allowed, float("-inf"))
    torch.testing.assert_close(rows, torch.softmax(scores, dim=-1)[:, :, :-1], **ATOL)
    assert not torch.allclose(rows, ours["causal"][1][:, :, :-1], atol=1e-2)


def test_float_01_mask_is_added_and_blocks_nothing(chapter):
    X, layer, masks, ours = chapter
    allowed = masks["causal"]
    torch_layer = mha.to_torch(layer).requires_grad_(False)
    _, w = torch_layer(X, X, X, attn_mask=allowed.float(), average_attn_weights=False)
    assert (w > 0).all()  # the future keys keep some weight
    expected = torch.softmax(scores_of(layer, X) + allowed.float(), dim=-1)
    torch.testing.assert_close(w, expected, **ATOL)
    assert not torch.allclose(w, ours["causal"][1], atol=1e-2)


def test_nn_style_mask_into_sdpa_inverts_and_gives_zero_rows(chapter):
    X, layer, masks, ours = chapter
    blocked = mha.to_nn_attn_mask(masks["causal"], (3, 4, 6, 6))  # True = blocked
    _, w = sdpa_with_weights(layer, X, attn_mask=blocked)
    assert not torch.isnan(w).any()
    assert (w[:, :, -1] == 0).all()  # fully blocked row: zeros in this PyTorch
    assert (w[(~blocked).expand_as(w)] == 0).all()  # the keys we allow get nothing
    rows = w[:, :, :-1]  # the other rows attend only to the keys we block
    assert (rows[blocked[:-1].expand_as(rows)] > 0).all()
    assert not torch.allclose(w, ours["causal"][1], atol=1e-2)


def test_our_padding_mask_as_key_padding_mask_attends_only_to_padding(chapter):
    X, layer, masks, ours = chapter
    real = masks["padding"][:, 0, 0]  # (3, 6), True = real token (our convention)
    torch_layer = mha.to_torch(layer).requires_grad_(False)
    _, w = torch_layer(X, X, X, key_padding_mask=real, average_attn_weights=False)
    assert torch.isnan(w[0]).all()  # sentence 0 has no padding: every key blocked
    for b, length in [(1, 4), (2, 2)]:
        assert (w[b, ..., :length] == 0).all()
        torch.testing.assert_close(w[b, ..., length:].sum(-1), torch.ones(4, 6), **ATOL)
    assert not torch.allclose(w[1:], ours["padding"][1][1:], atol=1e-2)


def test_nn_is_causal_without_attn_mask(chapter):
    """The hint alone: an error with gradients, silently no mask without them
    (the behaviour of the pinned PyTorch that the chapter shows)."""
    X, layer, _, ours = chapter
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha.to_torch(layer).requires_grad_(True)(X, X, X, is_causal=True)
    out, _ = mha.to_torch(layer)(X, X, X, is_causal=True)
    torch.testing.assert_close(out, ours["none"][0], **ATOL)
    assert not torch.allclose(out, ours["causal"][0], atol=1e-2)


# --------------------------------------------------------------------------- fully blocked rows


@pytest.fixture
def no_keys() -> torch.Tensor:
    allowed = torch.ones(6, 6, dtype=torch.bool)
    allowed[2] = False
    return allowed


def test_fully_blocked_row_sdpa_zeros_and_finite_fill_uniform(chapter, no_keys):
    X, layer, _, _ = chapter
    out, probs = layer(X, X, X, mask=no_keys)
    s_out, s_probs = sdpa_with_weights(layer, X, attn_mask=no_keys)
    assert (s_probs[:, :, 2] == 0).all()
    torch.testing.assert_close(s_out, out, **ATOL)
    filled = torch.softmax(scores_of(layer, X).masked_fill(~no_keys, -1e10), dim=-1)
    torch.testing.assert_close(filled[:, :, 2], torch.full((3, 4, 6), 1 / 6), **ATOL)
    others = [0, 1, 3, 4, 5]
    torch.testing.assert_close(filled[:, :, others], probs[:, :, others], **ATOL)
    torch.testing.assert_close(s_probs[:, :, others], probs[:, :, others], **ATOL)


def test_masking_nan_outputs_still_gives_nan_gradients(ex, no_keys):
    trainable = mha.to_torch(ex.attention).requires_grad_(True)
    out, _ = trainable(ex.X, ex.X, ex.X, attn_mask=~no_keys)
    assert torch.isnan(out[:, 2]).all()
    cleaned = out.masked_fill(~no_keys.any(dim=-1)[:, None], 0.0)
    assert not torch.isnan(cleaned).any()
    cleaned.sum().backward()
    assert torch.isnan(trainable.in_proj_weight.grad).any()
    # Our layer, trained the same way, has finite gradients.
    ours = mha.MultiHeadAttention(8, 4, dropout=0.0)
    ours.load_state_dict(ex.attention.state_dict())  # a fresh layer: gradients on
    ours(ex.X, ex.X, ex.X, mask=no_keys)[0].sum().backward()
    assert torch.isfinite(ours.Wq.weight.grad).all()
