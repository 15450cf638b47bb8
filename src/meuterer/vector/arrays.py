"""The arrays of the batch engine and the small tools its steps share: the step codes
(:data:`meuterer.machine.STEP_CODES`), raw-row views, a grouping of games by step, and the
tables of legal ids asked of the reference once per key (:class:`Choices`).

>>> from meuterer.vector.arrays import OFFER, PLAY, Groups
>>> import numpy as np
>>> group = Groups(np.array([PLAY, OFFER, PLAY]))
>>> group(PLAY).tolist(), group.size(OFFER)
([0, 2], 1)
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from meuterer.cards import GOODS, ROLES, Card
from meuterer.machine import STEP_CODES
from meuterer.phases import scoring
from meuterer.rules import Rules
from meuterer.state import Step

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

CHANCE: Final = -1
""":attr:`VectorGame.current_player` of a game at a chance node."""
TERMINAL: Final = -2
""":attr:`VectorGame.current_player` of a game that is over."""

# Steps are numbered by the machine's stable step codes (meuterer.machine.STEP_CODES).
NUMBER: Final = STEP_CODES
STEPS_BY_CODE: Final = tuple(sorted(NUMBER, key=NUMBER.__getitem__))
(
    RING,
    DEAL,
    OFFER,
    PLAY,
    CHOOSE_ROLE,
    REVEAL,
    MUTINY,
    RESOLVE_MUTINY,
    ROLE_POINTS,
    SELL,
    SAIL,
    CLEAN_UP,
    DRAW,
    LOADMASTER_DISCARD,
    ROLES_RETURN,
    END_OF_ROUND,
    GAME_OVER,
) = (
    NUMBER[Step.RING],
    NUMBER[Step.DEAL],
    NUMBER[Step.OFFER],
    NUMBER[Step.PLAY],
    NUMBER[Step.CHOOSE_ROLE],
    NUMBER[Step.REVEAL],
    NUMBER[Step.MUTINY],
    NUMBER[Step.RESOLVE_MUTINY],
    NUMBER[Step.ROLE_POINTS],
    NUMBER[Step.SELL],
    NUMBER[Step.SAIL],
    NUMBER[Step.CLEAN_UP],
    NUMBER[Step.DRAW],
    NUMBER[Step.LOADMASTER_DISCARD],
    NUMBER[Step.ROLES_RETURN],
    NUMBER[Step.END_OF_ROUND],
    NUMBER[Step.GAME_OVER],
)
SUPPORT, PIRATE = int(Card.SUPPORT), int(Card.PIRATE)
MUTINEER, CABIN_BOY, MATE, MERCHANT, LOADMASTER = map(int, ROLES)
NO: Final = -1
MAX_BATCH: Final = 1 << 20
"""The most games in one batch (about 1.3 GB of state arrays and 0.8 GB of mask)."""
N_GOODS = len(GOODS)


class Choices:
    """The legal ids of one block (sales or discards) for each key seen: a row each, as a
    mask over the block (unless not ``masked``) and as a padded list of ids (for a uniform
    pick); or other small codes by key, as the greedy bot's table of what sales can sell
    (:class:`meuterer.vector.greedy_play.BestSales`)."""

    MOST_ROWS: Final = 1 << 15
    """Rows kept at most; past it the table starts afresh (``generation`` counts the starts)."""

    DENSE: Final = 1 << 21
    """Key spaces up to this size are looked up in a dense table (one gather), larger ones
    by a search of the sorted keys."""

    def __init__(self, block: range, space: int, masked: bool = True) -> None:
        self.block = block
        self.space = space
        self.masked = masked
        """Whether the rows are kept as masks too (else only as lists of ids)."""
        self.generation = 0
        self._clear()

    def _clear(self) -> None:
        self.rows: dict[int, int] = {}
        self.mask = np.zeros((16, len(self.block) if self.masked else 0), dtype=np.bool_)
        self.ids = np.zeros((16, 1), dtype=np.int64)
        self.count = np.zeros(16, dtype=np.int64)
        self.sorted_keys = np.zeros(0, dtype=np.int64)
        self.sorted_rows = np.zeros(0, dtype=np.int64)
        self.dense = np.full(self.space, -1, dtype=np.int32) if self.space <= self.DENSE else None
        self._new: list[tuple[int, int]] = []
        self.generation += 1

    def make_room(self, more: int) -> bool:
        """Start afresh if ``more`` rows would take the table past :attr:`MOST_ROWS`
        (whether it did)."""
        if self.rows and len(self.rows) + more > self.MOST_ROWS:
            self._clear()
            return True
        return False

    def add(self, key: int, legal: Sequence[int]) -> int:
        row = len(self.rows)
        if row == len(self.count):  # grow by doubling
            self.mask = np.concatenate([self.mask, np.zeros_like(self.mask)])
            self.ids = np.concatenate([self.ids, np.zeros_like(self.ids)])
            self.count = np.concatenate([self.count, np.zeros_like(self.count)])
        if len(legal) > self.ids.shape[1]:
            wider = np.zeros((len(self.ids), len(legal)), dtype=np.int64)
            wider[:, : self.ids.shape[1]] = self.ids
            self.ids = wider
        if self.masked:
            self.mask[row, [a - self.block.start for a in legal]] = True
        self.ids[row, : len(legal)] = legal
        self.count[row] = len(legal)
        self.rows[key] = row
        self._new.append((key, row))
        return row

    def index(self) -> None:
        """Sort the keys for :meth:`lookup` (after adding some)."""
        new = np.array(sorted(self._new), dtype=np.int64).reshape(-1, 2)
        self._new = []
        if self.dense is not None:
            self.dense[new[:, 0]] = new[:, 1]
            return
        at = np.searchsorted(self.sorted_keys, new[:, 0])  # merged in, the keys stay sorted
        self.sorted_keys = np.insert(self.sorted_keys, at, new[:, 0])
        self.sorted_rows = np.insert(self.sorted_rows, at, new[:, 1])

    def lookup(self, key: IntArray) -> IntArray:
        """Each key's row, ``-1`` for a key not seen."""
        if self.dense is not None:
            rows: IntArray = np.take(self.dense, key).astype(np.int64)
            return rows
        if not len(self.sorted_keys):
            return np.full(len(key), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.sorted_keys, key), len(self.sorted_keys) - 1)
        found: IntArray = np.where(self.sorted_keys[at] == key, self.sorted_rows[at], -1)
        return found

    def rows_of(self, key: IntArray, listing: Callable[[int], Sequence[int]]) -> IntArray:
        """Each key's row: keys seen before are looked up; a new key's row is added from
        ``listing(k)``, ``k`` the index in ``key`` of its first occurrence (once per key;
        past :attr:`MOST_ROWS` the table starts afresh with this call's keys)."""
        rows = self.lookup(key)
        missing = rows < 0
        if np.count_nonzero(missing):
            new, first = np.unique(key[missing], return_index=True)
            at = np.flatnonzero(missing)[first]
            if self.make_room(len(new)):  # bounded memory: past the bound, start afresh
                new, at = np.unique(key, return_index=True)
            for k, i in zip(new.tolist(), at.tolist(), strict=True):
                self.add(k, listing(i))
            self.index()
            rows = self.lookup(key)
        return rows

    def pick(self, rows: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
        """A uniform legal id of each row."""
        picked: IntArray = self.ids[rows, (u * self.count[rows]).astype(np.int64)]
        return picked


CHOICE_TABLES: dict[tuple[Rules, str], Choices] = {}


def choices(rules: Rules, kind: str, block: range, space: int) -> Choices:
    found = CHOICE_TABLES.get((rules, kind))
    if found is None:
        if len(CHOICE_TABLES) >= 32:
            CHOICE_TABLES.clear()
        found = CHOICE_TABLES[rules, kind] = Choices(block, space)
    return found


def _find_c_einsum() -> Callable[..., Any]:
    # numpy's einsum without its Python wrapper (the same function when optimize is off,
    # about a microsecond less per call, and a handler makes a few): numpy 2, then 1.x.
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            found: Callable[..., Any] | None = getattr(importlib.import_module(name), "c_einsum", None)
        except ImportError:
            continue
        if found is not None:
            return found
    return np.einsum


c_einsum: Final = _find_c_einsum()


def rowsum(counts: npt.NDArray[Any]) -> IntArray:
    """Each row's sum (einsum: far quicker than ``sum(axis=1)`` over a few columns)."""
    total: IntArray = c_einsum("ij->i", counts)
    return total


def whole_rows(a: npt.NDArray[Any]) -> npt.NDArray[np.void]:
    """A (len(a),) view of a C-contiguous array, each row one element of raw bytes: a row
    written (or read) by one 1-d index, far quicker than ``a[idx] = rows`` over a 2-d array.
    For the state arrays and arrays just made (C-contiguous: a view, never a copy; any
    other array is refused)."""
    rows: npt.NDArray[np.void] = np.frombuffer(a, VOID[a.itemsize * math.prod(a.shape[1:])])
    return rows


class _Voids(dict[int, np.dtype[np.void]]):
    """The raw-bytes dtype of each width, made once."""

    def __missing__(self, size: int) -> np.dtype[np.void]:
        found = self[size] = np.dtype((np.void, size))
        return found


VOID: Final = _Voids()


def row_of(a: npt.NDArray[Any], value: int) -> np.void:
    """One row of ``a`` (as :func:`whole_rows` holds them) with every entry ``value``."""
    row: np.void = whole_rows(np.full((1, *a.shape[1:]), value, dtype=a.dtype))[0]
    return row


@functools.cache
def role_tables(players: int) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]:
    """Tables of the roles of a game, by one key: the sum of role * 6**seat over the seats
    (roles -1 to 4), an index of tables of 6**players rows (negative keys index from the
    end, so each row is that of the roles' key modulo the tables' length): the key's weight
    of each seat; for each key, the seat of each role (-1: no one holds it), the seats of
    the roles on the mutineer's or the mate's side in a mutiny (as bits), the roles taken
    (as bits), and which seats side with the captain as his mate and with the mutineer
    (the mutineer and the cabin boy), as rows of 0 and 1."""
    size = 6**players
    weight = 6 ** np.arange(players, dtype=np.int64)
    seat_of = np.full((len(ROLES), size), NO, dtype=np.int64)
    sides = np.zeros(size, dtype=np.int64)
    taken = np.zeros(size, dtype=np.int64)
    mates = np.zeros((size, players), dtype=np.int64)
    mutineers = np.zeros((size, players), dtype=np.int64)
    for roles in itertools.product(range(-1, len(ROLES)), repeat=players):
        key = sum(role * 6**seat for seat, role in enumerate(roles)) % size
        for seat, role in enumerate(roles):
            if role >= 0:
                seat_of[role, key] = seat
                taken[key] |= 1 << role
                sides[key] |= (role in (MATE, MUTINEER, CABIN_BOY)) << seat
                mates[key, seat] = role == MATE
                mutineers[key, seat] = role in (MUTINEER, CABIN_BOY)
    return weight, seat_of, sides, taken, mates, mutineers


def clockwise_tables(players: int) -> tuple[IntArray, IntArray]:
    """For a seat ``first`` and a set of seats as bits: the seats of the set from ``first``
    on clockwise (a row of 4, zeros after them; index ``first << players | bits``) and
    their number."""
    order = np.zeros((players << players, 4), dtype=np.int64)
    count = np.zeros(players << players, dtype=np.int64)
    for first in range(players):
        for bits in range(1 << players):
            seats = [(first + k) % players for k in range(players) if bits >> ((first + k) % players) & 1]
            order[first << players | bits, : len(seats)] = seats
            count[first << players | bits] = len(seats)
    return order, count


class Groups:
    """The positions holding each step code, ascending (as ``np.flatnonzero(codes == code)``),
    from one stable (radix) sort of the codes: ``group(code)``; ``group.size(code)``, their
    number."""

    __slots__ = ("bounds", "order")

    def __init__(self, codes: IntArray) -> None:
        small = codes.astype(np.int8)
        self.order = small.argsort(kind="stable")
        self.bounds: list[int] = [0, *np.bincount(small, minlength=len(STEPS_BY_CODE)).cumsum().tolist()]

    def __call__(self, code: int) -> IntArray:
        found: IntArray = self.order[self.bounds[code] : self.bounds[code + 1]]
        return found

    def size(self, code: int) -> int:
        return self.bounds[code + 1] - self.bounds[code]


def pick_weighted(weights: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
    """For each row, a column drawn with probability proportional to its weight."""
    cumulative = weights.cumsum(axis=1)
    target = (u * cumulative[:, -1]).astype(np.int64)
    picked: IntArray = (cumulative > target[:, None]).argmax(axis=1)
    return picked


def win_shares(scores: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """(B, P): the ``win`` utility of finished games' scores (:func:`meuterer.phases.scoring.win_shares`)."""
    best = scores == scores.max(axis=1, keepdims=True)
    shares: npt.NDArray[np.float64] = scoring.win_shares(best, best.sum(axis=1, keepdims=True))
    return shares
