"""Gymnasium adapter: one learning seat against bots (extra ``meuterer[gym]``).

>>> import gymnasium
>>> import meuterer.gym  # registers meuterer/Meuterer-v0
>>> env = gymnasium.make("meuterer/Meuterer-v0", players=4, opponents="greedy")
>>> observation, info = env.reset(seed=1)
>>> observation.shape, observation.dtype, int(info["action_mask"].sum()) > 0
((579,), dtype('float32'), True)
>>> action = int(info["action_mask"].nonzero()[0][0])
>>> observation, reward, terminated, truncated, info = env.step(action)

:class:`MeutererEnv` plays one seat (the learner); chance and the other seats
(``opponents``) are played inside ``step`` until it is the learner's turn again or the
game ends. Keyword arguments:

- ``players`` (3 or 4), ``rules`` (a :class:`~meuterer.rules.Rules`), ``rounds`` (a
  shorter game: ``Rules(rounds=...)``), ``first_captain``.
- ``opponents``: an agent name of :mod:`meuterer.agents` (``"random"``, ``"greedy"``,
  ``"ismcts"``, ``"ismcts:20"``, ...), an agent (anything with ``act(view, legal, rng)``),
  a callable ``policy(view, legal, rng) -> action``, or a list of these, one per other seat.
  The game runs on the fast engine (``meuterer.fast``); a view is built only for an
  opponent that reads one (none for ``"random"``).
- ``seat``: the learner's seat, or ``"rotate"`` (seat ``k % players`` in the ``k``-th
  episode since the last seeded reset) or ``"random"``.
- ``reward``: ``"step"`` (default: after each of the learner's decisions, his change of
  utility since his previous decision, the opponents' moves included, so the rewards of an
  episode add up to his final utility) or ``"terminal"`` (the utility at the end only).
  ``utility``: ``"relative"`` (default: points minus the others' mean), ``"score"`` or
  ``"win"`` (see :data:`meuterer.encoding.UTILITIES`).
- ``observation``: ``"encoded"`` (default: floats in [0, 1], quantities scaled and
  categories one-hot, :meth:`meuterer.views.Layout.encode`) or ``"vector"`` (the ints of
  :func:`~meuterer.views.observation_vector`, with per-entry bounds).
- ``max_steps``: truncate an episode after this many learner decisions (``None``: never).
- ``illegal``: ``"end"`` (default: an illegal action ends the episode with
  ``illegal_reward``) or ``"raise"`` (:class:`~meuterer.errors.IllegalActionError`).
- ``render_mode``: ``"ansi"`` (``render()`` returns the learner's view as text) or ``"human"``.

``action_masks()`` gives the learner's legal action ids (for sb3-contrib's
``MaskablePPO``); ``info["action_mask"]`` holds the same. Action ids are those of
:mod:`meuterer.encoding`. Every observation and mask handed out is a new array of the
caller's own (no buffer is reused between steps): keep it or change it freely.

Random opponents are played by the fast engine itself (:meth:`~meuterer.fast.FastGame.play_random`:
chance and their moves in one loop, the same draws as one call per move).
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Final

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from gymnasium.utils import seeding
except ImportError as error:  # pragma: no cover - without the extra
    raise ImportError(f"meuterer.gym needs Gymnasium: pip install 'meuterer[gym]' ({error})") from error

from meuterer import engine
from meuterer.actions import Action, Discard, Sell
from meuterer.encoding import UTILITIES, ActionIds, action_ids, as_action_id, score_utilities
from meuterer.errors import IllegalActionError, SetupError
from meuterer.fast import FastGame
from meuterer.fast.engine import GAME_OVER
from meuterer.fast.observation import value_names, values_struct, write_values
from meuterer.rules import Rules
from meuterer.state import State
from meuterer.views import Layout, PlayerView, observation_layout, observation_text, view

__all__ = ["ENV_ID", "LegalIds", "MeutererEnv", "Policy", "ScalarEncoder", "observation_space", "observe"]

ENV_ID: Final = "meuterer/Meuterer-v0"
"""The id :func:`gymnasium.make` knows the environment by, once this module is imported
(``gymnasium.make("meuterer.gym:meuterer/Meuterer-v0")`` imports it first)."""

OBSERVATIONS: Final = ("encoded", "vector")
"""The observation encodings: floats in [0, 1] (one-hot categories), or the raw ints."""

Policy = Callable[[PlayerView, Sequence[Action], random.Random], Action]
"""A policy: the action to take, given one's view, the legal actions and a generator."""


def observation_space(layout: Layout[PlayerView], observation: str) -> spaces.Box:
    """The ``Box`` of an observation encoding (per-entry bounds for ``"vector"``)."""
    if observation == "vector":
        return spaces.Box(np.array(layout.low, np.int64), np.array(layout.high, np.int64), dtype=np.int64)
    if observation == "encoded":
        return spaces.Box(0.0, 1.0, (layout.encoded_size,), np.float32)
    raise SetupError(f"observation must be one of {', '.join(OBSERVATIONS)}, got {observation!r}")


def observe(layout: Layout[PlayerView], v: PlayerView, observation: str) -> np.ndarray:
    """A view as an observation of the given encoding (a new array)."""
    if observation == "vector":
        return np.array(layout.vector(v), np.int64)
    return np.array(layout.encode(v), np.float32)


class LegalIds:
    """The legal action ids of a :class:`~meuterer.fast.FastGame`, each with the place of
    its action in :meth:`~meuterer.fast.FastGame.legal_actions`, in id order, and their mask.

    Memoised on the legal list itself: the fast engine often hands out the same (immutable)
    tuple for the same choice, so the ids are worked out once per list, not once per step
    (a list is held while its entry is, so its identity cannot be reused by another). A
    list built afresh is looked up by the identities of its actions and, for sales, the
    active islands (the engine builds most actions once and hands out the same ones again:
    a slice of a list, a list made again after its memo was forgotten; the first list with
    those actions is held, and with it the actions, so no other action can have their
    identities meanwhile). Loadmaster discards are looked up by the cards they discard
    (their ids depend on nothing else, and the engine builds each pool's discards afresh).
    Any other list of new actions has its ids worked out (equal lists of other actions are
    rare: hashing the actions of every new list to find them cost more than it saved), and
    its mask is the one of every list with the same ids.

    >>> from meuterer.encoding import action_ids
    >>> from meuterer.fast import FastGame
    >>> import random
    >>> game = FastGame.new(3)
    >>> while game.is_chance_node():
    ...     _ = game.apply_chance(random.Random(7))
    >>> legal = LegalIds(action_ids(game.rules))
    >>> moves, mask = legal(game)
    >>> list(moves.items()), int(mask.sum()), legal(game)[0] is moves
    ([(0, 0), (1, 1), (2, 2), (3, 3)], 4, True)
    """

    LIMIT: Final = 1 << 15
    """The most lists remembered, by their identity and by their actions', and the most
    masks, one for each set of legal ids (each memo is forgotten when full)."""

    def __init__(self, ids: ActionIds) -> None:
        self.ids = ids
        self._memo: dict[int, tuple[Sequence[Action], dict[int, int], np.ndarray, np.ndarray]] = {}
        self._by_actions: dict[tuple[object, ...], tuple[Sequence[Action], dict[int, int], np.ndarray, np.ndarray]] = {}
        self._masks: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}

    @staticmethod
    @lru_cache(maxsize=32)
    def shared(ids: ActionIds) -> LegalIds:
        """One memo per numbering, shared by every environment of the process (an
        environment made for each episode starts warm).

        >>> from meuterer.encoding import action_ids
        >>> LegalIds.shared(action_ids(Rules())) is LegalIds.shared(action_ids(Rules()))
        True
        """
        return LegalIds(ids)

    def __call__(self, game: FastGame) -> tuple[dict[int, int], np.ndarray]:
        """The legal ids (id -> place in the legal list) and the read-only boolean mask
        (no ids, an all-false mask once the game is over)."""
        entry = self._found(game)
        return entry[1], entry[2]

    def int8(self, game: FastGame) -> tuple[dict[int, int], np.ndarray]:
        """As calling it, the mask as read-only ``int8`` (PettingZoo's action masks)."""
        entry = self._found(game)
        return entry[1], entry[3]

    def _found(self, game: FastGame) -> tuple[Sequence[Action], dict[int, int], np.ndarray, np.ndarray]:
        # The entry of the game's legal list: by the list's identity, else worked out.
        legal = game.legal_actions()
        entry = self._memo.get(id(legal))
        if entry is None or entry[0] is not legal:
            entry = self._entry(game, legal)
        return entry

    def _entry(
        self, game: FastGame, legal: Sequence[Action]
    ) -> tuple[Sequence[Action], dict[int, int], np.ndarray, np.ndarray]:
        # A list not seen by identity: looked up by the identities of its actions. A sale's
        # id depends on which islands are active, in ring order, too (the rule set's islands
        # at those places of the ring), and on its declarations, not on its seller: sales
        # are looked up by the identities of their declarations (the fast engine builds
        # each seat's sales from the same declarations).
        # (The keys are built by plain loops: on Python 3.11 a comprehension, with its
        # function and frame, or a tuple of a map, costs more for such short lists.)
        first = type(legal[0]) if legal else None
        if first is Sell:
            ring, active = game.ring, game.active
            where = (ring[active[0]], ring[active[1]]) if len(active) == 2 else tuple(map(ring.__getitem__, active))
            key: list[object] = [where]
            for sell in legal:
                key.append(id(sell.sales))  # type: ignore[union-attr]
        elif first is Discard:
            # A discard's id depends on its cards only: looked up by them (the fast engine
            # builds each seat's and each pool's discards afresh, equal lists of new actions).
            key = [Discard]
            for discard in legal:
                key.append(discard.cards)  # type: ignore[union-attr]
        else:
            key = [None]
            for action in legal:
                key.append(id(action))
        same = tuple(key)
        entry = self._by_actions.get(same)
        if entry is None:
            if first is Sell:
                ids = self.ids.sell_ids(game, legal)  # type: ignore[arg-type]
            elif first is Discard:
                ids = self.ids.discard_ids(legal)  # type: ignore[arg-type]
            else:
                action_id = self.ids.action_id
                ids = [action_id(game, action) for action in legal]
            if ids == sorted(ids):  # the engine mostly lists actions in id order: nothing to sort
                moves = {number: place for place, number in enumerate(ids)}
            else:
                moves = dict(sorted(zip(ids, range(len(ids)), strict=True)))
            legal_set = tuple(moves)  # many lists have the same ids (other players, other islands)
            masks = self._masks.get(legal_set)
            if masks is None:
                mask = np.zeros(self.ids.num_actions, np.bool_)
                mask[list(moves)] = True
                mask.flags.writeable = False
                masks = (mask, mask.view(np.int8))
                if len(self._masks) >= self.LIMIT:
                    self._masks.clear()
                self._masks[legal_set] = masks
            entry = (legal, moves, masks[0], masks[1])  # holds legal, and so its actions
            if len(self._by_actions) >= self.LIMIT:
                self._by_actions.clear()
            self._by_actions[same] = entry
        if len(self._memo) >= self.LIMIT:
            self._memo.clear()
        self._memo[id(legal)] = entry if entry[0] is legal else (legal, entry[1], entry[2], entry[3])
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

    @staticmethod
    @lru_cache(maxsize=32)
    def of(layout: Layout[PlayerView]) -> ScalarEncoder:
        """One encoder per layout, shared by the environments of the process (the tables
        take some milliseconds to work out).

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

    def _values(self) -> tuple[struct.Struct, np.ndarray]:
        # The packing of meuterer.fast.observation.write_values for this layout, and the
        # place of each of the layout's entries among the packed values.
        names = self._names
        players = sum(name.endswith(".score") for name in names)
        ring = sum(name.startswith("ring[") for name in names)
        where = {name: i for i, name in enumerate(value_names(players, ring)) if name is not None}
        return values_struct(players, ring), np.array([where[name] for name in names], np.int64)

    def from_game(self) -> Callable[[FastGame, int | None], np.ndarray]:
        """A function of one's own that encodes the observation of a seat (``None``: a
        spectator) of a fast game, as calling the encoder on
        :func:`~meuterer.fast.observation.observation_vector` does, into a new float32
        array: the values are packed straight into its scratch array
        (:func:`~meuterer.fast.observation.write_values`) and encoded from their own
        order. For an :func:`~meuterer.views.observation_layout` only.

        >>> from meuterer.fast import FastGame
        >>> from meuterer.fast.observation import observation_vector
        >>> from meuterer.views import observation_layout
        >>> game, encoder = FastGame.new(3), ScalarEncoder.of(observation_layout(3))
        >>> encode = encoder.from_game()
        >>> encode(game, 1).tolist() == encoder(np.array(observation_vector(game, 1))).tolist()
        True
        """
        packing, order = self._values()
        pack, entry, start, table = packing.pack_into, order.take(self._entry), self._start, self._table
        ints, rows = np.empty(packing.size // 8, np.int64), np.empty(self.size, np.int64)
        add = np.add

        def encode(game: FastGame, player: int | None) -> np.ndarray:
            write_values(game, player, pack, ints)
            # into the scratch array, unbuffered ("wrap": every place of entry is in range)
            ints.take(entry, out=rows, mode="wrap")
            add(rows, start, out=rows)
            return table.take(rows)

        return encode

    def vector_from_game(self) -> Callable[[FastGame, int | None], np.ndarray]:
        """A function of one's own that gives the observation vector of a seat (``None``:
        a spectator) of a fast game (:func:`~meuterer.fast.observation.observation_vector`)
        as a new int64 array: the values packed into its scratch array, then put in the
        layout's order (one fancy index). For an :func:`~meuterer.views.observation_layout` only.

        >>> from meuterer.fast import FastGame
        >>> from meuterer.fast.observation import observation_vector
        >>> from meuterer.views import observation_layout
        >>> game = FastGame.new(4)
        >>> vector = ScalarEncoder.of(observation_layout(4)).vector_from_game()
        >>> vector(game, None).tolist() == observation_vector(game, None)
        True
        """
        packing, order = self._values()
        pack = packing.pack_into
        ints = np.empty(packing.size // 8, np.int64)

        def vector(game: FastGame, player: int | None) -> np.ndarray:
            write_values(game, player, pack, ints)
            out: np.ndarray = ints[order]  # a new array (fancy indexing: a little faster than take)
            return out

        return vector

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """The encoding of an observation vector (an int array of the layout's size, each entry within its bounds)."""
        return self._table.take(values.take(self._entry) + self._start)


class _SeededWhenRead:
    """Gymnasium's ``_np_random`` made when first read: a seeded reset (or ``seed``) keeps
    the seed in ``_np_seed``, and the generator is made from it on the first read of
    ``np_random`` (or ``_np_random``, as Gymnasium's checker reads it). Making a NumPy
    generator (a SeedSequence, a PCG64) costs as much as several steps of the game, and
    most episodes never draw from it; nothing can draw from it before it is read, so it is
    the generator seeding would have made, in the same state."""

    _np_seed: int | None = None
    _np_generator: np.random.Generator | None = None

    @property
    def _np_random(self) -> np.random.Generator | None:
        seed = self._np_seed
        if seed is not None:
            self._np_seed = None
            self._np_generator, _ = seeding.np_random(seed)
        return self._np_generator

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        self._np_seed = None
        self._np_generator = value


class _Actions(_SeededWhenRead, spaces.Discrete):  # type: ignore[misc]  # a property for its attribute
    """``Discrete(n)`` whose :meth:`seed` with an int keeps it and makes the generator from
    it when ``np_random`` is first read (the same generator, in the same state, as
    ``Discrete.seed`` makes at once): the environment seeds its action space at every
    seeded reset, and few ever sample from it.

    >>> space, plain = _Actions(5), spaces.Discrete(5)
    >>> space.seed(3) == plain.seed(3), space == plain
    (True, True)
    >>> [int(space.sample()) for _ in range(6)] == [int(plain.sample()) for _ in range(6)]
    True
    """

    def seed(self, seed: int | None = None) -> int:
        """As ``Space.seed``: ``seed``'s generator (made when first read), or a random one for ``None``."""
        if type(seed) is int and seed >= 0:
            self._np_seed = seed
            return seed  # a SeedSequence's entropy is its int seed
        return super().seed(seed)


def _policy(spec: Any) -> Policy:
    if isinstance(spec, str):
        from meuterer.agents import make_agent

        return make_agent(spec).act
    act = getattr(spec, "act", None)
    if callable(act):
        return act  # type: ignore[no-any-return]
    if callable(spec):
        return spec  # type: ignore[no-any-return]
    raise SetupError(f"an opponent is an agent name, an agent or a callable policy, got {spec!r}")


class MeutererEnv(_SeededWhenRead, gymnasium.Env[np.ndarray, np.int64]):
    """Meuterer for one learning seat against ``opponents`` (see the module's documentation)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        players: int = 4,
        opponents: Any = "random",
        seat: int | str = 0,
        reward: str = "step",
        utility: str = "relative",
        observation: str = "encoded",
        rules: Rules | None = None,
        rounds: int | None = None,
        first_captain: int = 0,
        max_steps: int | None = None,
        illegal: str = "end",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if rounds is not None:
            rules = Rules(rounds=rounds) if rules is None else Rules(**{**_options(rules), "rounds": rounds})
        self._initial = engine.new_game(players, first_captain, rules)
        self.rules: Rules = self._initial.rules
        """The rule set."""
        self.players = players
        if reward not in ("step", "terminal"):
            raise SetupError(f"reward must be step or terminal, got {reward!r}")
        if utility not in UTILITIES:
            raise SetupError(f"utility must be one of {', '.join(UTILITIES)}, got {utility!r}")
        if illegal not in ("end", "raise"):
            raise SetupError(f"illegal must be end or raise, got {illegal!r}")
        if not (seat in ("rotate", "random") or (type(seat) is int and 0 <= seat < players)):
            raise SetupError(f"seat must be a seat from 0 to {players - 1}, 'rotate' or 'random', got {seat!r}")
        if render_mode is not None and not isinstance(render_mode, str):
            raise TypeError(f"render_mode is ansi, human or None, got {type(render_mode).__name__}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # as Gymnasium's own environments do: accepted with a warning (Stable-Baselines3's
            # make_vec_env asks every environment for "rgb_array")
            gymnasium.logger.warn(f"render_mode {render_mode!r} is not one of ansi, human: render() will return None")
        specs = list(opponents) if isinstance(opponents, list | tuple) else [opponents] * (players - 1)
        if len(specs) != players - 1:
            raise SetupError(f"{players - 1} opponents are needed, got {len(specs)}")
        self._opponent_specs = specs
        self._policies = [_policy(spec) for spec in specs]
        # Opponents that read no view (uniformly random ones) get none built.
        self._blind = [_is_random(policy) for policy in self._policies]
        self._all_blind = all(self._blind)
        """Whether every opponent is blind: then the fast engine plays every move but the learner's."""
        self.seat_choice = seat
        self.reward_model = reward
        self.utility = utility
        self.observation_kind = observation
        self.max_steps = max_steps
        self.illegal = illegal
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.ids = action_ids(self.rules)
        """The action numbering (:class:`meuterer.encoding.ActionIds`)."""
        self.layout = observation_layout(players, self.rules)
        """The declared observation layout (:func:`meuterer.views.observation_layout`)."""
        self.observation_space = observation_space(self.layout, observation)
        encoder = ScalarEncoder.of(self.layout)
        # the learner's observation, read straight off the fast game into this
        # environment's own scratch arrays (encoded as Layout.encode_values)
        self._observe = encoder.vector_from_game() if observation == "vector" else encoder.from_game()
        self.action_space = _Actions(self.ids.num_actions)
        self._legal_ids = LegalIds.shared(self.ids)
        self._found = self._legal_ids._found  # the entry of the game's legal list
        self._game = FastGame.from_state(self._initial)
        self._state: State | None = self._initial
        self._moves: dict[int, int] | None = None
        self._utility_scores: list[int] | None = None  # the scores and the end the utilities are of
        self._utility_over = False
        self._utilities: tuple[float, ...] = ()
        self.seat = seat if isinstance(seat, int) else 0
        """The learner's seat in this episode."""
        self._rng = random.Random()
        """The dealer's generator: chance and the seat choice. No policy ever sees it."""
        self._opponent_rngs = [random.Random() for _ in specs]
        """Each opponent's own generator, so that no policy can read or reseed the deck."""
        self._episodes = 0
        self._seat_rngs: tuple[int, list[random.Random], list[random.Random | None]] = (-1, [], [])
        self._steps = 0
        self._base = 0.0
        self._mask: np.ndarray | None = None

    # Gymnasium API -----------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode; ``seed`` seeds chance, the opponents and the seat choice
        (each opponent draws from its own generator, derived from ``seed``)."""
        if type(seed) is int and seed >= 0:
            # Gymnasium's seeding of np_random, the generator made when first read (_SeededWhenRead)
            super().reset(options=options)
            self._np_seed, self._np_random_seed = seed, seed  # a SeedSequence's entropy is its int seed
        else:
            super().reset(seed=seed, options=options)  # None, or refused as Gymnasium refuses it
        if seed is not None:  # a seeded reset starts over: chance, opponents, seat rotation
            self._rng = random.Random(seed)
            self._opponent_rngs = [random.Random(f"{seed}/opponent/{i}") for i in range(len(self._policies))]
            self.action_space.seed(seed)
            self._episodes = 0
        if self.seat_choice == "rotate":
            self.seat = self._episodes % self.players
        elif self.seat_choice == "random":
            self.seat = self._rng.randrange(self.players)
        self._episodes += 1
        self._steps = 0
        self._game = FastGame.from_state(self._initial)
        self._advance()
        self._base = self._utility() if self.reward_model == "step" else 0.0
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner takes action id ``action``; then chance and the opponents play."""
        game = self._game
        if game.step == GAME_OVER:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset()")
        number = action if type(action) is int else as_action_id(action)  # a plain int as it is
        moves = self._moves
        if moves is None:
            moves = self._legal()
        index = moves.get(number)
        if index is None:
            if self.illegal == "raise":
                legal = tuple(moves)
                raise IllegalActionError(f"action id {number}", f"not legal for p{self.seat}: legal ids {legal}")
            return self._observation(), self.illegal_reward, True, False, {**self._info(), "illegal": True}
        game.apply_at(index)
        self._advance()
        self._steps += 1
        terminated = game.step == GAME_OVER
        now = self._utility()
        if self.reward_model == "step":
            reward, self._base = now - self._base, now
        else:
            reward = now if terminated else 0.0
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        if self.render_mode == "human":
            self.render()
        seat = self.seat
        observation = self._observe(game, seat)
        mask = self._mask
        if mask is None:
            self._legal()
            mask = self._mask
            assert mask is not None
        info = {"action_mask": mask.copy(), "seat": seat, "scores": tuple(game.scores)}  # as _info
        return observation, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal action ids as booleans (sb3-contrib's ``MaskablePPO`` asks for this)."""
        mask = self._mask
        if mask is None:
            self._legal()
            mask = self._mask
            assert mask is not None
        return mask.copy()

    def render(self) -> str | None:
        """The learner's view as text: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (use 'ansi' or 'human')")
            return None
        if self.render_mode not in self.metadata["render_modes"]:
            gymnasium.logger.warn(f"render_mode {self.render_mode!r} is not one of ansi, human: nothing rendered")
            return None
        text = observation_text(view(self.state, self.seat))
        if self.render_mode == "ansi":
            return text
        print(text, end="")
        return None

    # The game -------------------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The engine's state (the learner to act, or the game over), built when asked."""
        state = self._state
        if state is None:
            state = self._state = self._game.to_state()
        return state

    def _legal(self) -> dict[int, int]:
        # The learner's legal ids, each with the place of its action in the fast game's list.
        moves = self._moves
        if moves is None:
            entry = self._found(self._game)
            moves, self._mask = entry[1], entry[2]
            self._moves = moves
        return moves

    def _utility(self) -> float:
        # The learner's utility (the core's, worked out again only when the scores or the end change).
        game = self._game
        scores, over = game.scores, game.step == GAME_OVER
        if over is not self._utility_over or scores != self._utility_scores:
            self._utility_scores, self._utility_over = scores[:], over
            self._utilities = score_utilities(tuple(scores), over, self.utility)
        return self._utilities[self.seat]

    def _advance(self) -> None:
        """Play chance and the opponents (the fast engine, which draws chance from the
        dealer's generator as the reference does) until the learner is to decide or the
        game is over. A view is built only for an opponent that reads one."""
        self._mask = self._moves = self._state = None
        game, seat, chance = self._game, self.seat, self._rng
        blind = self._blind_seats()
        game.play_random(chance, blind)  # chance and the blind opponents
        if self._all_blind:  # then it stops only for the learner or at the end
            return
        while True:
            player = game.current_player
            if player is None or player == seat:
                return
            which = player if player < seat else player - 1
            legal = game.legal_actions()
            game.apply(self._policies[which](view(game.to_state(), player), legal, self._opponent_rngs[which]))
            game.play_random(chance, blind)

    def _blind_seats(self) -> list[random.Random | None]:
        # Each seat's generator if a blind opponent plays it (the fast engine plays those
        # seats itself, as RandomAgent.act, without a view), else None (the learner, and the
        # opponents that read a view). Kept with the seat and the generators' list it was
        # worked out for, and worked out again when either changes.
        seat, rngs = self.seat, self._opponent_rngs
        known = self._seat_rngs
        if known[0] == seat and known[1] is rngs:
            return known[2]
        seats: list[random.Random | None] = [None] * self.players
        for which, (rng, blind) in enumerate(zip(rngs, self._blind, strict=True)):
            if blind:
                seats[which if which < seat else which + 1] = rng
        self._seat_rngs = (seat, rngs, seats)
        return seats

    def _observation(self) -> np.ndarray:
        # The learner's observation, read straight off the fast game (the declared layout's).
        return self._observe(self._game, self.seat)

    def _info(self) -> dict[str, Any]:
        # (written out in step too)
        mask = self._mask
        if mask is None:
            self._legal()
            mask = self._mask
            assert mask is not None
        return {"action_mask": mask.copy(), "seat": self.seat, "scores": tuple(self._game.scores)}


def _is_random(policy: Policy) -> bool:
    from meuterer.agents import RandomAgent

    return isinstance(getattr(policy, "__self__", None), RandomAgent)


def _options(rules: Rules) -> dict[str, Any]:
    import attrs

    return attrs.asdict(rules, recurse=False)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        ENV_ID, entry_point="meuterer.gym:MeutererEnv", vector_entry_point="meuterer.vector.env:MeutererVectorEnv"
    )
