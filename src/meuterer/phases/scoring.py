"""Phase 5: role points, then sale declarations and sales on the active islands."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import add, is_
from typing import Any, Protocol

from meuterer._cache import Memo
from meuterer.actions import Action, Sale, Sell
from meuterer.cards import GOODS, MAX_SEATS, Counts, Role
from meuterer.islands import Island
from meuterer.phases.common import Board, Changes, Table, clockwise_from, set_at
from meuterer.phases.ids import rule
from meuterer.phases.mutiny import holder
from meuterer.rules import SaleOrder
from meuterer.state import State, Step

_MERCHANT = Role.MERCHANT


@rule("p5.mutiny-succeeds")
def role_points(state: Table) -> tuple[tuple[int, ...], int]:
    """The scores after role points, and the captain afterwards.

    No mutiny or a failed one: the captain scores his destination's ship value; with a
    mate he pays the offer and the mate scores 1 + offer. A successful mutiny: the
    mutineer scores his destination and becomes captain; the cabin boy scores 2.
    """
    scores = list(state.scores)
    captain = state.captain
    mate, cabin_boy = holder(state, Role.MATE), holder(state, Role.CABIN_BOY)
    if state.mutiny:
        mutineer = holder(state, Role.MUTINEER)
        assert mutineer is not None
        assert state.mutineer_destination is not None
        destination, captain = state.mutineer_destination, mutineer
    else:
        assert state.captain_destination is not None
        destination = state.captain_destination
    assert state.offer is not None
    ship = state.island(destination).ship
    won = 1 if state.mutiny else 0
    scorer, paid_mate, paid_boy = role_payouts(
        won, ship, state.offer, mate is not None, cabin_boy is not None, state.rules.cabin_boy_points
    )
    scores[captain] += scorer
    if mate is not None:
        scores[mate] += paid_mate
    if cabin_boy is not None:
        scores[cabin_boy] += paid_boy
    return tuple(scores), captain


@rule("p5.captain-keeps", "p5.no-mate")
def role_payouts(
    won: Any, ship: Any, offer: Any, mate: Any, cabin_boy: Any, cabin_boy_points: int
) -> tuple[Any, Any, Any]:
    """Phase 5's role points, over ints or numpy arrays alike: (the scorer's, the mate's,
    the cabin boy's). ``won``: 1 if the mutiny succeeded (the mutineer scores), else 0 (the
    captain scores); ``ship``: the ship value of the scorer's destination; ``mate`` and
    ``cabin_boy``: 1 if someone holds that role. Without a successful mutiny the captain
    pays the mate his ``offer`` and the mate scores 1 + offer; with one the cabin boy
    scores ``cabin_boy_points``.

    >>> role_payouts(0, 5, 2, 1, 1, 2), role_payouts(1, 5, 2, 1, 1, 2)
    ((3, 3, 0), (5, 0, 2))
    """
    kept = mate * (1 - won)
    return ship - offer * kept, (1 + offer) * kept, cabin_boy_points * cabin_boy * won


@rule("p5.sale-order")
def score_roles(state: Table, action: Action | None) -> Changes:
    """Role points; then every player declares sales in turn, starting with the captain."""
    scores, captain = role_points(state)
    first = captain if state.rules.sale_order is SaleOrder.NEW_CAPTAIN else state.captain
    order = clockwise_from(state, first)
    return {"scores": scores, "captain": captain, "to_act": order[0], "queue": order[1:]}


def _declarations(
    player: int, goods: Counts, islands: tuple[tuple[str, Island], ...], withholding: bool
) -> tuple[Action, ...]:
    """Every declaration of ``player`` (see :func:`legal_sell`), uncached."""
    return tuple(Sell(player, sales) for sales in sale_declarations(goods, islands, withholding))


@rule("p5.one-kind", "p5.withholding")
def sale_declarations(
    goods: Sequence[int], islands: Sequence[tuple[str, Island]], withholding: bool
) -> tuple[tuple[Sale, ...], ...]:
    """Every sale declaration of a player showing ``goods`` face up, on the active
    ``islands`` (name and card), in the one order every engine lists them: one kind (and
    count) or nothing per island, in product order; at most the goods held. Under "sell
    what you can" (``withholding`` false) no declared kind is partly kept and no island
    left undeclared would buy a kept good.

    >>> from meuterer.islands import ISLANDS
    >>> hochland = [("hochland", ISLANDS[0])]
    >>> [[str(s) for s in d] for d in sale_declarations((0, 0, 2, 0, 0), hochland, False)]
    [['hochland:wine:2']]
    >>> [[str(s) for s in d] for d in sale_declarations((0, 0, 2, 0, 0), hochland, True)]
    [[], ['hochland:wine:1'], ['hochland:wine:2']]
    """
    buys = [_BOUGHT[island] for _, island in islands]
    # Each island's options: nothing (None), or some count of one kind it buys, with its
    # sale (the declarations share them). Under "sell what you can", part of a kind is
    # sold on one island only if another island buys the rest: the options no declaration
    # can hold are left out (the order of the rest stays the same).
    rows: list[list[tuple[int, int, Sale] | None]] = []
    for i, (name, _) in enumerate(islands):
        elsewhere = () if withholding else {card for j, bought in enumerate(buys) if j != i for card in bought}
        row: list[tuple[int, int, Sale] | None] = [None]
        for card in buys[i]:
            have = goods[card]
            for n in range(1, have + 1):
                if withholding or n == have or card in elsewhere:
                    row.append((card, n, _SALE[name, card, n]))
        rows.append(row)
    # The declarations in product order of the rows (the last island's option varying
    # fastest), walked depth first: a choice that sells more of a kind than is held is
    # dropped with every declaration that extends it.
    found: list[tuple[Sale, ...]] = []
    sold = [0] * _GOODS_END
    chosen: list[Sale] = []
    idle: list[tuple[int, ...]] = []  # what the islands with nothing declared buy
    last = len(rows) - 1

    def walk(i: int) -> None:
        for option in rows[i]:
            if option is None:
                idle.append(buys[i])
                if i < last:
                    walk(i + 1)
                else:
                    keep()
                idle.pop()
                continue
            card, n, sale = option
            total = sold[card] + n
            if total > goods[card]:
                continue
            sold[card] = total
            chosen.append(sale)
            if i < last:
                walk(i + 1)
            else:
                keep()
            chosen.pop()
            sold[card] = total - n

    def keep() -> None:
        if not withholding:
            for card in _GOOD_KINDS:  # no declared kind partly kept
                if sold[card] and sold[card] != goods[card]:
                    return
            for bought in idle:  # no undeclared island buys a kept good
                for card in bought:
                    if goods[card] > sold[card]:
                        return
        found.append(tuple(chosen))

    if rows:
        walk(0)
    else:
        found.append(())
    return tuple(found)


_GOOD_KINDS = tuple(map(int, GOODS))
_BOUGHT: Memo[Island, tuple[int, ...]] = Memo(
    lambda island: tuple(int(card) for card in GOODS if island.buys_card(card)), size=256
)
"""The kinds an island buys, in card order."""
_SALE: Memo[tuple[str, int, int], Sale] = Memo(lambda key: Sale(*key), size=1 << 12)
"""One sale of ``count`` cards of a kind on a named island (shared by every declaration)."""


# Sale declarations depend only on the seller, his face-up goods, the active islands'
# cards and the withholding option: kept per island table (equal tables, such as the same
# rules read back from a record, share one memo) on the last three, as small hashable
# values, then per seat. The table last asked about is remembered with its memo (held, so
# compared by identity), so a game's sales do not hash the table.
_GOODS_END = max(GOODS) + 1
_SellKey = tuple[Counts, tuple[int, ...], bool]
_SellEntry = tuple[list[tuple[Action, ...] | None], tuple[tuple[Sale, ...], ...]]
_SELL_MEMOS: Memo[tuple[Island, ...], Memo[_SellKey, _SellEntry]] = Memo(lambda table: Memo(size=1 << 15), size=8)
"""Each island table's memo of sale declarations (at most 8 tables of 32,768 keys)."""
_last_table: tuple[tuple[Island, ...], Memo[_SellKey, _SellEntry]] = ((), Memo(size=1))


def legal_sell(state: State) -> tuple[Action, ...]:
    """Every sale declaration open to the player to act.

    One kind of good per island; a kind may be split across both islands. Under the
    default rule he must sell what he can (see :attr:`meuterer.Rules.withholding`).
    """
    global _last_table
    p = state.to_act
    rules = state.rules
    table = rules.islands
    last = _last_table  # one read: another thread may replace it meanwhile
    if last[0] is table:
        cache = last[1]
    else:
        cache = _SELL_MEMOS[table]
        _last_table = (table, cache)
    goods = state.face_up[p][:_GOODS_END]
    indices = tuple(map(state.ring.__getitem__, state.active))
    key = (goods, indices, rules.withholding)
    found = cache.get(key)
    if found is None:
        islands = tuple((table[i].name, table[i]) for i in indices)
        sale_lists = sale_declarations(goods, islands, rules.withholding)
        found = ([None] * MAX_SEATS, sale_lists)
        if len(sale_lists) <= 1024:  # huge lists (extreme decks) are not kept
            cache.put(key, found)
    per_seat, sale_lists = found
    declarations = per_seat[p]
    if declarations is None:
        declarations = per_seat[p] = tuple(Sell(p, sales) for sales in sale_lists)
    return declarations


def last_seller(state: State, action: Action) -> bool:
    """Guard: every player has declared."""
    return not state.queue


def last_round(state: State, action: Action) -> bool:
    """Guard: this is the game's last round, which ends after phase 5."""
    return bool(is_last_round(state.round, state.rules.rounds_for(state.players)))


@rule("end.last-round")
def is_last_round(round_: Any, rounds: int) -> Any:
    """Whether round ``round_`` of a game of ``rounds`` rounds is its last (over ints or
    numpy arrays alike).

    >>> is_last_round(8, 8), is_last_round(7, 8)
    (True, False)
    """
    return round_ >= rounds


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
    most = max(sold) if sold else 0
    if most <= 0:
        return tuple(points)
    values = island.values
    shared = shared_value(values, sold.count(most))
    for p, n in enumerate(sold):
        if n == most:  # a leader
            points[p] = leader_points(True, p < len(merchants) and merchants[p], values[0], shared)
    return tuple(points)


@rule("p5.leaders")
def shared_value(values: Sequence[int], leaders: int) -> int:
    """What each of ``leaders`` tied leaders scores on an island of ``values`` (I, II, III):
    the value for that many leaders, nothing past the island's table.

    >>> shared_value((4, 3, 2), 2), shared_value((4, 3, 2), 4)
    (3, 0)
    """
    return values[leaders - 1] if 0 < leaders <= len(values) else 0


@rule("p5.merchant")
def leader_points(leads: Any, merchant: Any, first: Any, shared: Any) -> Any:
    """A seller's points on an island, over ints, bools or numpy arrays alike: a leader
    (``leads``) scores ``shared`` (:func:`shared_value`), a merchant among the leaders
    ``first`` (the island's value I); others nothing.

    >>> leader_points(True, False, 4, 3), leader_points(True, True, 4, 3), leader_points(False, True, 4, 3)
    (3, 4, 0)
    """
    return leads * (merchant * first + (1 - merchant) * shared)


def relative_utilities(scores: Any, total: Any, players: int) -> Any:
    """The ``relative`` utility of seats scoring ``scores`` in a game whose scores sum to
    ``total``: one's score minus the mean of the others' (floats or float arrays alike).

    >>> relative_utilities(27, 76, 3)
    2.5
    """
    return scores - (total - scores) / (players - 1)


def win_shares(best: Any, leaders: Any) -> Any:
    """The ``win`` utility of a finished game's seat: 1 shared by the ``leaders`` seats with
    the best score (``best``: whether this seat is one), over numbers or arrays alike.

    >>> win_shares(True, 2), win_shares(False, 2)
    (0.5, 0.0)
    """
    return best / leaders


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
    # Each island's cards sold by each seat, in one pass over the declarations.
    sold_on: dict[str, list[int]] = {}
    for p, declared in enumerate(sales):
        if declared:
            for sale in declared:
                sold = sold_on.get(sale.island)
                if sold is None:
                    sold = sold_on[sale.island] = [0] * len(sales)
                sold[p] += sale.count
    points = [0] * board.players
    if not sold_on:
        return tuple(points)
    merchants = list(map(is_, board.roles, repeat(_MERCHANT)))
    islands, ring = board.rules.islands, board.ring
    for position in board.active:
        island = islands[ring[position % len(ring)]]  # board.island(position)
        sold = sold_on.get(island.name)
        if sold is not None and any(sold):
            for p, won in enumerate(island_points(island, sold, merchants)):
                points[p] += won
    return tuple(points)


def declare_last(state: State, action: Sell) -> Changes:
    """Record the last declaration and score every island's sales."""
    sales = set_at(state.sales, action.player, action.sales)
    points = sale_points(state, sales)
    return {"sales": sales, "scores": tuple(map(add, state.scores, points))}


class Standings(Protocol):
    """What :func:`winners` reads: a :class:`~meuterer.state.State` or any player's view."""

    @property
    def step(self) -> Step: ...
    @property
    def scores(self) -> tuple[int, ...]: ...


def winners(board: Standings) -> tuple[int, ...]:
    """The seats with the most points once the game is over (ties share the win); ``()`` before."""
    if board.step is not Step.GAME_OVER:
        return ()
    return leaders(board.scores)


@rule("end.winner")
def leaders(scores: Sequence[int]) -> tuple[int, ...]:
    """The seats with the most points (ties share the lead).

    >>> leaders((5, 9, 9, 2))
    (1, 2)
    """
    best = max(scores)
    return tuple(p for p, score in enumerate(scores) if score == best)
