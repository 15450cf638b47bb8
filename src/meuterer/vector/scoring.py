"""The batch engine's phase 5: role points, the sale declarations and the islands' payout
(the effects and guards of :mod:`meuterer.phases.scoring`, batched). The declarations
open to a seller are a combinatorial rule: asked of the reference once per key
(:func:`~meuterer.vector.convert.ask_reference`).

>>> from meuterer.phases import scoring
>>> from meuterer.vector import engine
>>> from meuterer.vector.registry import GUARDS
>>> GUARDS[scoring.last_round].__name__
'last_round'
"""

from __future__ import annotations

import numpy as np

from meuterer.phases import scoring
from meuterer.phases.scoring import is_last_round, leader_points, role_payouts
from meuterer.rules import SaleOrder
from meuterer.state import Step
from meuterer.vector.arrays import (
    CABIN_BOY,
    MATE,
    MERCHANT,
    MUTINEER,
    N_GOODS,
    NO,
    BoolArray,
    FloatArray,
    IntArray,
    c_einsum,
    whole_rows,
)
from meuterer.vector.batch import Batch
from meuterer.vector.convert import ask_reference
from meuterer.vector.registry import choose, effect, guard, legal


@effect(scoring.score_roles)
def score_roles(g: Batch, idx: IntArray, a: IntArray) -> None:
    """Role points (:func:`~meuterer.phases.scoring.role_payouts`); then every seat declares
    sales in turn from the captain (the new one or the round's, by ``sale_order``)."""
    n = g.players
    key = g._role_keys(idx)
    won = (g.mutiny[idx] == 1).astype(np.int64)
    old = g.captain[idx]
    mate, boy = g._role_seat[MATE].take(key), g._role_seat[CABIN_BOY].take(key)
    scorer = np.where(won, g._role_seat[MUTINEER].take(key), old)
    dest = np.where(won, g.mutineer_destination[idx], g.captain_destination[idx])
    ship = g.ship[g._ring_flat[idx * g.n_islands + dest]]
    has_mate, has_boy = mate >= 0, boy >= 0
    points, mate_points, boy_points = role_payouts(won, ship, g.offer[idx], has_mate, has_boy, g.rules.cabin_boy_points)
    base = idx * n
    g._scores_flat[base + scorer] += points
    g._scores_flat[(base + mate)[has_mate]] += mate_points[has_mate]
    if np.count_nonzero(has_boy):
        g._scores_flat[(base + boy)[has_boy]] += boy_points[has_boy]
    g.captain[idx] = scorer
    first = scorer if g.rules.sale_order is SaleOrder.NEW_CAPTAIN else old
    g.to_act[idx] = first
    g._whole["queue"][idx] = g._others_after[first]
    g.queue_len[idx] = n - 1


def sell_rows(g: Batch, idx: IntArray) -> IntArray:
    """The row of the sale declarations' table holding each seller's (the key: what the
    active islands buy and the goods he shows that they buy)."""
    n = g.n_islands
    active = g.active.take(idx, axis=0)
    pair = g._ring_flat.take((idx * n)[:, None] + np.maximum(active, 0))
    pair = pair[:, 0] * (n + 1) + np.where(active[:, 1] < 0, n, pair[:, 1])  # (no second island: n)
    goods = g._up_rows.take(idx * g.players + g.to_act[idx], axis=0)[:, :N_GOODS]
    goods *= g._pair_buys.take(pair, axis=0)
    key: IntArray = goods @ g._goods_stride
    key += g._pair_key[pair]
    return ask_reference(g, key, idx, g._sells)


@legal(Step.SELL)
def declarations(g: Batch, idx: IntArray, mask: BoolArray, rows: IntArray) -> None:
    found = g._memo("sell", idx, sell_rows)  # (first: it may grow the table)
    mask[rows, g.ids.sell.start : g.ids.sell.stop] = g._sells.mask[found]


@choose(Step.SELL)
def any_declaration(g: Batch, idx: IntArray, u: FloatArray) -> IntArray:
    chosen: IntArray = g._sells.pick(g._memo("sell", idx, sell_rows), u)
    return chosen


def _record(g: Batch, idx: IntArray, a: IntArray) -> None:
    index = a - g.ids.sell.start
    row = idx * g.players + g.to_act[idx]
    slots = g._sell_slots.take(index, axis=0)
    g._sales_seat[row] = whole_rows(slots)
    g._sale_islands_seat[row] = whole_rows(np.where(slots > 0, g.active.take(idx, axis=0), NO))


@effect(scoring.declare)
def declare(g: Batch, idx: IntArray, a: IntArray) -> None:
    _record(g, idx, a)
    g._next_in_queue(idx)


@effect(scoring.declare_last)
def declare_last(g: Batch, idx: IntArray, a: IntArray) -> None:
    """The last declaration; each active island pays its leaders
    (:func:`~meuterer.phases.scoring.leader_points`, the values of
    :func:`~meuterer.phases.scoring.shared_value`)."""
    _record(g, idx, a)
    # Both islands at once, in arrays (island, seat, game): numpy is slow over the short
    # axes of (game, seat, island) arrays.
    active = g.active.take(idx, axis=0).T  # (2, m)
    sold = g.slot_count.take(g.sales.take(idx, axis=0).T)  # (2, P, m)
    sold *= (active >= 0)[:, None, :]
    most = sold.max(axis=1)
    leads = (sold == most[:, None, :]) & (most > 0)[:, None, :]
    count = c_einsum("kpi->ki", leads.view(np.int8)).astype(np.int64)
    columns = g.players + 1
    island = g._ring_flat.take(idx * g.n_islands + np.maximum(active, 0)) * columns
    merchant = (g.roles.take(idx, axis=0) == MERCHANT).T  # (P, m)
    first, shared = g.values.take(island + 1)[:, None, :], g.values.take(island + count)[:, None, :]
    points = leader_points(leads, merchant, first, shared)
    scores = g.scores.take(idx, axis=0)
    scores += (points[0] + points[1]).T
    g._whole["scores"][idx] = whole_rows(scores)


@guard(scoring.last_seller)
def last_seller(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    last: BoolArray = g.queue_len[idx] == 0
    return last


@guard(scoring.last_round)
def last_round(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    last: BoolArray = is_last_round(g.round[idx], g.rounds)
    return last
