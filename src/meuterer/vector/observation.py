"""Observation vectors of a whole batch, as the declared layout gives them.

:func:`observations` writes, for one seat per game (or every seat), exactly
``observation_layout(players, rules).vector(view(state, seat))`` of each game's state
(:func:`meuterer.views.observation_layout`), straight off the arrays of a
:class:`~meuterer.vector.VectorGame`. It is held to the layout entry by entry, for every
seat at every step (``meuterer.vector.align``).

>>> import numpy as np
>>> from meuterer.views import observation_layout, view
>>> from meuterer.vector import VectorGame
>>> games = VectorGame(batch=3, players=4, seed=2)
>>> games.advance_chance()
>>> every = observations(games)            # (batch, seats, entries)
>>> every.shape == (3, 4, observation_layout(4).size)
True
>>> every[1, 2].tolist() == list(observation_layout(4).vector(view(games.to_state(1), 2)))
True
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from meuterer.cards import CARDS, ROLES
from meuterer.machine import ROLES_SECRET, STEP_CODES
from meuterer.state import Step
from meuterer.vector.arrays import CHOOSE_ROLE, GAME_OVER, IntArray
from meuterer.vector.engine import VectorGame
from meuterer.views import Layout, PlayerView

__all__ = ["Encoder", "observation_size", "observations"]

_STEP_LIST = tuple(Step)
_CODE = np.array([STEP_CODES[step] for step in _STEP_LIST], dtype=np.int32)
_SECRET = np.array([step in ROLES_SECRET for step in _STEP_LIST], dtype=np.bool_)
_NO = -1
_SALE = 3
_R = len(ROLES)
_BITS = np.array([0] + [1 << role for role in range(_R)], dtype=np.int8)  # a role's bit, -1 none
# _SEEN[:, gone]: roles_seen of a seat who saw the roles whose bits are ``gone`` taken
# (1: in the centre); columns from 1 << _R on: unknown (-1).
_SEEN = np.array(
    [[((gone >> r) & 1) ^ 1 for gone in range(1 << _R)] + [_NO] * (1 << _R) for r in range(_R)], dtype=np.int32
)


def observation_size(players: int, islands: int) -> int:
    """The length of one observation vector (as ``observation_layout(players, rules).size``)."""
    return 15 + 2 * islands + 5 * len(CARDS) + 1 + _R + players * (7 + len(CARDS) + 1 + 2 * _SALE)


def observations(game: VectorGame, seats: IntArray | None = None) -> npt.NDArray[np.int32]:
    """(B, P, entries): every seat's observation in every game; with ``seats`` (B,), one
    seat per game: (B, entries). Both are transposed views of arrays holding each entry's
    values over the batch contiguously (``np.ascontiguousarray`` gives rows)."""
    # Written entry by entry into an (entries, B) array: every write is a contiguous row
    # (numpy is slow on the short last axes of (B, 4) or (B, 7) arrays); the per-seat
    # (B, P, 7) arrays are transposed once to (P, 7, B), so a seat's cards are rows and
    # a seat per game one flat gather. The entries no seat changes, and what every seat's
    # entries are made of, are computed once.
    b, n = game.batch, game.players
    size = observation_size(n, game.n_islands)
    if seats is None:
        every = np.empty((n, size, b), dtype=np.int32)
        shared = _Shared(game, every[0])
        every[1:] = every[0]
        for s in range(n):
            shared.seat_entries(every[s], s)
        observed: npt.NDArray[np.int32] = every.transpose(2, 0, 1)
        return observed
    return _seat_observations(game, seats, np.empty((size, b), dtype=np.int32))


def _seat_observations(game: VectorGame, seats: IntArray, out: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """:func:`observations` of one seat per game, written into ``out`` (entries, B)."""
    seat = np.asarray(seats)
    one = int(seat[0]) if len(seat) else 0
    _Shared(game, out).seat_entries(out, one if (seat == one).all() else seat.astype(np.int64))
    observed: npt.NDArray[np.int32] = out.T
    return observed


def _offsets(g: VectorGame) -> tuple[int, int, int]:
    """Where the seat's cards, his role and the per-seat block start."""
    cards = 15 + 2 * g.n_islands
    role = cards + 5 * len(CARDS)
    return cards, role, role + 1 + _R


def _rows(a: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
    """(B, P, 7) counts as a (P, 7, B) int32 array: a seat's cards are contiguous rows."""
    b, p, k = a.shape
    out = np.empty((p, k, b), dtype=np.int32)
    out[...] = a.transpose(1, 2, 0)
    return out


class _Shared:
    """Writes the entries every seat sees alike into ``out`` (entries, B), and keeps what
    the seat-dependent entries are made of."""

    def __init__(self, g: VectorGame, out: npt.NDArray[np.int32]) -> None:
        self.g = g
        b, n, islands = g.batch, g.players, g.n_islands
        rows = np.arange(b)
        step = g.step_
        drawn = g.drawn.T.astype(np.int32)  # (7, B)
        columns: tuple[int | IntArray, ...] = (
            n,
            0,  # the seat: written per seat
            g.round,
            np.take(_CODE, step),
            g.captain,
            np.where(step == GAME_OVER, _NO, g.to_act),
            g.offer,
            g.start,
            g.pirate,
            g.captain_destination,
            g.mutineer_destination,
            g.mutiny,
            g.draws_left,
        )
        for column, value in enumerate(columns):
            out[column] = value
        # einsum: far quicker than sum over 7 entries, or than a reduction over the first axis
        out[13] = np.einsum("kb->b", drawn)
        out[14] = np.einsum("bk->b", g.deck)
        at = 15
        out[at : at + islands] = g.ring.T
        at += islands
        flags = out[at : at + islands]
        flags[:] = 0
        first_active, second_active = g.active[:, 0], g.active[:, 1]
        flags[first_active, rows] = 1
        two = np.flatnonzero(second_active >= 0)
        flags[second_active[two], two] = 1
        cards, _, block = _offsets(g)
        k = len(CARDS)
        out[cards : cards + k] = g.discard.T
        width = 7 + k + 1 + 2 * _SALE
        per = out[block:].reshape(n, width, b)  # a view: written in place
        assert np.shares_memory(per, out)
        order_index = _index_of(g.role_order, g.role_order_len, n)
        self.hands, self.down = _rows(g.hands), _rows(g.face_down)
        np.add.reduce(self.hands, axis=1, out=per[:, 0])
        np.add.reduce(self.down, axis=1, out=per[:, 1])
        per[:, 2] = g.passed.T
        # per[:, 3]: the roles, as the seat may see them (written per seat)
        per[:, 4] = order_index
        per[:, 5] = _index_of(g.queue, g.queue_len, n)
        per[:, 6] = g.scores.T
        up = per[:, 7 : 7 + k]
        up[...] = g.face_up.transpose(1, 2, 0)
        # The cards no seat sees: the deck as dealt less the discard pile and every face-up
        # card (each seat then takes off his hand and face-down cards).
        self.unseen = g.deck0.astype(np.int32)[:, None] - out[cards : cards + k]
        self.unseen -= np.einsum("pkb->kb", up)
        slots = g.sales.transpose(1, 2, 0)  # (P, 2, B)
        per[:, 7 + k] = slots[:, 0] >= 0
        # Sale entries: (island, good, count) of each non-empty slot, the first one first.
        # The first non-empty slot goes first: a slot is empty (0, or -1 undeclared) where its
        # island is -1, and slot 0 reads as (-1, -1, 0) in the slot tables.
        sale = per[:, 8 + k :]
        s0, s1 = np.maximum(slots[:, 0], 0), np.maximum(slots[:, 1], 0)
        isles = g.sale_islands.transpose(1, 2, 0)
        isle0, isle1 = isles[:, 0], isles[:, 1]
        lead = s0 > 0
        first_slot, second_slot = np.where(lead, s0, s1), s1 * lead
        sale[:, 0] = np.where(lead, isle0, isle1)
        sale[:, 1] = np.take(g.slot_good, first_slot)
        sale[:, 2] = np.take(g.slot_count, first_slot)
        sale[:, 3] = np.where(lead, isle1, _NO)
        sale[:, 4] = np.take(g.slot_good, second_slot)
        sale[:, 5] = np.take(g.slot_count, second_slot)
        self.drawn, self.order_index = drawn, order_index
        self.drawing = out[13] > 0
        # The roles as another seat sees them (hidden while the roles are secret).
        roles = g.roles.T.astype(np.int32)  # (P, B)
        secret = _SECRET[step]
        self.roles = roles
        self.others = np.where(secret, np.int32(_NO), roles) if secret.any() else roles
        # roles_seen: the bits of the roles taken before each place of the role order.
        bits = np.take(_BITS, g.roles + 1)  # (B, P)
        ordered = np.take(bits.reshape(-1), g.role_order.T + rows * n)  # (P, B)
        taken = np.zeros((n + 1, b), dtype=np.int8)
        for place in range(n):  # row by row: np.cumsum over the first axis is far slower
            np.add(taken[place], ordered[place], out=taken[place + 1])
        self.taken = taken.reshape(-1)
        self.chooser = np.where(step == CHOOSE_ROLE, g.to_act, _NO)
        self.per = per

    def seat_entries(self, out: npt.NDArray[np.int32], seat: int | IntArray) -> None:
        """Write the entries that depend on the observing seat (one, or one per game) into ``out``."""
        g = self.g
        b, n = g.batch, g.players
        cards, role_at, block = _offsets(g)
        k = len(CARDS)
        out[1] = seat
        hand, down = out[cards + 2 * k : cards + 3 * k], out[cards + 3 * k : cards + 4 * k]
        rows = np.arange(b)
        if isinstance(seat, int):
            hand[...] = self.hands[seat]
            down[...] = self.down[seat]
            own: npt.NDArray[np.int32] = self.roles[seat]
            index: IntArray = self.order_index[seat]
            at: int | IntArray = seat * b + rows
        else:
            cells = _cells(k, b) + seat * (k * b)
            np.take(self.hands.reshape(-1), cells, out=hand, mode="clip")
            np.take(self.down.reshape(-1), cells, out=down, mode="clip")
            at = seat * b + rows
            own = np.take(self.roles.reshape(-1), at)
            index = np.take(self.order_index.reshape(-1), at)
        unseen = out[cards + k : cards + 2 * k]
        np.subtract(self.unseen, hand, out=unseen)
        unseen -= down
        mine = self.drawing & (g.to_act == seat)
        np.multiply(self.drawn, mine, out=out[cards + 4 * k : cards + 5 * k])
        out[role_at] = own
        # roles_seen: the roles in the centre when the seat chose (-1: unknown)
        known = (index >= 0) | (self.chooser == seat)
        before = np.where(index >= 0, index, g.role_order_len)
        before *= b
        before += rows
        column = np.take(self.taken, before)
        column += np.where(known, 0, 1 << _R).astype(np.int8)
        np.take(_SEEN, column.astype(np.intp), axis=1, out=out[role_at + 1 : role_at + 1 + _R], mode="clip")
        # every seat's role as this one sees it: the others' (maybe hidden), then his own
        width = 7 + k + 1 + 2 * _SALE
        out[block:].reshape(n, width, b)[:, 3] = self.others
        if self.others is not self.roles:
            flat = out.reshape(-1)
            flat[(block + 3) * b + seat * (width * b) + rows] = own


@functools.lru_cache(maxsize=8)
def _cells(k: int, b: int) -> IntArray:
    """(k, B): the flat place of card ``row`` of game ``column`` in a (k, B) array (read only)."""
    cells = np.arange(k * b, dtype=np.int64).reshape(k, b)
    cells.flags.writeable = False
    return cells


def _index_of(seats: IntArray, length: IntArray, n: int) -> IntArray:
    """(P, B): each seat's place in a per-game list of seats (``-1`` if absent; a seat is
    in a list at most once)."""
    b, width = seats.shape
    out = np.full((n + 1) * b, _NO, dtype=np.int64)
    games = np.arange(b)
    for place in range(width):  # column by column: quicker than one (width, B) scatter
        target = np.where(place < length, seats[:, place], n)  # past the end: row n
        target *= b
        target += games
        out[target] = place
    found: IntArray = out.reshape(n + 1, b)[:n]
    return found


_Work = tuple[npt.NDArray[np.int32], npt.NDArray[np.float64], npt.NDArray[np.float32], IntArray, IntArray]
"""An encoder's work arrays for one batch size: ints, computed quantities, looked-up
quantities, the places of the ones, each game's start in the flat output."""


class Encoder:
    """:meth:`meuterer.views.Layout.encode` over a batch: quantities scaled to [0, 1] by
    their bounds, categories one-hot.

    >>> import numpy as np
    >>> from meuterer.views import observation_layout, view
    >>> from meuterer.vector import VectorGame
    >>> games = VectorGame(batch=2, players=3, seed=4)
    >>> games.advance_chance()
    >>> layout = observation_layout(3)
    >>> encoded = Encoder(layout)(observations(games, games.to_act))
    >>> encoded.shape == (2, layout.encoded_size)
    True
    >>> np.allclose(encoded[1], layout.encode(view(games.to_state(1), int(games.to_act[1]))))
    True
    """

    SPAN: Final = 256
    """A quantity's values ``low`` to ``low + SPAN - 1`` are looked up in a table (others
    are computed)."""

    BLOCK: Final = 256
    """Games written at a time: the block of the output stays in the cache while its zeros,
    quantities and ones are written."""

    def __init__(self, layout: Layout[PlayerView]) -> None:
        low = np.array(layout.low, dtype=np.int64)
        high = np.array(layout.high, dtype=np.int64)
        categorical = np.array(layout.categorical, dtype=np.bool_)
        width = np.where(categorical, high - low + 1, 1)
        offset = np.concatenate([[0], np.cumsum(width)[:-1]])
        self.size = int(width.sum())
        self._quantity = np.flatnonzero(~categorical)
        self._quantity_at = offset[~categorical]
        self._low = low
        span = (high - low).astype(np.float64)
        self._scale = np.where(span > 0, 1.0 / np.where(span > 0, span, 1), 0.0)[~categorical]
        self._category = np.flatnonzero(categorical)
        self._category_at = offset[categorical] - low[categorical]
        # as columns, in floats: (v - low) * scale is computed exactly as over integers
        self._low_q = low[~categorical].astype(np.float64)[:, None]
        self._scale_q = self._scale[:, None]
        # The table: row e, column v - low holds quantity e's (v - low) * scale, as the
        # arithmetic gives it (the float64 product, rounded to float32 once).
        q = len(self._quantity)
        self._table = (np.arange(self.SPAN, dtype=np.float64) * self._scale_q).astype(np.float32).reshape(-1)
        self._low_i = low[~categorical].astype(np.int32)[:, None]
        self._row_at = (np.arange(q, dtype=np.int32) * self.SPAN)[:, None]
        self._local = threading.local()

    def __call__(self, vectors: npt.NDArray[np.signedinteger[Any]]) -> npt.NDArray[np.float32]:
        """(B, encoded size) floats of (B, size) observation vectors (any signed integer dtype)."""
        # The entries are read as rows of the transposed vectors (contiguous when they come
        # from observations()), the quantities looked up in the table (or computed) and the
        # places of the ones found for the whole batch; the output is then written a block
        # of games at a time (zeros, quantities, ones: one pass over its memory, not three).
        # The work arrays are kept from call to call (per thread, per batch size): fresh ones
        # of a few MB cost more in page faults than the arithmetic.
        b = len(vectors)
        out = np.empty((b, self.size), dtype=np.float32)
        entries = vectors.T
        ints, values, scaled, places, base = self._work(b)
        q, c = self._quantity, self._category
        quantities: npt.NDArray[np.float32] | npt.NDArray[np.float64] = values
        if entries.dtype == np.int32:
            found = ints[: len(q)]
            np.take(entries, q, axis=0, out=found, mode="clip")
            found -= self._low_i
            # every value in the table at once: v - low, read as unsigned, is below SPAN
            # from low to low + SPAN - 1 only
            if int(found.view(np.uint32).max(initial=0)) < self.SPAN:
                found += self._row_at
                quantities = np.take(self._table, found, out=scaled, mode="clip")
            else:
                np.take(entries, q, axis=0, out=found, mode="clip")
                np.subtract(found, self._low_q, out=values)
                values *= self._scale_q
            np.take(entries, c, axis=0, out=ints[: len(c)], mode="clip")
            np.add(ints[: len(c)], self._category_at[:, None], out=places)
        else:
            np.subtract(entries[q], self._low_q, out=values)
            values *= self._scale_q
            np.add(entries[c], self._category_at[:, None], out=places, casting="unsafe")
        places += base
        flat, at = out.reshape(-1), self._quantity_at
        for start in range(0, b, self.BLOCK):
            games = slice(start, start + self.BLOCK)
            block = out[games]
            block.fill(0.0)
            block[:, at] = quantities[:, games].T
            flat[places[:, games]] = 1.0
        return out

    def __getstate__(self) -> dict[str, object]:
        state = self.__dict__.copy()
        del state["_local"]  # work arrays: made again where needed
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    def _work(self, b: int) -> _Work:
        """The work arrays of a batch of ``b`` (this thread's; those of the last few batch
        sizes are kept: an env encodes its whole batch, and the games that restart)."""
        kept: dict[int, _Work] | None = getattr(self._local, "work", None)
        if kept is None:
            kept = self._local.work = {}
        found = kept.pop(b, None)
        if found is None:
            q, c = len(self._quantity), len(self._category)
            found = (
                np.empty((max(q, c), b), dtype=np.int32),
                np.empty((q, b), dtype=np.float64),
                np.empty((q, b), dtype=np.float32),
                np.empty((c, b), dtype=np.int64),
                np.arange(0, b * self.size, self.size, dtype=np.int64),
            )
            if len(kept) >= 4:  # the least recently used goes
                del kept[next(iter(kept))]
        kept[b] = found  # the most recently used last
        return found
