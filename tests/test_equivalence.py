"""mha.MultiHeadAttention computes what PyTorch's own implementations compute.

Three references, all with copied weights and in eval mode:
(a) ``nn.MultiheadAttention`` (via ``mha.to_torch`` and via a weight copy done here),
(b) ``F.multi_head_attention_forward`` (sequence-first layout),
(c) ``F.scaled_dot_product_attention`` on Q, K, V projected and split by hand.

Masks reach PyTorch in its own conventions, either through the package's
converters or built by hand here from the same lengths, so that a converter
bug cannot hide behind a matching bug in the layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mha

TOL = {"atol": 1e-5, "rtol": 0.0}


@dataclass(frozen=True)
class Size:
    batch: int
    length: int
    d_model: int
    n_heads: int

    def __str__(self) -> str:
        return f"b{self.batch}-L{self.length}-d{self.d_model}-h{self.n_heads}"


SIZES = [Size(3, 6, 8, 4), Size(32, 10, 512, 8)]
MASK_KINDS = ["none", "causal", "padding", "causal+padding", "cross", "cross+padding"]


@dataclass
class Case:
    """Inputs, our mask, and what is needed to build PyTorch's masks by hand."""

    size: Size
    kind: str
    query: torch.Tensor  # (batch, q_len, d_model)
    key: torch.Tensor  # (batch, k_len, d_model)
    value: torch.Tensor  # (batch, k_len, d_model)
    causal: bool
    lengths: torch.Tensor | None  # (batch,) real keys per sequence, or None
    mask: torch.Tensor | None  # the package's convention: True = may attend

    @property
    def q_len(self) -> int:
        return self.query.size(1)

    @property
    def k_len(self) -> int:
        return self.key.size(1)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (self.size.batch, self.size.n_heads, self.q_len, self.k_len)

    # -- PyTorch's masks built by hand (no mha function involved) -----------------

    def hand_blocked_attn_mask(self) -> torch.Tensor | None:
        """For nn.MultiheadAttention: (q_len, k_len), True = blocked (key after query)."""
        if not self.causal:
            return None
        return torch.arange(self.k_len)[None, :] > torch.arange(self.q_len)[:, None]

    def hand_key_padding_mask(self) -> torch.Tensor | None:
        """For nn.MultiheadAttention: (batch, k_len), True = padding key."""
        if self.lengths is None:
            return None
        return torch.arange(self.k_len)[None, :] >= self.lengths[:, None]

    def hand_sdpa_mask(self) -> torch.Tensor | None:
        """For F.scaled_dot_product_attention: True = may attend, broadcastable 4-D."""
        allowed = torch.ones(1, 1, self.q_len, self.k_len, dtype=torch.bool)
        if self.causal:
            allowed = allowed & ~self.hand_blocked_attn_mask()
        if self.lengths is not None:
            allowed = allowed & ~self.hand_key_padding_mask()[:, None, None, :]
        return None if self.kind in ("none", "cross") else allowed


def make_case(size: Size, kind: str, gen: torch.Generator) -> Case:
    cross = kind.startswith("cross")
    q_len = size.length
    k_len = size.length + 3 if cross else size.length
    query = torch.randn(size.batch, q_len, size.d_model, generator=gen)
    if cross:
        key = torch.randn(size.batch, k_len, size.d_model, generator=gen)
        value = torch.randn(size.batch, k_len, size.d_model, generator=gen)
    else:
        key = value = query  # self-attention
    causal = "causal" in kind
    lengths = None
    if "padding" in kind:
        # Every sequence keeps at least one key, so no query row is fully blocked
        # (PyTorch answers NaN there; that case has its own tests below).
        lengths = torch.randint(1, k_len + 1, (size.batch,), generator=gen)
        lengths[0], lengths[-1] = k_len, 1
    mask = None
    if causal:
        mask = mha.causal_mask(q_len)  # (q_len, k_len)
    if lengths is not None:
        pad = mha.lengths_mask(lengths, k_len)  # (batch, 1, 1, k_len)
        mask = pad if mask is None else mask & pad  # (batch, 1, q_len, k_len)
    return Case(size, kind, query, key, value, causal, lengths, mask)


@pytest.fixture(params=SIZES, ids=str)
def size(request) -> Size:
    return request.param


@pytest.fixture(params=MASK_KINDS)
def case(request, size, gen) -> Case:
    return make_case(size, request.param, gen)


@pytest.fixture
def layer(size) -> mha.MultiHeadAttention:
    torch.manual_seed(7)
    layer = mha.MultiHeadAttention(size.d_model, size.n_heads, dropout=0.1).eval()
    # Non-zero biases everywhere, so that a bias copied to the wrong place shows.
    with torch.no_grad():
        for linear in (layer.Wq, layer.Wk, layer.Wv, layer.Wo):
            linear.bias.uniform_(-0.5, 0.5)
    return layer


def ours(layer: mha.MultiHeadAttention, case: Case) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        return layer(case.query, case.key, case.value, mask=case.mask)


def hand_copy_to_torch(layer: mha.MultiHeadAttention) -> nn.MultiheadAttention:
    """nn.MultiheadAttention with layer's weights, copied slice by slice (no mha.to_torch)."""
    d = layer.d_model
    torch_layer = nn.MultiheadAttention(d, layer.n_heads, dropout=0.1, batch_first=True)
    with torch.no_grad():
        torch_layer.in_proj_weight[:d] = layer.Wq.weight
        torch_layer.in_proj_weight[d:2 * d] = layer.Wk.weight
        torch_layer.in_proj_weight[2 * d:] = layer.Wv.weight
        torch_layer.in_proj_bias[:d] = layer.Wq.bias
        torch_layer.in_proj_bias[d:2 * d] = layer.Wk.bias
        torch_layer.in_proj_bias[2 * d:] = layer.Wv.bias
        torch_layer.out_proj.weight.copy_(layer.Wo.weight)
        torch_layer.out_proj.bias.copy_(layer.Wo.bias)
    return torch_layer.eval()


def nn_masks(case: Case, route: str) -> dict:
    """attn_mask / key_padding_mask for nn.MultiheadAttention, built three ways."""
    if route == "hand":
        return {
            "attn_mask": case.hand_blocked_attn_mask(),
            "key_padding_mask": case.hand_key_padding_mask(),
        }
    if route == "converter":  # the whole mask through to_nn_attn_mask
        attn_mask = None if case.mask is None else mha.to_nn_attn_mask(case.mask, case.shape)
        return {"attn_mask": attn_mask, "key_padding_mask": None}
    assert route == "converter-split"  # causal part as attn_mask, padding as key_padding_mask
    attn_mask = None
    if case.causal:
        attn_mask = mha.to_nn_attn_mask(mha.causal_mask(case.q_len), case.shape)  # (q, k)
    kpm = None
    if case.lengths is not None:
        kpm = mha.to_key_padding_mask(mha.lengths_mask(case.lengths, case.k_len))
    return {"attn_mask": attn_mask, "key_padding_mask": kpm}


ROUTES = ["hand", "converter", "converter-split"]


# ------------------------------------------------------------------ (a) nn.MultiheadAttention


@pytest.mark.parametrize(
    ("copy", "route"),
    # The first pair involves no mha helper at all; the others check the converters.
    [("by-hand", "hand"), ("by-hand", "converter"), ("to_torch", "hand"),
     ("to_torch", "converter-split")],
)
def test_matches_nn_multihead_attention(layer, case, copy, route):
    torch_layer = mha.to_torch(layer) if copy == "to_torch" else hand_copy_to_torch(layer)
    out, probs = ours(layer, case)
    with torch.no_grad():
        t_out, t_probs = torch_layer(
            case.query, case.key, case.value, **nn_masks(case, route),
            need_weights=True, average_attn_weights=False,
        )
    assert out.shape == t_out.shape == (case.size.batch, case.q_len, case.size.d_model)
    assert probs.shape == t_probs.shape == case.shape
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)


def test_to_torch_equals_hand_copy(layer):
    """The converter packs exactly the slices copied by hand."""
    converted, by_hand = mha.to_torch(layer), hand_copy_to_torch(layer)
    for name in ("in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"):
        assert torch.equal(converted.get_parameter(name), by_hand.get_parameter(name)), name
    weight, bias = mha.packed_in_proj(layer)
    assert torch.equal(weight, by_hand.in_proj_weight)
    assert torch.equal(bias, by_hand.in_proj_bias)


# ------------------------------------------------------------------ (b) functional, (L, N, E)


@pytest.mark.parametrize("route", ROUTES)
def test_matches_functional_multi_head_attention_forward(layer, case, route):
    d = case.size.d_model
    in_w = torch.cat([layer.Wq.weight, layer.Wk.weight, layer.Wv.weight])
    in_b = torch.cat([layer.Wq.bias, layer.Wk.bias, layer.Wv.bias])
    out, probs = ours(layer, case)
    with torch.no_grad():
        t_out, t_probs = F.multi_head_attention_forward(
            case.query.transpose(0, 1), case.key.transpose(0, 1), case.value.transpose(0, 1),
            d, case.size.n_heads, in_w, in_b, None, None, False, 0.5,
            layer.Wo.weight, layer.Wo.bias,
            training=False, need_weights=True, average_attn_weights=False,
            **nn_masks(case, route),
        )
    assert t_out.shape == (case.q_len, case.size.batch, d)
    torch.testing.assert_close(out, t_out.transpose(0, 1), **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)


# --------------------------------------------------------------------------- (c) SDPA


def split_by_hand(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    batch, length, d_model = x.shape
    return x.view(batch, length, n_heads, d_model // n_heads).transpose(1, 2)


@pytest.mark.parametrize("route", ["hand", "converter"])
def test_matches_scaled_dot_product_attention(layer, case, route):
    n_heads, (batch, _, d), q_len = case.size.n_heads, case.query.shape, case.q_len
    sdpa_mask = case.hand_sdpa_mask() if route == "hand" else (
        None if case.mask is None else mha.to_sdpa_mask(case.mask)
    )
    out, probs = ours(layer, case)
    with torch.no_grad():
        Q = split_by_hand(layer.Wq(case.query), n_heads)
        K = split_by_hand(layer.Wk(case.key), n_heads)
        V = split_by_hand(layer.Wv(case.value), n_heads)
        A = F.scaled_dot_product_attention(Q, K, V, attn_mask=sdpa_mask)
        t_out = layer.Wo(A.transpose(1, 2).reshape(batch, q_len, d))
        # The weights themselves: attending over an identity "value" returns them.
        eye = torch.eye(case.k_len).expand(batch, n_heads, case.k_len, case.k_len)
        t_probs = F.scaled_dot_product_attention(Q, K, eye, attn_mask=sdpa_mask)
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)


# --------------------------------------------------------------------------- fully blocked rows


@pytest.fixture
def small_layer() -> mha.MultiHeadAttention:
    torch.manual_seed(3)
    return mha.MultiHeadAttention(8, 4, dropout=0.0).eval()


def test_fully_padded_sequence_ours_zeros_torch_nan(small_layer, gen):
    """Sequence 1 has no real key at all: we give zero weights (output = Wo's bias),
    nn.MultiheadAttention gives NaN for that sequence; the other sequences agree."""
    x = torch.randn(3, 5, 8, generator=gen)
    lengths = torch.tensor([5, 0, 2])
    with torch.no_grad():
        out, probs = small_layer(x, x, x, mask=mha.lengths_mask(lengths, 5))
        kpm = torch.arange(5)[None, :] >= lengths[:, None]  # True = padding, by hand
        t_out, t_probs = mha.to_torch(small_layer)(
            x, x, x, key_padding_mask=kpm, need_weights=True, average_attn_weights=False
        )
    assert (probs[1] == 0.0).all()
    assert torch.equal(out[1], small_layer.Wo.bias.expand(5, 8))
    # What PyTorch does instead (documented, not a requirement on PyTorch):
    assert torch.isnan(t_probs[1]).all()
    assert torch.isnan(t_out[1]).all()
    keep = [0, 2]
    torch.testing.assert_close(out[keep], t_out[keep], **TOL)
    torch.testing.assert_close(probs[keep], t_probs[keep], **TOL)


def test_one_fully_blocked_query_row(small_layer, gen):
    """Only query 2 of every sequence is blocked from every key."""
    x = torch.randn(2, 4, 8, generator=gen)
    allowed = torch.ones(4, 4, dtype=torch.bool)
    allowed[2] = False
    with torch.no_grad():
        out, probs = small_layer(x, x, x, mask=allowed)
        t_out, t_probs = mha.to_torch(small_layer)(
            x, x, x, attn_mask=~allowed, need_weights=True, average_attn_weights=False
        )
    assert (probs[:, :, 2] == 0.0).all()
    assert torch.equal(out[:, 2], small_layer.Wo.bias.expand(2, 8))
    assert torch.isnan(t_probs[:, :, 2]).all()
    assert torch.isnan(t_out[:, 2]).all()
    rows = [0, 1, 3]
    torch.testing.assert_close(out[:, rows], t_out[:, rows], **TOL)
    torch.testing.assert_close(probs[:, :, rows], t_probs[:, :, rows], **TOL)


# --------------------------------------------------------------------------- converters of layers


def test_to_torch_copies_mode_dropout_and_dtype():
    layer = mha.MultiHeadAttention(8, 2, dropout=0.25)  # training mode
    torch_layer = mha.to_torch(layer)
    assert isinstance(torch_layer, nn.MultiheadAttention)
    assert torch_layer.training and torch_layer.dropout == 0.25
    assert torch_layer.batch_first and torch_layer.num_heads == 2 and torch_layer.embed_dim == 8
    assert not mha.to_torch(layer.eval()).training
    assert mha.to_torch(layer.double()).in_proj_weight.dtype == torch.float64
    assert not mha.to_torch(layer, batch_first=False).batch_first


def test_from_torch_round_trip(layer):
    back = mha.from_torch(mha.to_torch(layer))
    assert isinstance(back, mha.MultiHeadAttention)
    assert (back.d_model, back.n_heads, back.dropout.p) == (layer.d_model, layer.n_heads, 0.1)
    assert back.training == layer.training
    for (name, p), (name_back, p_back) in zip(
        layer.named_parameters(), back.named_parameters(), strict=True
    ):
        assert name == name_back
        assert torch.equal(p, p_back), name


def test_from_torch_computes_what_torch_computes(gen):
    torch.manual_seed(11)
    torch_layer = nn.MultiheadAttention(16, 4, dropout=0.3, batch_first=True).eval()
    with torch.no_grad():
        torch_layer.in_proj_bias.uniform_(-0.5, 0.5)
        torch_layer.out_proj.bias.uniform_(-0.5, 0.5)
    layer = mha.from_torch(torch_layer)
    assert not layer.training and layer.dropout.p == 0.3
    q = torch.randn(2, 5, 16, generator=gen)
    kv = torch.randn(2, 7, 16, generator=gen)
    with torch.no_grad():
        out, probs = layer(q, kv, kv)
        t_out, t_probs = torch_layer(q, kv, kv, average_attn_weights=False)
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)


@pytest.mark.parametrize(
    "kwargs", [{"kdim": 4}, {"bias": False}, {"add_bias_kv": True}, {"add_zero_attn": True}]
)
def test_from_torch_rejects_unrepresentable_layers(kwargs):
    with pytest.raises(ValueError, match="torch_layer must use a packed in_proj_weight"):
        mha.from_torch(nn.MultiheadAttention(8, 2, **kwargs))


def test_layer_converters_reject_wrong_types():
    with pytest.raises(TypeError, match=r"layer must be a mha.MultiHeadAttention, got Linear"):
        mha.to_torch(nn.Linear(8, 8))
    with pytest.raises(TypeError, match=r"torch_layer must be a nn.MultiheadAttention, got Linear"):
        mha.from_torch(nn.Linear(8, 8))
