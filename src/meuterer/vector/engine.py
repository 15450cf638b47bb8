"""A batch of B games of Meuterer held as numpy arrays and played in lockstep.

:class:`VectorGame` is a third writer of the rules (after the reference engine and the
fast engine), built for throughput: every rule is applied to all the games at the same
step at once, by numpy operations over the batch. It speaks ids only: decisions are
:mod:`meuterer.encoding`'s fixed action ids, chance outcomes are a card (0 to 6) for a
draw and the arrangement's rank (:class:`~meuterer.actions.RingArrangements`) for the
shuffled ring. Its agreement with the reference is proven, step by step, by
``tests/test_vector.py`` and ``scripts/vector_align.py`` (masks, chance outcomes and
probabilities, rewards, terminal flags, every seat's observation).

Two choices are not vectorised but asked of the core, cached by a small key: the sale
declarations open to a seller (they depend on his face-up goods and the active islands)
and the loadmaster's discards (they depend on his pool); on a key not seen before, the
reference engine lists the legal ids of that game's state (:meth:`VectorGame.to_state`).

>>> import numpy as np
>>> import meuterer
>>> from meuterer.vector import VectorGame
>>> games = VectorGame(batch=2, players=3, seed=1, record=True)
>>> games.advance_chance()                      # the deal, drawn per game
>>> games.legal_mask()[:, :5].tolist()         # four offers, then "play ruby"
[[True, True, True, True, False], [True, True, True, True, False]]
>>> games.step(np.array([2, 0]))
>>> games.to_state(0) == meuterer.Game.replay(games.history(0), players=3).state
True
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
from collections.abc import Callable, Sequence
from math import factorial
from typing import Any, Final

import attrs
import numpy as np
import numpy.typing as npt

from meuterer import engine
from meuterer.actions import Action, ArrangeRing, Draw, RingArrangements, Sale
from meuterer.cards import CARDS, GOODS, ROLES, Card, Role
from meuterer.encoding import UTILITIES, ActionIds, action_ids
from meuterer.errors import IllegalActionError, SetupError
from meuterer.machine import STEP_CODES
from meuterer.rules import DiscardPool, Reshuffle, Ring, Rules, SaleOrder
from meuterer.state import State, Step

__all__ = ["CHANCE", "TERMINAL", "Playouts", "VectorGame", "random_playouts"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CHANCE: Final = -1
""":attr:`VectorGame.current_player` of a game at a chance node."""
TERMINAL: Final = -2
""":attr:`VectorGame.current_player` of a game that is over."""

# Steps are numbered by the machine's stable step codes (meuterer.machine.STEP_CODES).
_NUMBER: Final = STEP_CODES
_STEPS: Final = tuple(sorted(_NUMBER, key=_NUMBER.__getitem__))
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
    _NUMBER[Step.RING],
    _NUMBER[Step.DEAL],
    _NUMBER[Step.OFFER],
    _NUMBER[Step.PLAY],
    _NUMBER[Step.CHOOSE_ROLE],
    _NUMBER[Step.REVEAL],
    _NUMBER[Step.MUTINY],
    _NUMBER[Step.RESOLVE_MUTINY],
    _NUMBER[Step.ROLE_POINTS],
    _NUMBER[Step.SELL],
    _NUMBER[Step.SAIL],
    _NUMBER[Step.CLEAN_UP],
    _NUMBER[Step.DRAW],
    _NUMBER[Step.LOADMASTER_DISCARD],
    _NUMBER[Step.ROLES_RETURN],
    _NUMBER[Step.END_OF_ROUND],
    _NUMBER[Step.GAME_OVER],
)
_SUPPORT, _PIRATE = int(Card.SUPPORT), int(Card.PIRATE)
_MUTINEER, _CABIN_BOY, _MATE, _MERCHANT, _LOADMASTER = map(int, ROLES)
_NO: Final = -1
MAX_BATCH: Final = 1 << 20
"""The most games in one batch (about 1.3 GB of state arrays and 0.8 GB of mask)."""
_GOODS = len(GOODS)
_DECIDING: Final = (OFFER, PLAY, CHOOSE_ROLE, MUTINY, SELL, LOADMASTER_DISCARD)
"""The steps at which a seat decides, in the order random choices are made."""

# A random role: for each set of the roles taken (as bits), the number of roles left and
# the free roles in ascending order.
_FREE_COUNT: Final = np.array([len(ROLES) - bin(m).count("1") for m in range(1 << len(ROLES))], dtype=np.int64)
_FREE_ROLE: Final = np.array(
    [[*(r for r in range(len(ROLES)) if not m >> r & 1), *[0] * bin(m).count("1")] for m in range(1 << len(ROLES))],
    dtype=np.int64,
)
# A random play: the kinds of card held as bits; for each set, the number of choices (one
# per kind held, and the pass) and the choices in ascending order (the pass last: 7).
_CARD_BIT: Final = 1 << np.arange(7, dtype=np.int64)
_HELD_COUNT: Final = np.array([bin(m).count("1") + 1 for m in range(1 << 7)], dtype=np.int64)
_HELD_CARD: Final = np.array(
    [[*(c for c in range(7) if m >> c & 1), *[7] * (8 - bin(m).count("1"))] for m in range(1 << 7)],
    dtype=np.int64,
)


def _check_rules(rules: Rules | None, players: int) -> Rules:
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a meuterer.Rules, got {type(rules).__name__}")
    if type(players) is not int or players not in (3, 4):
        raise SetupError(f"Meuterer is played by 3 or 4 players, got {players!r}")
    return rules


class VectorGame:
    """``batch`` games of ``players`` seats under ``rules``, as numpy arrays, played in lockstep.

    Every game is at a decision (:attr:`current_player` is its seat), a chance node
    (:data:`CHANCE`) or over (:data:`TERMINAL`). :meth:`step` takes one id per game: a
    decision id (:mod:`meuterer.encoding`) where a seat decides, a chance outcome where
    chance moves, anything (ignored) where the game is over. :meth:`sample_chance` draws
    the outcomes from the batch's ``numpy.random.Generator`` (seeded by ``seed``), with
    the reference's probabilities.

    Arrays (``P`` seats; ``-1`` where the reference has ``None``): ``step``, ``round``,
    ``captain``, ``to_act``, ``offer``, ``start``, ``pirate``, ``captain_destination``,
    ``mutineer_destination``, ``mutiny``, ``draws_left`` (B,); ``queue`` (B, 4) with
    ``queue_len``; ``ring`` (B, islands); ``active`` (B, 2) ascending, ``-1`` when one
    island is active; ``hands``, ``face_up``, ``face_down`` (B, P, 7); ``passed``,
    ``roles``, ``scores`` (B, P); ``role_order`` (B, P) with ``role_order_len``;
    ``sales`` (B, P, 2): each seat's sale slot per active island as in the sell ids, ``-1``
    before he declares; ``deck``, ``discard``, ``drawn`` (B, 7).
    """

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
        self.rules = _check_rules(rules, players)
        if type(batch) is not int or not 1 <= batch <= MAX_BATCH:
            raise ValueError(f"batch must be a whole number from 1 to {MAX_BATCH:,}, got {batch!r}")
        if type(first_captain) is not int or not 0 <= first_captain < players:
            raise SetupError(f"first_captain must be a seat from 0 to {players - 1}, got {first_captain!r}")
        self.batch = batch
        self.players = players
        self.first_captain = first_captain
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.ids: ActionIds = action_ids(self.rules)
        self._tables()
        self.record = record
        # each recording game's ids since its start (no entry: none yet, as when not recording)
        self._history: dict[int, list[int]] = {}
        self._version = 0
        self._memos: dict[str, tuple[tuple[int, int, int], IntArray, IntArray]] = {}
        self._grouped: tuple[int, _Groups] | None = None
        self._allocate()
        self.reset()

    # Constants of the rule set ---------------------------------------------------------

    def _tables(self) -> None:
        rules, ids = self.rules, self.ids
        self.n_islands = len(rules.islands)
        self.rounds = rules.rounds_for(self.players)
        self.hand_size = rules.hand_size
        self.extra = rules.loadmaster_extra
        self.ship = np.array([island.ship for island in rules.islands], dtype=np.int64)
        # values[island, leaders - 1]: each leader's points when ``leaders`` tie (0 past the table)
        self.values = np.zeros((self.n_islands, 4), dtype=np.int64)
        for i, island in enumerate(rules.islands):
            for k, v in enumerate(island.values[:4]):
                self.values[i, k] = v
        names = [island.name for island in rules.islands]
        self.piratennest = names.index("piratennest") if rules.pirates else _NO
        self.arrangements = RingArrangements(tuple(names))
        # The sale slots: good and count of each slot value (slot 0: nothing sold).
        slot = np.arange(ids.slot_size)
        self.slot_count = np.where(slot > 0, (slot - 1) % self.hand_size + 1, 0)
        self.slot_good = np.where(slot > 0, (slot - 1) // self.hand_size, _NO)
        self.discard_counts = np.zeros((len(ids.discards), len(CARDS)), dtype=np.int64)
        for rank, cards in enumerate(ids.discards):
            for card in cards:
                self.discard_counts[rank, card] += 1
        self.deck0 = np.array(rules.deck, dtype=np.int64)
        self._clockwise = np.arange(1, self.players + 1)
        # Sets of seats as bits (seat s: 1 << s); the seats of a set from a seat on clockwise.
        self._bit = 1 << np.arange(self.players, dtype=np.int64)
        self._everyone = (1 << self.players) - 1
        self._seats_from, self._seats_count = _clockwise_tables(self.players)
        # the first seat of a set from a seat on clockwise, or that seat if the set is empty
        starts = np.arange(self.players << self.players) >> self.players
        self._first_from = np.where(self._seats_count > 0, self._seats_from[:, 0], starts)
        # the seats of a set after the first (a queue: zeros after them)
        self._queue_from = np.zeros_like(self._seats_from)
        self._queue_from[:, :-1] = self._seats_from[:, 1:]
        self._queue_rows = _whole_rows(self._queue_from)  # as whole rows of the queue
        # the queue of the other seats after a seat, as a whole row
        seat = np.arange(self.players)
        self._others_after = _whole_rows(self._seats_from)[seat << self.players | (self._everyone ^ self._bit)]
        # the first seat clockwise after a seat who has not passed (index: that seat << players
        # | the seats who have passed as bits; the seat after him if every seat has passed)
        after = np.arange(self.players << self.players)
        self._unpassed_after = self._first_from[
            ((after >> self.players) + 1) % self.players << self.players | (self._everyone ^ after & self._everyone)
        ]
        self._seat_cards = np.arange(self.players, dtype=np.int64) * 7  # each seat's first card in a game's cards
        self._role_tables()
        self._sell_slots = np.stack(np.divmod(np.arange(len(ids.sell)), ids.slot_size), axis=1)
        # buys[island, good]: whether the island buys the good (the last row: no island)
        self.buys = np.zeros((self.n_islands + 1, _GOODS), dtype=np.int64)
        for i, island in enumerate(rules.islands):
            self.buys[i] = [island.buys_card(card) for card in GOODS]
        # Shared by every batch of the same rules (they depend on nothing else).
        # Keys of counts in mixed radix: no one holds more of a card than the deck has.
        radix = np.array(rules.deck, dtype=np.int64) + 1
        self._pool_stride = np.concatenate([np.cumprod(radix[::-1])[::-1][1:], [1]])
        self._goods_stride = np.concatenate([np.cumprod(radix[:_GOODS][::-1])[::-1][1:], [1]])
        # The declarations depend on the islands only through what each buys: an island's
        # kind is the good it buys, _GOODS for every good, _GOODS + 1 for no second island.
        kinds = [_GOODS if island.buys is None else int(island.buys) for island in rules.islands]
        self._buy_kind = np.array([*kinds, _GOODS + 1], dtype=np.int64)
        pairs = (_GOODS + 2) ** 2
        # Of the active islands (a pair of islands, the second n_islands if none; index
        # first * (n_islands + 1) + second): the goods either buys, and the declarations' key
        # but for the goods. Goods no active island buys play no part in the declarations.
        first, second = np.divmod(np.arange((self.n_islands + 1) ** 2), self.n_islands + 1)
        self._pair_buys = self.buys[first] | self.buys[second]
        kind = self._buy_kind[first] * (_GOODS + 2) + self._buy_kind[second]
        self._pair_key = kind * int(self._goods_stride[0] * radix[0])
        self._sells = _choices(rules, "sell", ids.sell, pairs * int(np.prod(radix[:_GOODS])))
        self._discards = _choices(rules, "discard", ids.discard, int(np.prod(radix)))

    def _role_tables(self) -> None:
        (self._role_weight, self._role_seat, self._role_sides, self._roles_taken, self._mates, self._mutineers) = (
            _role_tables(self.players)
        )

    def _allocate(self) -> None:
        b, p, n = self.batch, self.players, self.n_islands
        z = np.zeros
        # A seat's cards: small counts (a hand holds at most 26 cards, a seat no more of a
        # kind than the deck has), in bytes unless the deck has over 127 of a kind.
        cards = np.int8 if max(self.rules.deck) <= np.iinfo(np.int8).max else np.int16
        self.step_ = z(b, np.int64)
        self.round = z(b, np.int64)
        self.captain = z(b, np.int64)
        self.to_act = z(b, np.int64)
        self.queue = z((b, 4), np.int64)
        self.queue_len = z(b, np.int64)
        self.offer = z(b, np.int64)
        self.ring = z((b, n), np.int64)
        self.start = z(b, np.int64)
        self.active = z((b, 2), np.int64)
        self.pirate = z(b, np.int64)
        self.hands = z((b, p, 7), cards)
        self.face_up = z((b, p, 7), cards)
        self.face_down = z((b, p, 7), cards)
        self.passed = z((b, p), np.bool_)
        self.roles = z((b, p), np.int64)
        self.role_order = z((b, p), np.int64)
        self.role_order_len = z(b, np.int64)
        self.captain_destination = z(b, np.int64)
        self.mutineer_destination = z(b, np.int64)
        self.mutiny = z(b, np.int64)
        self.sales = z((b, p, 2), np.int64)
        self.sale_islands = z((b, p, 2), np.int64)
        self.scores = z((b, p), np.int64)
        self.deck = z((b, 7), np.int64)
        self.discard = z((b, 7), np.int64)
        self.draws_left = z(b, np.int64)
        self.drawn = z((b, 7), np.int64)
        self._views()

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
        self._whole = {name: _whole_rows(getattr(self, name)) for name in self._FIELDS if getattr(self, name).ndim > 1}
        self._whole_seat = {
            name: _whole_rows(getattr(self, name).reshape(-1, 7)) for name in ("hands", "face_up", "face_down")
        }
        # A queue's first seat, its first three columns and its last three, as one element each.
        self._queue_first = self.queue[:, 0]
        shifted = _VOID[3 * self.queue.itemsize]
        self._queue_head = np.ndarray(len(self.queue), shifted, self.queue, 0, self.queue.strides[:1])
        self._queue_tail = np.ndarray(len(self.queue), shifted, self.queue, self.queue.itemsize, self.queue.strides[:1])
        self._sales_seat = _whole_rows(self.sales.reshape(-1, 2))
        self._sale_islands_seat = _whole_rows(self.sale_islands.reshape(-1, 2))
        self._filled: dict[tuple[str, int], np.void] = {}
        self._no_cards = _row_of(self._hand_rows, 0)

    def _fill(self, name: str, idx: IntArray, value: int) -> None:
        """Every entry of the rows ``idx`` of the state array ``name`` set to ``value``."""
        self._whole[name][idx] = self._filled_row(name, value)

    def _filled_row(self, name: str, value: int) -> np.void:
        """A row of the state array ``name`` with every entry ``value`` (one element of its
        ``_whole`` view)."""
        row = self._filled.get((name, value))
        if row is None:
            row = self._filled[name, value] = _row_of(getattr(self, name), value)
        return row

    _FIELDS: Final = (
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
        self.offer[idx] = _NO
        self.ring[idx] = np.arange(self.n_islands)
        self.start[idx] = 0
        self.active[idx] = (0, _NO)
        self.pirate[idx] = self.piratennest
        for name in ("hands", "face_up", "face_down", "passed", "role_order", "role_order_len", "scores"):
            getattr(self, name)[idx] = 0
        self.roles[idx] = _NO
        self.captain_destination[idx] = _NO
        self.mutineer_destination[idx] = _NO
        self.mutiny[idx] = _NO
        self.sales[idx] = _NO
        self.sale_islands[idx] = _NO
        self.deck[idx] = self.deck0
        self.discard[idx] = 0
        self.draws_left[idx] = self.hand_size
        self.drawn[idx] = 0
        if self._history:
            for i in idx.tolist():
                self._history.pop(i, None)

    def history(self, game: int) -> tuple[Action, ...]:
        """The actions game ``game`` has taken since its start (when built with ``record=True``)."""
        replay = engine.new_game(self.players, self.first_captain, self.rules)
        out: list[Action] = []
        for code in self._history.get(range(self.batch)[game], []):
            action = self._action(replay, code)
            out.append(action)
            replay = engine.apply(replay, action)
        return tuple(out)

    def code(self, game: int, action: Action) -> int:
        """The id :meth:`step` takes for ``action`` in game ``game``: a decision's id, a
        draw's card, or an arrangement's rank (to replay a record or a corpus game).
        Raises ``ValueError`` for an action with no id there."""
        state = self.to_state(game)
        if isinstance(action, ArrangeRing):
            return self.arrangements.index(action)
        if isinstance(action, Draw):
            return int(action.card)
        return self.ids.action_id(state, action)

    def _action(self, state: State, code: int) -> Action:
        if state.step is Step.RING:
            return self.arrangements[code]
        if state.step in (Step.DEAL, Step.DRAW):
            return Draw(state.to_act, Card(code))
        return self.ids.action(state, code)

    def to_state(self, game: int) -> State:
        """The reference :class:`State` game ``game`` is in."""
        i = game
        n = self.players
        rules = self.rules
        ring = tuple(int(x) for x in self.ring[i])
        active = tuple(int(x) for x in self.active[i] if x >= 0)

        def opt(x: Any) -> int | None:
            return None if x < 0 else int(x)

        def counts(a: Any) -> tuple[int, ...]:
            return tuple(a.tolist())

        sales: list[tuple[Sale, ...] | None] = []
        for seat in range(n):
            slots = self.sales[i, seat]
            if slots[0] < 0:
                sales.append(None)
                continue
            sold = []
            for slot, pos in zip(slots.tolist(), self.sale_islands[i, seat].tolist(), strict=True):
                if slot:
                    name = rules.islands[ring[pos]].name
                    sold.append(Sale(name, Card(int(self.slot_good[slot])), int(self.slot_count[slot])))
            sales.append(tuple(sold))
        mutiny = int(self.mutiny[i])
        fields: dict[str, Any] = {
            "players": n,
            "rules": rules,
            "step": _STEPS[int(self.step_[i])],
            "round": int(self.round[i]),
            "captain": int(self.captain[i]),
            "to_act": int(self.to_act[i]),
            "queue": tuple(int(x) for x in self.queue[i, : self.queue_len[i]]),
            "offer": opt(self.offer[i]),
            "ring": ring,
            "start": int(self.start[i]),
            "active": active,
            "pirate": opt(self.pirate[i]),
            "hands": tuple(map(tuple, self.hands[i].tolist())),
            "face_up": tuple(map(tuple, self.face_up[i].tolist())),
            "face_down": tuple(map(tuple, self.face_down[i].tolist())),
            "passed": tuple(self.passed[i].tolist()),
            "roles": tuple(None if r < 0 else Role(int(r)) for r in self.roles[i]),
            "role_order": tuple(int(x) for x in self.role_order[i, : self.role_order_len[i]]),
            "captain_destination": opt(self.captain_destination[i]),
            "mutineer_destination": opt(self.mutineer_destination[i]),
            "mutiny": None if mutiny < 0 else bool(mutiny),
            "sales": tuple(sales),
            "scores": counts(self.scores[i]),
            "deck": counts(self.deck[i]),
            "discard": counts(self.discard[i]),
            "draws_left": int(self.draws_left[i]),
            "drawn": counts(self.drawn[i]),
        }
        return State(**fields)

    def set_state(self, game: int, state: State) -> None:
        """Put game ``game`` in reference state ``state`` (same players and rules); its
        history starts afresh (``history`` then lists the actions from there)."""
        if not isinstance(state, State):
            raise TypeError(f"state must be a meuterer.State, got {type(state).__name__}")
        if state.players != self.players or state.rules != self.rules:
            raise ValueError("the state's players and rules must be the batch's")
        i = game
        self._version += 1

        def opt(x: int | bool | None) -> int:
            return _NO if x is None else int(x)

        self.step_[i] = _NUMBER[state.step]
        self.round[i] = state.round
        self.captain[i] = state.captain
        self.to_act[i] = state.to_act
        self.queue[i] = 0
        self.queue[i, : len(state.queue)] = state.queue
        self.queue_len[i] = len(state.queue)
        self.offer[i] = opt(state.offer)
        self.ring[i] = state.ring
        self.start[i] = state.start
        self.active[i] = (*state.active, _NO)[:2]
        self.pirate[i] = opt(state.pirate)
        self.hands[i] = state.hands
        self.face_up[i] = state.face_up
        self.face_down[i] = state.face_down
        self.passed[i] = state.passed
        self.roles[i] = [opt(r) for r in state.roles]
        self.role_order[i] = 0
        self.role_order[i, : len(state.role_order)] = state.role_order
        self.role_order_len[i] = len(state.role_order)
        self.captain_destination[i] = opt(state.captain_destination)
        self.mutineer_destination[i] = opt(state.mutineer_destination)
        self.mutiny[i] = opt(state.mutiny)
        names = [state.island_name(pos) for pos in state.active]
        for seat, sales in enumerate(state.sales):
            self.sales[i, seat] = _NO
            self.sale_islands[i, seat] = _NO
            if sales is not None:
                self.sales[i, seat] = 0
                for k, sale in enumerate(sales):
                    # the slot of its active island (before the ship sails), else its place
                    slot = names.index(sale.island) if state.step is Step.SELL else k
                    self.sales[i, seat, slot] = 1 + int(sale.card) * self.hand_size + sale.count - 1
                    self.sale_islands[i, seat, slot] = _NO if (at := state.position_of(sale.island)) is None else at
        self.scores[i] = state.scores
        self.deck[i] = state.deck
        self.discard[i] = state.discard
        self.draws_left[i] = state.draws_left
        self.drawn[i] = state.drawn
        self._history.pop(range(self.batch)[i], None)

    # Queries --------------------------------------------------------------------------

    @property
    def current_player(self) -> IntArray:
        """Each game's seat to decide, :data:`CHANCE` or :data:`TERMINAL`."""
        s = self.step_
        out = self.to_act.copy()
        out[(s == RING) | (s == DEAL) | (s == DRAW)] = CHANCE
        out[s == GAME_OVER] = TERMINAL
        return out

    @property
    def terminal(self) -> BoolArray:
        """Which games are over."""
        over: BoolArray = self.step_ == GAME_OVER
        return over

    @property
    def chance(self) -> BoolArray:
        """Which games are at a chance node."""
        s = self.step_
        chance: BoolArray = (s == RING) | (s == DEAL) | (s == DRAW)
        return chance

    def draw_pool(self, idx: IntArray | None = None) -> IntArray:
        """(B, 7): the cards the next draw comes from (the deck, or the discard pile when
        the deck is empty), as :func:`meuterer.rulings.draw_pool`; of the games ``idx`` only
        if given."""
        deck = self.deck if idx is None else self.deck.take(idx, axis=0)
        empty = _rowsum(deck) == 0
        if idx is not None and not np.count_nonzero(empty):
            return deck  # already a copy of the rows
        discard = self.discard if idx is None else self.discard.take(idx, axis=0)
        pool: IntArray = np.where(empty[:, None], discard, deck)  # a new array: the caller's own
        return pool

    def chance_probabilities(self) -> npt.NDArray[np.float64]:
        """(B, 7): each card's probability of being drawn next at a draw (0 elsewhere; the
        shuffled ring's arrangements are uniform over ``len(arrangements)``)."""
        pool = self.draw_pool().astype(np.float64)
        total = pool.sum(axis=1, keepdims=True)
        drawing = ((self.step_ == DEAL) | (self.step_ == DRAW))[:, None]
        return np.where(drawing & (total > 0), pool / np.maximum(total, 1), 0.0)

    def legal_mask(self) -> BoolArray:
        """(B, num_actions) booleans: the legal decision ids of each game (none at a chance
        node or when over), the ids :meth:`meuterer.encoding.ActionIds.legal_ids` lists."""
        return self._mask_rows(np.arange(self.batch), self._step_groups())

    def _mask_rows(self, idx: IntArray, group: _Groups) -> BoolArray:
        """(len(idx), num_actions): the rows of :meth:`legal_mask` of the games ``idx``
        (``group``: the grouping of ``step_[idx]``), the one statement of what is legal."""
        ids = self.ids
        mask = np.zeros((len(idx), ids.num_actions), dtype=np.bool_)
        mask[group(OFFER), ids.offer.start : ids.offer.stop] = True
        sel = group(PLAY)
        if len(sel):
            i = idx[sel]
            hand = self._hand_rows.take(i * self.players + self.to_act[i], axis=0)
            mask[sel, ids.play.start : ids.play.stop] = hand > 0
            mask[sel, ids.pass_.start] = True
        sel = group(CHOOSE_ROLE)
        if len(sel):
            taken = np.zeros((len(sel), len(ROLES) + 1), dtype=np.bool_)
            taken[np.arange(len(sel))[:, None], self.roles[idx[sel]]] = True  # -1 marks the last column
            mask[sel, ids.role.start : ids.role.stop] = ~taken[:, : len(ROLES)]
        sel = group(MUTINY)
        if len(sel):
            i = idx[sel]
            most = self._down_flat[(i * self.players + self.to_act[i]) * 7 + _SUPPORT]
            mask[sel, ids.support.start : ids.support.stop] = np.arange(len(ids.support)) <= most[:, None]
        sel = group(SELL)
        if len(sel):
            rows = self._memo("sell", idx[sel], self._sell_rows_of)
            mask[sel, ids.sell.start : ids.sell.stop] = self._sells.mask[rows]
        sel = group(LOADMASTER_DISCARD)
        if len(sel):
            rows = self._memo("discard", idx[sel], self._discard_rows_of)
            mask[sel, ids.discard.start : ids.discard.stop] = self._discards.mask[rows]
        return mask

    def _step_groups(self) -> _Groups:
        # the games at each step, found once per state of the batch (legal_mask and
        # random_actions share them)
        if self._grouped is None or self._grouped[0] != self._version:
            self._grouped = (self._version, _groups(self.step_))
        return self._grouped[1]

    def _memo(self, name: str, idx: IntArray, find: Any) -> IntArray:
        # rows found once per state of the batch (legal_mask and random_actions share them)
        known = self._memos.get(name)
        version = (self._version, self._sells.generation, self._discards.generation)
        if known is not None and known[0] == version and np.array_equal(known[1], idx):
            rows: IntArray = known[2]
            return rows
        rows = find(idx)
        self._memos[name] = (version, idx, rows)
        return rows

    def _sell_rows_of(self, idx: IntArray) -> IntArray:
        """The row of the sale declarations' table holding each seller's."""
        n = self.n_islands
        active = self.active.take(idx, axis=0)
        pair = self._ring_flat.take((idx * n)[:, None] + np.maximum(active, 0))
        pair = pair[:, 0] * (n + 1) + np.where(active[:, 1] < 0, n, pair[:, 1])  # (no second island: n)
        goods = self._up_rows.take(idx * self.players + self.to_act[idx], axis=0)[:, :_GOODS]
        goods *= self._pair_buys.take(pair, axis=0)
        key: IntArray = goods @ self._goods_stride
        key += self._pair_key[pair]
        return self._rows(key, idx, self._sells)

    def _discard_rows_of(self, idx: IntArray) -> IntArray:
        seat = self.to_act[idx]
        if self.rules.discard_pool is DiscardPool.HAND:
            pool = self._hand_rows.take(idx * self.players + seat, axis=0)
        else:
            pool = self.drawn.take(idx, axis=0)
        key: IntArray = pool @ self._pool_stride
        return self._rows(key, idx, self._discards)

    def _rows(self, key: IntArray, idx: IntArray, choices: _Choices) -> IntArray:
        # Keys seen before are looked up (a sorted array, searched); for a new key, the
        # reference engine lists the legal ids of one game with that key (the core's rule,
        # asked once per key).
        rows = choices.lookup(key)
        missing = rows < 0
        if np.count_nonzero(missing):
            new = np.unique(key[missing]).tolist()
            if choices.make_room(len(new)):  # bounded memory: past the bound, start afresh
                new = np.unique(key).tolist()
            for k in new:
                game = int(idx[np.argmax(key == k)])
                choices.add(k, self.ids.legal_ids(self.to_state(game)))
            choices.index()
            rows = choices.lookup(key)
        return rows

    def random_actions(self, rng: np.random.Generator | None = None) -> IntArray:
        """A uniformly random legal decision for every game at a decision, a chance outcome
        drawn with its probability for every game at a chance node, 0 where over."""
        rng = self.rng if rng is None else rng
        out = np.zeros(self.batch, dtype=np.int64)
        group = self._step_groups()
        u = rng.random(self.batch)
        for code in _DECIDING:
            i = group(code)
            if len(i):
                out[i] = self._choose(code, i, u[i])
        self._chance_at(None, self.step_, rng, group, out)  # (no draw from rng if no chance moves)
        return out

    def _random_at(
        self,
        idx: IntArray,
        u: npt.NDArray[np.float64],
        group: _Groups | None = None,
        out: IntArray | None = None,
    ) -> IntArray:
        """A uniformly random legal decision of each game ``idx`` (ascending, every one at a
        decision), from the uniform ``u[game]`` of each: what :meth:`random_actions` picks
        there with the same ``u``, without the work for the other games. ``group``: the
        grouping of ``step_[idx]`` if known (then ``idx`` may hold games at chance nodes too,
        left alone); ``out``: where to write the choices (a new array if not given)."""
        if out is None:
            out = np.zeros(len(idx), dtype=np.int64)
        if group is None:
            group = _groups(self.step_[idx])
        bounds, order = group.bounds, group.order
        for code in _DECIDING:
            start, stop = bounds[code], bounds[code + 1]
            if stop == start:
                continue
            if stop - start == len(idx):  # every game at this step
                out[:] = self._choose(code, idx, u.take(idx))
            else:
                sel = order[start:stop]
                i = idx[sel]
                out[sel] = self._choose(code, i, u.take(i))
        return out

    def _choose(self, code: int, i: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
        """A uniformly random legal decision of the games ``i`` (ascending), all at step
        ``code``, from one uniform each."""
        ids = self.ids
        chosen: IntArray
        if code == OFFER:
            chosen = ids.offer.start + (u * len(ids.offer)).astype(np.int64)
        elif code == PLAY:
            # the cards held as bits, then the table of the cards held (and the pass after them)
            hand = self._hand_rows.take(i * self.players + self.to_act[i], axis=0)
            held = (hand > 0) @ _CARD_BIT
            pick = (u * _HELD_COUNT.take(held)).astype(np.int64)
            chosen = ids.play.start + _HELD_CARD.take(held * _HELD_CARD.shape[1] + pick)
        elif code == CHOOSE_ROLE:
            # the roles taken as bits, then the table of the free ones
            taken = self._roles_taken.take(self._role_keys(i))
            pick = (u * _FREE_COUNT.take(taken)).astype(np.int64)
            chosen = ids.role.start + _FREE_ROLE.take(taken * _FREE_ROLE.shape[1] + pick)
        elif code == MUTINY:
            most = self._down_flat[(i * self.players + self.to_act[i]) * 7 + _SUPPORT]
            chosen = ids.support.start + (u * (most + 1)).astype(np.int64)
        elif code == SELL:
            chosen = self._sells.pick(self._memo("sell", i, self._sell_rows_of), u)
        else:
            chosen = self._discards.pick(self._memo("discard", i, self._discard_rows_of), u)
        return chosen

    def sample_chance(self, rng: np.random.Generator | None = None) -> IntArray:
        """A chance outcome per game drawn with its probability (0 where no chance moves):
        the card drawn, or a uniform arrangement's rank for the shuffled ring."""
        return self._chance_at(None, self.step_, self.rng if rng is None else rng)

    def _chance_at(
        self,
        idx: IntArray | None,
        s: IntArray,
        rng: np.random.Generator,
        group: _Groups | None = None,
        out: IntArray | None = None,
    ) -> IntArray:
        """A chance outcome of each game ``idx`` (ascending; ``None``: every game), at step
        ``s`` (0 where no chance moves), drawn as :meth:`sample_chance` draws them when the
        games at a chance node are those among ``idx``; ``group``: the grouping of ``s``,
        if known; ``out``: where to write the outcomes (only where chance moves; a new
        array of zeros if not given)."""
        if out is None:
            out = np.zeros(len(s), dtype=np.int64)
        if group is None:
            k = np.flatnonzero((s == DEAL) | (s == DRAW))
        elif not group.size(DRAW):
            k = group(DEAL)
        elif not group.size(DEAL):
            k = group(DRAW)
        else:
            k = np.sort(np.concatenate([group(DEAL), group(DRAW)]))
        if len(k):
            out[k] = self._pick_card(k if idx is None else idx[k], rng.random(len(k)))
        k = np.flatnonzero(s == RING) if group is None else group(RING)
        if len(k):
            out[k] = rng.integers(len(self.arrangements), size=len(k))
        return out

    def _pick_card(self, games: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
        """The card each of the games ``games`` draws from its :meth:`draw_pool`, from one
        uniform each (:func:`_pick_weighted`, with the pool's sum taken from its running sum)."""
        deck = self.deck.take(games, axis=0)
        if len(games) >= 256:  # (kind, game) arrays: numpy is slow over the short axis of many rows
            return self._pick_cards(deck, games, u)
        cumulative = deck.cumsum(axis=1)
        total = cumulative[:, -1]
        empty = total == 0
        if np.count_nonzero(empty):
            cumulative = np.where(empty[:, None], self.discard.take(games, axis=0), deck).cumsum(axis=1)
            total = cumulative[:, -1]
        target = (u * total).astype(np.int64)
        picked: IntArray = (cumulative > target[:, None]).argmax(axis=1)
        return picked

    def _pick_cards(self, deck: IntArray, games: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
        # _pick_card for many games: the running sums by kind (rows), and the card drawn is
        # the number of kinds whose running sum is at most the target
        cumulative = deck.T.copy()
        for kind in range(1, 7):
            cumulative[kind] += cumulative[kind - 1]
        empty = cumulative[6] == 0
        if np.count_nonzero(empty):
            cumulative = np.where(empty, self.discard.take(games, axis=0).T, deck.T)
            for kind in range(1, 7):
                cumulative[kind] += cumulative[kind - 1]
        target = (u * cumulative[6]).astype(np.int64)
        picked: IntArray = _c_einsum("ki->i", (cumulative <= target).view(np.int8)).astype(np.int64)
        picked *= cumulative[6] > 0  # (an empty pool: 0, as _pick_weighted)
        return picked

    def advance_chance(self, rng: np.random.Generator | None = None) -> None:
        """Play sampled chance outcomes until no game is at a chance node."""
        rng = self.rng if rng is None else rng
        idx = np.flatnonzero(self.chance)
        while len(idx):  # only the games that were at a chance node can be at one again
            self._apply(idx, self._chance_at(idx, self.step_[idx], rng))
            s = self.step_[idx]
            idx = idx[(s == RING) | (s == DEAL) | (s == DRAW)]

    def _deal(self, idx: IntArray, rng: np.random.Generator, skip: int = 0) -> bool:
        """Deal every hand of the games ``idx`` (ascending), all just reset: the same cards
        and the same state as the deal played one chance step at a time for these games
        (:meth:`advance_chance`), each step first drawing ``skip`` uniforms it does not use
        (as the env's loop draws random_actions' for the batch), in a few operations per
        card. Returns False, having done nothing, unless every one of the games is a new
        game at the deal and the deck cannot run out in it."""
        n, p, hand, c = len(idx), self.players, self.hand_size, self.first_captain
        if self.record or not n or int(self.deck0.sum()) < p * hand + 2:
            return False
        queue = [(c + k) % p for k in range(1, p)]
        fresh = (
            (self.step_[idx] == DEAL).all()
            and (self.to_act[idx] == c).all()
            and (self.queue_len[idx] == p - 1).all()
            and (self.queue[idx, : p - 1] == queue).all()
            and (self.draws_left[idx] == hand).all()
            and (self.deck[idx] == self.deck0).all()
            and not self.hands[idx].any()
            and not self.drawn[idx].any()
            and (self.roles[idx] < 0).all()
        )
        if not fresh:
            return False
        self._version += 1
        deck = self.deck[idx]
        hands = self.hands[idx]
        rows = np.arange(n)
        for seat in (c, *queue):  # as _draw, _drawn_all and _next_drawer deal, card by card
            held = hands[:, seat]
            for _ in range(hand):
                if skip:
                    rng.random(skip)
                card = _pick_weighted(deck, rng.random(n))
                deck[rows, card] -= 1
                held[rows, card] += 1
        self.deck[idx] = deck
        self.hands[idx] = hands
        for _ in queue:
            self._pop(idx)
        self.to_act[idx] = self.captain[idx]
        self.draws_left[idx] = 0
        self.step_[idx] = OFFER
        return True

    # Acting ---------------------------------------------------------------------------

    def check(self, actions: object, where: BoolArray | None = None) -> IntArray:
        """``actions`` as a (B,) int64 array, checked: raises ``TypeError`` for a non-integer
        array, ``ValueError`` for a wrong shape, and :class:`~meuterer.errors.IllegalActionError`
        naming the games (indices) whose action is not legal there."""
        if not isinstance(actions, np.ndarray):
            raise TypeError(f"actions must be a numpy array of integers, got {type(actions).__name__}")
        if actions.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {actions.dtype}")
        if actions.shape != (self.batch,):
            raise ValueError(f"actions must have shape ({self.batch},), got {actions.shape}")
        a = actions.astype(np.int64)
        bad = np.zeros(self.batch, dtype=np.bool_)
        s = np.where(where, self.step_, GAME_OVER) if where is not None else self.step_
        deciding = ~((s == RING) | (s == DEAL) | (s == DRAW)) & (s != GAME_OVER)
        inside = (a >= 0) & (a < self.ids.num_actions)
        d = np.flatnonzero(deciding & inside)
        bad[deciding & ~inside] = True
        if len(d):
            bad[d] = ~self._legal_at(d, a[d])
        drawing = (s == DEAL) | (s == DRAW)
        inside = (a >= 0) & (a < len(CARDS))
        bad[drawing & ~inside] = True
        c = np.flatnonzero(drawing & inside)
        if len(c):
            bad[c] = self.draw_pool(c)[np.arange(len(c)), a[c]] <= 0
        ring = s == RING
        bad[ring & ((a < 0) | (a >= len(self.arrangements)))] = True
        if bad.any():
            self._refuse(np.flatnonzero(bad), a)
        return a

    def _refuse(self, games: IntArray, a: IntArray) -> None:
        """Raise the :class:`~meuterer.errors.IllegalActionError` of :meth:`check` for the
        games ``games`` (ascending), whose ids in ``a`` are not legal."""
        if len(games):
            shown = ", ".join(map(str, games[:10].tolist())) + (", ..." if len(games) > 10 else "")
            ids = ", ".join(map(str, a[games[:10]].tolist())) + (", ..." if len(games) > 10 else "")
            raise IllegalActionError(
                f"id(s) {ids}", f"not legal in {len(games)} game(s) of the batch: {shown} (nothing was applied)"
            )

    def _legal_at(self, idx: IntArray, a: IntArray) -> BoolArray:
        """Whether id ``a[k]`` (a decision id, 0 to ``num_actions - 1``) is legal in game
        ``idx[k]`` (at a decision): ``legal_mask()[idx, a]``, building the mask's rows of
        those games only."""
        rows = self._mask_rows(idx, _groups(self.step_[idx]))
        legal: BoolArray = rows[np.arange(len(idx)), a]
        return legal

    def step(self, actions: object, where: object = None, *, checked: bool = True) -> None:
        """Apply one id per game (see the class): a decision, a chance outcome, or
        anything for a finished game; with ``where`` (B booleans), only in those games
        (the others' ids are ignored). Illegal ids in some games refuse the whole step
        (:class:`~meuterer.errors.IllegalActionError` naming them; nothing changes).
        ``checked=False`` skips the check (for ids known legal, such as :meth:`random_actions`)."""
        grouped = self._grouped
        if where is None and not self.record and grouped is not None and grouped[0] == self._version:
            # Every game not over moves, and the batch is grouped by step already (as by
            # random_actions): the groups of the games not over are theirs.
            a = self.check(actions) if checked else np.asarray(actions, dtype=np.int64)
            self._apply(self._every, a, grouped[1])
            return
        moving = self.step_ != GAME_OVER
        if where is not None:
            moving &= self._bools(where, "where")
        a = self.check(actions, moving) if checked else np.asarray(actions, dtype=np.int64)
        live = np.flatnonzero(moving)
        self._apply(live, a[live])

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled arrays are copies, the views of them too: the views are made again from
        # the state arrays, or writes through them would not reach the state.
        self.__dict__.update(state)
        self._views()
        self._grouped = None

    def copy(self) -> VectorGame:
        """An independent copy of the batch (its generator too)."""
        other = object.__new__(VectorGame)
        other.__dict__.update(self.__dict__)
        for name in self._FIELDS:
            setattr(other, name, getattr(self, name).copy())
        other._views()
        other._history = {game: list(codes) for game, codes in self._history.items()}
        other._memos = {}
        other._grouped = None
        other.rng = np.random.Generator(type(self.rng.bit_generator)())
        other.rng.bit_generator.state = self.rng.bit_generator.state
        return other

    def _subset(self, idx: IntArray) -> VectorGame:
        """The games ``idx`` as a batch of their own (copies of their rows; for reading:
        its generator and histories are not the batch's)."""
        other = object.__new__(VectorGame)
        other.__dict__.update(self.__dict__)
        for name in self._FIELDS:
            setattr(other, name, np.take(getattr(self, name), idx, axis=0))
        other.batch = len(idx)
        other._views()
        other._history = {}
        other._memos = {}
        other._grouped = None
        return other

    def utilities(self, utility: str = "relative") -> npt.NDArray[np.float64]:
        """(B, P): each seat's utility, as :func:`meuterer.encoding.utilities` defines it
        (``score``, ``relative``: minus the mean of the others', ``win``: 1 shared by the
        best at the end, 0 before)."""
        scores = self.scores.astype(np.float64)
        if utility == "score":
            return scores
        if utility == "relative":
            others = scores.sum(axis=1, keepdims=True) - scores
            relative: npt.NDArray[np.float64] = scores - others / (self.players - 1)
            return relative
        if utility != "win":
            raise ValueError(f"utility must be one of {', '.join(UTILITIES)}, got {utility!r}")
        win: npt.NDArray[np.float64] = _win_shares(scores) * self.terminal[:, None]
        return win

    def _apply(self, idx: IntArray, a: IntArray, group: _Groups | None = None) -> None:
        # group: the grouping of step_[idx], if the caller has it
        self._version += 1
        if self.record:
            for i, code in zip(idx.tolist(), a.tolist(), strict=True):
                self._history.setdefault(i, []).append(code)
        if group is None:
            group = _groups(self.step_[idx])
        ids, bounds, order = self.ids, group.bounds, group.order
        for code, handler in _HANDLERS:
            start, stop = bounds[code], bounds[code + 1]
            if stop == start:
                continue
            if stop - start == len(idx):  # every game at this step: no gather
                getattr(self, handler)(idx, a, ids)
            else:
                sel = order[start:stop]
                getattr(self, handler)(idx[sel], a[sel], ids)

    # The rules, step by step ------------------------------------------------------------

    def _arrange(self, idx: IntArray, rank: IntArray, ids: ActionIds) -> None:
        # Unrank as RingArrangements does: Hochland first, then the pick-th island left
        # (in table order) for each position.
        m, rest = len(idx), self.n_islands - 1
        rows = np.arange(m)
        avail = np.ones((m, rest), dtype=np.bool_)
        ring = np.zeros((m, self.n_islands), dtype=np.int64)
        left = rank.copy()
        for k, size in enumerate(range(rest, 0, -1)):
            block = factorial(size - 1)
            pick = left // block
            left = left % block
            col = np.argmax(np.cumsum(avail, axis=1) > pick[:, None], axis=1)
            ring[:, k + 1] = col + 1
            avail[rows, col] = False
        self.ring[idx] = ring
        if self.piratennest >= 0:
            self.pirate[idx] = np.argmax(ring == self.piratennest, axis=1)
        self.step_[idx] = DEAL

    def _refill(self, idx: IntArray) -> None:
        """The deck of the games ``idx`` becomes their discard pile, which is emptied."""
        self._whole["deck"][idx] = self._whole["discard"][idx]
        self._whole["discard"][idx] = self._filled_row("discard", 0)

    def _draw(self, idx: IntArray, card: IntArray, ids: ActionIds) -> None:
        # A legal draw takes a card the deck holds, unless the deck is empty: then the deck
        # is first made of the discard pile.
        at = idx * 7 + card
        empty = self._deck_flat[at] == 0
        if np.count_nonzero(empty):
            self._refill(idx[empty])
        self._deck_flat[at] -= 1
        if self.rules.reshuffle is Reshuffle.WHEN_EMPTY:
            empty = _rowsum(self.deck.take(idx, axis=0)) == 0  # the card drawn was the deck's last
            if np.count_nonzero(empty):
                self._refill(idx[empty])
        self._hand_flat[(idx * self.players + self.to_act[idx]) * 7 + card] += 1
        self._drawn_flat[at] += 1
        draws_left = self.draws_left[idx] - 1
        self.draws_left[idx] = draws_left
        done = draws_left == 0
        if np.count_nonzero(done):
            self._drawn_all(idx[done])

    def _drawn_all(self, idx: IntArray) -> None:
        # the games idx are all at one step, the deal or a draw (as _apply hands them to _draw)
        if self.step_[idx[0]] == DEAL:
            last = self.queue_len[idx] == 0
            if np.count_nonzero(last):
                j = idx[last]
                self._fill("drawn", j, 0)
                self.to_act[j] = self.captain[j]
                self.step_[j] = OFFER
                idx = idx[~last]
            self._next_drawer(idx)
        else:
            i = idx
            loadmaster = self._roles_flat[i * self.players + self.to_act[i]] == _LOADMASTER
            if np.count_nonzero(loadmaster):
                self.step_[i[loadmaster]] = LOADMASTER_DISCARD
                i = i[~loadmaster]
            last = self.queue_len[i] == 0
            self._next_drawer(i)
            if np.count_nonzero(last):
                self._roles_return(i[last])

    def _pop(self, idx: IntArray) -> IntArray:
        # the first seat of each queue leaves it: the seats after him move up a column (the
        # last column is kept; the queue's length says where it ends)
        seat: IntArray = self._queue_first[idx]
        self._queue_head[idx] = self._queue_tail[idx]
        self.queue_len[idx] -= 1
        return seat

    def _next_drawer(self, idx: IntArray) -> None:
        if not len(idx):
            return
        self._fill("drawn", idx, 0)
        none = self.queue_len[idx] == 0
        if np.count_nonzero(none):
            self.draws_left[idx[none]] = 0
            idx = idx[~none]
            if not len(idx):
                return
        seat = self._pop(idx)
        self.to_act[idx] = seat
        row = idx * self.players + seat
        need = self.hand_size - _rowsum(self._hand_rows.take(row, axis=0)).astype(np.int64)
        if self.extra:
            need += (self._roles_flat[row] == _LOADMASTER) * self.extra
        self.draws_left[idx] = need

    def _discard(self, idx: IntArray, a: IntArray, ids: ActionIds) -> None:
        cards = self.discard_counts.take(a - ids.discard.start, axis=0)
        row = idx * self.players + self.to_act[idx]
        hand = self._hand_rows.take(row, axis=0)
        hand -= cards
        self._whole_seat["hands"][row] = _whole_rows(hand)
        discard = self.discard.take(idx, axis=0)
        discard += cards
        self._whole["discard"][idx] = _whole_rows(discard)
        last = self.queue_len[idx] == 0
        self._next_drawer(idx)
        if np.count_nonzero(last):
            self._roles_return(idx[last])
            idx = idx[~last]
        self.step_[idx] = DRAW

    def _offer(self, idx: IntArray, a: IntArray, ids: ActionIds) -> None:
        self.offer[idx] = a - ids.offer.start
        self.to_act[idx] = self.captain[idx]
        self.step_[idx] = PLAY

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

    def _play_or_pass(self, idx: IntArray, a: IntArray, ids: ActionIds) -> None:
        passing = a == ids.pass_.start
        if np.count_nonzero(passing):
            self._pass(idx[passing])
            playing = ~passing
            i, card = idx[playing], a[playing] - ids.play.start
            if not len(i):
                return
        else:
            i, card = idx, a - ids.play.start
        p = self.to_act[i]
        at = (i * self.players + p) * 7 + card
        self._hand_flat[at] -= 1
        self._up_flat[at] += 1
        self.to_act[i] = self._next_unpassed(i, p)
        pirate = card == _PIRATE
        if np.count_nonzero(pirate):
            i, p = i[pirate], p[pirate]
            left = _rowsum(self._hand_rows[i * self.players + p])
            n = self.n_islands
            ship = self.pirate[i]
            start = self.start[i]
            self.pirate[i] = (ship - left) % n
            # as meuterer.rulings.robbery
            rob = (left > 0) & np.where(
                ship != start, (ship - start) % n <= left, (left >= n) | self.rules.pirates_rob_at_start
            )
            r = i[rob]
            self.discard[r] += np.einsum("bpk->bk", self.face_up[r])
            self.face_up[r] = 0

    def _pass(self, idx: IntArray) -> None:
        p = self.to_act[idx]
        row = idx * self.players + p
        hands = self._whole_seat["hands"]
        self._whole_seat["face_down"][row] = hands[row]
        hands[row] = self._no_cards
        self._passed_flat[row] = True
        captain = p == self.captain[idx]
        if not np.count_nonzero(captain):
            self.step_[idx] = CHOOSE_ROLE
            return
        self.step_[idx[~captain]] = CHOOSE_ROLE
        i, p = idx[captain], p[captain]
        held = _rowsum(self._down_rows.take(row[captain], axis=0))
        self.captain_destination[i] = (self.start[i] + held) % self.n_islands
        passed = self._passed_bits(i)  # with this pass
        self.to_act[i] = self._next_unpassed(i, p, passed)
        last = passed == self._everyone
        if np.count_nonzero(last):
            self._reveal(i[last])

    def _take_role(self, idx: IntArray, a: IntArray, ids: ActionIds) -> None:
        p = self.to_act[idx]
        base = idx * self.players
        self._roles_flat[base + p] = a - ids.role.start
        length = self.role_order_len[idx]
        self._role_order_flat[base + length] = p
        self.role_order_len[idx] = length + 1
        passed = self._passed_bits(idx)
        self.to_act[idx] = self._next_unpassed(idx, p, passed)
        everyone = passed == self._everyone
        if np.count_nonzero(everyone):
            self.step_[idx[~everyone]] = PLAY
            self._reveal(idx[everyone])
        else:
            self.step_[idx] = PLAY

    def _role_keys(self, idx: IntArray) -> IntArray:
        """Each game's roles as one key of the role tables (:meth:`_role_tables`)."""
        key: IntArray = self.roles.take(idx, axis=0) @ self._role_weight
        return key

    def _reveal(self, idx: IntArray) -> None:
        if not len(idx):
            return
        n = self.players
        key = self._role_keys(idx)
        mutineer = self._role_seat[_MUTINEER].take(key)
        has = mutineer >= 0
        if not np.count_nonzero(has):
            self._role_points(idx, key)
            return
        if len(mutineer) > np.count_nonzero(has):
            none = ~has
            self._role_points(idx[none], key[none])
            i, key, mutineer = idx[has], key[has], mutineer[has]
        else:
            i = idx
        down = self._down_rows.take(i * n + mutineer, axis=0)
        self.mutineer_destination[i] = (self.start[i] + _rowsum(down)) % self.n_islands
        # The mutiny: the captain, then the mate, the mutineer and the cabin boy, clockwise from him.
        captain = self.captain[i]
        at = captain << n | self._role_sides.take(key) | self._bit[captain]
        self.to_act[i] = self._first_from[at]
        self._whole["queue"][i] = self._queue_rows[at]
        self.queue_len[i] = self._seats_count[at] - 1
        self.step_[i] = MUTINY

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

    def _support(self, idx: IntArray, a: IntArray, ids: ActionIds) -> None:
        k = a - ids.support.start
        n = self.players
        at = (idx * n + self.to_act[idx]) * 7 + _SUPPORT
        self._down_flat[at] -= k
        self._up_flat[at] += k
        i = self._next_in_queue(idx)
        if not len(i):
            return
        # Resolve: as meuterer.rulings.strengths and mutiny_succeeds (a tie to the mutineer).
        key = self._role_keys(i)
        support = self._up_flat[(i * (n * 7) + _SUPPORT)[:, None] + self._seat_cards].astype(np.int64)
        captain_side = support.take(np.arange(0, len(i) * n, n) + self.captain[i])
        captain_side += _c_einsum("ij,ij->i", support + 1, self._mates.take(key, axis=0))
        mutineer_side = _c_einsum("ij,ij->i", support, self._mutineers.take(key, axis=0))
        self.mutiny[i] = self._mutiny_succeeds(captain_side, mutineer_side)
        self._role_points(i, key)

    @staticmethod
    def _mutiny_succeeds(captain_side: IntArray, mutineer_side: IntArray) -> BoolArray:
        # meuterer.rulings.mutiny_succeeds, over arrays: a tie goes to the mutineer
        return mutineer_side >= captain_side

    def _role_points(self, idx: IntArray, key: IntArray) -> None:
        # ``key``: the games' _role_keys
        if not len(idx):
            return
        n = self.players
        won = self.mutiny[idx] == 1
        old = self.captain[idx]
        offer = self.offer[idx]
        mate = self._role_seat[_MATE].take(key)
        base = idx * n
        # A successful mutiny: the mutineer scores his destination and is captain; the cabin
        # boy scores. Otherwise the captain scores his destination and pays the mate his offer.
        if np.count_nonzero(won):
            lost = ~won
            scorer = np.where(won, self._role_seat[_MUTINEER].take(key), old)
            dest = np.where(won, self.mutineer_destination[idx], self.captain_destination[idx])
            paid = offer * (lost & (mate >= 0))
            self.captain[idx] = scorer
            boy = self._role_seat[_CABIN_BOY].take(key)
            gets = won & (boy >= 0)
            self._scores_flat[(base + boy)[gets]] += self.rules.cabin_boy_points
            gets = lost & (mate >= 0)
        else:
            scorer, dest = old, self.captain_destination[idx]
            paid = offer * (mate >= 0)
            gets = mate >= 0
        self._scores_flat[base + scorer] += self.ship[self._ring_flat[idx * self.n_islands + dest]] - paid
        self._scores_flat[(base + mate)[gets]] += 1 + offer[gets]
        first = scorer if self.rules.sale_order is SaleOrder.NEW_CAPTAIN else old
        self.to_act[idx] = first
        self._whole["queue"][idx] = self._others_after[first]
        self.queue_len[idx] = n - 1
        self.step_[idx] = SELL

    def _sell(self, idx: IntArray, a: IntArray, ids: ActionIds) -> None:
        index = a - ids.sell.start
        row = idx * self.players + self.to_act[idx]
        slots = self._sell_slots.take(index, axis=0)
        self._sales_seat[row] = _whole_rows(slots)
        self._sale_islands_seat[row] = _whole_rows(np.where(slots > 0, self.active.take(idx, axis=0), _NO))
        i = self._next_in_queue(idx)
        if not len(i):
            return
        # Every seat has declared: each active island pays its leaders, as
        # meuterer.rulings.island_points (a merchant among them scores I); both islands at
        # once, in arrays (island, seat, game): numpy is slow over the short axes of (game,
        # seat, island) arrays.
        active = self.active.take(i, axis=0).T  # (2, m)
        sold = self.slot_count.take(self.sales.take(i, axis=0).T)  # (2, P, m)
        sold *= (active >= 0)[:, None, :]
        most = sold.max(axis=1)
        leaders = (sold == most[:, None, :]) & (most > 0)[:, None, :]
        count = _c_einsum("kpi->ki", leaders.view(np.int8)).astype(np.int64)
        island = self._ring_flat.take(i * self.n_islands + np.maximum(active, 0))
        first = self.values.take(island * 4)
        shared = np.where(count > 0, self.values.take(island * 4 + np.maximum(count - 1, 0)), 0)
        merchant = (self.roles.take(i, axis=0) == _MERCHANT).T  # (P, m)
        points = np.where(merchant, first[:, None, :], shared[:, None, :])
        points *= leaders
        scores = self.scores.take(i, axis=0)
        scores += (points[0] + points[1]).T
        self._whole["scores"][i] = _whole_rows(scores)
        over = self.round[i] >= self.rounds
        if np.count_nonzero(over):
            self.step_[i[over]] = GAME_OVER
            i = i[~over]
        self._sail(i)

    def _sail(self, idx: IntArray) -> None:
        if not len(idx):
            return
        n = self.players
        dest = np.where(self.mutiny[idx] == 1, self.mutineer_destination[idx], self.captain_destination[idx])
        start = self.start[idx]
        self.start[idx] = dest
        active = np.empty((len(idx), 2), dtype=np.int64)
        lo, hi = np.minimum(start, dest), np.maximum(start, dest)
        active[:, 0] = lo
        active[:, 1] = np.where(lo == hi, _NO, hi)
        self._whole["active"][idx] = _whole_rows(active)
        # Phase 7: clean up.
        discard = self.discard.take(idx, axis=0)
        discard += _c_einsum("bpk->bk", self.face_up.take(idx, axis=0))
        self._whole["discard"][idx] = _whole_rows(discard)
        hands = self.hands.take(idx, axis=0)
        hands += self.face_down.take(idx, axis=0)
        self._whole["hands"][idx] = _whole_rows(hands)
        self._fill("face_up", idx, 0)
        self._fill("face_down", idx, 0)
        self._fill("passed", idx, 0)
        self.captain_destination[idx] = _NO
        self.mutineer_destination[idx] = _NO
        self._fill("drawn", idx, 0)
        if self.rules.pirates_return and self.piratennest >= 0:
            self.pirate[idx] = np.argmax(self.ring.take(idx, axis=0) == self.piratennest, axis=1)
        # Phase 8: drawing from the captain on, skipping full hands.
        need = self.hand_size - _c_einsum("bpk->bp", hands).astype(np.int64)
        if self.extra:
            need += (self.roles.take(idx, axis=0) == _LOADMASTER) * self.extra
        at = self.captain[idx] << n | ((need > 0) @ self._bit)
        count = self._seats_count[at]
        some = count > 0
        if len(idx) > np.count_nonzero(some):
            self._roles_return(idx[~some])
            i, at, count = idx[some], at[some], count[some]
            rows = np.flatnonzero(some) * n
        else:
            i, rows = idx, np.arange(0, len(idx) * n, n)
        first = self._first_from[at]
        self.to_act[i] = first
        self.draws_left[i] = need.take(rows + first)
        self._whole["queue"][i] = self._queue_rows[at]
        self.queue_len[i] = count - 1
        self.step_[i] = DRAW

    def _roles_return(self, idx: IntArray) -> None:
        if not len(idx):
            return
        self._fill("roles", idx, _NO)
        self._fill("role_order", idx, 0)
        self.role_order_len[idx] = 0
        self.round[idx] += 1
        self.offer[idx] = _NO
        self.mutiny[idx] = _NO
        self._fill("sales", idx, _NO)
        self._fill("sale_islands", idx, _NO)
        self.to_act[idx] = self.captain[idx]
        self.queue_len[idx] = 0
        self._fill("queue", idx, 0)
        self.draws_left[idx] = 0
        self.step_[idx] = OFFER

    # Helpers ----------------------------------------------------------------------------

    def _bools(self, where: object, name: str) -> BoolArray:
        if not isinstance(where, np.ndarray) or where.dtype != np.bool_:
            raise TypeError(f"{name} must be a numpy array of booleans")
        if where.shape != (self.batch,):
            raise ValueError(f"{name} must have shape ({self.batch},), got {where.shape}")
        return where


class _Choices:
    """The legal ids of one block (sales or discards) for each key seen: a row each, as a
    mask over the block and as a padded list of ids (for a uniform pick)."""

    MOST_ROWS: Final = 1 << 15
    """Rows kept at most; past it the table starts afresh (``generation`` counts the starts)."""

    DENSE: Final = 1 << 21
    """Key spaces up to this size are looked up in a dense table (one gather), larger ones
    by a search of the sorted keys."""

    def __init__(self, block: range, space: int) -> None:
        self.block = block
        self.space = space
        self.generation = 0
        self._clear()

    def _clear(self) -> None:
        self.rows: dict[int, int] = {}
        self.mask = np.zeros((16, len(self.block)), dtype=np.bool_)
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

    def pick(self, rows: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
        """A uniform legal id of each row."""
        picked: IntArray = self.ids[rows, (u * self.count[rows]).astype(np.int64)]
        return picked


_CHOICES: dict[tuple[Rules, str], _Choices] = {}


def _choices(rules: Rules, kind: str, block: range, space: int) -> _Choices:
    found = _CHOICES.get((rules, kind))
    if found is None:
        if len(_CHOICES) >= 32:
            _CHOICES.clear()
        found = _CHOICES[rules, kind] = _Choices(block, space)
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


_c_einsum: Final = _find_c_einsum()


def _rowsum(counts: npt.NDArray[Any]) -> IntArray:
    """Each row's sum (einsum: far quicker than ``sum(axis=1)`` over a few columns)."""
    total: IntArray = _c_einsum("ij->i", counts)
    return total


def _whole_rows(a: npt.NDArray[Any]) -> npt.NDArray[np.void]:
    """A (len(a),) view of a C-contiguous array, each row one element of raw bytes: a row
    written (or read) by one 1-d index, far quicker than ``a[idx] = rows`` over a 2-d array.
    For the state arrays and arrays just made (C-contiguous: a view, never a copy; any
    other array is refused)."""
    rows: npt.NDArray[np.void] = np.frombuffer(a, _VOID[a.itemsize * math.prod(a.shape[1:])])
    return rows


class _Voids(dict[int, np.dtype[np.void]]):
    """The raw-bytes dtype of each width, made once."""

    def __missing__(self, size: int) -> np.dtype[np.void]:
        found = self[size] = np.dtype((np.void, size))
        return found


_VOID: Final = _Voids()


def _row_of(a: npt.NDArray[Any], value: int) -> np.void:
    """One row of ``a`` (as :func:`_whole_rows` holds them) with every entry ``value``."""
    row: np.void = _whole_rows(np.full((1, *a.shape[1:]), value, dtype=a.dtype))[0]
    return row


@functools.cache
def _role_tables(players: int) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]:
    """Tables of the roles of a game, by one key: the sum of role * 6**seat over the seats
    (roles -1 to 4), an index of tables of 6**players rows (negative keys index from the
    end, so each row is that of the roles' key modulo the tables' length): the key's weight
    of each seat; for each key, the seat of each role (-1: no one holds it), the seats of
    the roles on the mutineer's or the mate's side in a mutiny (as bits), the roles taken
    (as bits), and which seats side with the captain as his mate and with the mutineer
    (the mutineer and the cabin boy), as rows of 0 and 1."""
    size = 6**players
    weight = 6 ** np.arange(players, dtype=np.int64)
    seat_of = np.full((len(ROLES), size), _NO, dtype=np.int64)
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
                sides[key] |= (role in (_MATE, _MUTINEER, _CABIN_BOY)) << seat
                mates[key, seat] = role == _MATE
                mutineers[key, seat] = role in (_MUTINEER, _CABIN_BOY)
    return weight, seat_of, sides, taken, mates, mutineers


def _clockwise_tables(players: int) -> tuple[IntArray, IntArray]:
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


class _Groups:
    """The positions holding each step code, ascending (as ``np.flatnonzero(codes == code)``),
    from one stable (radix) sort of the codes: ``group(code)``; ``group.size(code)``, their
    number."""

    __slots__ = ("bounds", "order")

    def __init__(self, codes: IntArray) -> None:
        small = codes.astype(np.int8)
        self.order = small.argsort(kind="stable")
        self.bounds: list[int] = [0, *np.bincount(small, minlength=len(_STEPS)).cumsum().tolist()]

    def __call__(self, code: int) -> IntArray:
        found: IntArray = self.order[self.bounds[code] : self.bounds[code + 1]]
        return found

    def size(self, code: int) -> int:
        return self.bounds[code + 1] - self.bounds[code]


_groups = _Groups

_HANDLERS: Final = (
    (DEAL, "_draw"),
    (DRAW, "_draw"),
    (PLAY, "_play_or_pass"),
    (OFFER, "_offer"),
    (CHOOSE_ROLE, "_take_role"),
    (SELL, "_sell"),
    (MUTINY, "_support"),
    (LOADMASTER_DISCARD, "_discard"),
    (RING, "_arrange"),
)
"""The handler of each step at which the batch moves (:meth:`VectorGame._apply`)."""


def _pick_weighted(weights: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
    """For each row, a column drawn with probability proportional to its weight."""
    cumulative = weights.cumsum(axis=1)
    target = (u * cumulative[:, -1]).astype(np.int64)
    picked: IntArray = (cumulative > target[:, None]).argmax(axis=1)
    return picked


def _win_shares(scores: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """(B, P): the ``win`` utility of finished games' scores (1 shared by the best)."""
    best = scores == scores.max(axis=1, keepdims=True)
    shares: npt.NDArray[np.float64] = best / best.sum(axis=1, keepdims=True)
    return shares


@attrs.frozen
class Playouts:
    """What :func:`random_playouts` played: each game's final scores and win shares (the
    ``win`` utility: 1 shared by the best), in the order the games ended, and how many
    decisions were taken."""

    scores: IntArray
    wins: npt.NDArray[np.float64]
    decisions: int


def random_playouts(
    games: int,
    players: int = 4,
    rules: Rules | None = None,
    *,
    batch: int = 4096,
    seed: int | None = None,
    first_captain: int = 0,
) -> Playouts:
    """Play ``games`` whole games with uniformly random legal decisions (and chance drawn
    with its probabilities), ``batch`` at a time in lockstep, each finished game replaced
    by a new one while more are wanted.

    >>> played = random_playouts(10, players=3, batch=4, seed=1)
    >>> played.scores.shape, played.wins.sum(), played.decisions > 10 * 100
    ((10, 3), np.float64(10.0), True)
    """
    if type(games) is not int or games < 0:
        raise ValueError(f"games must be a non-negative whole number, got {games!r}")
    if type(batch) is not int or batch < 1:
        raise ValueError(f"batch must be a positive whole number, got {batch!r}")
    g = VectorGame(min(batch, max(games, 1)), players, rules, first_captain=first_captain, seed=seed)
    scores: list[IntArray] = []
    wins: list[npt.NDArray[np.float64]] = []
    done = 0
    started = g.batch
    decisions = 0
    live = np.ones(g.batch, dtype=np.bool_)
    while done < games:
        actions = g.random_actions()
        # the games at a decision (all live: a game not live is over), as random_actions grouped them
        group = g._step_groups()
        decisions += sum(group.size(code) for code in _DECIDING)
        g.step(actions, checked=False)
        over = g.terminal & live
        if over.any():
            final = g.scores[over]
            scores.append(final)
            wins.append(_win_shares(final))
            done += int(over.sum())
            # start as many new games as are still wanted; the other slots stay finished
            again = np.flatnonzero(over)[: max(0, games - started)]
            live[over] = False
            if len(again):
                where = np.zeros(g.batch, dtype=np.bool_)
                where[again] = True
                g.reset(where)
                live[again] = True
                started += len(again)
    if not scores:
        return Playouts(np.zeros((0, players), np.int64), np.zeros((0, players)), 0)
    return Playouts(np.concatenate(scores)[:games], np.concatenate(wins)[:games], decisions)
