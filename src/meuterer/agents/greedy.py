"""A rule-based player that looks only at its own view.

:class:`GreedyAgent` scores each of its options with a few hand-written estimates and
takes the best. It plays toward majorities on the active islands, offers the mate more
when a mutiny is likely, picks the role with the highest expected value, commits
support cards when they decide the mutiny, declares the best-scoring sales and keeps
the loadmaster's best cards. Everything it knows comes from its
:class:`~meuterer.views.PlayerView`; hidden cards are estimated from ``view.unseen``.

>>> from meuterer.agents import GreedyAgent, RandomAgent, play_game
>>> actions, final = play_game([GreedyAgent(), RandomAgent(), RandomAgent(), RandomAgent()], seed=1)
>>> final.scores[0] > max(final.scores[1:])
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import product

from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sell, Support
from meuterer.cards import GOODS, Card, Counts, Role
from meuterer.rulings import robbery, strengths
from meuterer.views import PlayerView

from .base import Decision
from .estimates import (
    CAPTAINCY,
    KEEP,
    KEEP_GOOD,
    LOADMASTER,
    MUTINY_WEIGHT,
    PLAY_COST,
    TUNED_EXTRA,
    Competition,
    best_sales,
    bought,
    captain_weight,
    competition,
    give_up_costs,
    hand_value,
    hypergeometric_tail,
    keep_value,
    mutiny_points,
    opponent_count,
    points_on,
    role_label,
    role_values,
    ship_at,
    stake,
    support_share,
)
from .reasons import explain

__all__ = [
    "CAPTAINCY",
    "KEEP",
    "KEEP_GOOD",
    "LOADMASTER",
    "MUTINY_WEIGHT",
    "PLAY_COST",
    "TUNED_EXTRA",
    "Competition",
    "GreedyAgent",
    "best_sales",
    "bought",
    "competition",
    "hypergeometric_tail",
    "keep_value",
    "opponent_count",
    "points_on",
    "role_label",
    "support_share",
]

SUPPORT = Card.SUPPORT
PIRATE = Card.PIRATE


class GreedyAgent:
    """A sensible rule-based player (see the module's description); deterministic given its view."""

    name = "greedy"

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The legal action with the best estimated value."""
        first = legal[0]
        if len(legal) == 1:
            return first
        if isinstance(first, Offer):
            return self.offer(view, legal)
        if isinstance(first, Play | Pass):
            return self.play(view, legal)
        if isinstance(first, ChooseRole):
            return self.role(view, legal)
        if isinstance(first, Support):
            return self.support(view, legal)
        if isinstance(first, Sell):
            return self.sell(view, legal)
        if isinstance(first, Discard):
            return self.discard(view, legal)
        return first  # pragma: no cover - chance actions never reach an agent

    def decide(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Decision:
        """:meth:`act`'s choice with a short reason for it (:meth:`explain`)."""
        action = self.act(view, legal, rng)
        return Decision(action, self.explain(view, legal, action))

    def explain(self, view: PlayerView, legal: Sequence[Action], action: Action) -> str:
        """Why :meth:`act` chose ``action``, in a line (see ``meuterer.agents.reasons``)."""
        return explain(view, legal, action)

    # Phase 1 -------------------------------------------------------------------------

    def offer(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Offer more when a mutiny is likely: 2 without support cards, 1 with one, 0 with two or more."""
        supports = view.hand[SUPPORT]
        wanted = 2 if supports == 0 else 1 if supports == 1 else 0
        offers = [a for a in legal if isinstance(a, Offer)]
        return min(offers, key=lambda a: abs(a.amount - wanted))

    # Phase 2: playing and passing ------------------------------------------------------

    def play(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Plan the cards still to play, then play the most useful of them (or pass).

        A plan plays some goods that the active islands buy (every sub-multiset is
        tried) and some other cards, cheapest to lose first, only to shorten the hand:
        the cards left when passing set the destination. A plan is worth its best sales
        against the others' face-up cards, plus the ship value of the destination (for
        the captain weighted by his chance of keeping the ship, for the others by the
        chance of a successful mutiny), minus the worth of the cards given up.
        """
        me = view.player
        assert me is not None
        hand = view.hand
        withholding = view.rules.withholding
        islands = competition(view, me)
        rob = _pirate(view, legal, islands)
        if rob is not None:
            return rob
        buyers = [island for island, _ in islands]
        sellable = [card for card in GOODS if hand[card] and any(i.buys_card(card) for i in buyers)]
        filler = [card for card in GOODS if card not in sellable for _ in range(hand[card])]
        filler += [SUPPORT] * hand[SUPPORT]
        lost = give_up_costs(len(filler) - hand[SUPPORT], hand[SUPPORT])
        size = sum(hand)
        if me == view.captain:
            weight = captain_weight(view.face_up[me][SUPPORT] + hand[SUPPORT], view.offer or 0)
        else:
            weight = MUTINY_WEIGHT
        ships = [weight * ship_at(view, steps) for steps in range(size + 1)]
        face_up = list(view.face_up[me])
        best, plan, extra = -math.inf, (0,) * len(sellable), 0
        for counts in product(*(range(hand[card] + 1) for card in sellable)):
            goods = face_up[:]
            for card, n in zip(sellable, counts, strict=True):
                goods[card] += n
            played = sum(counts)
            base = best_sales(islands, tuple(goods), False, withholding) - played * (KEEP_GOOD + PLAY_COST)
            for x in range(len(filler) + 1):
                value = base - lost[x] + ships[size - played - x]
                if value > best + 1e-9:
                    best, plan, extra = value, counts, x
        if not any(plan):
            if not extra:
                return next(a for a in legal if isinstance(a, Pass))
            card = filler[0]
        else:
            planned = dict(zip(sellable, plan, strict=True))

            def gain(card: Card) -> tuple[int, int]:
                goods = face_up[:]
                goods[card] += 1
                return planned[card], best_sales(islands, tuple(goods), False, withholding)

            card = max((card for card in sellable if planned[card]), key=gain)
        return next(a for a in legal if isinstance(a, Play) and a.card == card)

    # Phase 2: roles --------------------------------------------------------------------

    def role_values(self, view: PlayerView) -> dict[Role, float]:
        """The expected worth of each role this player may take now."""
        return role_values(view)

    def role(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The role with the highest expected value (:meth:`role_values`)."""
        values = self.role_values(view)
        return max(legal, key=lambda a: values.get(a.role, 0.0) if isinstance(a, ChooseRole) else -math.inf)

    # Phase 4: the mutiny -----------------------------------------------------------------

    def support(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The support count with the best chance of winning the mutiny for the price of the
        cards: enough to decide it if later opponents reveal what they probably hold, else none."""
        me = view.player
        assert me is not None
        roles = view.roles
        captain = view.captain
        defenders = {captain} | {s for s, r in enumerate(roles) if r is Role.MATE}
        attackers = {s for s, r in enumerate(roles) if r in (Role.MUTINEER, Role.CABIN_BOY)}
        defence, attack = strengths(view)
        defending = me in defenders
        opponents = attackers if defending else defenders
        hidden_cards = sum(view.face_down_sizes[s] for s in view.queue if s in opponents)
        stake = self.stake(view)
        best, choice = -math.inf, legal[0]
        for action in legal:
            assert isinstance(action, Support)
            k = action.count
            margin = (defence + k - attack - 1) if defending else (attack + k - defence)
            p_win = hypergeometric_tail(view.unseen[SUPPORT], sum(view.unseen), hidden_cards, margin)
            value = p_win * stake - k * KEEP[Card.SUPPORT]
            if value > best + 1e-9:
                best, choice = value, action
        return choice

    def mutiny_points(self, view: PlayerView) -> int:
        """The role points this player scores in phase 5 if his side wins the mutiny."""
        return mutiny_points(view)

    def stake(self, view: PlayerView) -> float:
        """What winning the mutiny is worth to this player (see ``meuterer.agents.estimates``)."""
        return stake(view)

    # Phase 5: sales ------------------------------------------------------------------------

    def sell(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The declaration earning the most, against what the others declared or can declare;
        of equal ones, the one leaving the others least."""
        me = view.player
        assert me is not None
        islands = [view.island(pos) for pos in view.active]
        counts = [[opponent_count(view, s, island) for s in range(view.players)] for island in islands]
        merchant = [role is Role.MERCHANT for role in view.roles]
        best: tuple[int, int] = (-1, 0)
        choice = legal[0]
        for action in legal:
            assert isinstance(action, Sell)
            mine = others = 0
            for island, row in zip(islands, counts, strict=True):
                row = list(row)
                row[me] = sum(sale.count for sale in action.sales if sale.island == island.name)
                for seat in range(view.players):
                    rest = row[:seat] + row[seat + 1 :]
                    points = points_on(island, row[seat], rest, merchant[seat])
                    if seat == me:
                        mine += points
                    else:
                        others += points
            key = (mine, -others)
            if key > best:
                best, choice = key, action
        return choice

    # Phase 8: the loadmaster's discard -------------------------------------------------

    def hand_value(self, view: PlayerView, hand: Counts) -> float:
        """The worth of a hand for the next round (see ``meuterer.agents.estimates``)."""
        return hand_value(view, hand)

    def discard(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Discard the cards (``loadmaster_extra`` of them) whose loss leaves the best hand
        (:meth:`hand_value`)."""

        def left(action: Action) -> float:
            assert isinstance(action, Discard)
            hand = list(view.hand)
            for card in action.cards:
                hand[card] -= 1
            return self.hand_value(view, tuple(hand))

        return max(legal, key=left)


def _pirate(view: PlayerView, legal: Sequence[Action], islands: Competition) -> Action | None:
    """Play the pirate card when its robbery hurts the others more than oneself."""
    me = view.player
    if view.pirate is None or not view.hand[PIRATE] or me is None:
        return None
    if not robbery(view, sum(view.hand) - 1):
        return None
    withholding = view.rules.withholding
    mine = best_sales(islands, view.face_up[me], False, withholding)
    theirs = 0
    for seat in range(view.players):
        if seat != me:
            others = competition(view, seat)
            theirs += best_sales(others, view.face_up[seat], False, withholding)
    if theirs / (view.players - 1) - mine > 1.5:
        return next(a for a in legal if isinstance(a, Play) and a.card == PIRATE)
    return None
