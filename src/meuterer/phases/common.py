"""Small pure helpers shared by the phase modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from meuterer.actions import Sale
from meuterer.cards import SEAT_COUNTS, Counts, Role
from meuterer.islands import Island
from meuterer.phases.ids import rule
from meuterer.rules import Rules
from meuterer.state import Changes as Changes

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
    def ring(self) -> Sequence[int]: ...
    @property
    def start(self) -> int: ...
    @property
    def active(self) -> Sequence[int]: ...
    @property
    def pirate(self) -> int | None: ...
    @property
    def face_up(self) -> Sequence[Sequence[int]]: ...
    @property
    def roles(self) -> Sequence[Role | None]: ...

    def island(self, position: int) -> Island: ...


class Table(Board, Protocol):
    """The whole table the effects of the phases after phase 2 read: a
    :class:`~meuterer.state.State`, or any engine that lays out the same fields (such as
    :class:`meuterer.fast.FastGame`, whose fields are lists), so that it calls the same
    rule functions instead of restating them."""

    @property
    def round(self) -> int: ...
    @property
    def to_act(self) -> int: ...
    @property
    def queue(self) -> Sequence[int]: ...
    @property
    def offer(self) -> int | None: ...
    @property
    def hands(self) -> Sequence[Sequence[int]]: ...
    @property
    def face_down(self) -> Sequence[Sequence[int]]: ...
    @property
    def passed(self) -> Sequence[bool]: ...
    @property
    def role_order(self) -> Sequence[int]: ...
    @property
    def captain_destination(self) -> int | None: ...
    @property
    def mutineer_destination(self) -> int | None: ...
    @property
    def mutiny(self) -> bool | None: ...
    @property
    def sales(self) -> Sequence[tuple[Sale, ...] | None]: ...
    @property
    def scores(self) -> Sequence[int]: ...
    @property
    def deck(self) -> Counts: ...
    @property
    def discard(self) -> Counts: ...
    @property
    def draws_left(self) -> int: ...
    @property
    def drawn(self) -> Sequence[int]: ...


def set_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``values`` with the item at ``index`` replaced."""
    changed = list(values)  # faster than slicing and concatenating for short tuples
    changed[index] = value
    return tuple(changed)


def discarded(discard: Sequence[int], piles: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The discard pile with every card of ``piles`` (each player's face-up cards) on it:
    a robbery, and the clean-up of phase 7.

    >>> discarded((1, 0, 0), [(0, 2, 0), (1, 0, 1)])
    (2, 2, 1)
    """
    return tuple(map(sum, zip(discard, *piles, strict=True)))


_CLOCKWISE = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in SEAT_COUNTS}


def clockwise_from(state: Board, first: int) -> tuple[int, ...]:
    """Every seat, clockwise, starting with ``first``."""
    orders = _CLOCKWISE.get(state.players)
    if orders is None:
        n = state.players
        return tuple((first + i) % n for i in range(n))
    return orders[first]


@rule("p2.turns")
def next_unpassed(players: int, passed: Sequence[bool], after: int) -> int:
    """The first seat clockwise after ``after`` that has not passed (``after`` if none).

    >>> next_unpassed(4, [False, True, False, False], 0), next_unpassed(3, [True, True, True], 1)
    (2, 1)
    """
    if players > 0:  # mostly the next seat (no range to walk)
        seat = (after + 1) % players
        if not passed[seat]:
            return seat
    for i in range(2, players + 1):
        seat = (after + i) % players
        if not passed[seat]:
            return seat
    return after
