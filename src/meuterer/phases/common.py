"""Small pure helpers shared by the phase modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from meuterer.cards import SEAT_COUNTS, Counts, Role
from meuterer.islands import Island
from meuterer.rules import Rules
from meuterer.state import Changes as Changes
from meuterer.state import State

T = TypeVar("T")


class Board(Protocol):
    """The public table the rule functions read: a :class:`~meuterer.state.State` or a
    player's :class:`~meuterer.views.PlayerView` (they share these fields).

    In a view, ``roles`` holds only the roles the viewer knows (everyone's from the
    reveal on), so rule functions that read roles answer for the table as he sees it.
    """

    @property
    def players(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def captain(self) -> int: ...
    @property
    def ring(self) -> tuple[int, ...]: ...
    @property
    def start(self) -> int: ...
    @property
    def active(self) -> tuple[int, ...]: ...
    @property
    def pirate(self) -> int | None: ...
    @property
    def face_up(self) -> Sequence[Counts]: ...
    @property
    def roles(self) -> Sequence[Role | None]: ...

    def island(self, position: int) -> Island: ...


def set_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``values`` with the item at ``index`` replaced."""
    changed = list(values)  # faster than slicing and concatenating for short tuples
    changed[index] = value
    return tuple(changed)


_CLOCKWISE = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in SEAT_COUNTS}


def clockwise_from(state: State, first: int) -> tuple[int, ...]:
    """Every seat, clockwise, starting with ``first``."""
    orders = _CLOCKWISE.get(state.players)
    if orders is None:
        n = state.players
        return tuple((first + i) % n for i in range(n))
    return orders[first]


def next_unpassed(players: int, passed: tuple[bool, ...], after: int) -> int:
    """The first seat clockwise after ``after`` that has not passed (``after`` if none)."""
    for i in range(1, players + 1):
        seat = (after + i) % players
        if not passed[seat]:
            return seat
    return after
