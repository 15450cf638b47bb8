"""Small pure helpers shared by the phase modules."""

from __future__ import annotations

from typing import Any, TypeVar

from meuterer.state import State

T = TypeVar("T")

Changes = dict[str, Any]
"""What an effect returns: the state fields it replaces."""


def set_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``values`` with the item at ``index`` replaced."""
    return values[:index] + (value,) + values[index + 1 :]


def clockwise_from(state: State, first: int) -> tuple[int, ...]:
    """Every seat, clockwise, starting with ``first``."""
    n = state.players
    return tuple((first + i) % n for i in range(n))


def next_unpassed(players: int, passed: tuple[bool, ...], after: int) -> int:
    """The first seat clockwise after ``after`` that has not passed (``after`` if none)."""
    for i in range(1, players + 1):
        seat = (after + i) % players
        if not passed[seat]:
            return seat
    return after
