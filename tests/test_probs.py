"""attention_probs, the mask builders, the mask checker and the converters."""

import re

import pytest
import torch

import mha

SHAPE = (2, 3, 5, 7)  # (batch, n_heads, q_len, k_len)


@pytest.fixture
def scores(gen) -> torch.Tensor:
    return 3 * torch.randn(SHAPE, generator=gen)


@pytest.fixture
def allowed(gen) -> torch.Tensor:
    """A random (batch, 1, q_len, k_len) mask in which every query keeps >= 1 key."""
    mask = torch.rand(SHAPE[0], 1, SHAPE[2], SHAPE[3], generator=gen) < 0.5
    keep = torch.randint(0, SHAPE[3], (SHAPE[0], 1, SHAPE[2]), generator=gen)
    mask.scatter_(-1, keep[..., None], True)
    return mask


# --------------------------------------------------------------------------- probabilities


def test_rows_sum_to_one_without_mask(scores):
    probs = mha.attention_probs(scores)
    assert probs.shape == SHAPE
    torch.testing.assert_close(probs.sum(-1), torch.ones(SHAPE[:3]), atol=1e-6, rtol=0)
    assert (probs > 0).all()


def test_rows_sum_to_one_with_mask(scores, allowed):
    probs = mha.attention_probs(scores, allowed)
    torch.testing.assert_close(probs.sum(-1), torch.ones(SHAPE[:3]), atol=1e-6, rtol=0)


def test_masked_entries_are_exactly_zero(scores, allowed):
    probs = mha.attention_probs(scores, allowed)
    blocked = ~allowed.expand(SHAPE)
    assert blocked.any() and (~blocked).any()
    assert (probs[blocked] == 0.0).all()
    assert (probs[~blocked] > 0.0).all()


def test_masked_softmax_matches_softmax_over_allowed_keys_only(scores, allowed):
    """Each row equals a plain softmax over just the allowed scores (built with Python lists)."""
    probs = mha.attention_probs(scores, allowed)
    full = allowed.expand(SHAPE)
    for b in range(SHAPE[0]):
        for h in range(SHAPE[1]):
            for i in range(SHAPE[2]):
                keys = [j for j in range(SHAPE[3]) if full[b, h, i, j]]
                expected = torch.softmax(scores[b, h, i, keys], dim=0)
                torch.testing.assert_close(probs[b, h, i, keys], expected, atol=1e-6, rtol=0)


def test_causal_rows_sum_to_one_and_future_is_zero(gen):
    scores = torch.randn(2, 2, 6, 6, generator=gen)
    probs = mha.attention_probs(scores, mha.causal_mask(6))
    torch.testing.assert_close(probs.sum(-1), torch.ones(2, 2, 6), atol=1e-6, rtol=0)
    for i in range(6):
        assert (probs[..., i, i + 1:] == 0.0).all()
    assert (probs[..., 0, 0] == 1.0).all()  # the first token can only see itself


def test_bool_int_and_float_masks_agree(scores, allowed):
    expected = mha.attention_probs(scores, allowed)
    for dtype in (torch.int64, torch.int32, torch.uint8, torch.float32, torch.float64):
        assert torch.equal(mha.attention_probs(scores, allowed.to(dtype)), expected), dtype


def test_2d_and_4d_masks_agree(scores, gen):
    mask2d = torch.rand(SHAPE[2], SHAPE[3], generator=gen) < 0.6
    mask2d[:, 0] = True
    expected = mha.attention_probs(scores, mask2d)
    assert torch.equal(mha.attention_probs(scores, mask2d[None, None]), expected)
    assert torch.equal(mha.attention_probs(scores, mask2d.expand(SHAPE).clone()), expected)
    assert (expected[..., ~mask2d] == 0.0).all()


def test_padding_mask_4d_broadcasts_over_heads_and_queries(scores):
    allowed = torch.tensor([[1, 1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0]], dtype=torch.bool)
    probs = mha.attention_probs(scores, allowed[:, None, None, :])
    assert (probs[0, ..., 5:] == 0.0).all() and (probs[0, ..., :5] > 0).all()
    assert (probs[1, ..., 2:] == 0.0).all() and (probs[1, ..., :2] > 0).all()


def test_fully_blocked_row_is_zeros_not_nan(scores):
    allowed = torch.ones(SHAPE[2], SHAPE[3], dtype=torch.bool)
    allowed[3] = False
    probs = mha.attention_probs(scores, allowed)
    assert not torch.isnan(probs).any()
    assert (probs[:, :, 3] == 0.0).all()
    torch.testing.assert_close(probs[:, :, [0, 1, 2, 4]].sum(-1), torch.ones(2, 3, 4))


def test_fully_blocked_row_gives_finite_gradients(scores):
    scores = scores.clone().requires_grad_(True)
    allowed = torch.ones(SHAPE[2], SHAPE[3], dtype=torch.bool)
    allowed[0] = False
    probs = mha.attention_probs(scores, allowed)
    (probs * torch.arange(SHAPE[3])).sum().backward()
    assert torch.isfinite(scores.grad).all()
    assert (scores.grad[:, :, 0] == 0.0).all()


def test_3d_mask_is_ambiguous(scores):
    with pytest.raises(ValueError, match=r"got shape \(2, 5, 7\)\. A 3-D mask is ambiguous"):
        mha.attention_probs(scores, torch.ones(2, 5, 7, dtype=torch.bool))


@pytest.mark.parametrize("shape", [(1,), (7,), (1, 1, 1, 1, 7)])
def test_1d_or_5d_mask_rejected(scores, shape):
    with pytest.raises(ValueError, match=r"mask must be 2-D .* or 4-D .*got shape"):
        mha.attention_probs(scores, torch.ones(shape, dtype=torch.bool))


@pytest.mark.parametrize("bad_shape", [(5, 6), (4, 7), (2, 1, 1, 6), (3, 1, 1, 7), (1, 2, 5, 7)])
def test_non_broadcasting_mask(scores, bad_shape):
    pattern = (
        rf"mask of shape {re.escape(str(bad_shape))} does not broadcast to "
        rf"\(batch, n_heads, q_len, k_len\) = {re.escape(str(SHAPE))}"
    )
    with pytest.raises(ValueError, match=pattern):
        mha.attention_probs(scores, torch.ones(bad_shape, dtype=torch.bool))


@pytest.mark.parametrize("bad", [float("-inf"), 0.5, 2.0, float("nan")])
def test_float_mask_values_other_than_0_1_rejected(scores, bad):
    mask = torch.ones(SHAPE[2], SHAPE[3])
    mask[1, 2] = bad
    with pytest.raises(ValueError, match=rf"mask must hold only 0/False .* got the value {bad}"):
        mha.attention_probs(scores, mask)


def test_additive_pytorch_mask_rejected_with_hint(scores):
    # PyTorch's float convention: 0 = may attend, a large negative number = blocked.
    additive = torch.zeros(SHAPE[2], SHAPE[3])
    additive[:, 4:] = -1e9
    with pytest.raises(ValueError, match="convert it with `mask == 0`"):
        mha.attention_probs(scores, additive)


def test_int_mask_with_2_rejected(scores):
    with pytest.raises(ValueError, match=r"got the value 2 \(dtype torch.int64\)"):
        mha.attention_probs(scores, torch.full((SHAPE[2], SHAPE[3]), 2))


def test_non_tensor_mask_rejected(scores):
    with pytest.raises(TypeError, match=r"mask must be a torch.Tensor or None, got list"):
        mha.attention_probs(scores, [[1] * 7] * 5)


# --------------------------------------------------------------------------- builders


def test_causal_mask():
    expected = torch.tensor(
        [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool
    )
    assert torch.equal(mha.causal_mask(4), expected)
    assert torch.equal(mha.causal_mask(1), torch.tensor([[True]]))


@pytest.mark.parametrize("bad", [0, -3])
def test_causal_mask_length_positive(bad):
    with pytest.raises(ValueError, match=rf"length must be a positive int, got {bad}"):
        mha.causal_mask(bad)


def test_padding_mask():
    ids = torch.tensor([[5, 3, 2, 0, 0], [4, 0, 0, 0, 0], [7, 7, 7, 7, 7]])
    got = mha.padding_mask(ids)
    assert got.dtype == torch.bool and got.shape == (3, 1, 1, 5)
    expected = torch.tensor(
        [[True, True, True, False, False],
         [True, False, False, False, False],
         [True, True, True, True, True]]
    )
    assert torch.equal(got[:, 0, 0], expected)
    # Another pad id.
    assert torch.equal(mha.padding_mask(ids, pad_id=7)[:, 0, 0], ids != 7)


def test_padding_mask_rejects_1d_ids():
    pattern = r"ids must be a tensor of shape \(batch, k_len\), got \(5,\)"
    with pytest.raises(ValueError, match=pattern):
        mha.padding_mask(torch.tensor([1, 2, 3, 0, 0]))


def test_lengths_mask():
    got = mha.lengths_mask([3, 1, 0], k_len=4)
    expected = torch.tensor(
        [[True, True, True, False], [True, False, False, False], [False, False, False, False]]
    )
    assert got.dtype == torch.bool and got.shape == (3, 1, 1, 4)
    assert torch.equal(got[:, 0, 0], expected)


def test_lengths_mask_default_length_is_the_longest():
    got = mha.lengths_mask(torch.tensor([2, 3]))
    assert torch.equal(got[:, 0, 0], torch.tensor([[True, True, False], [True, True, True]]))


def test_lengths_mask_and_padding_mask_agree_on_encoded_batch():
    vocab = mha.Vocab.from_corpus(mha.SENTENCES)
    ids, is_token = vocab.encode_batch(["a basic split", "hello", "what is a basic example"])
    assert torch.equal(mha.padding_mask(ids)[:, 0, 0], is_token)
    assert torch.equal(mha.lengths_mask([3, 1, 5], ids.size(1))[:, 0, 0], is_token)


@pytest.mark.parametrize(
    ("lengths", "k_len", "pattern"),
    [
        ([3, 5], 4, r"lengths must lie in \[0, k_len=4\], got values from 3 to 5"),
        ([-1, 2], None, r"lengths must lie in \[0, k_len=2\], got values from -1 to 2"),
        ([], None, r"lengths must be a non-empty 1-D list of ints"),
        ([[1, 2]], None, r"got shape \(1, 2\)"),
        ([1.0, 2.0], None, r"dtype torch.float32"),
    ],
)
def test_lengths_mask_errors(lengths, k_len, pattern):
    with pytest.raises(ValueError, match=pattern):
        mha.lengths_mask(lengths, k_len)


# --------------------------------------------------------------------------- converters


def test_to_nn_attn_mask_2d():
    allowed = mha.causal_mask(4)
    got = mha.to_nn_attn_mask(allowed, (2, 3, 4, 4))
    blocked_by_hand = torch.tensor(
        [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]], dtype=torch.bool
    )
    assert got.dtype == torch.bool
    assert torch.equal(got, blocked_by_hand)
    # A (1, 1, q, k) mask is the same for every sequence and head: still (q, k).
    assert torch.equal(mha.to_nn_attn_mask(allowed[None, None], (2, 3, 4, 4)), blocked_by_hand)
    # int and float masks too.
    assert torch.equal(mha.to_nn_attn_mask(allowed.float(), (2, 3, 4, 4)), blocked_by_hand)


def test_to_nn_attn_mask_broadcast_row_expands_to_q_len():
    allowed = torch.tensor([[[[1, 1, 0]]]], dtype=torch.bool)  # (1, 1, 1, 3)
    got = mha.to_nn_attn_mask(allowed, (2, 2, 4, 3))
    assert torch.equal(got, torch.tensor([[False, False, True]] * 4))


def test_to_nn_attn_mask_per_sequence_layout():
    """(batch * n_heads, q, k) with row b * n_heads + h, as nn.MultiheadAttention expects."""
    batch, n_heads, q_len, k_len = 2, 3, 4, 5
    pad = mha.lengths_mask([5, 2], k_len)  # (2, 1, 1, 5)
    allowed = pad & mha.causal_mask(5)[:q_len, :]  # (2, 1, 4, 5)
    got = mha.to_nn_attn_mask(allowed, (batch, n_heads, q_len, k_len))
    assert got.shape == (batch * n_heads, q_len, k_len) and got.dtype == torch.bool
    lengths = [5, 2]
    for b in range(batch):
        for h in range(n_heads):
            for i in range(q_len):
                for j in range(k_len):
                    blocked = j >= lengths[b] or j > i
                    assert bool(got[b * n_heads + h, i, j]) == blocked, (b, h, i, j)


def test_to_nn_attn_mask_checks_its_input():
    with pytest.raises(ValueError, match="does not broadcast"):
        mha.to_nn_attn_mask(torch.ones(3, 3, dtype=torch.bool), (1, 1, 4, 4))


def test_to_key_padding_mask():
    is_token = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0]], dtype=torch.bool)
    expected = torch.tensor([[False, False, False, True], [False, True, True, True]])
    assert torch.equal(mha.to_key_padding_mask(is_token[:, None, None, :]), expected)
    assert torch.equal(mha.to_key_padding_mask(is_token), expected)
    assert torch.equal(mha.to_key_padding_mask(is_token.long()), expected)
    ids = torch.tensor([[4, 5, 6, 0], [9, 0, 0, 0]])
    assert torch.equal(mha.to_key_padding_mask(mha.padding_mask(ids)), expected)


def test_to_key_padding_mask_rejects_non_padding_masks():
    with pytest.raises(ValueError, match=r"got shape \(2, 1, 4, 4\)"):
        mha.to_key_padding_mask(torch.ones(2, 1, 4, 4, dtype=torch.bool))


def test_to_sdpa_mask():
    allowed = mha.causal_mask(3)
    assert torch.equal(mha.to_sdpa_mask(allowed), allowed)
    for dtype in (torch.int64, torch.float32):
        got = mha.to_sdpa_mask(allowed.to(dtype)[None, None])
        assert got.dtype == torch.bool and got.shape == (1, 1, 3, 3)
        assert torch.equal(got[0, 0], allowed)
    with pytest.raises(ValueError, match="mask must hold only 0/False"):
        mha.to_sdpa_mask(torch.tensor([[0.0, float("-inf")]]))


def test_to_additive_mask():
    allowed = torch.tensor([[True, False], [False, True]])
    inf = float("inf")
    expected = torch.tensor([[0.0, -inf], [-inf, 0.0]])
    got = mha.to_additive_mask(allowed)
    assert got.dtype == torch.float32
    assert torch.equal(got, expected)
    got64 = mha.to_additive_mask(allowed.long(), dtype=torch.float64)
    assert got64.dtype == torch.float64 and torch.equal(got64, expected.double())


def test_additive_mask_added_to_scores_gives_the_same_probabilities(scores, allowed):
    """softmax(scores + additive) (PyTorch's convention) == attention_probs(scores, mask)."""
    expected = torch.softmax(scores + mha.to_additive_mask(allowed), dim=-1)
    torch.testing.assert_close(mha.attention_probs(scores, allowed), expected, atol=0, rtol=0)


@pytest.mark.parametrize("kind", ["none", "causal", "padding", "fully blocked row"])
def test_in_place_softmax_equals_attention_probs(kind):
    """The layer's inference path (attention_probs_, in place) gives the same
    probabilities as the step the chapters use, blocked entries exactly 0."""
    gen = torch.Generator().manual_seed(7)
    scores = torch.randn(2, 3, 5, 5, generator=gen) * 4
    mask = {
        "none": None,
        "causal": torch.ones(5, 5, dtype=torch.bool).tril(),
        "padding": torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]).bool()[:, None, None, :],
        "fully blocked row": torch.ones(5, 5, dtype=torch.bool).tril().flip(0),
    }[kind]
    if kind == "fully blocked row":
        mask = mask.clone()
        mask[2] = False
    expected = mha.attention_probs(scores, mask)
    overwritten = scores.clone()
    result = mha.attention_probs_(overwritten, mask)
    assert result.data_ptr() == overwritten.data_ptr()  # really in place
    assert torch.equal(result, expected)


def test_in_place_softmax_refuses_scores_that_need_gradients():
    scores = torch.randn(1, 1, 2, 2, requires_grad=True)
    with pytest.raises(ValueError, match="scores must not require gradients"):
        mha.attention_probs_(scores.clone())


def test_training_and_inference_paths_of_the_layer_agree():
    torch.manual_seed(0)
    layer = mha.MultiHeadAttention(8, 2, dropout=0.0).eval()
    x = torch.randn(2, 4, 8)
    causal = mha.causal_mask(4)
    trained_path = layer(x, x, x, causal)  # parameters need gradients: out of place
    with torch.no_grad():
        inference_path = layer(x, x, x, causal)  # in place
    for a, b in zip(trained_path, inference_path, strict=True):
        assert torch.equal(a.detach(), b)
