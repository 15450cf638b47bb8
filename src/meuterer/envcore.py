"""The environments' one core: legal action ids, observations, utilities, seeding and
loading a state, for the Gymnasium, PettingZoo, OpenSpiel and vector environments.

Every adapter wraps this module and none imports another. A single-game environment keeps
its game as a :class:`~meuterer.fast.FastGame` (a reference snapshot moved by the
reference's step table) and asks this module for:

- the legal ids of the player to act, each with the place of its action in the legal
  list, and their mask (:class:`LegalIds`, one per environment);
- the observation of a seat, as the declared layout's ints or its encoding in [0, 1]
  (:func:`observer`, one per environment; :class:`ScalarEncoder`, its tables);
- each seat's utility (:func:`meuterer.encoding.score_utilities`, :data:`UTILITIES`);
- the generators of a seeded episode (:func:`dealer`, :func:`opponent_rngs`);
- a state to start from (:func:`loadable`).

>>> import meuterer
>>> from meuterer.encoding import action_ids
>>> from meuterer.fast import FastGame
>>> game = FastGame.new(3)
>>> game.play_random(random.Random(7), [None] * 3)  # chance only: the deal
>>> moves, mask, _ = LegalIds(action_ids(game.state.rules))(game.state, game.legal_actions())
>>> list(moves.items()), int(mask.sum())
([(0, 0), (1, 1), (2, 2), (3, 3)], 4)
"""

from __future__ import annotations

import functools
import random
import struct
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from meuterer._cache import Memo
from meuterer.actions import Action, Discard, Sell
from meuterer.encoding import UTILITIES, ActionIds
from meuterer.errors import SetupError
from meuterer.fast.observation import Writer, value_names
from meuterer.rules import Rules
from meuterer.state import State
from meuterer.views import Layout, PlayerView

if TYPE_CHECKING:
    from gymnasium import spaces

__all__ = [
    "OBSERVATIONS",
    "UTILITIES",
    "LegalIds",
    "ScalarEncoder",
    "check_choice",
    "dealer",
    "legal_moves",
    "loadable",
    "observation_space",
    "observer",
    "opponent_rngs",
    "rules_with_rounds",
]

OBSERVATIONS: Final = ("encoded", "vector")
"""The observation encodings: floats in [0, 1] (one-hot categories), or the raw ints."""


def check_choice(name: str, value: object, choices: Sequence[object]) -> None:
    """Raise :class:`~meuterer.errors.SetupError` unless ``value`` is one of ``choices``.

    >>> check_choice("utility", "wins", tuple(UTILITIES))
    Traceback (most recent call last):
    ...
    meuterer.errors.SetupError: utility must be one of score, relative, win, got 'wins'
    """
    if value not in choices:
        raise SetupError(f"{name} must be one of {', '.join(map(str, choices))}, got {value!r}")


def rules_with_rounds(rules: Rules | None, rounds: int | None) -> Rules:
    """``rules`` (default ``Rules()``) with ``rounds`` rounds, if given (an environment's shorter game).

    >>> rules_with_rounds(None, 2).rounds, rules_with_rounds(Rules(pirates=True), None).pirates
    (2, True)
    """
    import attrs

    rules = Rules() if rules is None else rules
    return rules if rounds is None else attrs.evolve(rules, rounds=rounds)


def dealer(seed: int | None) -> random.Random:
    """The generator that plays chance in an episode seeded ``seed`` (``None``: unseeded)."""
    return random.Random(seed)


def opponent_rngs(seed: int, count: int) -> list[random.Random]:
    """Each opponent's own generator in an episode seeded ``seed`` (no policy can read or
    reseed the dealer's).

    >>> [rng.random() for rng in opponent_rngs(3, 2)] == [rng.random() for rng in opponent_rngs(3, 2)]
    True
    """
    return [random.Random(f"{seed}/opponent/{i}") for i in range(count)]


def loadable(state: object, players: int, rules: Rules) -> State:
    """``state``, checked to be a game an environment of ``players`` seats under ``rules``
    can load (:class:`~meuterer.errors.SetupError` otherwise).

    >>> import meuterer
    >>> loadable(meuterer.new_game(3), 4, Rules())
    Traceback (most recent call last):
    ...
    meuterer.errors.SetupError: the state has 3 seats, the environment 4
    """
    if not isinstance(state, State):
        raise SetupError(f"a state to load is a meuterer.State, got {type(state).__name__}")
    if state.players != players:
        raise SetupError(f"the state has {state.players} seats, the environment {players}")
    if state.rules != rules:
        raise SetupError("the state is played under other rules than the environment's")
    return state


def observation_space(layout: Layout[PlayerView], observation: str) -> spaces.Box:
    """The ``Box`` of an observation encoding (per-entry bounds for ``"vector"``)."""
    from gymnasium import spaces

    check_choice("observation", observation, OBSERVATIONS)
    if observation == "vector":
        return spaces.Box(np.array(layout.low, np.int64), np.array(layout.high, np.int64), dtype=np.int64)
    return spaces.Box(0.0, 1.0, (layout.encoded_size,), np.float32)


def legal_moves(ids: ActionIds, state: State, legal: Sequence[Action]) -> dict[int, int]:
    """Each legal id in ``state`` (ascending) and the place of its action in ``legal``, the
    state's legal decisions.

    >>> import meuterer
    >>> from meuterer.encoding import action_ids
    >>> state = meuterer.Game.replay(meuterer.random_game(seed=1, players=3)[0][:15], players=3).state
    >>> legal_moves(action_ids(state.rules), state, meuterer.legal_actions(state))
    {0: 0, 1: 1, 2: 2, 3: 3}
    """
    first = type(legal[0]) if legal else None
    if first is Sell:
        numbers = ids.sell_ids(state, legal)  # type: ignore[arg-type]
    elif first is Discard:
        numbers = ids.discard_ids(legal)  # type: ignore[arg-type]
    else:
        action_id = ids.action_id
        numbers = [action_id(state, action) for action in legal]
    if numbers == sorted(numbers):  # the engine mostly lists actions in id order
        return {number: place for place, number in enumerate(numbers)}
    return dict(sorted(zip(numbers, range(len(numbers)), strict=True)))


Entry = tuple[dict[int, int], np.ndarray, np.ndarray]
"""Legal ids (id -> place in the legal list), their read-only boolean mask, and the same as ``int8``."""


class LegalIds:
    """The legal action ids of a game's decisions (:func:`legal_moves`) and their masks,
    remembered per legal list (compared by value; a sale's ids depend on the active
    islands too) and per set of ids. An environment makes one and keeps it: the memos live
    as long as it does and hold at most :attr:`LIMIT` entries each.

    >>> import meuterer
    >>> from meuterer.encoding import action_ids
    >>> state = meuterer.Game.replay(meuterer.random_game(seed=1, players=3)[0][:15], players=3).state
    >>> legal = LegalIds(action_ids(state.rules))
    >>> moves, mask, as_int8 = legal(state, meuterer.legal_actions(state))
    >>> list(moves), mask[:5].tolist(), as_int8.dtype.name
    ([0, 1, 2, 3], [True, True, True, True, False], 'int8')
    """

    LIMIT: Final = 1 << 14
    """The most legal lists, and the most sets of ids, remembered (each memo is forgotten when full)."""

    def __init__(self, ids: ActionIds) -> None:
        self.ids = ids
        self._entries: Memo[tuple[object, Sequence[Action]], Entry] = Memo(size=self.LIMIT)
        self._masks: Memo[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = Memo(self._mask, size=self.LIMIT)
        self.none: Entry = ({}, *self._mask(()))
        """No legal ids (the game over, or another seat to act): an all-false mask."""

    def _mask(self, numbers: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        mask = np.zeros(self.ids.num_actions, np.bool_)
        mask[list(numbers)] = True
        mask.flags.writeable = False
        return mask, mask.view(np.int8)

    def __call__(self, state: State, legal: Sequence[Action]) -> Entry:
        """The legal ids of ``legal``, the decisions of the player to act in ``state``
        (``()``: none, an all-false mask)."""
        if not legal:
            return self.none
        # A sale's id depends on which islands are active, in ring order.
        key = ((state.ring, state.active) if type(legal[0]) is Sell else None, legal)
        entry = self._entries.get(key)
        if entry is None:
            moves = legal_moves(self.ids, state, legal)
            entry = self._entries.put(key, (moves, *self._masks[tuple(moves)]))
        return entry


class ScalarEncoder:
    """:meth:`meuterer.views.Layout.encode_values` of one observation vector, as a new
    float32 array, by table lookups: every place of the encoding is written from one entry
    of the vector (its one-hot place of a category, or the scaled value of a quantity), so
    each place has a column of floats, one for each value of its entry (``low`` to
    ``high``), worked out once from the declared layout by ``encode_values`` itself. An
    encoding is then the column of each place read at its entry's value: two ``take``
    and one ``add``. The columns share one small table (2.2 KiB for four seats, where
    laid end to end they take 24 KiB: the reads stay in the fastest cache): a one-hot
    place's column, zeros and one 1, is read off a single stretch of zeros around a 1,
    and equal columns are stored once.

    >>> from meuterer.views import observation_layout
    >>> layout = observation_layout(3)
    >>> values = np.array(layout.high)
    >>> encode = ScalarEncoder(layout)
    >>> encode(values).tolist() == list(np.float32(layout.encode_values(layout.high)))
    True
    """

    def __init__(self, layout: Layout[PlayerView]) -> None:
        self.size = layout.encoded_size
        """The length of an encoding."""
        entry: list[int] = []  # for each place, the entry it is written from
        columns: list[tuple[float, ...]] = []  # for each place, its float for each value of its entry
        lows: list[int] = []  # for each place, its entry's low
        at = 0  # where the entry's encoding starts
        for index, (low, high, categorical) in enumerate(zip(layout.low, layout.high, layout.categorical, strict=True)):
            width = high - low + 1 if categorical else 1
            probe = list(layout.low)
            rows = []  # the entry's places, for each of its values
            for value in range(low, high + 1):
                probe[index] = value
                rows.append(layout.encode_values(probe)[at : at + width])
            for place in range(width):
                entry.append(index)
                columns.append(tuple(row[place] for row in rows))
                lows.append(low)
            at += width
        assert at == self.size
        longest = max(map(len, columns), default=0)
        table = [0.0] * longest + [1.0] + [0.0] * longest  # the stretch the one-hot columns share
        start: list[int] = []  # for each place, where its column starts in table, less its entry's low
        stored: dict[tuple[float, ...], int] = {}  # the other columns, each stored once
        for column, low in zip(columns, lows, strict=True):
            ones = [k for k, x in enumerate(column) if x != 0.0]
            if not ones:  # zeros only: the stretch's first zeros
                where = 0
            elif len(ones) == 1 and column[ones[0]] == 1.0:  # the 1 at its value's place
                where = longest - ones[0]
            else:
                found = stored.get(column)
                if found is None:
                    found = stored[column] = len(table)
                    table.extend(column)
                where = found
            start.append(where - low)
        self._entry = np.array(entry, np.int64)
        self._start = np.array(start, np.int64)
        self._table = np.array(table, np.float32)
        self._count = layout.size
        self._pack = struct.Struct(f"={layout.size}q").pack_into  # native int64s, as numpy lays them out
        self._names = layout.names
        self._players = sum(name.endswith(".score") for name in layout.names)
        self._ring = sum(name.startswith("ring[") for name in layout.names)

    @staticmethod
    @functools.lru_cache(maxsize=32)
    def of(layout: Layout[PlayerView]) -> ScalarEncoder:
        """One encoder per layout, shared by the environments of the process (the tables
        take some milliseconds to work out; 32 layouts kept).

        >>> from meuterer.views import observation_layout
        >>> ScalarEncoder.of(observation_layout(4)) is ScalarEncoder.of(observation_layout(4))
        True
        """
        return ScalarEncoder(layout)

    def vector(self, values: Sequence[int]) -> np.ndarray:
        """An observation vector, a sequence of ints of the layout's size, as a new int64
        array (packed in one call: faster than ``np.fromiter`` or ``np.array`` on a list).

        >>> from meuterer.views import observation_layout
        >>> layout = observation_layout(3)
        >>> ScalarEncoder.of(layout).vector(layout.high).tolist() == list(layout.high)
        True
        """
        out = np.empty(self._count, np.int64)
        self._pack(out, 0, *values)  # type: ignore[arg-type]  # an ndarray is a writable buffer
        return out

    def from_list(self) -> Callable[[Sequence[int]], np.ndarray]:
        """A function of one's own that encodes an observation vector given as a sequence
        of ints (as :meth:`vector` then calling the encoder does) into a new float32 array.
        Its scratch arrays are its own: one for each environment, so that no two (say in
        two threads) ever write the same.

        >>> from meuterer.views import observation_layout
        >>> layout = observation_layout(3)
        >>> encoder = ScalarEncoder.of(layout)
        >>> encode = encoder.from_list()
        >>> encode(layout.low).tolist() == encoder(encoder.vector(layout.low)).tolist()
        True
        """
        pack, entry, start, table = self._pack, self._entry, self._start, self._table
        ints, rows = np.empty(self._count, np.int64), np.empty(self.size, np.int64)
        add = np.add

        def encode(values: Sequence[int]) -> np.ndarray:
            pack(ints, 0, *values)  # type: ignore[arg-type]  # an ndarray is a writable buffer
            add(ints.take(entry), start, out=rows)
            return table.take(rows)

        return encode

    def _values(self) -> np.ndarray:
        # The place of each of the layout's entries among a Writer's packed values.
        names = self._names
        where = {name: i for i, name in enumerate(value_names(self._players, self._ring)) if name is not None}
        return np.array([where[name] for name in names], np.int64)

    def from_writer(self, writer: Writer) -> Callable[[State, int | None], np.ndarray]:
        """A function of one's own that encodes the observation of a seat (``None``: a
        spectator) of a state, as calling the encoder on its observation vector does, into
        a new float32 array: ``writer`` packs the values straight into the function's
        scratch array, encoded from their own order. For an
        :func:`~meuterer.views.observation_layout` only.

        >>> import meuterer
        >>> from meuterer.fast.observation import observation_vector
        >>> from meuterer.views import observation_layout
        >>> state, encoder = meuterer.new_game(3), ScalarEncoder.of(observation_layout(3))
        >>> encode = encoder.from_writer(Writer(3, state.rules))
        >>> encode(state, 1).tolist() == encoder(np.array(observation_vector(state, 1))).tolist()
        True
        """
        order = self._values()
        write, entry, start, table = writer.write, order.take(self._entry), self._start, self._table
        ints, rows = np.empty(writer.struct.size // 8, np.int64), np.empty(self.size, np.int64)
        add = np.add

        def encode(state: State, player: int | None) -> np.ndarray:
            write(state, player, ints)
            # into the scratch array, unbuffered ("wrap": every place of entry is in range)
            ints.take(entry, out=rows, mode="wrap")
            add(rows, start, out=rows)
            return table.take(rows)

        return encode

    def vector_from_writer(self, writer: Writer) -> Callable[[State, int | None], np.ndarray]:
        """A function of one's own that gives the observation vector of a seat (``None``:
        a spectator) of a state as a new int64 array: ``writer`` packs the values into the
        function's scratch array, then they are put in the layout's order (one fancy index).

        >>> import meuterer
        >>> from meuterer.fast.observation import observation_vector
        >>> from meuterer.views import observation_layout
        >>> state = meuterer.new_game(4)
        >>> vector = ScalarEncoder.of(observation_layout(4)).vector_from_writer(Writer(4, state.rules))
        >>> vector(state, None).tolist() == observation_vector(state, None)
        True
        """
        order = self._values()
        write = writer.write
        ints = np.empty(writer.struct.size // 8, np.int64)

        def vector(state: State, player: int | None) -> np.ndarray:
            write(state, player, ints)
            out: np.ndarray = ints[order]  # a new array (fancy indexing: a little faster than take)
            return out

        return vector

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """The encoding of an observation vector (an int array of the layout's size, each entry within its bounds)."""
        return self._table.take(values.take(self._entry) + self._start)


def observer(layout: Layout[PlayerView], observation: str, rules: Rules) -> Callable[[State, int | None], np.ndarray]:
    """A function of one's own (an environment's) that gives a seat's observation of a state
    as a new array: ``"vector"``, the layout's ints (int64); ``"encoded"``, their encoding in
    [0, 1] (float32, :meth:`meuterer.views.Layout.encode_values`). Its scratch arrays and its
    memo of declared sales are its own.

    >>> import meuterer
    >>> from meuterer.views import observation_layout, view
    >>> layout, state = observation_layout(3), meuterer.new_game(3)
    >>> observer(layout, "vector", state.rules)(state, 0).tolist() == list(layout.vector(view(state, 0)))
    True
    """
    check_choice("observation", observation, OBSERVATIONS)
    encoder = ScalarEncoder.of(layout)
    writer = Writer(encoder._players, rules)
    return encoder.vector_from_writer(writer) if observation == "vector" else encoder.from_writer(writer)
