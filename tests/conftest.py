"""Shared fixtures: the Agg backend, seeds, and the book's running example."""

import os
import tempfile

# Must happen before anything imports matplotlib (``import mha`` does, through
# mha.plotting), so that no test ever needs a display.
os.environ["MPLBACKEND"] = "Agg"
# Hypothesis keeps caches in ./.hypothesis by default; keep the repository clean.
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "mha-tests-hypothesis")
)

import pytest  # noqa: E402
import torch  # noqa: E402
from hypothesis import settings  # noqa: E402

import mha  # noqa: E402

# Property tests are derandomized so that every run explores the same examples.
settings.register_profile("mha", derandomize=True, deadline=None, max_examples=100)
settings.load_profile("mha")

SEED = 1234


@pytest.fixture(autouse=True)
def _seed_torch():
    """Every test starts from the same global RNG state, whatever ran before it
    (``mha.running_example`` reseeds the global generator as a side effect)."""
    torch.manual_seed(SEED)
    yield


@pytest.fixture
def gen() -> torch.Generator:
    """A private, seeded generator for random inputs."""
    return torch.Generator().manual_seed(SEED)


@pytest.fixture
def ex() -> mha.example.RunningExample:
    """The running example of the book: 3 sentences of 6 tokens, d_model=8, 4 heads."""
    return mha.running_example()
