"""Argument checks shared by the modules. Each error names the argument, what
was expected and what was given."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

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


# --- What a figure is given --------------------------------------------------------


def as_matrix(name: str, values: object, dims: int) -> torch.Tensor:
    """``values`` as a detached float64 CPU tensor with ``dims`` dimensions."""
    if not isinstance(values, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(values).__name__}")
    if values.dim() != dims:
        raise ValueError(f"{name} must be {dims}-D, got shape {tuple(values.shape)}")
    return values.detach().to("cpu", torch.float64)


def check_labels(name: str, labels: Sequence[str], length: int, what: str) -> None:
    """``labels`` must be a sequence of ``length`` strings labelling ``what``."""
    if (
        isinstance(labels, str)
        or not isinstance(labels, Sequence)
        or len(labels) != length
    ):
        got = (
            repr(labels)
            if isinstance(labels, str) or not isinstance(labels, Sequence)
            else f"{len(labels)} labels"
        )
        raise ValueError(f"{name} must label the {length} {what}, got {got}")


def check_strings(name: str, labels: object) -> None:
    """``labels`` must be a list (or tuple) of strings, one per token."""
    if isinstance(labels, str):
        raise TypeError(
            f"{name} must be a list of strings, one per token (e.g. "
            f"mha.tokenize(...)), got the string {labels!r}"
        )
    if not isinstance(labels, Sequence):
        raise TypeError(
            f"{name} must be a list of strings, one per token, got {type(labels).__name__}"
        )
    for i, label in enumerate(labels):
        if not isinstance(label, str):
            raise TypeError(
                f"{name} must be a list of strings, one per token, got "
                f"{type(label).__name__} {label!r} at position {i}"
            )


def check_tokens(
    query_tokens: Sequence[str], key_tokens: Sequence[str], shape: tuple, what: str
) -> None:
    """One label (a string) per row (query) and per column (key) of ``what``,
    of ``shape`` ``(q_len, k_len)``."""
    check_strings("query_tokens", query_tokens)
    check_strings("key_tokens", key_tokens)
    q_len, k_len = shape
    if len(query_tokens) != q_len or len(key_tokens) != k_len:
        raise ValueError(
            f"query_tokens and key_tokens must label the {q_len} rows and {k_len} columns "
            f"of {what}, got {len(query_tokens)} query and {len(key_tokens)} key tokens"
        )


def as_panels(
    name: str,
    values: object,
    titles: Sequence[str],
    convert: Callable[[str, object], torch.Tensor],
    what: str,
) -> list[torch.Tensor]:
    """The matrices of a figure of panels side by side: ``values`` must be a
    non-empty list of ``(q_len, k_len)`` tensors of one shape, each made a
    matrix by ``convert(name, value)``, with one title each in ``titles``."""
    if (
        isinstance(values, (str, torch.Tensor))
        or not isinstance(values, Sequence)
        or not values
    ):
        raise TypeError(
            f"{name} must be a non-empty list of (q_len, k_len) tensors, "
            f"got {type(values).__name__}"
        )
    if isinstance(titles, str) or len(titles) != len(values):
        raise ValueError(
            f"titles must be a list of one title per {what} ({len(values)}), got {titles!r}"
        )
    matrices = [convert(f"{name}[{i}]", value) for i, value in enumerate(values)]
    shapes = {tuple(m.shape) for m in matrices}
    if len(shapes) != 1:
        raise ValueError(
            f"{name} must all have the same shape, got shapes {sorted(shapes)}"
        )
    return matrices
