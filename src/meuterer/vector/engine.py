"""A batch of B games of Meuterer held as numpy arrays and played in lockstep.

:class:`VectorGame` is the second executor of the game's one declaration (after the
reference engine): it runs the machine's steps and transitions (``meuterer.machine.TABLE``)
over all the games at the same step at once, each guard and effect by its batched form
registered in :mod:`meuterer.vector.registry` (the phase modules ``deal``, ``offer``,
``mutiny``, ``scoring`` and ``voyage``); their arithmetic is the reference's own rule
functions of ``meuterer.phases``, called over arrays. It speaks ids only: decisions are
:mod:`meuterer.encoding`'s fixed action ids, chance outcomes are a card (0 to 6) for a
draw and the arrangement's rank (:class:`~meuterer.actions.RingArrangements`) for the
shuffled ring. Its agreement with the reference is proven, step by step, by
``tests/test_vector.py`` (masks, chance outcomes and probabilities, rewards, terminal
flags, every seat's observation).

Two choices are not vectorised but asked of the reference, cached by a small key: the
sale declarations open to a seller (they depend on his face-up goods and the active
islands) and the loadmaster's discards (they depend on his pool); on a key not seen
before, the reference lists the legal ids of that game's state
(``vector.convert.ask_reference``).

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

from typing import Final

import numpy as np

from meuterer.actions import Action
from meuterer.encoding import UTILITIES
from meuterer.phases.scoring import relative_utilities
from meuterer.state import State
from meuterer.vector import deal
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
from meuterer.vector.choice import DECIDING, chance_at, check, mask_rows, random_at
from meuterer.vector.convert import code_of, history, set_state, to_state
from meuterer.vector.registry import compile_plan, run

__all__ = ["CHANCE", "RING", "TERMINAL", "VectorGame"]

PLAN: Final = compile_plan()
"""The machine's table in batched form, checked at import against the registrations."""
_DECIDING: Final = DECIDING


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
        return history(self, game)

    def code(self, game: int, action: Action) -> int:
        """The id :meth:`step` takes for ``action`` in game ``game``: a decision's id, a
        draw's card, or an arrangement's rank (to replay a record or a corpus game).
        Raises ``ValueError`` for an action with no id there."""
        return code_of(self, game, action)

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
        return mask_rows(self, np.arange(self.batch), self._step_groups())

    def random_actions(self, rng: np.random.Generator | None = None) -> IntArray:
        """A uniformly random legal decision for every game at a decision, a chance outcome
        drawn with its probability for every game at a chance node, 0 where over."""
        rng = self.rng if rng is None else rng
        out = np.zeros(self.batch, dtype=np.int64)
        group = self._step_groups()
        random_at(self, self._every, rng.random(self.batch), group, out)
        chance_at(self, None, self.step_, rng, group, out)  # (no draw from rng if no chance moves)
        return out

    def sample_chance(self, rng: np.random.Generator | None = None) -> IntArray:
        """A chance outcome per game drawn with its probability (0 where no chance moves):
        the card drawn, or a uniform arrangement's rank for the shuffled ring."""
        return chance_at(self, None, self.step_, self.rng if rng is None else rng)

    def advance_chance(self, rng: np.random.Generator | None = None) -> None:
        """Play sampled chance outcomes until no game is at a chance node."""
        rng = self.rng if rng is None else rng
        idx = np.flatnonzero(self.chance)
        while len(idx):  # only the games that were at a chance node can be at one again
            self._apply(idx, chance_at(self, idx, self.step_[idx], rng))
            s = self.step_[idx]
            idx = idx[(s == RING) | (s == DEAL) | (s == DRAW)]

    def _deal(self, idx: IntArray, rng: np.random.Generator, skip: int = 0) -> bool:
        """:func:`meuterer.vector.deal.deal_at_once` of the games ``idx``."""
        return deal.deal_at_once(self, idx, rng, skip)

    # Acting ---------------------------------------------------------------------------

    def check(self, actions: object, where: BoolArray | None = None) -> IntArray:
        """``actions`` as a (B,) int64 array, checked (``meuterer.vector.choice.check``):
        ``TypeError``, ``ValueError`` or an :class:`~meuterer.errors.IllegalActionError`
        naming the games whose action is not legal there."""
        return check(self, actions, where)

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
            a = check(self, actions) if checked else np.asarray(actions, dtype=np.int64)
            self._apply(self._every, a, grouped[1])
            return
        moving = self.step_ != GAME_OVER
        if where is not None:
            moving &= self._bools(where, "where")
        a = check(self, actions, moving) if checked else np.asarray(actions, dtype=np.int64)
        live = np.flatnonzero(moving)
        self._apply(live, a[live])

    def copy(self) -> VectorGame:
        """An independent copy of the batch (its generator too)."""
        other = _copied(self, None)
        other._history = {game: list(codes) for game, codes in self._history.items()}
        other.rng = np.random.Generator(type(self.rng.bit_generator)())
        other.rng.bit_generator.state = self.rng.bit_generator.state
        return other

    def _subset(self, idx: IntArray) -> VectorGame:
        """The games ``idx`` as a batch of their own (copies of their rows; for reading:
        its generator and histories are not the batch's)."""
        return _copied(self, idx)

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


def _copied(g: VectorGame, idx: IntArray | None) -> VectorGame:
    # a batch of copies of the rows ``idx`` of g's state arrays (every row if None)
    other = object.__new__(VectorGame)
    other.__dict__.update(g.__dict__)
    for name in g._FIELDS:
        rows = getattr(g, name)
        setattr(other, name, rows.copy() if idx is None else np.take(rows, idx, axis=0))
    other.batch = g.batch if idx is None else len(idx)
    other._views()
    other._history = {}
    other._memos = {}
    other._grouped = None
    return other
