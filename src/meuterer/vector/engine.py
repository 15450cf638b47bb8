"""A batch of B games of Meuterer held as numpy arrays and played in lockstep.

:class:`VectorGame` is the second executor of the game's one declaration (after the
reference engine): it runs the machine's steps and transitions (:data:`meuterer.machine.TABLE`)
over all the games at the same step at once, each guard and effect by its batched form
registered in :mod:`meuterer.vector.registry` (the phase modules ``deal``, ``offer``,
``mutiny``, ``scoring`` and ``voyage``); their arithmetic is the reference's own rule
functions of :mod:`meuterer.phases`, called over arrays. It speaks ids only: decisions are
:mod:`meuterer.encoding`'s fixed action ids, chance outcomes are a card (0 to 6) for a
draw and the arrangement's rank (:class:`~meuterer.actions.RingArrangements`) for the
shuffled ring. Its agreement with the reference is proven, step by step, by
``tests/test_vector.py`` (masks, chance outcomes and probabilities, rewards, terminal
flags, every seat's observation).

Two choices are not vectorised but asked of the reference, cached by a small key: the
sale declarations open to a seller (they depend on his face-up goods and the active
islands) and the loadmaster's discards (they depend on his pool); on a key not seen
before, the reference lists the legal ids of that game's state
(:func:`~meuterer.vector.convert.ask_reference`).

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

from typing import Any, Final

import numpy as np

from meuterer import engine
from meuterer.actions import Action, ArrangeRing, Draw
from meuterer.cards import CARDS, Card
from meuterer.encoding import UTILITIES
from meuterer.errors import IllegalActionError
from meuterer.machine import STEP_CODES
from meuterer.phases.scoring import relative_utilities
from meuterer.state import State, Step
from meuterer.vector import deal, mutiny, offer, scoring, voyage
from meuterer.vector.arrays import (
    CHANCE,
    DEAL,
    DRAW,
    GAME_OVER,
    RING,
    TERMINAL,
    BoolArray,
    FloatArray,
    Groups,
    IntArray,
    rowsum,
    win_shares,
)
from meuterer.vector.batch import Batch
from meuterer.vector.convert import set_state, to_state
from meuterer.vector.registry import CHOOSE, LEGAL, SAMPLERS, compile_plan, run

__all__ = ["CHANCE", "RING", "TERMINAL", "VectorGame"]

_PHASES: Final = (deal, offer, mutiny, scoring, voyage)
"""The phase modules, imported for their registrations."""
PLAN: Final = compile_plan()
"""The machine's table in batched form, checked at import against the registrations."""
_LEGAL: Final = tuple((STEP_CODES[step], LEGAL[step]) for step in sorted(LEGAL, key=STEP_CODES.__getitem__))
_CHOOSE: Final = tuple((STEP_CODES[step], CHOOSE[step]) for step in sorted(CHOOSE, key=STEP_CODES.__getitem__))
_DECIDING: Final = tuple(code for code, _ in _CHOOSE)
"""The steps at which a seat decides."""
_SAMPLERS: Final = tuple((tuple(STEP_CODES[s] for s in steps), sampler) for steps, sampler in SAMPLERS)
_CHOICE: Final = dict(_CHOOSE)
_NONE: Final = np.zeros(0, dtype=np.int64)


class VectorGame(Batch):
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

    # Converting -----------------------------------------------------------------------

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
        return to_state(self, game)

    def set_state(self, game: int, state: State) -> None:
        """Put game ``game`` in reference state ``state`` (same players and rules); its
        history starts afresh (``history`` then lists the actions from there)."""
        set_state(self, game, state)

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
        empty = rowsum(deck) == 0
        if idx is not None and not np.count_nonzero(empty):
            return deck  # already a copy of the rows
        discard = self.discard if idx is None else self.discard.take(idx, axis=0)
        pool: IntArray = np.where(empty[:, None], discard, deck)  # a new array: the caller's own
        return pool

    def chance_probabilities(self) -> FloatArray:
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

    def _mask_rows(self, idx: IntArray, group: Groups) -> BoolArray:
        """(len(idx), num_actions): the rows of :meth:`legal_mask` of the games ``idx``
        (``group``: the grouping of ``step_[idx]``), each decision step's by its registered
        legal ids."""
        mask = np.zeros((len(idx), self.ids.num_actions), dtype=np.bool_)
        for code, legal in _LEGAL:
            sel = group(code)
            if len(sel):
                legal(self, idx[sel], mask, sel)
        return mask

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
        u: FloatArray,
        group: Groups | None = None,
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
            group = Groups(self.step_[idx])
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

    def _choose(self, code: int, i: IntArray, u: FloatArray) -> IntArray:
        """A uniformly random legal decision of the games ``i`` (ascending), all at step
        ``code``, from one uniform each (the step's registered choice)."""
        return _CHOICE[code](self, i, u)

    def sample_chance(self, rng: np.random.Generator | None = None) -> IntArray:
        """A chance outcome per game drawn with its probability (0 where no chance moves):
        the card drawn, or a uniform arrangement's rank for the shuffled ring."""
        return self._chance_at(None, self.step_, self.rng if rng is None else rng)

    def _chance_at(
        self,
        idx: IntArray | None,
        s: IntArray,
        rng: np.random.Generator,
        group: Groups | None = None,
        out: IntArray | None = None,
    ) -> IntArray:
        """A chance outcome of each game ``idx`` (ascending; ``None``: every game), at step
        ``s`` (0 where no chance moves), drawn as :meth:`sample_chance` draws them when the
        games at a chance node are those among ``idx``; ``group``: the grouping of ``s``,
        if known; ``out``: where to write the outcomes (only where chance moves; a new
        array of zeros if not given)."""
        if out is None:
            out = np.zeros(len(s), dtype=np.int64)
        for codes, sampler in _SAMPLERS:  # each sampler draws for all its steps' games at once
            if group is None:
                k = np.flatnonzero(np.isin(s, codes))
            else:
                found = [group(code) for code in codes if group.size(code)]
                k = found[0] if len(found) == 1 else np.sort(np.concatenate(found)) if found else _NONE
            if len(k):
                out[k] = sampler(self, k if idx is None else idx[k], rng)
        return out

    def advance_chance(self, rng: np.random.Generator | None = None) -> None:
        """Play sampled chance outcomes until no game is at a chance node."""
        rng = self.rng if rng is None else rng
        idx = np.flatnonzero(self.chance)
        while len(idx):  # only the games that were at a chance node can be at one again
            self._apply(idx, self._chance_at(idx, self.step_[idx], rng))
            s = self.step_[idx]
            idx = idx[(s == RING) | (s == DEAL) | (s == DRAW)]

    def _deal(self, idx: IntArray, rng: np.random.Generator, skip: int = 0) -> bool:
        """:func:`meuterer.vector.deal.deal_at_once` of the games ``idx``."""
        return deal.deal_at_once(self, idx, rng, skip)

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
        rows = self._mask_rows(idx, Groups(self.step_[idx]))
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

    def utilities(self, utility: str = "relative") -> FloatArray:
        """(B, P): each seat's utility, as :func:`meuterer.encoding.utilities` defines it
        (``score``, ``relative``: minus the mean of the others', ``win``: 1 shared by the
        best at the end, 0 before)."""
        scores = self.scores.astype(np.float64)
        if utility == "score":
            return scores
        if utility == "relative":
            relative: FloatArray = relative_utilities(scores, scores.sum(axis=1, keepdims=True), self.players)
            return relative
        if utility != "win":
            raise ValueError(f"utility must be one of {', '.join(UTILITIES)}, got {utility!r}")
        win: FloatArray = win_shares(scores) * self.terminal[:, None]
        return win

    def _apply(self, idx: IntArray, a: IntArray, group: Groups | None = None) -> None:
        # group: the grouping of step_[idx], if the caller has it
        self._version += 1
        if self.record:
            for i, code in zip(idx.tolist(), a.tolist(), strict=True):
                self._history.setdefault(i, []).append(code)
        if group is None:
            group = Groups(self.step_[idx])
        run(PLAN, self, idx, a, group)
