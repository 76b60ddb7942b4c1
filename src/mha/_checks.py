"""Argument checks shared by the modules. Each error names the argument, what
was expected and what was given."""

from __future__ import annotations

from collections.abc import Collection

import torch


def check_int(
    name: str, value: object, minimum: int = 1, maximum: int | None = None
) -> int:
    """``value`` must be an int (not a bool) in ``[minimum, maximum]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        wanted = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be an int {wanted}, got {value}")
    return value


def check_number(name: str, value: object, positive: bool = True) -> float:
    """``value`` must be a real number (int or float, not a bool), positive if asked."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"{name} must be a number, got {type(value).__name__} {value!r}"
        )
    if positive and not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value}")
    return float(value)


def check_probability(name: str, value: object) -> float:
    """``value`` must be a number in ``[0, 1)`` (a dropout probability)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0 <= value < 1
    ):
        raise ValueError(f"{name} must be a probability in [0, 1), got {value!r}")
    return float(value)


def check_choice(name: str, value: object, options: Collection) -> object:
    """``value`` must be one of ``options``."""
    if isinstance(value, bool) or value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")
    return value


def check_tensor(name: str, value: object, shape_text: str, dims: int) -> torch.Tensor:
    """``value`` must be a floating-point tensor with ``dims`` dimensions."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(
            f"{name} must be a torch.Tensor of shape {shape_text}, got {type(value).__name__}"
        )
    if not value.is_floating_point():
        raise TypeError(
            f"{name} must be a floating-point tensor, got dtype {value.dtype}"
        )
    if value.dim() != dims:
        raise ValueError(
            f"{name} must have shape {shape_text}, got {tuple(value.shape)}"
        )
    return value
