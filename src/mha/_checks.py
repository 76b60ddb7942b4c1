"""Argument checks shared by the modules: each error names the argument,
what was expected and what was given."""

from __future__ import annotations

import torch


def check_positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value}")


def divisors(n: int) -> list[int]:
    """The positive divisors of ``n`` in increasing order: for ``n = d_model``,
    the head counts a layer of that width accepts (``divisors(8)`` is
    ``[1, 2, 4, 8]``)."""
    check_positive_int("n", n)
    return [k for k in range(1, n + 1) if n % k == 0]


def check_heads(d_model: int, n_heads: int) -> None:
    check_positive_int("d_model", d_model)
    check_positive_int("n_heads", n_heads)
    if d_model % n_heads:
        raise ValueError(
            f"n_heads must divide d_model so that every head gets d_model / n_heads "
            f"features: d_model={d_model} is not divisible by n_heads={n_heads} "
            f"(allowed n_heads: {', '.join(map(str, divisors(d_model)))})"
        )


def check_tensor(name: str, value: object, dims: int, shape_text: str) -> torch.Tensor:
    """``value`` must be a floating-point tensor with ``dims`` dimensions."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape {shape_text}, "
                        f"got {type(value).__name__}")
    if not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    if value.dim() != dims:
        raise ValueError(f"{name} must have shape {shape_text}, got {tuple(value.shape)}")
    return value
