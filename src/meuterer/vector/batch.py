"""The batch engine's core data: :class:`Batch` holds B games of Meuterer as numpy arrays,
the constants of their rule set, and the small moves on them that several steps share
(a queue's next seat, the next seat who has not passed, the roles as one key). The rules
themselves are applied by the phase modules (:mod:`meuterer.vector.deal`, ``offer``,
``mutiny``, ``scoring``, ``voyage``), run by :mod:`meuterer.vector.registry` in the order
the machine declares.

>>> from meuterer.vector.batch import Batch
>>> games = Batch(2, 3)
>>> games.to_act.tolist(), games.queue_len.tolist(), games.nbytes() // games.batch > 500
([0, 0], [2, 2], True)
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from meuterer.encoding import ActionIds, action_ids
from meuterer.errors import SetupError
from meuterer.rules import Ring, Rules
from meuterer.vector.arrays import (
    DEAL,
    MAX_BATCH,
    NO,
    RING,
    VOID,
    BoolArray,
    Groups,
    IntArray,
    row_of,
    whole_rows,
)
from meuterer.vector.layout import FIELDS, Layout, allocate, rule_tables


def check_rules(rules: Rules | None, players: int) -> Rules:
    """``rules`` (the rulebook's if ``None``), checked with the number of players."""
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a meuterer.Rules, got {type(rules).__name__}")
    if type(players) is not int or players not in (3, 4):
        raise SetupError(f"Meuterer is played by 3 or 4 players, got {players!r}")
    return rules


class Batch(Layout):
    """``batch`` games of ``players`` seats under ``rules``, as numpy arrays (see
    :class:`~meuterer.vector.VectorGame`, which plays them)."""

    def __init__(
        self,
        batch: int,
        players: int = 4,
        rules: Rules | None = None,
        *,
        first_captain: int = 0,
        seed: int | np.random.Generator | None = None,
        record: bool = False,
    ) -> None:
        self.rules = check_rules(rules, players)
        if type(batch) is not int or not 1 <= batch <= MAX_BATCH:
            raise ValueError(f"batch must be a whole number from 1 to {MAX_BATCH:,}, got {batch!r}")
        if type(first_captain) is not int or not 0 <= first_captain < players:
            raise SetupError(f"first_captain must be a seat from 0 to {players - 1}, got {first_captain!r}")
        self.batch = batch
        self.players = players
        self.first_captain = first_captain
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.ids: ActionIds = action_ids(self.rules)
        rule_tables(self)
        self.record = record
        # each recording game's ids since its start (no entry: none yet, as when not recording)
        self._history: dict[int, list[int]] = {}
        self._version = 0
        self._memos: dict[str, tuple[tuple[int, int, int], IntArray, IntArray]] = {}
        self._grouped: tuple[int, Groups] | None = None
        allocate(self)
        self._views()
        self.reset()

    def _views(self) -> None:
        # Flat views of the per-seat arrays: row ``game * players + seat`` (one index array
        # per gather instead of two broadcast ones), and element ``row * 7 + card``.
        self._hand_rows = self.hands.reshape(-1, 7)
        self._up_rows = self.face_up.reshape(-1, 7)
        self._down_rows = self.face_down.reshape(-1, 7)
        self._hand_flat = self.hands.reshape(-1)
        self._up_flat = self.face_up.reshape(-1)
        self._down_flat = self.face_down.reshape(-1)
        self._passed_flat = self.passed.reshape(-1)
        self._deck_flat = self.deck.reshape(-1)
        self._drawn_flat = self.drawn.reshape(-1)
        self._ring_flat = self.ring.reshape(-1)
        self._roles_flat = self.roles.reshape(-1)
        self._every = np.arange(len(self.step_))
        self._scores_flat = self.scores.reshape(-1)
        self._role_order_flat = self.role_order.reshape(-1)
        # Whole rows as one element each (written with one 1-d index), and rows of constants.
        self._whole = {name: whole_rows(getattr(self, name)) for name in self._FIELDS if getattr(self, name).ndim > 1}
        self._whole_seat = {
            name: whole_rows(getattr(self, name).reshape(-1, 7)) for name in ("hands", "face_up", "face_down")
        }
        # A queue's first seat, its first three columns and its last three, as one element each.
        self._queue_first = self.queue[:, 0]
        shifted = VOID[3 * self.queue.itemsize]
        self._queue_head = np.ndarray(len(self.queue), shifted, self.queue, 0, self.queue.strides[:1])
        self._queue_tail = np.ndarray(len(self.queue), shifted, self.queue, self.queue.itemsize, self.queue.strides[:1])
        self._sales_seat = whole_rows(self.sales.reshape(-1, 2))
        self._sale_islands_seat = whole_rows(self.sale_islands.reshape(-1, 2))
        self._filled: dict[tuple[str, int], np.void] = {}
        self._no_cards = row_of(self._hand_rows, 0)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled arrays are copies, the views of them too: the views are made again from
        # the state arrays, or writes through them would not reach the state.
        self.__dict__.update(state)
        self._views()
        self._grouped = None

    def _fill(self, name: str, idx: IntArray, value: int) -> None:
        """Every entry of the rows ``idx`` of the state array ``name`` set to ``value``."""
        self._whole[name][idx] = self._filled_row(name, value)

    def _filled_row(self, name: str, value: int) -> np.void:
        """A row of the state array ``name`` with every entry ``value`` (one element of its
        ``_whole`` view)."""
        row = self._filled.get((name, value))
        if row is None:
            row = self._filled[name, value] = row_of(getattr(self, name), value)
        return row

    _FIELDS: Final = FIELDS

    def nbytes(self) -> int:
        """The bytes the batch's state arrays hold."""
        return sum(getattr(self, name).nbytes for name in self._FIELDS)

    # Starting, resetting, converting --------------------------------------------------

    def reset(self, where: BoolArray | None = None) -> None:
        """Start a new game (before the ring or the deal, as :func:`meuterer.new_game`) in
        every game, or in the games where ``where`` is true."""
        idx = np.arange(self.batch) if where is None else np.flatnonzero(self._bools(where, "where"))
        if not len(idx):
            return
        self._version += 1
        p, c = self.players, self.first_captain
        self.step_[idx] = RING if self.rules.ring is Ring.SHUFFLED else DEAL
        self.round[idx] = 1
        self.captain[idx] = c
        self.to_act[idx] = c
        self.queue[idx] = 0
        self.queue[idx, : p - 1] = [(c + i) % p for i in range(1, p)]
        self.queue_len[idx] = p - 1
        self.offer[idx] = NO
        self.ring[idx] = np.arange(self.n_islands)
        self.start[idx] = 0
        self.active[idx] = (0, NO)
        self.pirate[idx] = self.piratennest
        for name in ("hands", "face_up", "face_down", "passed", "role_order", "role_order_len", "scores"):
            getattr(self, name)[idx] = 0
        self.roles[idx] = NO
        self.captain_destination[idx] = NO
        self.mutineer_destination[idx] = NO
        self.mutiny[idx] = NO
        self.sales[idx] = NO
        self.sale_islands[idx] = NO
        self.deck[idx] = self.deck0
        self.discard[idx] = 0
        self.draws_left[idx] = self.hand_size
        self.drawn[idx] = 0
        if self._history:
            for i in idx.tolist():
                self._history.pop(i, None)

    # Moves several steps share ----------------------------------------------------------

    def _refill(self, idx: IntArray) -> None:
        """The deck of the games ``idx`` becomes their discard pile, which is emptied."""
        self._whole["deck"][idx] = self._whole["discard"][idx]
        self._whole["discard"][idx] = self._filled_row("discard", 0)

    def _pop(self, idx: IntArray) -> IntArray:
        # the first seat of each queue leaves it: the seats after him move up a column (the
        # last column is kept; the queue's length says where it ends)
        seat: IntArray = self._queue_first[idx]
        self._queue_head[idx] = self._queue_tail[idx]
        self.queue_len[idx] -= 1
        return seat

    def _passed_bits(self, idx: IntArray) -> IntArray:
        """The seats who have passed in each game ``idx``, as bits."""
        bits: IntArray = self.passed.take(idx, axis=0) @ self._bit
        return bits

    def _next_unpassed(self, idx: IntArray, after: IntArray, passed: IntArray | None = None) -> IntArray:
        # the first seat clockwise after ``after`` who has not passed (``after`` himself last;
        # the seat after him if every seat has passed); ``passed``: the games' _passed_bits
        if passed is None:
            passed = self._passed_bits(idx)
        first: IntArray = self._unpassed_after[after << self.players | passed]
        return first

    def _role_keys(self, idx: IntArray) -> IntArray:
        """Each game's roles as one key of the role tables (:func:`meuterer.vector.arrays.role_tables`)."""
        key: IntArray = self.roles.take(idx, axis=0) @ self._role_weight
        return key

    def _next_in_queue(self, idx: IntArray) -> IntArray:
        """The next seat of the queue is to act in the games ``idx`` whose queue is not
        empty; the others, whose queue is done, are returned."""
        more = self.queue_len[idx] > 0
        if not np.count_nonzero(more):
            return idx
        i = idx[more]
        self.to_act[i] = self._pop(i)
        done: IntArray = idx[~more]
        return done

    def _step_groups(self) -> Groups:
        # the games at each step, found once per state of the batch (legal_mask and
        # random_actions share them)
        if self._grouped is None or self._grouped[0] != self._version:
            self._grouped = (self._version, Groups(self.step_))
        return self._grouped[1]

    def _memo(self, name: str, idx: IntArray, find: Any) -> IntArray:
        # rows found once per state of the batch (legal_mask and random_actions share them)
        known = self._memos.get(name)
        version = (self._version, self._sells.generation, self._discards.generation)
        if known is not None and known[0] == version and np.array_equal(known[1], idx):
            rows: IntArray = known[2]
            return rows
        rows = find(self, idx)
        self._memos[name] = (version, idx, rows)
        return rows

    def _bools(self, where: object, name: str) -> BoolArray:
        if not isinstance(where, np.ndarray) or where.dtype != np.bool_:
            raise TypeError(f"{name} must be a numpy array of booleans")
        if where.shape != (self.batch,):
            raise ValueError(f"{name} must have shape ({self.batch},), got {where.shape}")
        return where
