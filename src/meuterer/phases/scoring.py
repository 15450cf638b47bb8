"""Phase 5: role points, then sale declarations and sales on the active islands."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import product

from meuterer.actions import Action, Sale, Sell
from meuterer.cards import GOODS, Counts, Role
from meuterer.islands import Island
from meuterer.phases.common import Board, Changes, clockwise_from, set_at
from meuterer.phases.mutiny import holder
from meuterer.rules import SaleOrder
from meuterer.state import State


def role_points(state: State) -> tuple[tuple[int, ...], int]:
    """The scores after role points, and the captain afterwards.

    No mutiny or a failed one: the captain scores his destination's ship value; with a
    mate he pays the offer and the mate scores 1 + offer. A successful mutiny: the
    mutineer scores his destination and becomes captain; the cabin boy scores 2.
    """
    scores = list(state.scores)
    captain = state.captain
    if state.mutiny:
        mutineer = holder(state, Role.MUTINEER)
        assert mutineer is not None
        assert state.mutineer_destination is not None
        scores[mutineer] += state.island(state.mutineer_destination).ship
        cabin_boy = holder(state, Role.CABIN_BOY)
        if cabin_boy is not None:
            scores[cabin_boy] += state.rules.cabin_boy_points
        captain = mutineer
    else:
        assert state.captain_destination is not None
        assert state.offer is not None
        scores[captain] += state.island(state.captain_destination).ship
        mate = holder(state, Role.MATE)
        if mate is not None:
            scores[captain] -= state.offer
            scores[mate] += 1 + state.offer
    return tuple(scores), captain


def score_roles(state: State, action: Action | None) -> Changes:
    """Role points; then every player declares sales in turn, starting with the captain."""
    scores, captain = role_points(state)
    first = captain if state.rules.sale_order is SaleOrder.NEW_CAPTAIN else state.captain
    order = clockwise_from(state, first)
    return {"scores": scores, "captain": captain, "to_act": order[0], "queue": order[1:]}


@lru_cache(maxsize=4096)
def _declarations(
    player: int, goods: Counts, islands: tuple[tuple[str, Island], ...], withholding: bool
) -> tuple[Action, ...]:
    options = [
        [None] + [(card, n) for card in GOODS if island.buys_card(card) for n in range(1, goods[card] + 1)]
        for _, island in islands
    ]
    found: list[Action] = []
    for choice in product(*options):
        sold = [0] * len(goods)
        for option in choice:
            if option is not None:
                sold[option[0]] += option[1]
        if any(s > g for s, g in zip(sold, goods, strict=False)):
            continue
        if not withholding and not _sells_what_it_can(goods, sold, islands, choice):
            continue
        sales = tuple(
            Sale(name, option[0], option[1])
            for (name, _), option in zip(islands, choice, strict=True)
            if option is not None
        )
        found.append(Sell(player, sales))
    return tuple(found)


def _sells_what_it_can(
    goods: Counts, sold: list[int], islands: tuple[tuple[str, Island], ...], choice: tuple[tuple[int, int] | None, ...]
) -> bool:
    # No face-up card of a declared kind stays unsold...
    if any(sold[card] and sold[card] != goods[card] for card in GOODS):
        return False
    # ...and an island left undeclared buys none of the unsold goods.
    for (_, island), option in zip(islands, choice, strict=True):
        if option is None and any(island.buys_card(card) and goods[card] - sold[card] > 0 for card in GOODS):
            return False
    return True


def legal_sell(state: State) -> tuple[Action, ...]:
    """Every sale declaration open to the player to act.

    One kind of good per island; a kind may be split across both islands. Under the
    default rule he must sell what he can (see :attr:`meuterer.Rules.withholding`).
    """
    p = state.to_act
    islands = tuple((state.island_name(pos), state.island(pos)) for pos in state.active)
    return _declarations(p, state.face_up[p], islands, state.rules.withholding)


def last_seller(state: State, action: Action) -> bool:
    """Guard: every player has declared."""
    return not state.queue


def last_round(state: State, action: Action) -> bool:
    """Guard: this is the game's last round, which ends after phase 5."""
    return state.round >= state.rules.rounds_for(state.players)


def declare(state: State, action: Sell) -> Changes:
    """Record a declaration; the next player declares."""
    changes: Changes = {"sales": set_at(state.sales, action.player, action.sales)}
    if state.queue:
        changes["to_act"] = state.queue[0]
        changes["queue"] = state.queue[1:]
    return changes


def island_points(island: Island, sold: Sequence[int], merchants: Sequence[bool] = ()) -> tuple[int, ...]:
    """Points each seller scores on ``island`` for selling ``sold[p]`` cards there.

    The players selling the most cards lead: one leader scores I, two score II each,
    three score III each, four score nothing; a merchant among the leaders (``merchants[p]``,
    ``False`` for seats not listed) always scores I. Nobody scores when nothing is sold.

    >>> from meuterer.islands import ISLANDS
    >>> hochland = ISLANDS[0]
    >>> hochland.values
    (4, 3, 2)
    >>> island_points(hochland, (3, 2, 1)), island_points(hochland, (2, 2, 0))
    ((4, 0, 0), (3, 3, 0))
    >>> island_points(hochland, (1, 1, 1, 1)), island_points(hochland, (1, 1, 1, 1), (False, True))
    ((0, 0, 0, 0), (0, 4, 0, 0))
    """
    points = [0] * len(sold)
    most = max(sold, default=0)
    if most <= 0:
        return tuple(points)
    leaders = [p for p, n in enumerate(sold) if n == most]
    values = island.values
    shared = values[len(leaders) - 1] if len(leaders) <= len(values) else 0
    for p in leaders:
        points[p] = values[0] if p < len(merchants) and merchants[p] else shared
    return tuple(points)


def sale_points(board: Board, sales: Sequence[tuple[Sale, ...] | None]) -> tuple[int, ...]:
    """Points each player scores for ``sales`` (one declaration per seat) on the active
    islands of ``board`` (see :func:`island_points`; the merchant is read from ``board.roles``).

    >>> import meuterer
    >>> from meuterer.actions import Sale
    >>> from meuterer.cards import Card
    >>> s = meuterer.new_game(3, 0)
    >>> s.active, s.island_name(0)
    ((0,), 'hochland')
    >>> sale_points(s, ((Sale("hochland", Card.WINE, 2),), (Sale("hochland", Card.SALT, 1),), None))
    (4, 0, 0)
    """
    points = [0] * board.players
    merchants = [role is Role.MERCHANT for role in board.roles]
    for position in board.active:
        island = board.island(position)
        name = island.name
        sold = [sum(s.count for s in declared or () if s.island == name) for declared in sales]
        for p, n in enumerate(island_points(island, sold, merchants)):
            points[p] += n
    return tuple(points)


def declare_last(state: State, action: Sell) -> Changes:
    """Record the last declaration and score every island's sales."""
    sales = set_at(state.sales, action.player, action.sales)
    points = sale_points(state, sales)
    return {"sales": sales, "scores": tuple(s + d for s, d in zip(state.scores, points, strict=True))}
