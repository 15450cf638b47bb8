"""The standings at the end of a game, with a breakdown per player: each round's role points
and sales, made from one seat's views as the game went (so a seat learns nothing from them
that its views did not show).

>>> import meuterer
>>> from meuterer.game import Game
>>> actions, final = meuterer.random_game(seed=4, players=3)
>>> game = Game.new(3, 0)
>>> for action in actions:
...     _ = game.push(action)
>>> book = Book()
>>> for k in range(len(game)):
...     book.add(meuterer.view(game.at(k), 0), meuterer.view(game.at(k + 1), 0))
>>> table = book.standings(meuterer.view(game.state, 0), ["ann", "bob", "cy"])
>>> [row["total"] for row in table["rows"]] == sorted(final.scores, reverse=True)
True
"""

from __future__ import annotations

from typing import Any

from meuterer.rulings import role_points, winners
from meuterer.state import Step
from meuterer.views import PlayerView

__all__ = ["Book"]

_AFTER_ROLE_POINTS = frozenset(
    {Step.SELL, Step.SAIL, Step.CLEAN_UP, Step.DRAW, Step.LOADMASTER_DISCARD, Step.ROLES_RETURN, Step.GAME_OVER}
)
"""The steps of a round at which its role points are scored and its roles still known."""


class Book:
    """Each round's points per seat, split into role points and sales (the rest: what the
    round brought less its role points), kept as the views come."""

    def __init__(self) -> None:
        self.totals: dict[int, list[int]] = {}
        self.roles: dict[int, tuple[int, ...]] = {}

    def add(self, before: PlayerView, after: PlayerView) -> None:
        """One more action's views (the seat's view before it and after it)."""
        gained = [a - b for a, b in zip(after.scores, before.scores, strict=True)]
        rnd = before.round
        if any(gained):
            row = self.totals.setdefault(rnd, [0] * before.players)
            self.totals[rnd] = [t + g for t, g in zip(row, gained, strict=True)]
        if rnd not in self.roles and after.round == rnd and after.step in _AFTER_ROLE_POINTS and after.roles_revealed:
            self.roles[rnd] = role_points(after, bool(after.mutiny))

    def standings(self, final: PlayerView, names: list[str]) -> dict[str, Any]:
        """The players from first to last: each with his total, role points, sales and the
        points of every round (``{"round", "roles", "sales"}``), the winners marked."""
        won = set(winners(final))
        rows: list[dict[str, Any]] = []
        for p in range(final.players):
            rounds: list[dict[str, int]] = []
            for rnd in sorted(self.totals):
                roles = self.roles.get(rnd, (0,) * final.players)[p]
                rounds.append({"round": rnd, "roles": roles, "sales": self.totals[rnd][p] - roles})
            rows.append(
                {
                    "seat": p,
                    "name": names[p],
                    "total": final.scores[p],
                    "roles": sum(r["roles"] for r in rounds),
                    "sales": sum(r["sales"] for r in rounds),
                    "rounds": rounds,
                    "winner": p in won,
                }
            )
        rows.sort(key=lambda row: -row["total"])
        return {"rows": rows}
