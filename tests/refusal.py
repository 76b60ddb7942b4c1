"""Bad input refused with a clear message: each test module lists its bad
calls in a table ``BAD_INPUT`` of rows ``(call, error, name, expected,
given)`` and parametrizes one test over it with :func:`refuses` and
:func:`row_ids`."""

from __future__ import annotations

import pytest


def refuses(call, error, name, expected, given) -> None:
    """``call()`` raises ``error`` with a message that names the argument, says
    what was expected and what was given."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for part in (name, expected, given):
        assert part in message, f"{part!r} is not in the message {message!r}"


def row_ids(rows) -> list[str]:
    """A case's name: its row's number and argument."""
    return [f"{i}-{row[2]}" for i, row in enumerate(rows)]
