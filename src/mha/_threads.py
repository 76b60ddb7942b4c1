"""Running PyTorch on a given number of CPU threads for a while."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


@contextlib.contextmanager
def threads(count: int | None) -> Iterator[None]:
    """Run the block on ``count`` threads (``None``: PyTorch's setting as it
    is), then restore PyTorch's setting."""
    previous = torch.get_num_threads()
    if count is not None:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def one_thread() -> contextlib.AbstractContextManager[None]:
    """Run the block on one thread, then restore PyTorch's setting.

    For tiny tensors one thread is the fastest, and it does not wait for
    other threads when the machine is busy; training is also repeatable.
    """
    return threads(1)
