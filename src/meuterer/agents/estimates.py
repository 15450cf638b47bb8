"""The greedy bot's estimates, pure functions of a player's view: points and best sales on
the islands, the competition for them, the worth of cards kept, of each role, of winning the
mutiny and of a hand. :class:`~meuterer.agents.greedy.GreedyAgent` decides by them."""

from __future__ import annotations

import math
from collections.abc import Sequence

from meuterer._cache import bounded
from meuterer.cards import GOODS, Card, Counts, Role
from meuterer.islands import Island
from meuterer.rules import Rules
from meuterer.rulings import destination, island_points, mate_points, role_points, sale_declarations
from meuterer.views import PlayerView

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


def captain_weight(supports: int, offer: int) -> float:
    """How much of his destination's ship value the captain counts on when planning his
    plays: his chance of keeping the ship, rising with the support cards he holds (face up
    and in hand) and the mate's offer.

    >>> captain_weight(0, 0), captain_weight(2, 1), captain_weight(9, 3)
    (0.45, 0.8, 0.95)
    """
    return min(0.95, max(0.3, 0.45 + 0.15 * supports + 0.05 * offer))


def give_up_costs(goods: int, supports: int) -> list[float]:
    """What laying down the first ``x`` of these cards costs, for each ``x`` from 0: first
    ``goods`` goods no active island buys, then ``supports`` support cards (each worth
    keeping, :data:`KEEP`, plus :data:`PLAY_COST`).

    >>> [round(x, 2) for x in give_up_costs(2, 1)]
    [0.0, 0.15, 0.3, 1.15]
    """
    lost = [0.0]
    for keep in [KEEP_GOOD] * goods + [KEEP[SUPPORT]] * supports:
        lost.append(lost[-1] + keep + PLAY_COST)
    return lost


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


def last_round(view: PlayerView) -> bool:
    return view.round >= view.rules.rounds_for(view.players)


def ship_at(view: PlayerView, cards: int) -> int:
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


def role_values(view: PlayerView) -> dict[Role, float]:
    """The expected worth of each role this player may take now."""
    me = view.player
    assert me is not None and view.roles_seen is not None
    n = view.players
    seen = view.roles_seen
    before = view.role_order
    later = (n - 1) - len(before) - 1
    q = support_share(view)
    captain = view.captain
    last = last_round(view)
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
        captain_ship = ship_at(view, view.hand_sizes[captain])
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
            gain = ship_at(view, sum(view.face_down)) + future + (captain_ship - offer) / (n - 1)
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
                    best_sales(islands, face_up, True, withholding) - best_sales(islands, face_up, False, withholding)
                )
            values[role] = value
        else:
            values[role] = 0.0 if last else LOADMASTER * (view.rules.loadmaster_extra / TUNED_EXTRA)
    return values


def mutiny_points(view: PlayerView) -> int:
    """The role points this player scores in phase 5 if his side wins the mutiny (by the
    engine's own rule, :func:`meuterer.rulings.role_points`)."""
    me = view.player
    assert me is not None
    return role_points(view, mutiny=view.roles[me] in (Role.MUTINEER, Role.CABIN_BOY))[me]


def stake(view: PlayerView) -> float:
    """What winning the mutiny is worth to this player: :func:`mutiny_points`, and for the
    captain or the mutineer the captain cards for the next round (``CAPTAINCY``, but
    not in the last)."""
    me = view.player
    assert me is not None
    keeps_ship = me == view.captain or view.roles[me] is Role.MUTINEER
    return mutiny_points(view) + (CAPTAINCY if keeps_ship and not last_round(view) else 0.0)


def hand_value(view: PlayerView, hand: Counts) -> float:
    """The worth of a hand for the next round: supports, and goods the active islands buy."""
    islands = [view.island(pos) for pos in view.active]
    value = keep_value(hand)
    for card in GOODS:
        if hand[card]:
            buyers = [island.values[0] for island in islands if island.buys_card(card)]
            if buyers:
                value += hand[card] * (0.2 + 0.05 * max(buyers)) + 0.3 * (hand[card] - 1)
    return value
