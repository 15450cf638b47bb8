"""The greedy bot's sale declarations (phase 5) and the loadmaster's discards (phase 8) over
a batch, as :meth:`GreedyAgent.sell <meuterer.agents.GreedyAgent.sell>` and
:meth:`GreedyAgent.discard <meuterer.agents.GreedyAgent.discard>` choose them
(:class:`~meuterer.vector.greedy.BatchGreedy` hands them here).

Both score each legal choice, read from the batch's own tables of legal ids (the
declarations and discards the reference listed once per key), and take the first best:

- a declaration by the points it earns the seller on the active islands, then by the
  fewest it leaves the others (each island's payout by the rule's ``leader_points``,
  merchants included), against what the others declared or could still declare;
- a discard by the worth of the hand it leaves (the agent's
  :func:`~meuterer.agents.estimates.hand_value`, in its order of operations).

The declarations open to the first seller of a random game, scored by the agent's rule:

>>> import numpy as np
>>> import meuterer
>>> from meuterer.vector import VectorGame
>>> actions, _ = meuterer.random_game(seed=1, players=3)
>>> state = meuterer.new_game(3)
>>> while state.step is not meuterer.Step.SELL:
...     state, actions = meuterer.apply(state, actions[0]), actions[1:]
>>> games = VectorGame(batch=1, players=3)
>>> games.set_state(0, state)
>>> chosen = games.ids.action(state, int(GreedySales(games.rules).sales(games, np.array([0]))[0]))
>>> chosen in meuterer.legal_actions(state)
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from meuterer.agents.estimates import KEEP, KEEP_GOOD
from meuterer.cards import CARDS
from meuterer.phases.scoring import leader_points
from meuterer.rules import Rules
from meuterer.vector.arrays import MERCHANT, N_GOODS, NO, IntArray
from meuterer.vector.greedy_play import active_islands, could_sell, island_values
from meuterer.vector.scoring import sell_rows
from meuterer.vector.voyage import discard_rows

__all__ = ["GreedySales"]

_WORTH: Final = tuple(KEEP.get(card, KEEP_GOOD) for card in CARDS)
"""What keeping a card of each kind is worth to the agent (``keep_value``)."""


class GreedySales:
    """The greedy agent's declarations and discards over a batch (see the module); each
    method takes the batch and the games (all at that step, with a choice to make)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    def sales(self, g: Any, games: IntArray) -> IntArray:
        """The declaration id the agent makes in each game: the most points for himself,
        then the fewest for the others."""
        p = g.players
        rows = np.arange(len(games))
        me = g.to_act[games]
        table = g._sells
        found = sell_rows(g, games)
        ids = table.ids[found]  # (R, W): the legal declarations, then zeros
        legal = np.arange(ids.shape[1]) < table.count[found][:, None]
        mine_sold = g.slot_count[g._sell_slots[np.where(legal, ids - g.ids.sell.start, 0)]]  # (R, W, 2)
        islands = active_islands(g, games)
        counts = self._counts(g, games, islands)  # (R, 2, p)
        merchant = g.roles.take(games, axis=0) == MERCHANT  # (R, p)
        values = island_values(g)
        mine = np.zeros(ids.shape, dtype=np.int64)
        others = np.zeros(ids.shape, dtype=np.int64)
        for i in range(2):
            row = np.broadcast_to(counts[:, i, None, :], (*ids.shape, p)).copy()  # (R, W, p)
            row[rows, :, me] = mine_sold[:, :, i]
            most = row.max(axis=2)
            leads = (row == most[..., None]) & (most[..., None] > 0)
            island = islands[:, i, None, None]
            share = values[island, leads.sum(axis=2)[..., None]]
            points = leader_points(leads, merchant[:, None, :], values[island, 1], share)
            own = points[rows, :, me]
            mine += own
            others += points.sum(axis=2) - own
        score = np.where(legal, mine * (1 << 20) - others, np.iinfo(np.int64).min)
        chosen: IntArray = ids[rows, score.argmax(axis=1)]
        return chosen

    @staticmethod
    def _counts(g: Any, games: IntArray, islands: IntArray) -> IntArray:
        """(R, 2, p): what each seat sells on each active island: his declaration once made,
        else the most of one kind the island buys among his face-up cards."""
        could = could_sell(g, games, islands)
        slots = g.sales.take(games, axis=0)  # (R, p, 2): each seat's slot on each island, NO before
        declared = g.slot_count[np.maximum(slots, 0)].transpose(0, 2, 1)
        counts: IntArray = np.where((slots[:, :, 0] != NO)[:, None, :], declared, could)
        return counts

    def discards(self, g: Any, games: IntArray) -> IntArray:
        """The discard id the agent makes in each game: the cards whose loss leaves the
        best hand."""
        rows = np.arange(len(games))
        table = g._discards
        found = discard_rows(g, games)
        ids = table.ids[found]
        legal = np.arange(ids.shape[1]) < table.count[found][:, None]
        hand = g._hand_rows.take(games * g.players + g.to_act[games], axis=0).astype(np.int64)
        left = hand[:, None, :] - g.discard_counts[np.where(legal, ids - g.ids.discard.start, 0)]  # (R, W, 7)
        # hand_value: what keeping the cards is worth, then each good an active island buys
        value = np.zeros(ids.shape)
        for kind, worth in enumerate(_WORTH):
            value = value + np.where(left[:, :, kind] > 0, left[:, :, kind] * worth, 0.0)
        islands = active_islands(g, games)
        values = island_values(g)[:, 1]  # each island's value I
        buys = g.buys[islands].astype(bool)  # (R, 2, 5)
        for good in range(N_GOODS):
            buyers = buys[:, :, good]
            best = np.where(buyers, values[islands], 0).max(axis=1)[:, None]
            held = left[:, :, good]
            term = held * (0.2 + 0.05 * best) + 0.3 * (held - 1)
            value = np.where((held > 0) & buyers.any(axis=1)[:, None], value + term, value)
        value[~legal] = -np.inf
        chosen: IntArray = ids[rows, value.argmax(axis=1)]
        return chosen
