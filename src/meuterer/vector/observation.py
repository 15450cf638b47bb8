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


def observation_size(players: int, islands: int) -> int:
    """The length of one observation vector (as ``observation_layout(players, rules).size``)."""
    return 15 + 2 * islands + 5 * len(CARDS) + 1 + len(ROLES) + players * (7 + len(CARDS) + 1 + 2 * _SALE)


def observations(game: VectorGame, seats: IntArray | None = None) -> npt.NDArray[np.int32]:
    """(B, P, entries): every seat's observation in every game; with ``seats`` (B,), one
    seat per game: (B, entries)."""
    if seats is None:
        return np.stack([observations(game, np.full(game.batch, s, dtype=np.int64)) for s in range(game.players)], 1)
    g = game
    b, n, islands = g.batch, g.players, g.n_islands
    rows = np.arange(b)
    seat = seats
    step = g.step_
    out = np.empty((b, observation_size(n, islands)), dtype=np.int32)
    drawn_count = np.einsum("bk->b", g.drawn)  # einsum: far quicker than sum over 7 entries
    columns = (
        n,
        seat,
        g.round,
        _CODE[step],
        g.captain,
        np.where(step == GAME_OVER, _NO, g.to_act),
        g.offer,
        g.start,
        g.pirate,
        g.captain_destination,
        g.mutineer_destination,
        g.mutiny,
        g.draws_left,
        drawn_count,
        np.einsum("bk->b", g.deck),
    )
    for column, value in enumerate(columns):
        out[:, column] = value
    at = len(columns)
    out[:, at : at + islands] = g.ring
    at += islands
    flags = out[:, at : at + islands]
    flags[:] = 0
    flags[rows, g.active[:, 0]] = 1
    two = g.active[:, 1] >= 0
    flags[rows[two], g.active[two, 1]] = 1
    at += islands
    row = rows * n + seat
    hand = g.hands.reshape(-1, 7)[row]
    down = g.face_down.reshape(-1, 7)[row]
    k = len(CARDS)
    out[:, at : at + k] = g.discard
    unseen = out[:, at + k : at + 2 * k]
    np.subtract(g.deck0, g.discard, out=unseen, casting="unsafe")
    unseen -= hand + down + np.einsum("bpk->bk", g.face_up)
    out[:, at + 2 * k : at + 3 * k] = hand
    out[:, at + 3 * k : at + 4 * k] = down
    mine = (drawn_count > 0) & (g.to_act == seat)
    out[:, at + 4 * k : at + 5 * k] = g.drawn * mine[:, None]
    at += 5 * k
    roles = g.roles
    secret = _SECRET[step]
    if secret.any():
        roles = np.where(secret[:, None] & (np.arange(n)[None, :] != seat[:, None]), _NO, roles)
    out[:, at] = roles[rows, seat]
    at += 1
    order_index = _index_of(g.role_order, g.role_order_len, n)
    out[:, at : at + len(ROLES)] = _roles_seen(g, seat, order_index[rows, seat])
    at += len(ROLES)
    width = 7 + k + 1 + 2 * _SALE
    per = out[:, at:].reshape(b, n, width)  # a view: written in place
    assert np.shares_memory(per, out)
    per[:, :, 0] = np.einsum("bpk->bp", g.hands)
    per[:, :, 1] = np.einsum("bpk->bp", g.face_down)
    per[:, :, 2] = g.passed
    per[:, :, 3] = roles
    per[:, :, 4] = order_index
    per[:, :, 5] = _index_of(g.queue, g.queue_len, n)
    per[:, :, 6] = g.scores
    per[:, :, 7 : 7 + k] = g.face_up
    slots = g.sales
    per[:, :, 7 + k] = slots[:, :, 0] >= 0
    # Sale entries: (island, good, count) of each non-empty slot, the first one first.
    first = 8 + k
    sale = per[:, :, first:]
    # The first non-empty slot goes first: a slot is empty (0, or -1 undeclared) where its
    # island is -1, and slot 0 reads as (-1, -1, 0) in the slot tables.
    s0, s1 = np.maximum(slots[:, :, 0], 0), np.maximum(slots[:, :, 1], 0)
    isle0, isle1 = g.sale_islands[:, :, 0], g.sale_islands[:, :, 1]
    lead = s0 > 0
    first_slot, second_slot = np.where(lead, s0, s1), np.where(lead, s1, 0)
    sale[:, :, 0] = np.where(lead, isle0, isle1)
    sale[:, :, 1] = g.slot_good[first_slot]
    sale[:, :, 2] = g.slot_count[first_slot]
    sale[:, :, 3] = np.where(lead, isle1, _NO)
    sale[:, :, 4] = g.slot_good[second_slot]
    sale[:, :, 5] = g.slot_count[second_slot]
    return out


def _index_of(seats: IntArray, length: IntArray, n: int) -> IntArray:
    """(B, P): each seat's place in a per-game list of seats (``-1`` if absent; a seat is
    in a list at most once)."""
    b, width = seats.shape
    out = np.full((b, n + 1), _NO, dtype=np.int64)
    target = np.where(np.arange(width) < length[:, None], seats, n)  # past the end: column n
    out[np.arange(b)[:, None], target] = np.arange(width)
    found: IntArray = out[:, :n]
    return found


def _roles_seen(g: VectorGame, seat: IntArray, order_index: IntArray) -> IntArray:
    """As the view's roles_seen: the roles in the centre when ``seat`` chose (-1: unknown);
    ``order_index``: his place in the role order (-1: not chosen)."""
    b, n = g.batch, g.players
    rows = np.arange(b)
    choosing = (g.step_ == CHOOSE_ROLE) & (g.to_act == seat)
    known = (order_index >= 0) | choosing
    before = np.where(order_index >= 0, order_index, g.role_order_len)
    gone = np.zeros((b, len(ROLES) + 1), dtype=np.bool_)
    chose = np.arange(n) < before[:, None]
    role = g.roles.reshape(-1)[rows[:, None] * n + g.role_order]
    gone[rows[:, None], np.where(chose, role, len(ROLES))] = True
    seen = (~gone[:, : len(ROLES)]).astype(np.int64)
    return np.where(known[:, None], seen, _NO)


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
