"""A mutable cursor over the reference engine, for hot loops (rollouts, environments).

:class:`FastGame` holds one reference snapshot (:class:`~meuterer.state.State`, its
:attr:`~FastGame.state`) and moves it on with the reference's own step table
(``meuterer.machine.TABLE``, through :func:`meuterer.engine.run_table`): it plays the
reference's rules because it *is* the reference, with a place to keep the current state
and its legal actions. Reading the state costs nothing (:meth:`FastGame.to_state` is the
snapshot itself). A snapshot the game made itself and has not handed out is its own: the
next action moves its fields on in place (``run_table(..., owned=True)``, as the engine
already does through the automatic steps after an action) instead of copying them; one
handed out (:attr:`FastGame.state`, :meth:`~FastGame.to_state`, a clone) never changes
again. :meth:`FastGame.read` lets a reader see the snapshot without taking it.

>>> import meuterer
>>> from meuterer.fast import FastGame
>>> game = FastGame.new(players=3)
>>> str(game.apply_at(0))
'draw p0 ruby'
>>> copy = game.clone()
>>> action = copy.apply_at(len(copy.legal_actions()) - 1)
>>> copy.to_state() == meuterer.apply(game.to_state(), action)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Concatenate, Final, ParamSpec, TypeVar

from meuterer.actions import Action
from meuterer.engine import CHANCE, apply, new_game, random_game, run_table, sample_chance
from meuterer.errors import IllegalActionError
from meuterer.machine import STEPS, TABLE, Actor, LegalActions
from meuterer.rules import Rules
from meuterer.state import State, Step

__all__ = ["CHANCE", "CHANCE_STEPS", "FastGame", "random_game"]

P = ParamSpec("P")
R = TypeVar("R")

# random_game: meuterer.random_game itself, kept for callers of meuterer.fast.random_game.

CHANCE_STEPS: Final = frozenset(step for step, spec in STEPS.items() if spec.actor is Actor.CHANCE)
"""The steps at which chance acts (the machine's chance steps)."""

_OVER: Final = Step.GAME_OVER
_NOTHING: LegalActions = lambda state: ()  # noqa: E731 - the game over and the automatic steps
_LEGAL: Final = {step: spec.legal or _NOTHING for step, spec in STEPS.items()}
_SAMPLE: Final = {step: spec.sample for step, spec in STEPS.items()}


def _out_of_range(index: int, legal: Sequence[Action]) -> IllegalActionError:
    return IllegalActionError(f"#{index}", f"there are {len(legal)} legal action(s), numbered from 0")


class FastGame:
    """A game that moves: its reference :attr:`state`, replaced by each action.

    Start one with :meth:`new` or at any reference state with :meth:`from_state`. Actions
    are the reference's typed actions, listed in the reference's order
    (:func:`meuterer.legal_actions`); :meth:`apply` accepts exactly those.
    """

    __slots__ = ("_legal", "_owned", "_state")

    def __init__(self, state: State) -> None:
        self._state = state
        self._owned = False
        self._legal: Sequence[Action] | None = None

    @property
    def state(self) -> State:
        """The reference snapshot the game is at. Handed out, it never changes: the next
        action makes a new one."""
        self._owned = False
        return self._state

    def read(self, reader: Callable[Concatenate[State, P], R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``reader(state, *args, **kwargs)`` on the current snapshot without handing it out:
        ``reader`` may read it but must keep no reference to it (the observation writer,
        the legal-id lookup). The next action may move that snapshot on in place.

        >>> FastGame.new(3).read(lambda state, seat: state.hands[seat], 0)
        (0, 0, 0, 0, 0, 0, 0)
        """
        return reader(self._state, *args, **kwargs)

    @property
    def step(self) -> Step:
        """The step the game is at (a field of :attr:`state`, read without handing it out)."""
        return self._state.step

    @property
    def to_act(self) -> int:
        """The seat to act (a field of :attr:`state`, read without handing it out)."""
        return self._state.to_act

    @property
    def scores(self) -> tuple[int, ...]:
        """Each seat's points (a field of :attr:`state`, read without handing it out)."""
        return self._state.scores

    @classmethod
    def new(cls, players: int = 4, first_captain: int = 0, rules: Rules | None = None) -> FastGame:
        """The game before the deal, as :func:`meuterer.new_game` (same errors)."""
        return cls(new_game(players, first_captain, rules))

    @classmethod
    def from_state(cls, state: State) -> FastGame:
        """The game at reference state ``state`` (held, not copied: snapshots never change)."""
        return cls(state)

    def to_state(self) -> State:
        """The reference state the game is at (:attr:`state`)."""
        return self.state

    def clone(self) -> FastGame:
        """An independent game at the same state (the snapshot is shared: it never changes)."""
        copy = FastGame(self.state)
        copy._legal = self._legal
        return copy

    # Queries ----------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        """The seat to decide, :data:`CHANCE` at a chance node, ``None`` when over."""
        state = self._state
        if state.step is _OVER:
            return None
        return CHANCE if state.step in CHANCE_STEPS else state.to_act

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._state.step is _OVER

    def is_chance_node(self) -> bool:
        """Whether the next action is drawn by chance."""
        return self._state.step in CHANCE_STEPS

    def legal_actions(self) -> Sequence[Action]:
        """Every action :meth:`apply` accepts, in the reference order (``()`` when over)."""
        legal = self._legal
        if legal is None:
            state = self._state
            legal = self._legal = _LEGAL[state.step](state)
        return legal

    # Acting -----------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply ``action`` (and the automatic steps after it) as :func:`meuterer.apply` does.

        Raises :class:`~meuterer.errors.IllegalActionError`, the game unchanged, unless
        ``action`` is one of :meth:`legal_actions`.
        """
        if action not in self.legal_actions():
            apply(self.state, action)  # raises, saying why (the snapshot handed out to it)
        self._state = run_table(TABLE, self._state, action, self._owned)
        self._owned, self._legal = True, None

    def apply_at(self, index: int) -> Action:
        """Apply the ``index``-th of :meth:`legal_actions`; returns it.

        Raises :class:`~meuterer.errors.IllegalActionError` for an index out of range."""
        legal = self.legal_actions()
        if not 0 <= index < len(legal):
            raise _out_of_range(index, legal)
        action = legal[index]
        self._state = run_table(TABLE, self._state, action, self._owned)
        self._owned, self._legal = True, None
        return action

    def sample_chance(self, rng: random.Random) -> Action:
        """A chance outcome drawn as :func:`meuterer.sample_chance` draws it from ``rng``."""
        return sample_chance(self._state, rng)

    def apply_chance(self, rng: random.Random) -> Action:
        """Draw a chance outcome as :meth:`sample_chance` does, apply it, and return it."""
        action = sample_chance(self._state, rng)
        self._state = run_table(TABLE, self._state, action, self._owned)
        self._owned, self._legal = True, None
        return action

    def play_random(self, chance: random.Random, rngs: Sequence[random.Random | None]) -> None:
        """Play on until a seat without a generator is to decide or the game is over:
        chance drawn from ``chance`` (as :meth:`apply_chance`), and each seat ``s`` with a
        generator ``rngs[s]`` taking the ``rngs[s].randrange(len(legal))``-th of its legal
        actions (as :class:`~meuterer.agents.RandomAgent` chooses).

        >>> game, rng = FastGame.new(3), random.Random(2)
        >>> game.play_random(random.Random(1), [None, rng, rng])
        >>> game.current_player, len(game.legal_actions())
        (0, 4)
        """
        state, owned, legal, samplers, listings = self._state, self._owned, self._legal, _SAMPLE, _LEGAL
        try:
            while (step := state.step) is not _OVER:
                sample = samplers[step]
                if sample is not None:
                    action = sample(state, chance)
                else:
                    rng = rngs[state.to_act]
                    if rng is None:
                        return
                    if legal is None:
                        legal = listings[step](state)
                    action = legal[rng.randrange(len(legal))]
                state, owned, legal = run_table(TABLE, state, action, owned), True, None
        finally:
            self._state, self._owned, self._legal = state, owned, legal
