"""Shared test set-up: the Agg backend, seeds, a layer factory, the PyTorch
reference every equivalence test compares with, two Transformer blocks. (What
the plotting tests share is in ``figures.py``; the test of bad input each
module parametrizes over its ``BAD_INPUT`` table is in ``refusal.py``.)"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import TYPE_CHECKING

import pytest

from booktools import book

if TYPE_CHECKING:
    import torch
    from torch import nn

    import mha

# torch and mha are imported where a fixture uses them, not here: pytest-xdist's
# controller imports this module too (for its hooks), and runs no test.

# Before anything imports matplotlib (``import mha`` does not: it loads its
# figures when first used), so no test needs a display.
os.environ["MPLBACKEND"] = "Agg"
# Hypothesis keeps its example database in ./.hypothesis by default (read when
# it first needs it); keep the checkout clean.
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY",
    os.path.join(tempfile.gettempdir(), "mha-tests-hypothesis"),
)


@pytest.fixture(autouse=True)
def _seed_torch():
    """Every test starts from the same global RNG state, whatever ran before it;
    one thread (`make unit` runs two workers on two cores: one thread each, no
    oversubscription)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(1234)


@pytest.fixture
def gen() -> torch.Generator:
    """A private, seeded generator for random inputs."""
    import torch

    return torch.Generator().manual_seed(1234)


# --- a layer, and PyTorch's answer for it -----------------------------------------


def _make_layer(d_model, n_heads, dtype=None, seed=0) -> mha.MultiHeadAttention:
    """A seeded layer in eval mode (dropout 0.1, so eval mode matters) with
    non-zero biases everywhere, so that a bias copied to the wrong place shows
    (``dtype``: float32 unless given)."""
    import torch

    import mha

    dtype = torch.float32 if dtype is None else dtype
    torch.manual_seed(seed)
    layer = mha.MultiHeadAttention(d_model, n_heads, dropout=0.1, dtype=dtype).eval()
    with torch.no_grad():
        for linear in (layer.Wq, layer.Wk, layer.Wv, layer.Wo):
            linear.bias.uniform_(-0.5, 0.5)
    return layer


def _torch_copy(layer, batch_first=True) -> nn.MultiheadAttention:
    """``nn.MultiheadAttention`` holding ``layer``'s weights, packed here by hand
    (not with ``mha.to_torch``, so that a converter bug cannot hide)."""
    import torch
    from torch import nn

    weight = layer.Wq.weight
    copy = nn.MultiheadAttention(
        layer.d_model, layer.n_heads, batch_first=batch_first, dtype=weight.dtype
    )
    with torch.no_grad():
        copy.in_proj_weight.copy_(
            torch.cat([layer.Wq.weight, layer.Wk.weight, layer.Wv.weight])
        )
        copy.in_proj_bias.copy_(
            torch.cat([layer.Wq.bias, layer.Wk.bias, layer.Wv.bias])
        )
        copy.out_proj.weight.copy_(layer.Wo.weight)
        copy.out_proj.bias.copy_(layer.Wo.bias)
    return copy.eval()


def _reference(layer, query, key, value, mask=None, api="module", **torch_masks):
    """What PyTorch computes for ``layer``: ``(output, per-head weights)``.

    ``mask`` is in the package's convention (True/1 = may attend) and is
    converted here by hand, without any mha function. ``torch_masks``
    (``attn_mask``, ``key_padding_mask``) go to PyTorch as they are, to test
    the package's converters. ``api`` picks the implementation:

    - ``"module"``: ``nn.MultiheadAttention``, batch first;
    - ``"functional"``: ``F.multi_head_attention_forward``, sequence first;
    - ``"sdpa"``: ``F.scaled_dot_product_attention`` on Q, K, V projected and
      split by hand (its weights: attending over an identity "value").
    """
    import torch
    import torch.nn.functional as F

    batch, q_len, d_model = query.shape
    k_len, n_heads = key.size(1), layer.n_heads
    shape = (batch, n_heads, q_len, k_len)
    if mask is not None:
        allowed = mask.bool() if mask.dim() == 4 else mask.bool()[None, None]
        allowed = allowed.expand(shape)  # (batch, n_heads, q_len, k_len)
        if api == "sdpa":
            torch_masks["attn_mask"] = allowed  # SDPA: True = may attend
        else:  # PyTorch's layout (batch * n_heads, q_len, k_len), True = blocked
            torch_masks["attn_mask"] = ~allowed.reshape(batch * n_heads, q_len, k_len)
    with torch.no_grad():
        if api == "module":
            return _torch_copy(layer)(
                query,
                key,
                value,
                need_weights=True,
                average_attn_weights=False,
                **torch_masks,
            )
        if api == "functional":
            packed = _torch_copy(layer, batch_first=False)
            sequence_first = (x.transpose(0, 1) for x in (query, key, value))
            out, weights = F.multi_head_attention_forward(
                *sequence_first,  # (seq_len, batch, d_model) each
                d_model,
                n_heads,
                packed.in_proj_weight,
                packed.in_proj_bias,
                None,
                None,
                False,
                0.5,  # dropout, which training=False must switch off
                packed.out_proj.weight,
                packed.out_proj.bias,
                training=False,
                need_weights=True,
                average_attn_weights=False,
                **torch_masks,
            )
            return out.transpose(0, 1), weights
        assert api == "sdpa" and "key_padding_mask" not in torch_masks

        def heads(x, linear):
            """(batch, seq_len, d_model) -> (batch, n_heads, seq_len, d_key)"""
            return linear(x).view(batch, x.size(1), n_heads, -1).transpose(1, 2)

        Q, K, V = heads(query, layer.Wq), heads(key, layer.Wk), heads(value, layer.Wv)
        attn_mask = torch_masks.get("attn_mask")
        A = F.scaled_dot_product_attention(Q, K, V, attn_mask=attn_mask)
        out = layer.Wo(A.transpose(1, 2).reshape(batch, q_len, d_model))
        eye = torch.eye(k_len, dtype=query.dtype).expand(batch, n_heads, k_len, k_len)
        return out, F.scaled_dot_product_attention(Q, K, eye, attn_mask=attn_mask)


@pytest.fixture(scope="session")
def make_layer():
    """``make_layer(d_model, n_heads, dtype=torch.float32, seed=0)``: a seeded
    layer in eval mode with non-zero biases."""
    return _make_layer


@pytest.fixture(scope="session")
def reference():
    """``reference(layer, query, key, value, mask=None, api="module", **torch_masks)``:
    PyTorch's ``(output, per-head weights)`` for the same weights and mask."""
    return _reference


# --- the Transformer blocks ---------------------------------------------------------


@pytest.fixture
def encoder() -> mha.block.EncoderBlock:
    """A seeded encoder block (d_model 8, 4 heads, d_ff 32), float64, eval mode."""
    import torch

    import mha

    torch.manual_seed(0)
    return mha.block.EncoderBlock(8, 4, 32, dtype=torch.float64).eval()


@pytest.fixture
def decoder() -> mha.block.DecoderBlock:
    """A seeded decoder block (d_model 8, 4 heads, d_ff 32), float64, eval mode."""
    import torch

    import mha

    torch.manual_seed(1)
    return mha.block.DecoderBlock(8, 4, 32, dtype=torch.float64).eval()


@pytest.fixture
def sequences(gen):
    """``sequences(length=6, batch=3)``: random float64 tokens ``(batch, length, 8)``
    for the blocks, drawn from the test's generator."""
    import torch

    def draw(length: int = 6, batch: int = 3) -> torch.Tensor:
        return torch.randn(batch, length, 8, generator=gen, dtype=torch.float64)

    return draw


# --- a kernel of a given Python ----------------------------------------------------


@pytest.fixture
def make_kernel(tmp_path):
    """``make_kernel(python=sys.executable)``: a ``KernelManager`` (not started)
    for an IPython kernel of ``python``, through a kernelspec of its own in the
    test's folder (none of the machine's kernelspecs is used)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    def make(python=sys.executable):
        kernel_dir = tmp_path / "kernels" / "book"
        kernel_dir.mkdir(parents=True, exist_ok=True)
        argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        spec = {"argv": argv, "display_name": str(python), "language": "python"}
        (kernel_dir / "kernel.json").write_text(json.dumps(spec))
        return KernelManager(
            kernel_name="book",
            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir.parent)]),
        )

    return make


# --- the longest tests first ----------------------------------------------------


def pytest_collection_finish(session):
    """Property tests are derandomized, so every run explores the same
    examples. (Set here, after collection, where a module with property tests
    has imported Hypothesis: the browser tests' workers have none, and
    Hypothesis takes about a second of CPU to import.)"""
    if "hypothesis" in sys.modules:
        from hypothesis import settings

        settings.register_profile(
            "mha", derandomize=True, deadline=None, max_examples=40
        )
        settings.load_profile("mha")


def pytest_collection_modifyitems(items):
    """Tests marked ``slow`` run first (in their order; the rest after them in
    theirs): two workers then start on the two longest, one each, and the
    short tests fill in around them, instead of a long test starting last and
    keeping one worker busy alone at the end. A test no stage of `make
    test` would run (marked browser outside tests/browser, or unmarked in
    it) stops the collection."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    # The browser tests are in tests/browser and nowhere else: the Makefile's
    # test stages collect each stage's own directory.
    misplaced = book.misplaced(
        (item.nodeid, item.get_closest_marker("browser") is not None) for item in items
    )
    if misplaced:
        raise pytest.UsageError(
            "a test marked browser belongs in tests/browser, and every test "
            f"there is marked browser: {', '.join(misplaced)}"
        )
