"""The previous-word task, its model, and the weights shipped with the package."""

from __future__ import annotations

import pytest
import torch

from mha import training


def test_batches_target_the_previous_word():
    generator = torch.Generator().manual_seed(0)
    ids, targets = training.previous_word_batch(generator, 50, 7, first_id=2, vocab_size=16)
    assert ids.shape == targets.shape == (50, 7)
    assert ids.min() >= 2 and ids.max() < 16  # no <pad>, no <unk>
    assert (targets[:, 0] == training.IGNORE).all()
    assert torch.equal(targets[:, 1:], ids[:, :-1])


def test_previous_word_share_of_known_maps():
    length = 5
    shift = torch.zeros(length, length)
    for i in range(1, length):
        shift[i, i - 1] = 1.0  # a perfect previous-word head
    shift[0, 0] = 1.0
    uniform = torch.full((length, length), 1.0 / length)
    share = training.previous_word_share(torch.stack([shift, uniform]))
    torch.testing.assert_close(share, torch.tensor([1.0, 1.0 / length]))


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 4), (1, 1, 1)])
def test_previous_word_share_rejects_bad_shapes(shape):
    with pytest.raises(ValueError, match=r"attention must .*got"):
        training.previous_word_share(torch.rand(shape))


def test_trained_model_rejects_other_head_counts():
    with pytest.raises(ValueError, match=r"n_heads must be one of \(1, 2, 4, 8\), got 3"):
        training.trained_model(3)


@pytest.mark.slow
@pytest.mark.parametrize("n_heads", training.HEAD_COUNTS)
def test_shipped_weights_are_what_training_gives(n_heads):
    """The weights in src/mha/data are reproduced by training from scratch."""
    fresh = training.train_previous_word(n_heads).model.state_dict()
    shipped = training.trained_model(n_heads).state_dict()
    assert shipped.keys() == fresh.keys()
    for name in fresh:
        torch.testing.assert_close(shipped[name], fresh[name], rtol=1e-4, atol=1e-5, msg=name)


@pytest.mark.parametrize("n_heads", training.HEAD_COUNTS)
def test_what_the_models_learned(n_heads):
    """1, 2 and 4 heads solve the task; 8 heads of one feature cannot."""
    accuracy = training.previous_word_accuracy(training.trained_model(n_heads))
    if n_heads == 8:
        assert accuracy < 0.9
    else:
        assert accuracy > 0.99
