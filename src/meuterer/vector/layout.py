"""The layout of a batch of games: which arrays a :class:`~meuterer.vector.batch.Batch`
holds (:class:`Layout`, :data:`FIELDS`), and the constants of its rule set as arrays
(the tables its steps look things up in).

>>> from meuterer.vector.layout import FIELDS
>>> FIELDS[:4]
('step_', 'round', 'captain', 'to_act')
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from meuterer.actions import RingArrangements
from meuterer.cards import CARDS, GOODS
from meuterer.encoding import ActionIds
from meuterer.phases.scoring import shared_value
from meuterer.rules import Rules
from meuterer.vector.arrays import (
    N_GOODS,
    NO,
    BoolArray,
    Choices,
    IntArray,
    choices,
    clockwise_tables,
    role_tables,
    whole_rows,
)

FIELDS: Final = (
    "step_",
    "round",
    "captain",
    "to_act",
    "queue",
    "queue_len",
    "offer",
    "ring",
    "start",
    "active",
    "pirate",
    "hands",
    "face_up",
    "face_down",
    "passed",
    "roles",
    "role_order",
    "role_order_len",
    "captain_destination",
    "mutineer_destination",
    "mutiny",
    "sales",
    "sale_islands",
    "scores",
    "deck",
    "discard",
    "draws_left",
    "drawn",
)
"""The state arrays of a batch (each with the games on its first axis)."""


class Layout:
    """The attributes :func:`rule_tables` and :func:`allocate` give a :class:`~meuterer.vector.batch.Batch`
    (declarations only)."""

    rules: Rules
    ids: ActionIds
    batch: int
    players: int
    n_islands: int
    rounds: int
    hand_size: int
    extra: int
    piratennest: int
    arrangements: RingArrangements
    ship: IntArray
    values: IntArray
    slot_count: IntArray
    slot_good: IntArray
    discard_counts: IntArray
    deck0: IntArray
    buys: IntArray
    _clockwise: IntArray
    _bit: IntArray
    _everyone: int
    _seats_from: IntArray
    _seats_count: IntArray
    _first_from: IntArray
    _queue_from: IntArray
    _queue_rows: npt.NDArray[np.void]
    _others_after: npt.NDArray[np.void]
    _unpassed_after: IntArray
    _seat_cards: IntArray
    _role_weight: IntArray
    _role_seat: IntArray
    _role_sides: IntArray
    _roles_taken: IntArray
    _mates: IntArray
    _mutineers: IntArray
    _sell_slots: IntArray
    _pool_stride: IntArray
    _goods_stride: IntArray
    _buy_kind: IntArray
    _pair_buys: IntArray
    _pair_key: IntArray
    _sells: Choices
    _discards: Choices
    # the state arrays (FIELDS)
    step_: IntArray
    round: IntArray
    captain: IntArray
    to_act: IntArray
    queue: IntArray
    queue_len: IntArray
    offer: IntArray
    ring: IntArray
    start: IntArray
    active: IntArray
    pirate: IntArray
    hands: npt.NDArray[Any]
    face_up: npt.NDArray[Any]
    face_down: npt.NDArray[Any]
    passed: BoolArray
    roles: IntArray
    role_order: IntArray
    role_order_len: IntArray
    captain_destination: IntArray
    mutineer_destination: IntArray
    mutiny: IntArray
    sales: IntArray
    sale_islands: IntArray
    scores: IntArray
    deck: IntArray
    discard: IntArray
    draws_left: IntArray
    drawn: IntArray


def rule_tables(g: Layout) -> None:
    """The constants of the batch's rule set and player count, as arrays on ``g``."""
    rules, ids = g.rules, g.ids
    g.n_islands = len(rules.islands)
    g.rounds = rules.rounds_for(g.players)
    g.hand_size = rules.hand_size
    g.extra = rules.loadmaster_extra
    g.ship = np.array([island.ship for island in rules.islands], dtype=np.int64)
    # values[island, leaders]: each leader's points when ``leaders`` tie (the reference's
    # shared_value, asked once per island and count; column 1: the value I)
    g.values = np.array(
        [[shared_value(island.values, k) for k in range(g.players + 1)] for island in rules.islands],
        dtype=np.int64,
    )
    names = [island.name for island in rules.islands]
    g.piratennest = names.index("piratennest") if rules.pirates else NO
    g.arrangements = RingArrangements(tuple(names))
    # The sale slots: good and count of each slot value (slot 0: nothing sold).
    slot = np.arange(ids.slot_size)
    g.slot_count = np.where(slot > 0, (slot - 1) % g.hand_size + 1, 0)
    g.slot_good = np.where(slot > 0, (slot - 1) // g.hand_size, NO)
    g.discard_counts = np.zeros((len(ids.discards), len(CARDS)), dtype=np.int64)
    for rank, cards in enumerate(ids.discards):
        for card in cards:
            g.discard_counts[rank, card] += 1
    g.deck0 = np.array(rules.deck, dtype=np.int64)
    g._clockwise = np.arange(1, g.players + 1)
    # Sets of seats as bits (seat s: 1 << s); the seats of a set from a seat on clockwise.
    g._bit = 1 << np.arange(g.players, dtype=np.int64)
    g._everyone = (1 << g.players) - 1
    g._seats_from, g._seats_count = clockwise_tables(g.players)
    # the first seat of a set from a seat on clockwise, or that seat if the set is empty
    starts = np.arange(g.players << g.players) >> g.players
    g._first_from = np.where(g._seats_count > 0, g._seats_from[:, 0], starts)
    # the seats of a set after the first (a queue: zeros after them)
    g._queue_from = np.zeros_like(g._seats_from)
    g._queue_from[:, :-1] = g._seats_from[:, 1:]
    g._queue_rows = whole_rows(g._queue_from)  # as whole rows of the queue
    # the queue of the other seats after a seat, as a whole row
    seat = np.arange(g.players)
    g._others_after = whole_rows(g._seats_from)[seat << g.players | (g._everyone ^ g._bit)]
    # the first seat clockwise after a seat who has not passed (index: that seat << players
    # | the seats who have passed as bits; the seat after him if every seat has passed)
    after = np.arange(g.players << g.players)
    g._unpassed_after = g._first_from[
        ((after >> g.players) + 1) % g.players << g.players | (g._everyone ^ after & g._everyone)
    ]
    g._seat_cards = np.arange(g.players, dtype=np.int64) * 7  # each seat's first card in a game's cards
    (g._role_weight, g._role_seat, g._role_sides, g._roles_taken, g._mates, g._mutineers) = role_tables(g.players)
    g._sell_slots = np.stack(np.divmod(np.arange(len(ids.sell)), ids.slot_size), axis=1)
    # buys[island, good]: whether the island buys the good (the last row: no island)
    g.buys = np.zeros((g.n_islands + 1, N_GOODS), dtype=np.int64)
    for i, island in enumerate(rules.islands):
        g.buys[i] = [island.buys_card(card) for card in GOODS]
    # Shared by every batch of the same rules (they depend on nothing else).
    # Keys of counts in mixed radix: no one holds more of a card than the deck has.
    radix = np.array(rules.deck, dtype=np.int64) + 1
    g._pool_stride = np.concatenate([np.cumprod(radix[::-1])[::-1][1:], [1]])
    g._goods_stride = np.concatenate([np.cumprod(radix[:N_GOODS][::-1])[::-1][1:], [1]])
    # The declarations depend on the islands only through what each buys: an island's
    # kind is the good it buys, N_GOODS for every good, N_GOODS + 1 for no second island.
    kinds = [N_GOODS if island.buys is None else int(island.buys) for island in rules.islands]
    g._buy_kind = np.array([*kinds, N_GOODS + 1], dtype=np.int64)
    pairs = (N_GOODS + 2) ** 2
    # Of the active islands (a pair of islands, the second n_islands if none; index
    # first * (n_islands + 1) + second): the goods either buys, and the declarations' key
    # but for the goods. Goods no active island buys play no part in the declarations.
    first, second = np.divmod(np.arange((g.n_islands + 1) ** 2), g.n_islands + 1)
    g._pair_buys = g.buys[first] | g.buys[second]
    kind = g._buy_kind[first] * (N_GOODS + 2) + g._buy_kind[second]
    g._pair_key = kind * int(g._goods_stride[0] * radix[0])
    g._sells = choices(rules, "sell", ids.sell, pairs * int(np.prod(radix[:N_GOODS])))
    g._discards = choices(rules, "discard", ids.discard, int(np.prod(radix)))


def allocate(g: Layout) -> None:
    """The state arrays of ``g`` (zeros; :meth:`Batch.reset` sets them)."""
    b, p, n = g.batch, g.players, g.n_islands
    z = np.zeros
    # A seat's cards: small counts (a hand holds at most 26 cards, a seat no more of a
    # kind than the deck has), in bytes unless the deck has over 127 of a kind.
    cards = np.int8 if max(g.rules.deck) <= np.iinfo(np.int8).max else np.int16
    g.step_ = z(b, np.int64)
    g.round = z(b, np.int64)
    g.captain = z(b, np.int64)
    g.to_act = z(b, np.int64)
    g.queue = z((b, 4), np.int64)
    g.queue_len = z(b, np.int64)
    g.offer = z(b, np.int64)
    g.ring = z((b, n), np.int64)
    g.start = z(b, np.int64)
    g.active = z((b, 2), np.int64)
    g.pirate = z(b, np.int64)
    g.hands = z((b, p, 7), cards)
    g.face_up = z((b, p, 7), cards)
    g.face_down = z((b, p, 7), cards)
    g.passed = z((b, p), np.bool_)
    g.roles = z((b, p), np.int64)
    g.role_order = z((b, p), np.int64)
    g.role_order_len = z(b, np.int64)
    g.captain_destination = z(b, np.int64)
    g.mutineer_destination = z(b, np.int64)
    g.mutiny = z(b, np.int64)
    g.sales = z((b, p, 2), np.int64)
    g.sale_islands = z((b, p, 2), np.int64)
    g.scores = z((b, p), np.int64)
    g.deck = z((b, 7), np.int64)
    g.discard = z((b, 7), np.int64)
    g.draws_left = z(b, np.int64)
    g.drawn = z((b, 7), np.int64)
