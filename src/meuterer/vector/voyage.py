"""The batch engine's phases 6 to 10 but the draws: sailing, the clean-up that sets up
phase 8, the loadmaster's discard, roles returning and the next round (the effects and
guards of :mod:`meuterer.phases.voyage`, batched). The loadmaster's discards are a
combinatorial rule, asked of the reference once per key
(:func:`~meuterer.vector.convert.ask_reference`).

>>> from meuterer.phases import voyage
>>> from meuterer.vector import engine
>>> from meuterer.vector.registry import EFFECTS
>>> EFFECTS[voyage.next_round].__name__
'next_round'
"""

from __future__ import annotations

import numpy as np

from meuterer.phases import voyage
from meuterer.phases.voyage import cards_to_fill
from meuterer.rules import DiscardPool
from meuterer.state import Step
from meuterer.vector.arrays import LOADMASTER, NO, BoolArray, FloatArray, IntArray, c_einsum, whole_rows
from meuterer.vector.batch import Batch
from meuterer.vector.convert import ask_reference
from meuterer.vector.deal import next_drawer
from meuterer.vector.registry import choose, effect, guard, legal


@effect(voyage.sail)
def sail(g: Batch, idx: IntArray, a: IntArray) -> None:
    """The ship sails to the winning destination; the old and new start are the active islands."""
    dest = np.where(g.mutiny[idx] == 1, g.mutineer_destination[idx], g.captain_destination[idx])
    start = g.start[idx]
    g.start[idx] = dest
    active = np.empty((len(idx), 2), dtype=np.int64)
    lo, hi = np.minimum(start, dest), np.maximum(start, dest)
    active[:, 0] = lo
    active[:, 1] = np.where(lo == hi, NO, hi)
    g._whole["active"][idx] = whole_rows(active)


def _needs(g: Batch, idx: IntArray, hands: IntArray) -> IntArray:
    # (m, P): what each seat holding ``hands`` draws in phase 8 (cards_to_fill)
    held = c_einsum("bpk->bp", hands).astype(np.int64)
    need: IntArray = cards_to_fill(g.hand_size, held, g.extra, g.roles.take(idx, axis=0) == LOADMASTER)
    return need


@guard(voyage.nobody_draws)
def nobody_draws(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    hands = g.hands.take(idx, axis=0) + g.face_down.take(idx, axis=0)
    nobody: BoolArray = np.logical_not((_needs(g, idx, hands) > 0).any(axis=1))
    return nobody


@effect(voyage.clean_up)
def clean_up(g: Batch, idx: IntArray, a: IntArray) -> None:
    """Face-up cards to the discard pile, face-down ones back to hand; then phase 8 is set
    up: drawing from the captain on, skipping full hands."""
    n = g.players
    discard = g.discard.take(idx, axis=0)
    discard += c_einsum("bpk->bk", g.face_up.take(idx, axis=0))
    g._whole["discard"][idx] = whole_rows(discard)
    hands = g.hands.take(idx, axis=0)
    hands += g.face_down.take(idx, axis=0)
    g._whole["hands"][idx] = whole_rows(hands)
    g._fill("face_up", idx, 0)
    g._fill("face_down", idx, 0)
    g._fill("passed", idx, 0)
    g.captain_destination[idx] = NO
    g.mutineer_destination[idx] = NO
    g._fill("drawn", idx, 0)
    if g.rules.pirates_return and g.piratennest >= 0:
        g.pirate[idx] = np.argmax(g.ring.take(idx, axis=0) == g.piratennest, axis=1)
    need = _needs(g, idx, hands)
    at = g.captain[idx] << n | ((need > 0) @ g._bit)
    count = g._seats_count[at]
    some = count > 0
    if len(idx) > np.count_nonzero(some):
        i, at, count = idx[some], at[some], count[some]
        rows = np.flatnonzero(some) * n
    else:
        i, rows = idx, np.arange(0, len(idx) * n, n)
    if not len(i):
        return
    first = g._first_from[at]
    g.to_act[i] = first
    g.draws_left[i] = need.take(rows + first)
    g._whole["queue"][i] = g._queue_rows[at]
    g.queue_len[i] = count - 1


def discard_rows(g: Batch, idx: IntArray) -> IntArray:
    """The row of the discards' table holding each loadmaster's (the key: his pool)."""
    if g.rules.discard_pool is DiscardPool.HAND:
        pool = g._hand_rows.take(idx * g.players + g.to_act[idx], axis=0)
    else:
        pool = g.drawn.take(idx, axis=0)
    key: IntArray = pool @ g._pool_stride
    return ask_reference(g, key, idx, g._discards)


@legal(Step.LOADMASTER_DISCARD)
def discards(g: Batch, idx: IntArray, mask: BoolArray, rows: IntArray) -> None:
    found = g._memo("discard", idx, discard_rows)  # (first: it may grow the table)
    mask[rows, g.ids.discard.start : g.ids.discard.stop] = g._discards.mask[found]


@choose(Step.LOADMASTER_DISCARD)
def any_discard(g: Batch, idx: IntArray, u: FloatArray) -> IntArray:
    chosen: IntArray = g._discards.pick(g._memo("discard", idx, discard_rows), u)
    return chosen


@effect(voyage.discard)
def discard(g: Batch, idx: IntArray, a: IntArray) -> None:
    cards = g.discard_counts.take(a - g.ids.discard.start, axis=0)
    row = idx * g.players + g.to_act[idx]
    hand = g._hand_rows.take(row, axis=0)
    hand -= cards
    g._whole_seat["hands"][row] = whole_rows(hand)
    pile = g.discard.take(idx, axis=0)
    pile += cards
    g._whole["discard"][idx] = whole_rows(pile)
    next_drawer(g, idx)


@effect(voyage.return_roles)
def return_roles(g: Batch, idx: IntArray, a: IntArray) -> None:
    g._fill("roles", idx, NO)
    g._fill("role_order", idx, 0)
    g.role_order_len[idx] = 0


@effect(voyage.next_round)
def next_round(g: Batch, idx: IntArray, a: IntArray) -> None:
    g.round[idx] += 1
    g.offer[idx] = NO
    g.mutiny[idx] = NO
    g._fill("sales", idx, NO)
    g._fill("sale_islands", idx, NO)
    g.to_act[idx] = g.captain[idx]
    g.queue_len[idx] = 0
    g._fill("queue", idx, 0)
    g.draws_left[idx] = 0
