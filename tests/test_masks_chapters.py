"""What the chapters *Masks* and *PyTorch's mask conventions* state about masks,
checked beyond the running example: a causal layer never changes the outputs
of earlier positions, so generation can compute one query per step; and what
PyTorch 2.13 returns for a query whose every key is blocked."""

import pytest
import torch

import mha


@pytest.fixture
def layer() -> mha.MultiHeadAttention:
    return mha.MultiHeadAttention(16, 4, dropout=0.0, dtype=torch.float64).eval()


@pytest.fixture
def x(gen) -> torch.Tensor:
    return torch.randn(2, 7, 16, generator=gen, dtype=torch.float64)  # (batch, seq_len, d_model)


def test_causal_outputs_do_not_depend_on_later_tokens(layer, x):
    full, _ = layer(x, x, x, mask=mha.causal_mask(7))
    for t in range(1, 8):
        prefix = x[:, :t]
        out, _ = layer(prefix, prefix, prefix, mask=mha.causal_mask(t))
        torch.testing.assert_close(out, full[:, :t])


def test_without_the_mask_later_tokens_change_earlier_outputs(layer, x):
    full, _ = layer(x, x, x)
    prefix = x[:, :6]
    out, _ = layer(prefix, prefix, prefix)
    assert (out - full[:, :6]).abs().max() > 1e-3


def test_one_query_per_step_gives_the_causal_outputs(layer, x):
    full, _ = layer(x, x, x, mask=mha.causal_mask(7))
    steps = [layer(x[:, t - 1 : t], x[:, :t], x[:, :t])[0] for t in range(1, 8)]
    torch.testing.assert_close(torch.cat(steps, dim=1), full)


def test_a_finite_fill_spreads_a_fully_masked_row_uniformly():
    scores = torch.tensor([[[[0.3, -1.2, 0.8], [0.5, 0.1, -0.4]]]], dtype=torch.float64)
    mask = torch.tensor([[False, False, False], [True, True, False]])
    filled = torch.softmax(scores.masked_fill(~mask, -1e10), dim=-1)
    torch.testing.assert_close(filled[0, 0, 0], torch.full((3,), 1 / 3, dtype=torch.float64))
    probs = mha.attention_probs(scores, mask)
    assert torch.equal(probs[0, 0, 0], torch.zeros(3, dtype=torch.float64))
    torch.testing.assert_close(probs[0, 0, 1], filled[0, 0, 1])


def test_bfloat16_holds_minus_1e10_and_float16_does_not():
    assert torch.tensor(-1e10, dtype=torch.bfloat16).item() == pytest.approx(-1e10, rel=1e-3)
    assert torch.tensor(-1e10, dtype=torch.float16).item() == float("-inf")
    with pytest.raises(RuntimeError):
        torch.zeros(2, dtype=torch.float16).masked_fill(torch.tensor([True, False]), -1e10)


def _query_2_output(module, x, mask, need_weights):
    out, _ = module(x, x, x, attn_mask=mask, need_weights=need_weights)
    row = out[:, 2]  # (batch, d_model)
    if bool(row.isnan().all()):
        return "NaN"
    torch.testing.assert_close(row, module.out_proj.bias.detach().expand_as(row))
    return "bias"


# (mask dtype, need_weights) -> (evaluation without gradients, tracking gradients)
EXPECTED = {
    ("bool", True): ("NaN", "NaN"),
    ("bool", False): ("NaN", "bias"),
    ("float", True): ("NaN", "NaN"),
    ("float", False): ("bias", "bias"),
}


@pytest.mark.parametrize(("dtype", "need_weights"), list(EXPECTED))
def test_nn_multihead_attention_on_a_fully_masked_query(layer, x, dtype, need_weights):
    """The table of chapter 11: NaN on the fast path and whenever the weights
    are computed; the bias of out_proj when the general path hands the core
    to scaled_dot_product_attention (need_weights=False)."""
    allowed = torch.ones(7, 7, dtype=torch.bool)
    allowed[2] = False  # query 2 may attend to nothing
    additive = mha.masks.to_additive_mask(allowed, dtype=torch.float64)
    mask = ~allowed if dtype == "bool" else additive
    inference = mha.to_torch(layer).requires_grad_(False)
    training = mha.to_torch(layer).requires_grad_(True)
    got = (
        _query_2_output(inference, x, mask, need_weights),
        _query_2_output(training, x, mask, need_weights),
    )
    assert got == EXPECTED[dtype, need_weights]
