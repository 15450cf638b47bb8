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

from meuterer._cache import bounded
from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sell, Support
from meuterer.cards import GOODS, Card, Counts, Role
from meuterer.islands import Island
from meuterer.rules import Rules
from meuterer.rulings import (
    destination,
    island_points,
    mate_points,
    robbery,
    role_points,
    sale_declarations,
    strengths,
)
from meuterer.views import PlayerView

from .base import Decision

SUPPORT = Card.SUPPORT
PIRATE = Card.PIRATE

CAPTAINCY = 2.0
"""Rough worth, in VP, of holding the captain cards for the next round."""
KEEP = {Card.SUPPORT: 0.8, Card.PIRATE: 0.3}
"""Worth of keeping a card of a kind (laying it face down instead of playing it); goods: ``KEEP_GOOD``."""
KEEP_GOOD = 0.1
MUTINY_WEIGHT = 0.25
"""How much of his destination's ship value a non-captain counts on when planning his plays."""
LOADMASTER = 0.8
"""Worth of the loadmaster's extra cards (none in the last round) when he draws as many as the
rulebook says (:data:`TUNED_EXTRA`); in proportion to them otherwise."""
TUNED_EXTRA = Rules().loadmaster_extra
"""The number of extra cards :data:`LOADMASTER` was tuned for: the default ``loadmaster_extra``."""
PLAY_COST = 0.05
"""A small price per card played, so that of two equal plans the one that passes sooner wins."""


def points_on(island: Island, mine: int, others: Sequence[int], merchant: bool = False) -> int:
    """What selling ``mine`` cards on ``island`` earns against the others' counts there
    (the rule itself: :func:`meuterer.rulings.island_points`).

    >>> from meuterer import ISLANDS
    >>> hochland = ISLANDS[0]  # values 4/3/2
    >>> points_on(hochland, 3, [2, 1]), points_on(hochland, 2, [2, 0]), points_on(hochland, 2, [2, 2, 2])
    (4, 3, 0)
    >>> points_on(hochland, 2, [2, 2, 2], merchant=True), points_on(hochland, 1, [2])
    (4, 0)
    """
    return _points_on(island, mine, tuple(others), merchant)


@bounded(size=1 << 14)
def _points_on(island: Island, mine: int, others: tuple[int, ...], merchant: bool) -> int:
    return island_points(island, (mine, *others), (merchant,))[0]


@bounded(size=64)
def bought(island: Island) -> tuple[Card, ...]:
    """The goods ``island`` buys."""
    return tuple(card for card in GOODS if island.buys_card(card))


Competition = tuple[tuple[Island, tuple[int, ...]], ...]
"""The active islands, each with the other players' counts there."""


@bounded(size=1 << 16)
def best_sales(islands: Competition, goods: Counts, merchant: bool = False, withholding: bool = False) -> int:
    """The most points ``goods`` can earn on the active ``islands`` (each with the others'
    counts there) by a declaration the rules allow (:func:`meuterer.rulings.sale_declarations`:
    one kind per island, a kind possibly split between two islands; with ``withholding``
    false, the rule set's default, the seller must sell what he can).

    >>> from meuterer import ISLANDS
    >>> hochland, karge_zunge = ISLANDS[0], ISLANDS[3]  # 4/3/2 any good, 6/3/2 grain
    >>> best_sales(((hochland, (1,)), (karge_zunge, (1,))), (0, 0, 0, 0, 4, 0, 0))
    10
    """
    best = 0
    for sold in _counts_sold(goods, tuple(island for island, _ in islands), withholding):
        total = 0
        for (island, others), count in zip(islands, sold, strict=True):
            if count:
                total += _points_on(island, count, others, merchant)
        if total > best:
            best = total
    return best


@bounded(size=1 << 14)
def _counts_sold(goods: Counts, islands: tuple[Island, ...], withholding: bool) -> tuple[tuple[int, ...], ...]:
    """How many cards each island gets in the legal declarations of a seller showing ``goods``
    on ``islands`` (the points depend on nothing else), each distinct outcome once."""
    index = {island.name: i for i, island in enumerate(islands)}
    outcomes = set()
    for declaration in sale_declarations(goods, [(island.name, island) for island in islands], withholding):
        sold = [0] * len(islands)
        for sale in declaration:
            sold[index[sale.island]] += sale.count
        outcomes.add(tuple(sold))
    return tuple(sorted(outcomes))


def opponent_count(view: PlayerView, seat: int, island: Island) -> int:
    """How many cards ``seat`` sells on ``island``: his declaration once made, else the most
    he could sell there from his face-up cards."""
    declared = view.sales[seat]
    if declared is not None:
        return sum(sale.count for sale in declared if sale.island == island.name)
    face_up = view.face_up[seat]
    return max((face_up[card] for card in bought(island)), default=0)


def competition(view: PlayerView, me: int, later: bool = False) -> Competition:
    """Each active island with the other players' (estimated) counts there; with ``later``,
    one card more for each player who has not passed and holds cards."""
    seats = [seat for seat in range(view.players) if seat != me]
    more = [int(later and not view.passed[seat] and view.hand_sizes[seat] > 0) for seat in seats]
    return tuple(
        (island, tuple(opponent_count(view, seat, island) + extra for seat, extra in zip(seats, more, strict=True)))
        for island in (view.island(pos) for pos in view.active)
    )


def support_share(view: PlayerView) -> float:
    """The chance that an unseen card is a support card."""
    total = sum(view.unseen)
    return view.unseen[SUPPORT] / total if total else 0.0


def keep_value(cards: Counts) -> float:
    """The worth of keeping ``cards`` face down (they come back to the hand)."""
    return sum(count * KEEP.get(Card(card), KEEP_GOOD) for card, count in enumerate(cards) if count)


def role_label(role: Role) -> str:
    """A role's name in words (``cabin boy``)."""
    return str(role).replace("_", " ")


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _last_round(view: PlayerView) -> bool:
    return view.round >= view.rules.rounds_for(view.players)


def _ship(view: PlayerView, cards: int) -> int:
    return view.island(destination(view, cards)).ship


def hypergeometric_tail(successes: int, population: int, draws: int, at_most: int) -> float:
    """P(X <= ``at_most``) for X the successes among ``draws`` cards taken from ``population``
    cards of which ``successes`` are successes.

    >>> hypergeometric_tail(6, 20, 3, 0) == math.comb(14, 3) / math.comb(20, 3)
    True
    """
    if at_most < 0:
        return 0.0
    draws = min(draws, population)
    total = math.comb(population, draws)
    if total == 0:
        return 1.0
    hits = sum(
        math.comb(successes, x) * math.comb(population - successes, draws - x)
        for x in range(min(at_most, draws, successes) + 1)
    )
    return hits / total


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
        """Why :meth:`act` chose ``action``, in a line (costs a second look at the options)."""
        if len(legal) == 1:
            return "the only legal move"
        if isinstance(action, Offer):
            return f"offers {action.amount}: the likelier a mutiny, the more it offers, so that a mate sides with it"
        if isinstance(action, Play | Pass):
            return self._explain_play(view, legal, action)
        if isinstance(action, ChooseRole):
            values = self.role_values(view)
            listed = ", ".join(f"{role_label(r)} {v:.1f}" for r, v in sorted(values.items(), key=lambda i: -i[1]))
            text = f"expected VP: {listed}"
            if action.role is Role.MUTINEER:
                mine = destination(view, sum(view.face_down))
                text += f"; as mutineer it sails to {view.island_name(mine)}"
                if mine == view.captain_destination:
                    text += (
                        ", the captain's destination too: a successful mutiny takes the captain's ship value "
                        "and the captain cards from him"
                    )
            return text
        if isinstance(action, Support):
            captain_side, mutineer_side = strengths(view)
            return (
                f"sides so far: captain {captain_side}, mutineer {mutineer_side}; turning up {action.count} "
                "gives the best chance of winning for the price of the cards"
            )
        if isinstance(action, Sell):
            return "the declaration scoring the most for itself, then leaving the others the least"
        if isinstance(action, Discard):
            return "keeps the hand worth most next round (supports, goods the active islands buy)"
        return "the best estimated value"  # pragma: no cover - chance actions never reach an agent

    def _explain_play(self, view: PlayerView, legal: Sequence[Action], action: Action) -> str:
        me = view.player
        assert me is not None
        if isinstance(action, Play) and action.card is PIRATE:
            return "the pirates' robbery costs the others more than itself"
        size = sum(view.hand)
        if not isinstance(action, Play):
            where = view.island_name(view.start + size)
            return f"passes with {size} card(s), destination {where}: no card is worth more played than kept"
        islands = [view.island(pos) for pos in view.active]
        buyers = [island.name for island in islands if island.buys_card(action.card)]
        if buyers:
            return f"plays {action.card} toward a majority on {', '.join(buyers)}"
        return "plays a card it does not need, to shorten its hand toward a better destination"

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
        rob = self._pirate(view, legal, islands)
        if rob is not None:
            return rob
        buyers = [island for island, _ in islands]
        sellable = [card for card in GOODS if hand[card] and any(i.buys_card(card) for i in buyers)]
        filler = [card for card in GOODS if card not in sellable for _ in range(hand[card])]
        filler += [SUPPORT] * hand[SUPPORT]
        lost = [0.0]
        for card in filler:
            lost.append(lost[-1] + KEEP.get(card, KEEP_GOOD) + PLAY_COST)
        size = sum(hand)
        if me == view.captain:
            supports = view.face_up[me][SUPPORT] + hand[SUPPORT]
            weight = min(0.95, max(0.3, 0.45 + 0.15 * supports + 0.05 * (view.offer or 0)))
        else:
            weight = MUTINY_WEIGHT
        ships = [weight * _ship(view, steps) for steps in range(size + 1)]
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

    def _pirate(self, view: PlayerView, legal: Sequence[Action], islands: Competition) -> Action | None:
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

    # Phase 2: roles --------------------------------------------------------------------

    def role_values(self, view: PlayerView) -> dict[Role, float]:
        """The expected worth of each role this player may take now."""
        me = view.player
        assert me is not None and view.roles_seen is not None
        n = view.players
        seen = view.roles_seen
        before = view.role_order
        later = (n - 1) - len(before) - 1
        q = support_share(view)
        captain = view.captain
        last = _last_round(view)
        future = 0.0 if last else CAPTAINCY

        def hidden(seat: int) -> float:
            return view.face_up[seat][SUPPORT] + q * (view.face_down_sizes[seat] + view.hand_sizes[seat])

        mine = view.face_up[me][SUPPORT] + view.face_down[SUPPORT]
        before_support = sum(hidden(seat) for seat in before) / len(before) if before else q * 3
        mate_gone = Role.MATE not in seen
        boy_gone = Role.CABIN_BOY not in seen
        mutineer_gone = Role.MUTINEER not in seen
        p_later = min(1.0, 0.4 * later)
        captain_side = hidden(captain)
        mate_strength = 1 + before_support if mate_gone else 0.0
        boy_strength = before_support if boy_gone else 0.0
        if view.captain_destination is not None:
            captain_ship = view.island(view.captain_destination).ship
        else:
            captain_ship = _ship(view, view.hand_sizes[captain])
        offer = view.offer or 0
        boy_points = view.rules.cabin_boy_points
        withholding = view.rules.withholding

        def success(attack: float, defence: float) -> float:
            return _logistic(1.3 * (attack - defence + 0.5))

        values: dict[Role, float] = {}
        for role in seen:
            if role is Role.MUTINEER:
                mate = mate_strength if mate_gone else (1.0 * p_later if Role.MATE in seen else 0.0)
                p = success(mine + boy_strength, captain_side + mate)
                gain = _ship(view, sum(view.face_down)) + future + (captain_ship - offer) / (n - 1)
                values[role] = p * gain - 0.2 * mine
            elif role is Role.CABIN_BOY:
                attacker = before_support if mutineer_gone else q * 3
                p_mutiny = 1.0 if mutineer_gone else 0.5 * p_later
                values[role] = p_mutiny * success(attacker + mine, captain_side + mate_strength) * boy_points
            elif role is Role.MATE:
                attacker = before_support + boy_strength if mutineer_gone else q * 3
                p_mutiny = 1.0 if mutineer_gone else 0.6 * p_later
                keep = 1 - p_mutiny * success(attacker, captain_side + 1 + mine)
                values[role] = keep * mate_points(view, offer)
            elif role is Role.MERCHANT:
                # Half as now, half with one more card from every player still playing.
                face_up = view.face_up[me]
                value = 0.0
                for islands in (competition(view, me), competition(view, me, later=True)):
                    value += 0.5 * (
                        best_sales(islands, face_up, True, withholding)
                        - best_sales(islands, face_up, False, withholding)
                    )
                values[role] = value
            else:
                values[role] = 0.0 if last else LOADMASTER * (view.rules.loadmaster_extra / TUNED_EXTRA)
        return values

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
        """The role points this player scores in phase 5 if his side wins the mutiny (by the
        engine's own rule, :func:`meuterer.rulings.role_points`)."""
        me = view.player
        assert me is not None
        return role_points(view, mutiny=view.roles[me] in (Role.MUTINEER, Role.CABIN_BOY))[me]

    def stake(self, view: PlayerView) -> float:
        """What winning the mutiny is worth to this player: :meth:`mutiny_points`, and for the
        captain or the mutineer the captain cards for the next round (``CAPTAINCY``, but
        not in the last)."""
        me = view.player
        assert me is not None
        keeps_ship = me == view.captain or view.roles[me] is Role.MUTINEER
        return self.mutiny_points(view) + (CAPTAINCY if keeps_ship and not _last_round(view) else 0.0)

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
        """The worth of a hand for the next round: supports, and goods the active islands buy."""
        islands = [view.island(pos) for pos in view.active]
        value = keep_value(hand)
        for card in GOODS:
            if hand[card]:
                buyers = [island.values[0] for island in islands if island.buys_card(card)]
                if buyers:
                    value += hand[card] * (0.2 + 0.05 * max(buyers)) + 0.3 * (hand[card] - 1)
        return value

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
