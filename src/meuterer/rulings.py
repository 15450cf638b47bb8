"""The rules' rulings on a table, as pure functions for services (bots, CLI, pictures, adapters).

Each function here is the one the engine itself applies, so a service that calls it
can never disagree with the game. Each reads a :class:`Board`: a
:class:`~meuterer.state.State` or a player's :class:`~meuterer.views.PlayerView`.

- the mutiny: :func:`strengths` of both sides, :func:`mutiny_succeeds`;
- the pirate variant: :func:`pirate_destination`, :func:`robbery`;
- phase 5: :func:`island_points` (one island's payout), :func:`sale_points` (the sales' outcome).

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

from meuterer.phases.common import Board
from meuterer.phases.mutiny import mutiny_succeeds, strengths
from meuterer.phases.pirates import pirate_destination, robbery
from meuterer.phases.scoring import island_points, sale_points

__all__ = [
    "Board",
    "island_points",
    "mutiny_succeeds",
    "pirate_destination",
    "robbery",
    "sale_points",
    "strengths",
]
