"""The greedy bot over a batch: :class:`BatchGreedy` chooses in every game of a
:class:`~meuterer.vector.VectorGame` the action :class:`~meuterer.agents.GreedyAgent` takes
there (what ``MeutererVectorEnv(opponents="greedy")`` plays).

``GreedyAgent`` is a function of its view (it breaks ties by the order of the legal
actions and draws nothing from its generator), so the batch can compute its choice by any
route that reads the same view. Every decision is computed over arrays, for all the games
at one step at once:

- a decision with one legal id (a forced support, a single sale declaration, the pass of
  an empty hand): that id, read from the batch's legal mask;
- the captain's offer: a table of ``GreedyAgent.offer``'s choice for each count of
  support cards in hand (all it reads), made once per rule set by the agent itself;
- playing or passing: ``meuterer.vector.greedy_play`` (every plan of every game a row);
- the role and the supports: ``meuterer.vector.greedy_roles``;
- the sale declaration and the loadmaster's discard: ``meuterer.vector.greedy_sales``;
- a play with the pirate card in hand (the pirate variant): the agent itself on the game's
  reference state (:meth:`~meuterer.vector.VectorGame.to_state`), the seat's view and
  legal actions, the chosen action coded as the batch's id (its robbery estimate weighs
  every other seat's best sales).

>>> import numpy as np
>>> from meuterer.vector import VectorGame
>>> from meuterer.vector.greedy import BatchGreedy
>>> games = VectorGame(batch=4, players=4, seed=3)
>>> games.advance_chance()
>>> chosen = BatchGreedy(games.rules)(games, np.arange(4))
>>> games.step(chosen)                     # every captain's offer, as GreedyAgent makes it
"""

from __future__ import annotations

import random
from typing import Any, Final

import numpy as np

from meuterer.actions import Offer
from meuterer.agents.greedy import GreedyAgent
from meuterer.cards import Card
from meuterer.engine import legal_actions
from meuterer.machine import STEP_CODES
from meuterer.rules import Rules
from meuterer.state import Step
from meuterer.vector.arrays import Groups, IntArray
from meuterer.vector.choice import mask_rows
from meuterer.vector.greedy_play import GreedyPlays
from meuterer.vector.greedy_roles import GreedyMutiny
from meuterer.vector.greedy_sales import GreedySales
from meuterer.views import view

__all__ = ["BatchGreedy", "greedy_actions"]

_OFFER: Final = STEP_CODES[Step.OFFER]
_PLAY: Final = STEP_CODES[Step.PLAY]
_ROLE: Final = STEP_CODES[Step.CHOOSE_ROLE]
_SUPPORT: Final = STEP_CODES[Step.MUTINY]
_SELL: Final = STEP_CODES[Step.SELL]
_DISCARD: Final = STEP_CODES[Step.LOADMASTER_DISCARD]
_PIRATE: Final = int(Card.PIRATE)


class _Hand:
    """A stand-in view holding only a hand: all ``GreedyAgent.offer`` reads."""

    def __init__(self, supports: int) -> None:
        self.hand = tuple(supports if card is Card.SUPPORT else 0 for card in Card)


class BatchGreedy:
    """:class:`~meuterer.agents.GreedyAgent`'s choices over a batch (see the module).

    ``BatchGreedy(rules)(game, idx)`` is the id the agent picks in each game ``idx``
    (ascending; every one at a decision, any seat to act). ``scalar`` counts the
    decisions it handed to the scalar agent (plays with the pirate card in hand),
    ``decisions`` all it made.
    """

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules or Rules()
        self.agent = GreedyAgent()
        self._rng = random.Random(0)  # handed to the agent, which draws nothing from it
        offers = [Offer(0, amount) for amount in range(self.rules.max_offer + 1)]
        chosen = (self.agent.offer(_Hand(k), offers) for k in range(self.rules.deck[Card.SUPPORT] + 1))  # type: ignore[arg-type]
        self._offer = np.array([a.amount for a in chosen if isinstance(a, Offer)], dtype=np.int64)
        self._plays = GreedyPlays(self.rules)
        self._mutiny = GreedyMutiny(self.rules, self._plays.best_sales)
        self._sales = GreedySales(self.rules)
        self.scalar = 0
        self.decisions = 0

    def __call__(self, g: Any, idx: IntArray) -> IntArray:
        """The greedy agent's id in each game ``idx`` of the batch ``g`` (a
        :class:`~meuterer.vector.VectorGame`)."""
        s = g.step_[idx]
        rows = mask_rows(g, idx, Groups(s))
        out: IntArray = rows.argmax(axis=1).astype(np.int64)  # the first legal id: right where it is the only one
        left = np.count_nonzero(rows, axis=1) > 1
        offering = left & (s == _OFFER)
        if offering.any():
            games = idx[offering]
            supports = g._hand_rows.take(games * g.players + g.to_act[games], axis=0)[:, Card.SUPPORT]
            out[offering] = g.ids.offer.start + self._offer[supports]
            left &= ~offering
        playing = left & (s == _PLAY)
        if self.rules.pirates:  # with the pirate card in hand the agent weighs a robbery: the agent itself
            playing &= g._hand_rows.take(idx * g.players + g.to_act[idx], axis=0)[:, _PIRATE] == 0
        if playing.any():
            out[playing] = self._plays(g, idx[playing])
            left &= ~playing
        choosing = left & (s == _ROLE)
        if choosing.any():
            free = rows[choosing][:, g.ids.role.start : g.ids.role.stop]
            out[choosing] = self._mutiny.roles(g, idx[choosing], free)
            left &= ~choosing
        supporting = left & (s == _SUPPORT)
        if supporting.any():
            out[supporting] = self._mutiny.supports(g, idx[supporting])
            left &= ~supporting
        selling = left & (s == _SELL)
        if selling.any():
            out[selling] = self._sales.sales(g, idx[selling])
            left &= ~selling
        discarding = left & (s == _DISCARD)
        if discarding.any():
            out[discarding] = self._sales.discards(g, idx[discarding])
            left &= ~discarding
        for k in np.flatnonzero(left).tolist():
            game = int(idx[k])
            state = g.to_state(game)
            seat = int(g.to_act[game])
            action = self.agent.act(view(state, seat), legal_actions(state), self._rng)
            out[k] = g.ids.action_id(state, action)
        self.scalar += int(np.count_nonzero(left))
        self.decisions += len(idx)
        return out


def greedy_actions(g: Any, chooser: BatchGreedy | None = None) -> IntArray:
    """(B,): the greedy agent's id in every game of ``g`` at a decision, 0 elsewhere.

    >>> from meuterer.vector import VectorGame
    >>> games = VectorGame(batch=2, players=3, seed=1)
    >>> games.advance_chance()
    >>> chosen = greedy_actions(games)     # each captain's offer
    >>> [bool(games.ids.offer.start <= a < games.ids.offer.stop) for a in chosen]
    [True, True]
    """
    chooser = chooser or BatchGreedy(g.rules)
    out = np.zeros(g.batch, dtype=np.int64)
    idx = np.flatnonzero(~g.chance & ~g.terminal)
    if len(idx):
        out[idx] = chooser(g, idx)
    return out
