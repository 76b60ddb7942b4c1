"""Property-based tests: mha.MultiHeadAttention equals torch.nn.MultiheadAttention.

Over random sizes, weights, inputs and masks, the layer (eval mode, dropout 0)
gives the same outputs and per-head weights as PyTorch's layer holding the same
weights (copied with ``mha.to_torch``). PyTorch's masks are made both with the
package's converters and by hand, so that a converter bug cannot hide behind a
matching bug in the layer. Masks are drawn so that no query row is fully
blocked (PyTorch answers NaN there); fully blocked rows have their own property.

Hypothesis runs derandomized (profile "mha" of tests/conftest.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mha

TOL = {"atol": 1e-5, "rtol": 0.0}
D_MODELS = [4, 6, 8, 12, 16]
MASK_KINDS = ["none", "2-D", "padding", "4-D"]
MASK_DTYPES = [torch.bool, torch.int64, torch.int32, torch.uint8, torch.float32, torch.float64]
FAST = settings(max_examples=60, deadline=None)


@dataclass(frozen=True)
class Case:
    batch: int
    q_len: int
    k_len: int
    d_model: int
    n_heads: int
    self_attention: bool
    mask_kind: str
    density: float  # probability that a mask entry allows attention
    seed: int

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (self.batch, self.n_heads, self.q_len, self.k_len)


@st.composite
def cases(draw, mask_kinds=MASK_KINDS, densities=(0.2, 0.5, 0.8)) -> Case:
    d_model = draw(st.sampled_from(D_MODELS))
    # The divisors of d_model, computed here rather than with mha.divisors.
    n_heads = draw(st.sampled_from([h for h in range(1, d_model + 1) if d_model % h == 0]))
    q_len = draw(st.integers(1, 7))
    self_attention = draw(st.booleans())
    k_len = q_len if self_attention else draw(st.integers(1, 7))
    return Case(
        batch=draw(st.integers(1, 4)),
        q_len=q_len,
        k_len=k_len,
        d_model=d_model,
        n_heads=n_heads,
        self_attention=self_attention,
        mask_kind=draw(st.sampled_from(mask_kinds)),
        density=draw(st.sampled_from(densities)),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def build(case: Case):
    """(layer, query, key, value, generator), all drawn from ``case.seed``."""
    gen = torch.Generator().manual_seed(case.seed)
    d = case.d_model
    layer = mha.MultiHeadAttention(d, case.n_heads, dropout=0.0).eval()
    with torch.no_grad():
        for linear in (layer.Wq, layer.Wk, layer.Wv, layer.Wo):
            linear.weight.copy_(torch.randn(d, d, generator=gen) * d**-0.5)
            linear.bias.copy_(torch.rand(d, generator=gen) - 0.5)
    query = torch.randn(case.batch, case.q_len, d, generator=gen)
    if case.self_attention:
        key = value = query
    else:
        key = torch.randn(case.batch, case.k_len, d, generator=gen)
        value = torch.randn(case.batch, case.k_len, d, generator=gen)
    return layer, query, key, value, gen


def mask_shape(case: Case, kind: str) -> tuple[int, ...]:
    return {
        "2-D": (case.q_len, case.k_len),
        "padding": (case.batch, 1, 1, case.k_len),
        "(B, 1, q, k)": (case.batch, 1, case.q_len, case.k_len),
        "4-D": case.shape,
    }[kind]


def random_mask(case: Case, gen: torch.Generator, keep_a_key: bool = True):
    """A bool mask (True = may attend) of the case's kind, or None.

    With ``keep_a_key`` every row (every sequence, for a padding mask) allows
    at least one key, so that no query row is fully blocked."""
    if case.mask_kind == "none":
        return None
    shape = mask_shape(case, case.mask_kind)
    mask = torch.rand(shape, generator=gen) < case.density
    if keep_a_key:
        keep = torch.randint(0, case.k_len, (*shape[:-1], 1), generator=gen)
        mask = mask.scatter(-1, keep, True)
    return mask


def torch_forward(layer, query, key, value, **masks):
    with torch.no_grad():
        return mha.to_torch(layer)(
            query, key, value, need_weights=True, average_attn_weights=False, **masks
        )


def ours(layer, query, key, value, mask):
    with torch.no_grad():
        return layer(query, key, value, mask=mask)


def check_equal(ours_result, torch_result, case: Case) -> None:
    (out, probs), (t_out, t_probs) = ours_result, torch_result
    assert out.shape == t_out.shape == (case.batch, case.q_len, case.d_model)
    assert probs.shape == t_probs.shape == case.shape
    torch.testing.assert_close(out, t_out, **TOL)
    torch.testing.assert_close(probs, t_probs, **TOL)


# --------------------------------------------------------------------------- converters


def converted_masks(mask: torch.Tensor | None, case: Case) -> dict:
    if mask is None:
        return {}
    if case.mask_kind == "padding":
        return {"key_padding_mask": mha.to_key_padding_mask(mask)}  # (batch, k_len)
    return {"attn_mask": mha.to_nn_attn_mask(mask, case.shape)}


@FAST
@given(cases())
def test_equals_nn_multihead_attention_with_converted_masks(case):
    layer, query, key, value, gen = build(case)
    mask = random_mask(case, gen)
    check_equal(ours(layer, query, key, value, mask),
                torch_forward(layer, query, key, value, **converted_masks(mask, case)), case)


@FAST
@given(cases(mask_kinds=["2-D", "padding", "(B, 1, q, k)", "4-D"]))
def test_to_nn_attn_mask_works_for_every_kind_of_mask(case):
    """Every mask, padding masks included, can go to attn_mask through the converter."""
    layer, query, key, value, gen = build(case)
    mask = random_mask(case, gen)
    attn_mask = mha.to_nn_attn_mask(mask, case.shape)
    check_equal(ours(layer, query, key, value, mask),
                torch_forward(layer, query, key, value, attn_mask=attn_mask), case)


# --------------------------------------------------------------------------- masks by hand


def hand_masks(mask: torch.Tensor | None, case: Case, expanded: bool) -> dict:
    """PyTorch's masks (True = blocked) from ours, without any mha function."""
    if mask is None:
        return {}
    blocked = ~mask
    if expanded:  # PyTorch's per-head layout: index b * n_heads + h
        full = blocked.expand(case.shape)  # (batch, n_heads, q_len, k_len)
        return {"attn_mask": full.reshape(case.batch * case.n_heads, case.q_len, case.k_len)}
    if case.mask_kind == "2-D":
        return {"attn_mask": blocked}  # (q_len, k_len)
    if case.mask_kind == "padding":
        return {"key_padding_mask": blocked[:, 0, 0, :]}  # (batch, k_len)
    # (batch, n_heads, q_len, k_len), built entry by entry in PyTorch's layout.
    per_head = blocked.expand(case.shape)
    stacked = torch.stack([per_head[b, h] for b in range(case.batch)
                           for h in range(case.n_heads)])
    return {"attn_mask": stacked}


@FAST
@given(cases(), st.booleans())
def test_equals_nn_multihead_attention_with_masks_built_by_hand(case, expanded):
    layer, query, key, value, gen = build(case)
    mask = random_mask(case, gen)
    check_equal(ours(layer, query, key, value, mask),
                torch_forward(layer, query, key, value, **hand_masks(mask, case, expanded)), case)


@FAST
@given(cases(mask_kinds=["2-D", "padding", "4-D"]), st.sampled_from(MASK_DTYPES))
def test_mask_dtype_does_not_matter(case, dtype):
    """A 0/1 mask of any accepted dtype gives what PyTorch gives for the bool mask."""
    layer, query, key, value, gen = build(case)
    mask = random_mask(case, gen)
    check_equal(ours(layer, query, key, value, mask.to(dtype)),
                torch_forward(layer, query, key, value, **hand_masks(mask, case, True)), case)


# --------------------------------------------------------------------------- fully blocked rows


@FAST
@given(
    cases(mask_kinds=["2-D", "padding", "(B, 1, q, k)", "4-D"],
          densities=(0.0, 0.1, 0.3, 0.6, 1.0)),
    st.sampled_from(MASK_DTYPES),
)
def test_fully_blocked_rows_are_zero_and_other_rows_sum_to_one(case, dtype):
    layer, query, key, value, gen = build(case)
    mask = random_mask(case, gen, keep_a_key=False)
    if not mask.any():
        with pytest.raises(ValueError, match=r"mask blocks every key for every query"):
            layer(query, key, value, mask=mask.to(dtype))
        return
    out, probs = ours(layer, query, key, value, mask.to(dtype))
    allowed = mask.expand(case.shape) if mask.dim() == 4 else mask[None, None].expand(case.shape)
    dead = ~allowed.any(dim=-1)  # (batch, n_heads, q_len): the query sees no key
    assert not torch.isnan(probs).any() and not torch.isnan(out).any()
    assert (probs[~allowed] == 0.0).all()
    assert (probs[dead] == 0.0).all()
    sums = probs.sum(dim=-1)
    torch.testing.assert_close(sums[~dead], torch.ones_like(sums[~dead]), atol=1e-5, rtol=0)
    # A query that no head lets see any key gets A = 0, so its output is Wo's bias.
    all_dead = dead.all(dim=1)  # (batch, q_len)
    torch.testing.assert_close(out[all_dead], layer.Wo.bias.detach().expand_as(out[all_dead]),
                               atol=1e-6, rtol=0)
    # Everywhere PyTorch gives a number (no head of the query blocked), the numbers agree.
    t_out, t_probs = torch_forward(layer, query, key, value,
                                   **hand_masks(mask, case, expanded=True))
    torch.testing.assert_close(probs[~dead], t_probs[~dead], **TOL)
    live = ~dead.any(dim=1)  # (batch, q_len)
    torch.testing.assert_close(out[live], t_out[live], **TOL)
