"""Running PyTorch on one CPU thread for a while."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Run the block on one thread, then restore PyTorch's setting.

    For tiny tensors one thread is the fastest, and it does not wait for
    other threads when the machine is busy; training is also repeatable.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
