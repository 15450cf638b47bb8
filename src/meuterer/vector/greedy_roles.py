"""The greedy bot's choices about the mutiny over a batch: the role it takes after passing
(:meth:`GreedyAgent.role <meuterer.agents.GreedyAgent.role>`) and the support cards it
commits (:meth:`GreedyAgent.support <meuterer.agents.GreedyAgent.support>`), for many
games at once, as the agent chooses them (:class:`~meuterer.vector.greedy.BatchGreedy`
hands them here).

The estimates are the agent's (``meuterer.agents.estimates``: each role's expected worth,
the chance that the hidden cards hold enough support cards, the stake of the mutiny),
computed over arrays in the same order of operations, so that the floats are the agent's;
the game's own numbers come from its rules (the sides' strengths, the role points, the
last round). The constants are the agent's, imported.

A reference game's state, put into a batch of one:

>>> import numpy as np
>>> import meuterer
>>> from meuterer.agents import GreedyAgent
>>> from meuterer.vector import VectorGame
>>> from meuterer.vector.greedy_play import BestSales
>>> actions, _ = meuterer.random_game(seed=4)
>>> state = meuterer.new_game(4)
>>> while state.step is not meuterer.Step.CHOOSE_ROLE:
...     state, actions = meuterer.apply(state, actions[0]), actions[1:]
>>> games = VectorGame(batch=1, players=4)
>>> games.set_state(0, state)
>>> free = games.legal_mask()[:, games.ids.role.start : games.ids.role.stop]
>>> chosen = GreedyMutiny(games.rules, BestSales(games.rules)).roles(games, np.array([0]), free)
>>> agent = GreedyAgent().role(meuterer.view(state, state.to_act), meuterer.legal_actions(state))
>>> games.ids.action(state, int(chosen[0])) == agent
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from meuterer.agents.estimates import CAPTAINCY, KEEP, LOADMASTER, TUNED_EXTRA
from meuterer.cards import ROLES, Card
from meuterer.phases.mutiny import side_strengths
from meuterer.phases.offer_cargo import destination_from
from meuterer.phases.scoring import is_last_round, role_payouts
from meuterer.rules import Rules
from meuterer.vector.arrays import CABIN_BOY, MATE, MERCHANT, MUTINEER, N_GOODS, NO, BoolArray, FloatArray, IntArray
from meuterer.vector.arrays import LOADMASTER as LOADMASTER_ROLE
from meuterer.vector.greedy_play import BestSales, active_islands, other_counts

__all__ = ["GreedyMutiny"]

SUPPORT: Final = int(Card.SUPPORT)


class GreedyMutiny:
    """The greedy agent's roles and supports over a batch (see the module); ``roles`` and
    ``supports`` take the batch and the games (all at that step, with a choice to make)."""

    def __init__(self, rules: Rules, best_sales: BestSales) -> None:
        self.rules = rules
        self.best_sales = best_sales
        self.loadmaster = LOADMASTER * (rules.loadmaster_extra / TUNED_EXTRA)
        # comb[n, k]: the binomial coefficients of the deck's sizes (whole numbers, as math.comb)
        most = sum(rules.deck) + 1
        self.comb = np.zeros((most + 1, most + 1), dtype=np.int64)
        self.comb[:, 0] = 1
        for n in range(1, most + 1):
            self.comb[n, 1:] = self.comb[n - 1, 1:] + self.comb[n - 1, :-1]

    # Phase 2: the role ------------------------------------------------------------------

    def roles(self, g: Any, games: IntArray, free: BoolArray) -> IntArray:
        """The role id the agent takes in each game (``free``: (R, roles), the roles left)."""
        values = self.role_values(g, games, free)
        values[~free] = -np.inf
        chosen: IntArray = g.ids.role.start + values.argmax(axis=1)
        return chosen

    def role_values(self, g: Any, games: IntArray, free: BoolArray) -> FloatArray:
        """(R, roles): :func:`meuterer.agents.estimates.role_values` of the player to act
        (the agent's constants are pinned by the tests that replay its games: any change to
        one of them there and not here fails them)."""
        p = g.players
        rows = len(games)
        me = g.to_act[games]
        unseen = _unseen(g, games, me)
        total = unseen.sum(axis=1)
        q = np.where(total > 0, unseen[:, SUPPORT] / np.maximum(total, 1), 0.0)
        up = g.face_up.take(games, axis=0).astype(np.int64)
        sizes = g.face_down.take(games, axis=0).sum(axis=2) + g.hands.take(games, axis=0).sum(axis=2)
        hidden = up[:, :, SUPPORT] + q[:, None] * sizes  # (R, p): each seat's estimated supports
        before = g.role_order_len[games]
        later = (p - 1) - before - 1
        summed = np.zeros(rows)
        for k in range(p):  # in the order of choosing, as the agent adds them
            seat = g.role_order[games, k]
            summed = summed + np.where(k < before, hidden[np.arange(rows), seat], 0.0)
        before_support = np.where(before > 0, summed / np.maximum(before, 1), q * 3)
        captain = g.captain[games]
        last = _last(g, games)
        future = np.where(last, 0.0, CAPTAINCY)
        mine = up[np.arange(rows), me, SUPPORT] + g._down_rows.take(games * p + me, axis=0)[:, SUPPORT]
        mate_gone, boy_gone, mutineer_gone = ~free[:, MATE], ~free[:, CABIN_BOY], ~free[:, MUTINEER]
        p_later = np.minimum(1.0, 0.4 * later)
        captain_side = hidden[np.arange(rows), captain]
        mate_strength = np.where(mate_gone, 1 + before_support, 0.0)
        boy_strength = np.where(boy_gone, before_support, 0.0)
        destination = g.captain_destination[games]
        captain_hand = g.hands.take(games, axis=0)[np.arange(rows), captain].sum(axis=1)
        passing = destination_from(g.start[games], captain_hand, g.n_islands)
        captain_ship = _ship(g, games, np.where(destination == NO, passing, destination))
        offer = np.maximum(g.offer[games], 0)

        values = np.zeros((rows, len(ROLES)))
        # the mutineer
        mate = np.where(mate_gone, mate_strength, 1.0 * p_later)
        chance = _success(mine + boy_strength, captain_side + mate)
        down = g._down_rows.take(games * p + me, axis=0).sum(axis=1)
        gain = _ship(g, games, destination_from(g.start[games], down, g.n_islands)) + future
        gain = gain + (captain_ship - offer) / (p - 1)
        values[:, MUTINEER] = chance * gain - 0.2 * mine
        # the cabin boy
        attacker = np.where(mutineer_gone, before_support, q * 3)
        p_mutiny = np.where(mutineer_gone, 1.0, 0.5 * p_later)
        chance = _success(attacker + mine, captain_side + mate_strength)
        values[:, CABIN_BOY] = p_mutiny * chance * self.rules.cabin_boy_points
        # the mate
        attacker = np.where(mutineer_gone, before_support + boy_strength, q * 3)
        p_mutiny = np.where(mutineer_gone, 1.0, 0.6 * p_later)
        keep = 1 - p_mutiny * _success(attacker, captain_side + 1 + mine)
        _, mate_points, _ = role_payouts(0, 0, offer, 1, 0, self.rules.cabin_boy_points)
        values[:, MATE] = keep * mate_points
        # the merchant: half as now, half with one more card from every player still playing
        if free[:, MERCHANT].any():
            values[:, MERCHANT] = self._merchant(g, games, me)
        values[:, LOADMASTER_ROLE] = np.where(last, 0.0, self.loadmaster)
        return values

    def _merchant(self, g: Any, games: IntArray, me: IntArray) -> FloatArray:
        p = g.players
        islands = active_islands(g, games)
        goods = g._up_rows.take(games * p + me, axis=0)[:, :N_GOODS].astype(np.int64)
        value = np.zeros(len(games))
        playing = ~g.passed.take(games, axis=0) & (g.hands.take(games, axis=0).sum(axis=2) > 0)
        for more in (None, playing):
            others = other_counts(g, games, me, islands, self.best_sales.base, more)
            sales = self.best_sales(g, islands, goods, others, merchant=True)
            value = value + 0.5 * (sales - self.best_sales(g, islands, goods, others))
        return value

    # Phase 4: the supports ----------------------------------------------------------------

    def supports(self, g: Any, games: IntArray) -> IntArray:
        """The support id the agent commits in each game: the count with the best chance
        of winning the mutiny for the price of the cards."""
        p = g.players
        rows = np.arange(len(games))
        me = g.to_act[games]
        key = g._role_keys(games)
        captain = g.captain[games]
        up = g.face_up.take(games, axis=0)[:, :, SUPPORT].astype(np.int64)  # (R, p)
        mates = g._mates.take(key, axis=0)
        rebels = g._mutineers.take(key, axis=0)
        defence, attack = side_strengths(
            up[rows, captain], (up * mates).sum(axis=1), mates.sum(axis=1), (up * rebels).sum(axis=1)
        )
        defenders = mates.astype(bool)
        defenders[rows, captain] = True
        defending = defenders[rows, me]
        opponents = np.where(defending[:, None], rebels.astype(bool), defenders)
        # the opponents still to decide: in the queue (its first queue_len seats)
        waiting = np.zeros_like(opponents)
        for k in range(g.queue.shape[1]):
            inside = k < g.queue_len[games]
            waiting[rows[inside], g.queue[games[inside], k]] = True
        sizes = g.face_down.take(games, axis=0).sum(axis=2)
        hidden_cards = (sizes * (opponents & waiting)).sum(axis=1)
        unseen = _unseen(g, games, me)
        stake = self._stake(g, games, me, key, captain)
        most = g._down_flat[(games * p + me) * 7 + SUPPORT]
        count = np.arange(int(most.max()) + 1)
        ours, theirs = np.where(defending, defence, attack)[:, None], np.where(defending, attack, defence)[:, None]
        margin = ours + count - theirs - defending[:, None]
        chance = self._tail(unseen[:, SUPPORT], unseen.sum(axis=1), hidden_cards, margin)
        value = chance * stake[:, None] - count * KEEP[Card.SUPPORT]
        value[count > most[:, None]] = -np.inf
        # the agent takes a count only if it is worth more than the best before it by 1e-9
        best = np.full(len(games), -np.inf)
        choice = np.zeros(len(games), dtype=np.int64)
        for k in count.tolist():
            better = value[:, k] > best + 1e-9
            choice[better] = k
            best = np.where(better, value[:, k], best)
        chosen: IntArray = g.ids.support.start + choice
        return chosen

    def _stake(self, g: Any, games: IntArray, me: IntArray, key: IntArray, captain: IntArray) -> FloatArray:
        """:func:`meuterer.agents.estimates.stake`: the role points the player scores if his
        side wins (the game's role payouts), and the captain cards for the captain or the
        mutineer but in the last round."""
        mutineer = g._role_seat[MUTINEER].take(key)
        mate = g._role_seat[MATE].take(key)
        boy = g._role_seat[CABIN_BOY].take(key)
        attacking = (me == mutineer) | (me == boy)
        won = attacking.astype(np.int64)
        destination = np.where(attacking, g.mutineer_destination[games], g.captain_destination[games])
        ship = _ship(g, games, destination)
        scorer, paid_mate, paid_boy = role_payouts(
            won, ship, np.maximum(g.offer[games], 0), mate >= 0, boy >= 0, self.rules.cabin_boy_points
        )
        points = np.where(
            attacking, np.where(me == mutineer, scorer, paid_boy), np.where(me == captain, scorer, paid_mate)
        )
        keeps_ship = (me == captain) | (me == mutineer)
        stake: FloatArray = points + np.where(keeps_ship & ~_last(g, games), CAPTAINCY, 0.0)
        return stake

    def _tail(self, successes: IntArray, population: IntArray, draws: IntArray, at_most: IntArray) -> FloatArray:
        """:func:`meuterer.agents.estimates.hypergeometric_tail` over arrays: (R,) counts and
        (R, K) bounds."""
        draws = np.minimum(draws, population)
        comb = self.comb
        x = np.arange(comb.shape[0])
        terms = comb[successes[:, None], x] * comb[(population - successes)[:, None], np.maximum(draws[:, None] - x, 0)]
        terms = np.where(x <= draws[:, None], terms, 0)
        hits = np.cumsum(terms, axis=1)  # hits[:, a]: at most a successes
        top = np.minimum(np.minimum(at_most, draws[:, None]), successes[:, None])
        chance = hits[np.arange(len(successes))[:, None], np.maximum(top, 0)] / comb[population, draws][:, None]
        tail: FloatArray = np.where(at_most < 0, 0.0, chance)
        return tail


def _last(g: Any, games: IntArray) -> BoolArray:
    """Whether each game is in its last round (the rule's own test)."""
    last: BoolArray = is_last_round(g.round[games], g.rounds)
    return last


def _unseen(g: Any, games: IntArray, me: IntArray) -> IntArray:
    """(R, 7): the cards the player to act has not seen (the deck less the discards, his
    hand and face-down cards and every face-up card)."""
    seat = games * g.players + me
    unseen: IntArray = (
        g.deck0
        - g.discard[games]
        - g._hand_rows.take(seat, axis=0)
        - g._down_rows.take(seat, axis=0)
        - g.face_up.take(games, axis=0).sum(axis=1)
    )
    return unseen


def _ship(g: Any, games: IntArray, position: IntArray) -> IntArray:
    """The ship value of the island at ring position ``position`` of each game."""
    ship: IntArray = g.ship[g._ring_flat[games * g.n_islands + position]]
    return ship


def _success(attack: FloatArray, defence: FloatArray) -> FloatArray:
    """The agent's chance of a mutiny succeeding: a logistic in the margin."""
    success: FloatArray = 1.0 / (1.0 + np.exp(-(1.3 * (attack - defence + 0.5))))
    return success
