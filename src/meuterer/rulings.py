"""The rules' rulings on a table, as pure functions for services (bots, CLI, pictures, adapters).

Each function here is the one the engine itself applies, so a service that calls it
can never disagree with the game. Each reads a :class:`Board`: a
:class:`~meuterer.state.State` or a player's :class:`~meuterer.views.PlayerView`.

- destinations: :func:`destination` (the captain's or the mutineer's);
- the mutiny: :func:`strengths` of both sides, :func:`mutiny_succeeds`;
- the pirate variant: :func:`pirate_destination`, :func:`robbery`;
- phase 5: :func:`island_points` (one island's payout), :func:`sale_points` (the sales' outcome);
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

from meuterer.phases.common import Board
from meuterer.phases.mutiny import mutiny_succeeds, strengths
from meuterer.phases.offer_cargo import destination
from meuterer.phases.pirates import pirate_destination, robbery
from meuterer.phases.scoring import island_points, sale_points, winners
from meuterer.phases.voyage import draw_pool, legal_draw

__all__ = [
    "Board",
    "destination",
    "draw_pool",
    "island_points",
    "legal_draw",
    "mutiny_succeeds",
    "pirate_destination",
    "robbery",
    "sale_points",
    "strengths",
    "winners",
]
