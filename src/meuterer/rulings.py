"""The rules' rulings on a table, as pure functions for services (bots, CLI, pictures, adapters).

Each function here is the one the engine itself applies, so a service that calls it
can never disagree with the game. Each reads a :class:`Board`: a
:class:`~meuterer.state.State` or a player's :class:`~meuterer.views.PlayerView`.

- destinations: :func:`destination` (the captain's or the mutineer's);
- the mutiny: :func:`strengths` of both sides, :func:`mutiny_succeeds`;
- the pirate variant: :func:`pirate_destination`, :func:`robbery`;
- phase 5: :func:`role_points` (what each role scores as the mutiny goes) and
  :func:`mate_points`, :func:`sale_declarations`
  (the declarations a seller may make), :func:`island_points` (one island's payout),
  :func:`sale_points` (the sales' outcome);
- the game's end: :func:`winners`;
- chance, on a full state (the deck is hidden from views): :func:`draw_pool` (the cards
  the next draw comes from) and :func:`legal_draw` (the draws, in card order).

>>> import meuterer
>>> from meuterer import rulings
>>> actions, final = meuterer.random_game(seed=3, players=4)
>>> seen = meuterer.view(final, 0)
>>> rulings.strengths(seen) == rulings.strengths(final)
True
>>> rulings.sale_points(seen, seen.sales) == rulings.sale_points(final, final.sales)
True
"""

from __future__ import annotations

from typing import Any, cast

from meuterer.cards import Role
from meuterer.phases import scoring
from meuterer.phases.common import Board, Table
from meuterer.phases.mutiny import mutiny_succeeds, strengths
from meuterer.phases.offer_cargo import destination
from meuterer.phases.pirates import pirate_destination, robbery
from meuterer.phases.scoring import island_points, sale_declarations, sale_points, winners
from meuterer.phases.voyage import draw_pool, legal_draw

__all__ = [
    "Board",
    "destination",
    "draw_pool",
    "island_points",
    "legal_draw",
    "mate_points",
    "mutiny_succeeds",
    "pirate_destination",
    "robbery",
    "role_points",
    "sale_declarations",
    "sale_points",
    "strengths",
    "winners",
]


class _Supposed:
    """``board`` as it would stand after phase 4 if the mutiny went as ``mutiny`` says, with
    every score at 0 and the fields of ``changes`` changed (what
    :func:`meuterer.phases.scoring.role_points` reads of it)."""

    def __init__(self, board: Board, mutiny: bool, changes: dict[str, Any] | None = None) -> None:
        self._board = board
        self.mutiny = mutiny
        self.scores = (0,) * board.players
        self.__dict__.update(changes or {})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._board, name)


def role_points(board: Board, mutiny: bool) -> tuple[int, ...]:
    """The role points each seat scores in phase 5 if the mutiny succeeds (``mutiny``) or
    not (also when nobody mutinies), by the engine's own rule; the board needs the roles
    and the destinations (``offer``, ``captain_destination``, ``mutineer_destination``),
    so it is one from the reveal on.

    >>> import meuterer
    >>> from meuterer.cards import Role
    >>> s = meuterer.new_game(3, 0)
    >>> from meuterer.state import evolve
    >>> roles = (None, Role.MUTINEER, Role.CABIN_BOY)
    >>> s = evolve(s, {"roles": roles, "offer": 1, "captain_destination": 0, "mutineer_destination": 2})
    >>> role_points(s, True), role_points(s, False)
    ((0, 4, 2), (5, 0, 0))
    """
    scores, _ = scoring.role_points(cast(Table, _Supposed(board, mutiny)))
    return scores


def mate_points(board: Board, offer: int) -> int:
    """What a mate scores when the captain of ``board`` keeps the ship after offering
    ``offer``: :func:`role_points` of the table with a mate beside the captain, at any
    moment of the round.

    >>> import meuterer
    >>> mate_points(meuterer.new_game(3, 0), 2)
    3
    """
    mate = (board.captain + 1) % board.players
    roles = tuple(Role.MATE if seat == mate else None for seat in range(board.players))
    supposed = _Supposed(board, False, {"roles": roles, "offer": offer, "captain_destination": board.start})
    scores, _ = scoring.role_points(cast(Table, supposed))
    return scores[mate]
