"""mha.circuits: each head's QK and OV forms reproduce what the layer computes,
have rank at most d_key, and are symmetric exactly when they must be."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from refusal import refuses, row_ids

import mha
from mha import circuits, training


def _layer(n_heads: int, seed: int = 0) -> mha.MultiHeadAttention:
    """A seeded float64 layer with non-zero biases everywhere, so that a
    forgotten bias term shows."""
    torch.manual_seed(seed)
    layer = mha.MultiHeadAttention(8, n_heads, dropout=0.0, dtype=torch.float64).eval()
    with torch.no_grad():
        for linear in (layer.Wq, layer.Wk, layer.Wv, layer.Wo):
            linear.bias.uniform_(-0.5, 0.5)
    return layer


def _scores(layer, x):
    Q = mha.split_heads(layer.Wq(x), layer.n_heads)  # (batch, n_heads, L, d_key)
    K = mha.split_heads(layer.Wk(x), layer.n_heads)
    return mha.scaled_dot_product(Q, K)  # (batch, n_heads, L, L)


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_the_qk_form_gives_the_layers_scores_and_probabilities(n_heads, gen):
    layer = _layer(n_heads)
    x = torch.randn(2, 5, 8, generator=gen, dtype=torch.float64)
    with torch.no_grad():
        _, probs = layer(x, x, x)
        scores = _scores(layer, x)
    for head in range(n_heads):
        qk = circuits.qk_circuit(layer, head)
        assert qk.W.shape == (8, 8) and qk.key.shape == qk.query.shape == (8,)
        torch.testing.assert_close(qk.scores(x, x, exact=True), scores[:, head])
        partial = qk.scores(x, x)  # without the terms of the query alone
        shift = scores[:, head] - partial  # (2, 5, 5): one constant per row
        torch.testing.assert_close(shift, shift[..., :1].expand_as(shift))
        assert shift.std() > 0.01  # the constant is not zero: the biases matter
        torch.testing.assert_close(partial.softmax(dim=-1), probs[:, head])


def test_the_key_term_matters_and_the_query_term_does_not(gen):
    layer = _layer(4)
    x = torch.randn(1, 6, 8, generator=gen, dtype=torch.float64)
    qk = circuits.qk_circuit(layer, 1)
    without_key = dataclasses.replace(qk, key=torch.zeros(8, dtype=torch.float64))
    without_query = dataclasses.replace(qk, query=torch.zeros(8, dtype=torch.float64))
    exact = qk.scores(x, x, exact=True).softmax(-1)
    torch.testing.assert_close(
        without_query.scores(x, x, exact=True).softmax(-1), exact
    )
    assert (without_key.scores(x, x, exact=True).softmax(-1) - exact).abs().max() > 0.01


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_the_ov_forms_add_up_to_the_layers_output(n_heads, gen):
    layer = _layer(n_heads, seed=1)
    x = torch.randn(3, 4, 8, generator=gen, dtype=torch.float64)
    mask = torch.ones(4, 4).tril().bool()
    mask[0] = False  # a query with no key: it gets Wo.bias alone
    with torch.no_grad():
        out, probs = layer(x, x, x, mask)
    total = layer.Wo.bias.detach().clone()
    for head in range(n_heads):
        ov = circuits.ov_circuit(layer, head)
        total = total + probs[:, head] @ ov.writes(x)  # (3, 4, 8)
    torch.testing.assert_close(total, out)


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_the_forms_have_rank_at_most_d_key(n_heads):
    layer = _layer(n_heads)
    for head in range(n_heads):
        for form in (
            circuits.qk_circuit(layer, head).W,
            circuits.ov_circuit(layer, head).W,
        ):
            assert torch.linalg.matrix_rank(form) == 8 // n_heads


def test_tied_query_and_key_weights_give_a_symmetric_form():
    layer = _layer(4)
    with torch.no_grad():
        layer.Wk.weight.copy_(layer.Wq.weight)  # Wq = Wk (the biases may differ)
    for head in range(4):
        form = circuits.qk_circuit(layer, head).W
        torch.testing.assert_close(form, form.T)
        assert circuits.asymmetry(form) < 1e-12
    assert circuits.asymmetry(_layer(4).Wq.weight.detach()) > 0.2  # untied: not so


def test_asymmetry_of_known_matrices(gen):
    X = torch.randn(6, 8, generator=gen, dtype=torch.float64)
    assert circuits.asymmetry(X @ X.T) == pytest.approx(0.0, abs=1e-15)
    skew = torch.tensor([[0.0, 1.0], [-1.0, 0.0]])
    assert circuits.asymmetry(skew) == pytest.approx(1.0)
    shift = torch.diag(torch.ones(5), -1)  # every query on the key before it
    assert circuits.asymmetry(shift) == pytest.approx(0.5)


def test_the_previous_word_head_scores_far_from_symmetrically():
    """The trained head that looks one word back: its form, and its scores on
    the positional codes, are far from symmetric, as they must be to prefer
    the key before over the key after; and its clock comes round after six
    positions, so that query 7 scores key 0 as it scores key 6."""
    layer = training.load(training.PREVIOUS_WORD, 4, dtype=torch.float64).attention
    qk = circuits.qk_circuit(layer, 0)
    codes = mha.embedding.sinusoids(8, 8, torch.float64)  # (8, 8): positions 0 … 7
    scores = qk.scores(codes, codes)  # (8, 8)
    assert circuits.asymmetry(qk.W) > 0.4
    assert circuits.asymmetry(scores - scores.mean(dim=-1, keepdim=True)) > 0.4
    assert scores[1:7].argmax(dim=-1).tolist() == list(range(6))  # one key back
    spread = scores[7].max() - scores[7].min()
    assert abs(scores[7, 0] - scores[7, 6]) < 0.05 * spread  # key 0 is almost key 6


def _outer(u, v):  # a rank-one (8, 8) matrix u vᵀ of two unit vectors
    return (
        torch.eye(8, dtype=torch.float64)[u][:, None]
        * torch.eye(8, dtype=torch.float64)[v]
    )


def test_composition_scores_of_known_matrices():
    """1 where the earlier head writes where the later one reads, 0 where it
    does not; Q reads through W_QKᵀ, K through W_QK; any scale."""
    writes = _outer(2, 5)  # W_OV: reads feature 5, writes feature 2
    reads = _outer(1, 2)  # W_QK: a query's feature 1 with a key's feature 2
    assert circuits.composition(reads, "K", writes) == pytest.approx(1.0)
    assert circuits.composition(reads, "Q", writes) == pytest.approx(0.0)
    assert circuits.composition(reads.T, "Q", 3 * writes) == pytest.approx(1.0)
    assert circuits.composition(_outer(0, 2), "V", writes) == pytest.approx(1.0)
    assert circuits.composition(_outer(0, 4), "V", writes) == pytest.approx(0.0)


def test_composition_scores_pair_every_later_head_with_every_earlier_head():
    earlier, later = _layer(2, seed=1), _layer(4, seed=2)
    scores = circuits.composition_scores(earlier, later)
    assert set(scores) == {"Q", "K", "V"}
    for h2 in range(4):
        for h1 in range(2):
            ov = circuits.ov_circuit(earlier, h1).W
            qk, ov2 = circuits.qk_circuit(later, h2).W, circuits.ov_circuit(later, h2).W
            expect = {"Q": (qk.T, ov), "K": (qk, ov), "V": (ov2, ov)}
            for kind, (M, W) in expect.items():
                norm = torch.linalg.matrix_norm
                want = norm(M @ W) / (norm(M) * norm(W))
                assert scores[kind][h2, h1].item() == pytest.approx(want.item())
                assert 0 <= scores[kind][h2, h1] <= 1


def test_the_baseline_is_seeded_and_below_one():
    first = circuits.composition_baseline(8, 4, n_draws=200, seed=3)
    assert first == circuits.composition_baseline(8, 4, n_draws=200, seed=3)
    for mean, high in first.values():
        assert 0.2 < mean < high < 1
    narrow = circuits.composition_baseline(8, 1, n_draws=200)
    assert all(narrow[k][0] < first[k][0] for k in first)  # narrower heads overlap less


L4 = _layer(4)
QK = circuits.qk_circuit(L4, 0)
Z = torch.zeros(5, 8, dtype=torch.float64)

BAD_INPUT = [
    (lambda: circuits.qk_circuit(training.ToyModel(16), 0), TypeError, "layer",
     "mha.MultiHeadAttention (for a trained toy model, pass model.layers[i]", "got ToyModel"),
    (lambda: circuits.ov_circuit(L4, 4), ValueError, "head", "int in [0, 3]", "got 4"),
    (lambda: circuits.ov_circuit(L4, 1.0), TypeError, "head", "an int", "got float"),
    (lambda: QK.scores(torch.zeros(5, 4, dtype=torch.float64), Z), ValueError, "x_query",
     "(..., length, d_model=8)", "got (5, 4)"),
    (lambda: QK.scores(Z, [[0.0] * 8]), TypeError, "x_key", "torch.Tensor", "got list"),
    (lambda: QK.scores(Z, Z.float()), TypeError, "x_key", "the form's dtype torch.float64",
     "got torch.float32"),
    (lambda: circuits.ov_circuit(L4, 0).writes(Z[0]), ValueError, "x",
     "(..., length, d_model=8)", "got (8,)"),
    (lambda: circuits.asymmetry(torch.zeros(2, 3)), ValueError, "matrix", "square",
     "got (2, 3)"),
    (lambda: circuits.asymmetry(torch.zeros(2, 2)), ValueError, "matrix", "not be all zeros",
     "undefined"),
    (lambda: circuits.asymmetry(torch.eye(2).long()), TypeError, "matrix", "floating-point",
     "got dtype torch.int64"),
    (lambda: circuits.composition(QK.W, "X", QK.W), ValueError, "kind",
     "one of ('Q', 'K', 'V')", "got 'X'"),
    (lambda: circuits.composition(QK.W[:4], "K", QK.W), ValueError, "later",
     "square (d_model, d_model)", "got (4, 8)"),
    (lambda: circuits.composition(QK.W, "K", torch.zeros(4, 4, dtype=torch.float64)),
     ValueError, "later and earlier_ov", "the same shape", "got (8, 8) and (4, 4)"),
    (lambda: circuits.composition(QK.W, "K", 0 * QK.W), ValueError, "later and earlier_ov",
     "not be all zeros", "all zeros"),
    (lambda: circuits.composition_scores(L4, training.ToyModel(16)), TypeError, "later",
     "mha.MultiHeadAttention", "got ToyModel"),
    (lambda: circuits.composition_baseline(8, 9), ValueError, "d_key", "int in [1, 8]",
     "got 9"),
]  # fmt: skip


@pytest.mark.parametrize("row", BAD_INPUT, ids=row_ids(BAD_INPUT))
def test_bad_input_is_refused_with_a_clear_message(row):
    refuses(*row)
