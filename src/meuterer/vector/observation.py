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

import numpy as np
import numpy.typing as npt

from meuterer.cards import CARDS, ROLES
from meuterer.machine import ROLES_SECRET, STEP_CODES
from meuterer.state import Step
from meuterer.vector.engine import CHOOSE_ROLE, GAME_OVER, IntArray, VectorGame
from meuterer.views import Layout, PlayerView

__all__ = ["Encoder", "observation_size", "observations"]

_STEP_LIST = tuple(Step)
_CODE = np.array([STEP_CODES[step] for step in _STEP_LIST], dtype=np.int64)
_SECRET = np.array([step in ROLES_SECRET for step in _STEP_LIST], dtype=np.bool_)
_NO = -1
_SALE = 3
_BITS = np.array([0] + [1 << role for role in range(len(ROLES))], dtype=np.int64)  # a role's bit, -1 none


def observation_size(players: int, islands: int) -> int:
    """The length of one observation vector (as ``observation_layout(players, rules).size``)."""
    return 15 + 2 * islands + 5 * len(CARDS) + 1 + len(ROLES) + players * (7 + len(CARDS) + 1 + 2 * _SALE)


def observations(game: VectorGame, seats: IntArray | None = None) -> npt.NDArray[np.int32]:
    """(B, P, entries): every seat's observation in every game; with ``seats`` (B,), one
    seat per game: (B, entries). Both are transposed views of arrays holding each entry's
    values over the batch contiguously (``np.ascontiguousarray`` gives rows)."""
    # Written entry by entry into an (entries, B) array: every write is a contiguous row
    # (numpy is slow on the short last axes of (B, 4) or (B, 7) arrays); gathers go through
    # np.take on flat rows, sums over the 7 cards through einsum. The entries no seat
    # changes are written once for every seat.
    b, n = game.batch, game.players
    size = observation_size(n, game.n_islands)
    if seats is None:
        every = np.empty((n, size, b), dtype=np.int32)
        order_index = _shared(game, every[0])
        every[1:] = every[0]
        for s in range(n):
            _seat_entries(game, every[s], np.full(b, s, dtype=np.int64), order_index)
        observed: npt.NDArray[np.int32] = every.transpose(2, 0, 1)
        return observed
    out = np.empty((size, b), dtype=np.int32)
    _seat_entries(game, out, seats, _shared(game, out))
    observed = out.T
    return observed


def _offsets(g: VectorGame) -> tuple[int, int, int]:
    """Where the seat's cards, his role and the per-seat block start."""
    cards = 15 + 2 * g.n_islands
    role = cards + 5 * len(CARDS)
    return cards, role, role + 1 + len(ROLES)


def _shared(g: VectorGame, out: npt.NDArray[np.int32]) -> IntArray:
    """Write the entries every seat sees alike into ``out`` (entries, B); returns each
    seat's place in the role order (P, B)."""
    b, n, islands = g.batch, g.players, g.n_islands
    rows = np.arange(b)
    step = g.step_
    columns = (
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
        np.einsum("bk->b", g.drawn),  # einsum: far quicker than sum over 7 entries
        np.einsum("bk->b", g.deck),
    )
    for column, value in enumerate(columns):
        out[column] = value
    at = len(columns)
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
    per[:, 0] = np.einsum("bpk->pb", g.hands)
    per[:, 1] = np.einsum("bpk->pb", g.face_down)
    per[:, 2] = g.passed.T
    # per[:, 3]: the roles, as the seat may see them (written per seat)
    per[:, 4] = order_index
    per[:, 5] = _index_of(g.queue, g.queue_len, n)
    per[:, 6] = g.scores.T
    per[:, 7 : 7 + k] = g.face_up.transpose(1, 2, 0)
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
    return order_index


def _seat_entries(g: VectorGame, out: npt.NDArray[np.int32], seat: IntArray, order_index: IntArray) -> None:
    """Write the entries that depend on the observing seat (one per game) into ``out``."""
    b, n = g.batch, g.players
    rows = np.arange(b)
    out[1] = seat
    row = rows * n + seat
    cards, role_at, block = _offsets(g)
    k = len(CARDS)
    hand = np.take(g._hand_rows, row, axis=0).T
    down = np.take(g._down_rows, row, axis=0).T
    unseen = out[cards + k : cards + 2 * k]
    np.subtract(g.deck0[:, None], g.discard.T, out=unseen, casting="unsafe")
    unseen -= hand + down + np.einsum("bpk->kb", g.face_up)
    out[cards + 2 * k : cards + 3 * k] = hand
    out[cards + 3 * k : cards + 4 * k] = down
    mine = (out[13] > 0) & (g.to_act == seat)  # entry 13: the number of cards drawn
    np.multiply(g.drawn.T, mine, out=out[cards + 4 * k : cards + 5 * k], casting="unsafe")
    roles = g.roles.T  # (P, B)
    secret = _SECRET[g.step_]
    if secret.any():
        roles = np.where(secret[None, :] & (np.arange(n)[:, None] != seat[None, :]), _NO, roles)
    at = seat * b + rows
    out[role_at] = np.take(roles.reshape(-1), at)
    out[role_at + 1 : role_at + 1 + len(ROLES)] = _roles_seen(g, seat, np.take(order_index.reshape(-1), at))
    width = 7 + k + 1 + 2 * _SALE
    out[block:].reshape(n, width, b)[:, 3] = roles


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


def _roles_seen(g: VectorGame, seat: IntArray, order_index: IntArray) -> IntArray:
    """(roles, B), as the view's roles_seen: the roles in the centre when ``seat`` chose (-1: unknown);
    ``order_index``: his place in the role order (-1: not chosen)."""
    n, r = g.players, len(ROLES)
    choosing = (g.step_ == CHOOSE_ROLE) & (g.to_act == seat)
    known = (order_index >= 0) | choosing
    before = np.where(order_index >= 0, order_index, g.role_order_len)
    # One bit per role (none for -1), in choosing order, summed up the order: the bits of
    # the roles taken before each place (roles are distinct, so the sum is their union).
    b = g.batch
    rows = np.arange(b)
    bits = np.take(_BITS, g.roles + 1)  # (B, P)
    ordered = np.take(bits.reshape(-1), g.role_order.T + rows * n)  # (P, B)
    taken = np.zeros((n + 1, b), dtype=np.int64)
    np.cumsum(ordered, axis=0, out=taken[1:])
    gone = np.take(taken.reshape(-1), before * b + rows)
    seen = ((gone[None, :] >> np.arange(r)[:, None]) & 1) ^ 1
    found: IntArray = np.where(known[None, :], seen, _NO)
    return found


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

    def __call__(self, vectors: npt.NDArray[np.int32]) -> npt.NDArray[np.float32]:
        """(B, encoded size) floats of (B, size) observation vectors."""
        b = len(vectors)
        out = np.zeros((b, self.size), dtype=np.float32)
        q = self._quantity
        out[:, self._quantity_at] = (vectors[:, q] - self._low[q]) * self._scale
        rows = np.arange(b)[:, None]
        out[rows, self._category_at + vectors[:, self._category]] = 1.0
        return out
