""":meth:`GreedyAgent.play <meuterer.agents.GreedyAgent.play>` over a batch: the card each
greedy player lays down in phase 2 (or his pass), for many games at once, as the agent
chooses it (:class:`~meuterer.vector.greedy.BatchGreedy` hands its plays here).

The agent plans: of the goods in hand that an active island buys, every sub-multiset it
could still play (its *plans*, in the agent's product order), and for each how many other
cards to lay down with it (goods no active island buys first, then support cards); a plan
is worth its best sales against the others' face-up cards, less the cards' worth, plus the
ship value at the destination its hand size sets. Here every plan of every game is a row
of one array:

- the best sales of a plan's goods: the sale declarations are a combinatorial rule, asked
  of the reference (:func:`meuterer.phases.scoring.sale_declarations`) once per key (what
  the active islands buy, and the goods they buy) and kept as the cards each island gets
  (:class:`BestSales`); the points are the rule's own table (``values``: the leaders'
  share) against the others' counts;
- the agent's numbers (what giving up cards costs, how much of his ship a captain counts
  on) come from tables the agent's own functions fill once
  (:func:`~meuterer.agents.estimates.give_up_costs`,
  :func:`~meuterer.agents.estimates.captain_weight`).

The agent takes the first plan that beats the best so far by more than 1e-9 VP. Its values
lie on a grid of 0.05 VP (whole points, card worths of 0.15 and 0.85, ship values times
weights in steps of 0.05), so that is the first plan within 1e-9 of the best: what
:func:`chosen_plans` takes.

>>> import numpy as np
>>> from meuterer.agents import GreedyAgent
>>> from meuterer.engine import legal_actions
>>> from meuterer.machine import STEP_CODES
>>> from meuterer.state import Step
>>> from meuterer.vector import VectorGame
>>> from meuterer.vector.greedy import greedy_actions
>>> from meuterer.views import view
>>> g = VectorGame(batch=1, players=4, seed=5)
>>> while g.step_[0] != STEP_CODES[Step.PLAY]:
...     g.advance_chance()
...     g.step(greedy_actions(g))
>>> state, seat = g.to_state(0), int(g.to_act[0])
>>> action = GreedyAgent().play(view(state, seat), legal_actions(state))
>>> int(GreedyPlays(g.rules)(g, np.array([0]))[0]) == g.ids.action_id(state, action)
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from meuterer.agents.estimates import KEEP_GOOD, MUTINY_WEIGHT, PLAY_COST, captain_weight, give_up_costs
from meuterer.cards import Card
from meuterer.phases.offer_cargo import destination_from
from meuterer.phases.scoring import leader_points, sale_declarations
from meuterer.rules import Rules
from meuterer.vector.arrays import N_GOODS, BoolArray, Choices, FloatArray, IntArray

__all__ = ["BestSales", "GreedyPlays", "active_islands", "could_sell", "island_values", "other_counts"]

SUPPORT: Final = int(Card.SUPPORT)
_TIE: Final = 1e-9
"""The agent's margin: a plan replaces the best so far only if worth more by this."""


class BestSales:
    """The most points goods can earn on a game's active islands, for many goods at once.

    What a seller's declarations can sell on each island depends only on what the islands
    buy and on the goods he shows that they buy (the key of the batch's own sale table,
    :func:`meuterer.vector.scoring.sell_rows`); for each key the reference's declarations
    are kept as the distinct pairs of counts sold on the two islands, a code each
    (``first * base + second``), in a :class:`~meuterer.vector.arrays.Choices` table.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.base = max(rules.deck[:N_GOODS]) + 1
        """One more than the most cards of a good: the radix of a pair of counts' code."""
        radix = np.array(rules.deck[:N_GOODS]) + 1
        keys = (N_GOODS + 2) ** 2 * int(np.prod(radix))  # the batch's sale keys (what the islands buy, the goods)
        self.table = Choices(range(self.base * self.base), keys, masked=False)  # the codes only

    def __call__(
        self,
        g: Any,
        islands: IntArray,
        goods: IntArray,
        others: IntArray,
        merchant: bool = False,
        of: IntArray | None = None,
    ) -> IntArray:
        """(N,): for each row, the most points ``goods`` (N, 5) earn on a game's active
        islands, ``islands`` (R, 2; the second ``g.n_islands`` when there is none), against
        the others' counts there, ``others`` (R, 2, base + 1): how many other seats sell each
        count on each island; the seller a ``merchant`` or not. Goods row ``k`` is of game
        row ``of[k]`` (by default ``k``)."""
        of = np.arange(len(goods)) if of is None else of
        n = g.n_islands
        pair = islands[:, 0] * (n + 1) + islands[:, 1]
        shown = goods * g._pair_buys.take(pair[of], axis=0)
        key = shown @ g._goods_stride + g._pair_key[pair[of]]
        rows = self._rows(g, key, islands[of], shown)
        codes = self.table.ids[rows]  # (N, width): zeros past a row's count: nothing sold, no points
        values = island_values(g)
        # others[:, i, c]: other seats selling c on island i; above[:, i, c]: selling more than c - 1
        above = np.concatenate([np.cumsum(others[:, :, ::-1], axis=2)[:, :, ::-1], others[:, :, :1] * 0], axis=2)
        row = of[:, None]
        total = np.zeros(codes.shape, dtype=np.int64)
        for i, sold in enumerate(np.divmod(codes, self.base)):
            # the seller leads on island i if no other seat sells more there; the leaders share
            # the island's value for their number (the rule's table, g.values)
            leads = (sold > 0) & (above[row, i, sold + 1] == 0)
            island = islands[row, i]
            total += leader_points(leads, merchant, values[island, 1], values[island, 1 + others[row, i, sold]])
        best: IntArray = total.max(axis=1)
        return best

    def _rows(self, g: Any, key: IntArray, islands: IntArray, shown: IntArray) -> IntArray:
        table = g.rules.islands

        def listing(i: int) -> list[int]:
            named = [(table[j].name, table[j]) for j in islands[i].tolist() if j < g.n_islands]
            return self._codes((*shown[i].tolist(), 0, 0), named)

        return self.table.rows_of(key, listing)

    def _codes(self, goods: tuple[int, ...], islands: list[Any]) -> list[int]:
        """The distinct pairs of counts the declarations sell on the two islands, as codes."""
        found = set()
        for declaration in sale_declarations(goods, islands, self.rules.withholding):
            sold = [0, 0]
            for sale in declaration:
                sold[0 if sale.island == islands[0][0] else 1] += sale.count
            found.add(sold[0] * self.base + sold[1])
        return sorted(found)


class GreedyPlays:
    """``GreedyPlays(rules)(g, games)``: the id of the card the greedy agent plays (or of his
    pass) in each game ``games`` of the batch ``g``, all at phase 2's play step with a choice
    to make and without the pirate card in hand under the pirate variant (see the module)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.best_sales = BestSales(rules)
        most = sum(rules.deck)
        # lost[goods, supports, x]: giving up the first x of so many such cards (nan past them)
        supports = rules.deck[SUPPORT]
        self.lost = np.full((most + 1, supports + 1, most + 1), np.nan)
        for goods in range(most + 1):
            for s in range(supports + 1):
                costs = give_up_costs(goods, s)[: most + 1]
                self.lost[goods, s, : len(costs)] = costs
        # weight[supports, offer]: the captain's share of his ship (others: MUTINY_WEIGHT)
        self.weight = np.array(
            [[captain_weight(s, o) for o in range(rules.max_offer + 1)] for s in range(supports + 1)]
        )

    def __call__(self, g: Any, games: IntArray) -> IntArray:
        p = g.players
        me = g.to_act[games]
        seat_rows = games * p + me
        hand = g._hand_rows.take(seat_rows, axis=0).astype(np.int64)
        up = g._up_rows.take(seat_rows, axis=0).astype(np.int64)
        islands = active_islands(g, games)
        buys = g.buys[islands]  # (R, 2, 5)
        others = other_counts(g, games, me, islands, self.best_sales.base)
        sellable = (hand[:, :N_GOODS] > 0) & buys.any(axis=1)
        # the plans: every count from 0 to the hand's of each sellable good, the last fastest
        radix = np.where(sellable, hand[:, :N_GOODS] + 1, 1)
        count = radix.prod(axis=1)
        plan_game = np.repeat(np.arange(len(games)), count)
        first = np.cumsum(count) - count
        index = np.arange(len(plan_game)) - first[plan_game]
        plan = np.zeros((len(plan_game), N_GOODS), dtype=np.int64)
        for k in range(N_GOODS - 1, -1, -1):
            index, plan[:, k] = np.divmod(index, radix[plan_game, k])
        played = plan.sum(axis=1)
        best = self.best_sales(g, islands, up[plan_game, :N_GOODS] + plan, others, of=plan_game)
        base = best - played * (KEEP_GOOD + PLAY_COST)
        # the other cards laid down with a plan: x of them, x from 0 to all (nan past them)
        goods_out = (hand[:, :N_GOODS] * ~sellable).sum(axis=1)
        widest = int((goods_out + hand[:, SUPPORT]).max()) + 1
        lost = self.lost[goods_out, hand[:, SUPPORT], :widest][plan_game]  # (P, widest)
        size = hand.sum(axis=1)
        steps = (size[plan_game] - played)[:, None] - np.arange(widest)
        ships = self._ships(g, games, me, hand, up, int(size.max()) + 1)  # (R, cards kept)
        value = base[:, None] - lost + ships[plan_game[:, None], np.maximum(steps, 0)]
        value[np.isnan(value)] = -np.inf
        chosen, extra = chosen_plans(value, plan_game, first)
        return self._ids(g, games, islands, hand, up, others, sellable, plan[chosen], extra)

    def _ships(self, g: Any, games: IntArray, me: IntArray, hand: IntArray, up: IntArray, most: int) -> FloatArray:
        """(R, most): the ship value each player counts on when passing with 0 to most - 1 cards."""
        n = g.n_islands
        kept = np.arange(most)
        at = destination_from(g.start[games][:, None], kept, n)
        ship = g.ship[g._ring_flat[games[:, None] * n + at]]
        offer = np.maximum(g.offer[games], 0)
        captain = me == g.captain[games]
        supports = up[:, SUPPORT] + hand[:, SUPPORT]
        weight = np.where(captain, self.weight[supports, offer], MUTINY_WEIGHT)
        ships: FloatArray = weight[:, None] * ship
        return ships

    def _ids(
        self,
        g: Any,
        games: IntArray,
        islands: IntArray,
        hand: IntArray,
        up: IntArray,
        others: IntArray,
        sellable: IntArray,
        plan: IntArray,
        extra: IntArray,
    ) -> IntArray:
        """The card to lay down for each game's chosen plan: of the planned goods the one
        planned most, then the one selling best with one more card shown; with none planned,
        the first of the other cards, or the pass if none of those is planned either."""
        # the gain of one more card shown decides only between goods planned alike
        tied = (plan > 0) & (plan == plan.max(axis=1, keepdims=True))
        asked = tied & (tied.sum(axis=1) > 1)[:, None]
        row, kind = np.nonzero(asked)
        gain = np.zeros(plan.shape, dtype=np.int64)
        one_more = up[row, :N_GOODS] + np.eye(N_GOODS, dtype=np.int64)[kind]
        gain[row, kind] = self.best_sales(g, islands, one_more, others, of=row)
        score = np.where(tied, gain, -1)
        card = score.argmax(axis=1)
        filler = (hand[:, :N_GOODS] > 0) & ~sellable
        first_filler = np.where(filler.any(axis=1), filler.argmax(axis=1), SUPPORT)
        none = plan.sum(axis=1) == 0
        card = np.where(none, first_filler, card)
        ids: IntArray = np.where(none & (extra == 0), g.ids.pass_.start, g.ids.play.start + card)
        return ids


def active_islands(g: Any, games: IntArray) -> IntArray:
    """(R, 2): the islands active in each game (the second ``g.n_islands`` when only one is)."""
    n = g.n_islands
    active = g.active.take(games, axis=0)
    islands: IntArray = np.where(active < 0, n, g._ring_flat.take(games[:, None] * n + np.maximum(active, 0)))
    return islands


def island_values(g: Any) -> IntArray:
    """``g.values`` (each leader's points by island and number of leaders, the rule's table)
    with a last row of zeros: the island index ``g.n_islands`` stands for no island."""
    values: IntArray = np.vstack([g.values, np.zeros_like(g.values[:1])])
    return values


def could_sell(g: Any, games: IntArray, islands: IntArray) -> IntArray:
    """(R, 2, p): the most of one kind each seat shows of the goods each active island buys."""
    shown = g.face_up.take(games, axis=0)[:, :, :N_GOODS].astype(np.int64)  # (R, p, 5)
    counts: IntArray = (shown[:, None, :, :] * g.buys[islands][:, :, None, :]).max(axis=3)
    return counts


def other_counts(
    g: Any, games: IntArray, me: IntArray, islands: IntArray, base: int, more: BoolArray | None = None
) -> IntArray:
    """(R, 2, base + 1): how many seats other than ``me`` show each count of the goods each
    active island buys (the most of one kind: what they could sell there, as
    :func:`meuterer.agents.estimates.opponent_count` reads it before any declaration),
    with one card more for the seats ``more`` (R, p) if given."""
    counts = could_sell(g, games, islands)
    if more is not None:
        counts += more[:, None, :]
    counts[np.arange(len(games)), :, me] = -1  # not the seller himself
    found: IntArray = (counts[..., None] == np.arange(base + 1)).sum(axis=2)
    return found


def chosen_plans(value: FloatArray, plan_game: IntArray, first: IntArray) -> tuple[IntArray, IntArray]:
    """Each game's chosen plan (a row of ``value``; ``plan_game``: each row's game, whose
    first row is ``first[game]``) and its number of other cards (a column): the first,
    plans in order and then columns, within 1e-9 of the game's best.

    >>> v = np.array([[1.0, 2.0], [2.0 + 1e-12, 0.5], [3.0, -np.inf]])
    >>> chosen_plans(v, np.array([0, 0, 1]), np.array([0, 2]))
    (array([0, 2]), array([1, 0]))
    """
    best = np.maximum.reduceat(value.max(axis=1), first)
    near = value >= best[plan_game, None] - _TIE
    rows = np.flatnonzero(near.any(axis=1))
    chosen = rows[np.unique(plan_game[rows], return_index=True)[1]]
    return chosen, near[chosen].argmax(axis=1)
