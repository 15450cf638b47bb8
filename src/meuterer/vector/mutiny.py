"""The batch engine's phases 3 and 4: the reveal, the supports and the mutiny's outcome
(the effects and guards of :mod:`meuterer.phases.mutiny`, batched, with the support
step's legal ids and random choice).

>>> from meuterer.phases import mutiny
>>> from meuterer.vector import engine
>>> from meuterer.vector.registry import EFFECTS
>>> EFFECTS[mutiny.resolve_mutiny].__name__
'resolve_mutiny'
"""

from __future__ import annotations

import numpy as np

from meuterer.phases import mutiny
from meuterer.phases.mutiny import mutiny_succeeds, side_strengths
from meuterer.phases.offer_cargo import destination_from
from meuterer.state import Step
from meuterer.vector.arrays import MUTINEER, SUPPORT, BoolArray, FloatArray, IntArray, c_einsum, rowsum
from meuterer.vector.batch import Batch
from meuterer.vector.registry import choose, effect, guard, legal


@guard(mutiny.has_mutineer)
def has_mutineer(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    has: BoolArray = g._role_seat[MUTINEER].take(g._role_keys(idx)) >= 0
    return has


@effect(mutiny.reveal)
def reveal(g: Batch, idx: IntArray, a: IntArray) -> None:
    """The mutineer's destination; the captain, then the mate, the mutineer and the cabin
    boy, clockwise from him, decide on supports (nothing without a mutineer)."""
    key = g._role_keys(idx)
    mutineer = g._role_seat[MUTINEER].take(key)
    has = mutineer >= 0
    if not np.count_nonzero(has):
        return
    if len(idx) > np.count_nonzero(has):
        idx, key, mutineer = idx[has], key[has], mutineer[has]
    down = g._down_rows.take(idx * g.players + mutineer, axis=0)
    g.mutineer_destination[idx] = destination_from(g.start[idx], rowsum(down), g.n_islands)
    captain = g.captain[idx]
    at = captain << g.players | g._role_sides.take(key) | g._bit[captain]
    g.to_act[idx] = g._first_from[at]
    g._whole["queue"][idx] = g._queue_rows[at]
    g.queue_len[idx] = g._seats_count[at] - 1


@legal(Step.MUTINY)
def supports(g: Batch, idx: IntArray, mask: BoolArray, rows: IntArray) -> None:
    most = g._down_flat[(idx * g.players + g.to_act[idx]) * 7 + SUPPORT]
    mask[rows, g.ids.support.start : g.ids.support.stop] = np.arange(len(g.ids.support)) <= most[:, None]


@choose(Step.MUTINY)
def any_support(g: Batch, idx: IntArray, u: FloatArray) -> IntArray:
    most = g._down_flat[(idx * g.players + g.to_act[idx]) * 7 + SUPPORT]
    chosen: IntArray = g.ids.support.start + (u * (most + 1)).astype(np.int64)
    return chosen


@guard(mutiny.last_supporter)
def last_supporter(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    last: BoolArray = g.queue_len[idx] == 0
    return last


@effect(mutiny.add_support)
def add_support(g: Batch, idx: IntArray, a: IntArray) -> None:
    k = a - g.ids.support.start
    at = (idx * g.players + g.to_act[idx]) * 7 + SUPPORT
    g._down_flat[at] -= k
    g._up_flat[at] += k
    g._next_in_queue(idx)


@effect(mutiny.resolve_mutiny)
def resolve_mutiny(g: Batch, idx: IntArray, a: IntArray) -> None:
    """Each side's strength (:func:`~meuterer.phases.mutiny.side_strengths`) and the outcome
    (:func:`~meuterer.phases.mutiny.mutiny_succeeds`)."""
    n = g.players
    key = g._role_keys(idx)
    support = g._up_flat[(idx * (n * 7) + SUPPORT)[:, None] + g._seat_cards].astype(np.int64)
    mates = g._mates.take(key, axis=0)
    captain_side, mutineer_side = side_strengths(
        support.take(np.arange(0, len(idx) * n, n) + g.captain[idx]),
        c_einsum("ij,ij->i", support, mates),
        c_einsum("ij->i", mates),
        c_einsum("ij,ij->i", support, g._mutineers.take(key, axis=0)),
    )
    g.mutiny[idx] = mutiny_succeeds(captain_side, mutineer_side)
