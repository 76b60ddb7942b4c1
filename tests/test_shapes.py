"""The running example, one step at a time: every intermediate shape and value.

X (3,6,8) → Q (3,6,8) → view (3,6,4,2) → permute (3,4,6,2) → scores (3,4,6,6)
→ probs → A (3,4,6,2) → merge (3,6,8) → Wo (3,6,8).
"""

import math

import pytest
import torch

import mha

BATCH, LENGTH, D_MODEL, N_HEADS, D_KEY = 3, 6, 8, 4, 2


def test_running_example_basics(ex):
    assert ex.ids.shape == (BATCH, LENGTH) and ex.ids.dtype == torch.long
    assert len(ex.vocab) == 16  # 14 distinct words + <pad> + <unk>, counted by hand
    assert [len(tokens) for tokens in ex.tokens] == [6, 6, 6]
    assert ex.tokens[2] == ["hello", "what", "is", "a", "basic", "split"]
    assert (ex.d_model, ex.n_heads, ex.d_key) == (D_MODEL, N_HEADS, D_KEY)
    assert ex.X.shape == (BATCH, LENGTH, D_MODEL)
    assert ex.sentences == mha.SENTENCES


def test_running_example_is_in_eval_mode_without_grad(ex):
    for module in (ex.embed, ex.position, ex.attention):
        assert not module.training
        assert not any(p.requires_grad for p in module.parameters())
    assert ex.X.grad_fn is None


def test_running_example_is_deterministic():
    torch.manual_seed(99)  # a different global state before each call must not matter
    a = mha.running_example()
    torch.randn(100)
    b = mha.running_example()
    assert torch.equal(a.ids, b.ids)
    assert torch.equal(a.X, b.X)
    for pa, pb in zip(a.attention.parameters(), b.attention.parameters(), strict=True):
        assert torch.equal(pa, pb)
    assert torch.equal(a.attention(a.X, a.X, a.X)[0], b.attention(b.X, b.X, b.X)[0])


def test_different_seed_gives_different_weights():
    a, b = mha.running_example(seed=0), mha.running_example(seed=5)
    assert not torch.equal(a.attention.Wq.weight, b.attention.Wq.weight)


def test_ids_and_tokens_agree(ex):
    for row, tokens in zip(ex.ids.tolist(), ex.tokens, strict=True):
        assert [ex.vocab.itos[i] for i in row] == tokens


def test_X_is_scaled_embedding_plus_positions(ex):
    """X[b, t] = lut[ids[b, t]] * sqrt(8) + PE[t], with PE from the formula."""
    weight = ex.embed.lut.weight
    for b in range(BATCH):
        for t in range(LENGTH):
            pe = [
                (math.sin if j % 2 == 0 else math.cos)(t / 10000 ** ((j - j % 2) / D_MODEL))
                for j in range(D_MODEL)
            ]
            expected = weight[ex.ids[b, t]] * math.sqrt(D_MODEL) + torch.tensor(pe)
            torch.testing.assert_close(ex.X[b, t], expected, atol=1e-5, rtol=0)


@pytest.mark.parametrize("n_heads", [1, 2, 8])
def test_changing_n_heads_keeps_weights(ex, n_heads):
    other = mha.running_example(n_heads=n_heads)
    assert other.n_heads == n_heads and other.d_key == D_MODEL // n_heads
    for name in ("Wq", "Wk", "Wv", "Wo"):
        mine, theirs = getattr(ex.attention, name), getattr(other.attention, name)
        assert torch.equal(mine.weight, theirs.weight)
        assert torch.equal(mine.bias, theirs.bias)
    assert torch.equal(ex.X, other.X)


def test_step_by_step_equals_forward(ex):
    layer, X = ex.attention, ex.X

    # 1. Projections.
    Q, K, V = layer.Wq(X), layer.Wk(X), layer.Wv(X)
    assert Q.shape == K.shape == V.shape == (BATCH, LENGTH, D_MODEL)
    torch.testing.assert_close(Q, X @ layer.Wq.weight.T + layer.Wq.bias)

    # 2. Split into heads: view then permute.
    Q_view = Q.view(BATCH, LENGTH, N_HEADS, D_KEY)
    assert Q_view.shape == (3, 6, 4, 2)
    Q_heads = Q_view.permute(0, 2, 1, 3)
    assert Q_heads.shape == (3, 4, 6, 2)
    K_heads = K.view(BATCH, LENGTH, N_HEADS, D_KEY).permute(0, 2, 1, 3)
    V_heads = V.view(BATCH, LENGTH, N_HEADS, D_KEY).permute(0, 2, 1, 3)
    assert torch.equal(mha.split_heads(Q, N_HEADS), Q_heads)
    assert torch.equal(mha.split_heads(K, N_HEADS), K_heads)
    assert torch.equal(mha.split_heads(V, N_HEADS), V_heads)
    # Head h of token t is the feature slice h*d_key:(h+1)*d_key (checked element by element).
    for b in range(BATCH):
        for h in range(N_HEADS):
            for t in range(LENGTH):
                assert torch.equal(Q_heads[b, h, t], Q[b, t, h * D_KEY:(h + 1) * D_KEY])

    # 3. Scores.
    scores = mha.scaled_dot_product(Q_heads, K_heads)
    assert scores.shape == (3, 4, 6, 6)
    torch.testing.assert_close(scores, Q_heads @ K_heads.transpose(-2, -1) / math.sqrt(2))

    # 4. Probabilities.
    probs = mha.attention_probs(scores)
    assert probs.shape == (3, 4, 6, 6)
    torch.testing.assert_close(probs, torch.softmax(scores, dim=-1))

    # 5. Weighted values.
    A = probs @ V_heads
    assert A.shape == (3, 4, 6, 2)

    # 6. Merge the heads back.
    merged = mha.merge_heads(A)
    assert merged.shape == (3, 6, 8)
    assert torch.equal(merged, A.permute(0, 2, 1, 3).reshape(BATCH, LENGTH, D_MODEL))
    for b in range(BATCH):
        for t in range(LENGTH):
            assert torch.equal(merged[b, t], torch.cat([A[b, h, t] for h in range(N_HEADS)]))

    # 7. Output projection, and the module does exactly this.
    out = layer.Wo(merged)
    assert out.shape == (3, 6, 8)
    module_out, module_probs = layer(X, X, X)
    torch.testing.assert_close(module_out, out, atol=1e-6, rtol=0)
    torch.testing.assert_close(module_probs, probs, atol=1e-6, rtol=0)


def test_merge_undoes_split(gen):
    x = torch.randn(2, 5, 12, generator=gen)
    for n_heads in mha.divisors(12):
        assert torch.equal(mha.merge_heads(mha.split_heads(x, n_heads)), x)


def test_divisors():
    assert mha.divisors(8) == [1, 2, 4, 8]
    assert mha.divisors(512) == [k for k in range(1, 513) if 512 % k == 0]
    assert mha.divisors(1) == [1]
