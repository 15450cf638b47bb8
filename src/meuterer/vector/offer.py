"""The batch engine's phases 1 and 2: the captain's offer, playing cards (the pirate card
too), passing and choosing roles: the effects and guards of
:mod:`meuterer.phases.offer_cargo` and :mod:`meuterer.phases.pirates`, batched, with the
legal ids and a random choice of each of these decision steps.

>>> from meuterer.phases import offer_cargo
>>> from meuterer.vector import engine
>>> from meuterer.vector.registry import GUARDS
>>> GUARDS[offer_cargo.passer_is_last].__name__
'passer_is_last'
"""

from __future__ import annotations

from typing import Final

import numpy as np

from meuterer.cards import ROLES
from meuterer.phases import offer_cargo, pirates
from meuterer.phases.offer_cargo import destination_from
from meuterer.phases.pirates import pirate_moves_to, robs
from meuterer.state import Step
from meuterer.vector.arrays import PIRATE, BoolArray, FloatArray, IntArray, c_einsum, rowsum
from meuterer.vector.batch import Batch
from meuterer.vector.registry import choose, effect, guard, legal

# A random role: for each set of the roles taken (as bits), the number of roles left and
# the free roles in ascending order.
_FREE_COUNT: Final = np.array([len(ROLES) - bin(m).count("1") for m in range(1 << len(ROLES))], dtype=np.int64)
_FREE_ROLE: Final = np.array(
    [[*(r for r in range(len(ROLES)) if not m >> r & 1), *[0] * bin(m).count("1")] for m in range(1 << len(ROLES))],
    dtype=np.int64,
)
# How many seats have passed, for each set of them as bits.
_PASSED_COUNT: Final = np.array([bin(m).count("1") for m in range(1 << 4)], dtype=np.int64)
# A random play: the kinds of card held as bits; for each set, the number of choices (one
# per kind held, and the pass) and the choices in ascending order (the pass last: 7).
_CARD_BIT: Final = 1 << np.arange(7, dtype=np.int64)
_HELD_COUNT: Final = np.array([bin(m).count("1") + 1 for m in range(1 << 7)], dtype=np.int64)
_HELD_CARD: Final = np.array(
    [[*(c for c in range(7) if m >> c & 1), *[7] * (8 - bin(m).count("1"))] for m in range(1 << 7)],
    dtype=np.int64,
)


# Phase 1 -----------------------------------------------------------------------------------


@legal(Step.OFFER)
def offers(g: Batch, idx: IntArray, mask: BoolArray, rows: IntArray) -> None:
    mask[rows, g.ids.offer.start : g.ids.offer.stop] = True


@choose(Step.OFFER)
def any_offer(g: Batch, idx: IntArray, u: FloatArray) -> IntArray:
    chosen: IntArray = g.ids.offer.start + (u * len(g.ids.offer)).astype(np.int64)
    return chosen


@effect(offer_cargo.make_offer)
def make_offer(g: Batch, idx: IntArray, a: IntArray) -> None:
    g.offer[idx] = a - g.ids.offer.start
    g.to_act[idx] = g.captain[idx]


# Phase 2: playing and passing ----------------------------------------------------------------


@legal(Step.PLAY)
def plays(g: Batch, idx: IntArray, mask: BoolArray, rows: IntArray) -> None:
    hand = g._hand_rows.take(idx * g.players + g.to_act[idx], axis=0)
    mask[rows, g.ids.play.start : g.ids.play.stop] = hand > 0
    mask[rows, g.ids.pass_.start] = True


@choose(Step.PLAY)
def any_play(g: Batch, idx: IntArray, u: FloatArray) -> IntArray:
    # the cards held as bits, then the table of the cards held (and the pass after them)
    hand = g._hand_rows.take(idx * g.players + g.to_act[idx], axis=0)
    held = (hand > 0) @ _CARD_BIT
    pick = (u * _HELD_COUNT.take(held)).astype(np.int64)
    chosen: IntArray = g.ids.play.start + _HELD_CARD.take(held * _HELD_CARD.shape[1] + pick)
    return chosen


def _play(g: Batch, idx: IntArray, card: IntArray) -> IntArray:
    # One card from hand to face up; the next seat who has not passed acts. Returns the players.
    p = g.to_act[idx]
    at = (idx * g.players + p) * 7 + card
    g._hand_flat[at] -= 1
    g._up_flat[at] += 1
    g.to_act[idx] = g._next_unpassed(idx, p)
    return p


@effect(offer_cargo.play_card)
def play_card(g: Batch, idx: IntArray, a: IntArray) -> None:
    _play(g, idx, a - g.ids.play.start)


@guard(pirates.plays_pirate)
def plays_pirate(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    pirate: BoolArray = a - g.ids.play.start == PIRATE
    return pirate


@effect(pirates.play_pirate)
def play_pirate(g: Batch, idx: IntArray, a: IntArray) -> None:
    """The pirate card: the pirate ship moves, and robs every face-up card if it reaches or
    passes the merchant ship (:func:`~meuterer.phases.pirates.pirate_moves_to`,
    :func:`~meuterer.phases.pirates.robs`)."""
    p = _play(g, idx, a - g.ids.play.start)
    left = rowsum(g._hand_rows[idx * g.players + p]).astype(np.int64)
    ship = g.pirate[idx]
    g.pirate[idx] = pirate_moves_to(ship, left, g.n_islands)
    robbed = idx[robs(ship, g.start[idx], left, g.n_islands, g.rules.pirates_rob_at_start)]
    if len(robbed):
        g.discard[robbed] += c_einsum("bpk->bk", g.face_up[robbed])
        g.face_up[robbed] = 0


@guard(offer_cargo.passer_is_not_captain)
def passer_is_not_captain(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    other: BoolArray = g.to_act[idx] != g.captain[idx]
    return other


@guard(offer_cargo.passer_is_last)
def passer_is_last(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    last: BoolArray = _PASSED_COUNT.take(g._passed_bits(idx)) == g.players - 1
    return last


@effect(offer_cargo.pass_turn)
def pass_turn(g: Batch, idx: IntArray, a: IntArray) -> None:
    """The hand goes face down; a captain's destination is fixed by its count, and the next
    seat who has not passed acts (another seat chooses his role first)."""
    p = g.to_act[idx]
    row = idx * g.players + p
    hands = g._whole_seat["hands"]
    g._whole_seat["face_down"][row] = hands[row]
    hands[row] = g._no_cards
    g._passed_flat[row] = True
    captain = p == g.captain[idx]
    if not np.count_nonzero(captain):
        return
    i, p = idx[captain], p[captain]
    held = rowsum(g._down_rows.take(row[captain], axis=0))
    g.captain_destination[i] = destination_from(g.start[i], held, g.n_islands)
    g.to_act[i] = g._next_unpassed(i, p)


# Phase 2: roles --------------------------------------------------------------------------------


@legal(Step.CHOOSE_ROLE)
def free_roles(g: Batch, idx: IntArray, mask: BoolArray, rows: IntArray) -> None:
    taken = np.zeros((len(rows), len(ROLES) + 1), dtype=np.bool_)
    taken[np.arange(len(rows))[:, None], g.roles[idx]] = True  # -1 marks the last column
    mask[rows, g.ids.role.start : g.ids.role.stop] = ~taken[:, : len(ROLES)]


@choose(Step.CHOOSE_ROLE)
def any_free_role(g: Batch, idx: IntArray, u: FloatArray) -> IntArray:
    # the roles taken as bits, then the table of the free ones
    taken = g._roles_taken.take(g._role_keys(idx))
    pick = (u * _FREE_COUNT.take(taken)).astype(np.int64)
    chosen: IntArray = g.ids.role.start + _FREE_ROLE.take(taken * _FREE_ROLE.shape[1] + pick)
    return chosen


@effect(offer_cargo.take_role)
def take_role(g: Batch, idx: IntArray, a: IntArray) -> None:
    p = g.to_act[idx]
    base = idx * g.players
    g._roles_flat[base + p] = a - g.ids.role.start
    length = g.role_order_len[idx]
    g._role_order_flat[base + length] = p
    g.role_order_len[idx] = length + 1
    g.to_act[idx] = g._next_unpassed(idx, p)


@guard(offer_cargo.everyone_passed)
def everyone_passed(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    everyone: BoolArray = g._passed_bits(idx) == g._everyone
    return everyone
