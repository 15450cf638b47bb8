"""A game with its history: push, pop (undo), redo, and every snapshot along the way.

>>> import meuterer
>>> actions, final = meuterer.random_game(seed=7, players=4)
>>> game = meuterer.Game.replay(actions[:30], players=4)
>>> len(game.actions), game.state.phase
(30, <Phase.PLAY: 2>)
>>> undone = game.pop()
>>> game.state == game.at(29), str(undone) == str(actions[29])
(True, True)
>>> game.redo() == undone
True
>>> game.push("p0 offer 9")
Traceback (most recent call last):
...
meuterer.errors.IllegalActionError: illegal action 'p0 offer 9': the game expects phase 2: p3 plays a card or passes
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from meuterer.actions import Action, parse_action
from meuterer.engine import apply, new_game
from meuterer.errors import HistoryError, MeutererError
from meuterer.rules import Rules
from meuterer.state import State


class RecordLike(Protocol):
    """What :meth:`Game.from_record` reads of a :class:`~meuterer.record.Record` (which
    imports this module, so it is named here by its shape)."""

    @property
    def actions(self) -> Sequence[Action]: ...
    @property
    def players(self) -> Sequence[str]: ...
    @property
    def first_captain(self) -> int: ...
    @property
    def rules(self) -> Rules: ...


class Game:
    """A game and its history, like a board with a move stack.

    ``states[k]`` is the snapshot after the first ``k`` actions; snapshots are immutable
    and shared, never copied. Undo (:meth:`pop`) and :meth:`redo` are O(1). A
    :meth:`push` that raises leaves the game exactly as it was.

    A game may be shared between threads: :meth:`push`, :meth:`pop`, :meth:`redo` and
    every read hold the game's lock, so each is atomic and the history is never torn.
    (Which of two racing pushes comes first is still up to the threads: the second is
    checked against the state the first made. Pass ``after=len(game)`` to push only if
    no other action came in between.)
    """

    __slots__ = ("_actions", "_cursor", "_lock", "_states", "first_captain")

    def __init__(self, start: State, first_captain: int) -> None:
        self._states: list[State] = [start]
        self._actions: list[Action] = []
        self._cursor = 0  # actions in effect; those beyond it can be redone
        self._lock = threading.RLock()
        self.first_captain = first_captain

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            return {
                "states": list(self._states),
                "actions": list(self._actions),
                "cursor": self._cursor,
                "first_captain": self.first_captain,
            }

    def __setstate__(self, data: dict[str, Any]) -> None:
        self._states, self._actions, self._cursor = data["states"], data["actions"], data["cursor"]
        self.first_captain = data["first_captain"]
        self._lock = threading.RLock()

    @classmethod
    def new(cls, players: int = 4, first_captain: int = 0, rules: Rules | None = None) -> Game:
        """A new game, before the deal."""
        return cls(new_game(players, first_captain, rules), first_captain)

    @classmethod
    def replay(
        cls,
        actions: Iterable[Action | str],
        players: int = 4,
        first_captain: int = 0,
        rules: Rules | None = None,
    ) -> Game:
        """The game made by ``actions`` (typed or in text) from a new game.

        Raises :class:`~meuterer.errors.IllegalActionError` or
        :class:`~meuterer.errors.ActionParseError` naming the failing step.
        """
        game = cls.new(players, first_captain, rules)
        for index, action in enumerate(actions):
            try:
                game.push(action)
            except MeutererError as error:
                error.add_note(f"at step {index} (0-based) of the replayed actions")
                raise
        return game

    @classmethod
    def from_record(cls, record: RecordLike) -> Game:
        """The game a :class:`~meuterer.record.Record` describes (raises if an action is illegal;
        :class:`TypeError` for anything but a record: read a file with :func:`meuterer.read_record`)."""
        if not all(hasattr(record, name) for name in ("actions", "players", "first_captain", "rules")):
            hint = " (read the file with meuterer.read_record first)" if isinstance(record, str | os.PathLike) else ""
            raise TypeError(f"Game.from_record takes a meuterer.Record, got {type(record).__name__}{hint}")
        return cls.replay(record.actions, len(record.players), record.first_captain, record.rules)

    @property
    def state(self) -> State:
        """The current snapshot."""
        with self._lock:
            return self._states[self._cursor]

    @property
    def rules(self) -> Rules:
        """The rules the game is played under."""
        return self._states[0].rules

    @property
    def players(self) -> int:
        """The number of seats."""
        return self._states[0].players

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions in effect, in order."""
        with self._lock:
            return tuple(self._actions[: self._cursor])

    @property
    def states(self) -> tuple[State, ...]:
        """Every snapshot from the start to the current one (one more than :attr:`actions`)."""
        with self._lock:
            return tuple(self._states[: self._cursor + 1])

    def __len__(self) -> int:
        """The number of actions in effect."""
        return self._cursor

    def at(self, k: int) -> State:
        """The snapshot after the first ``k`` actions (0 is the start; negative counts from the end)."""
        with self._lock:
            if not -(self._cursor + 1) <= k <= self._cursor:
                raise HistoryError(f"no step {k}: the game has {self._cursor} action(s)")
            return self._states[k if k >= 0 else self._cursor + 1 + k]

    def push(self, action: Action | str, after: int | None = None) -> State:
        """Apply ``action`` (typed or in text) and return the new snapshot. Clears what could be redone.

        With ``after``, push only if the game has exactly ``after`` actions in effect
        (else :class:`~meuterer.errors.HistoryError`): a client that chose ``action``
        looking at ``game.at(after)`` is sure it is applied to that state.
        """
        typed = parse_action(action) if isinstance(action, str) else action
        with self._lock:
            if after is not None and after != self._cursor:
                raise HistoryError(f"the game has {self._cursor} action(s), not {after}: another action came first")
            state = apply(self._states[self._cursor], typed)  # raises before anything changes
            del self._states[self._cursor + 1 :]
            del self._actions[self._cursor :]
            self._states.append(state)
            self._actions.append(typed)
            self._cursor += 1
            return state

    def pop(self) -> Action:
        """Undo the last action and return it (it can be redone)."""
        with self._lock:
            if self._cursor == 0:
                raise HistoryError("nothing to undo: no action has been played")
            self._cursor -= 1
            return self._actions[self._cursor]

    def redo(self) -> Action:
        """Play again the last undone action and return it."""
        with self._lock:
            if self._cursor == len(self._actions):
                raise HistoryError("nothing to redo")
            self._cursor += 1
            return self._actions[self._cursor - 1]

    def __repr__(self) -> str:
        with self._lock:
            s, n = self._states[self._cursor], self._cursor
        return f"<Game {s.players} players, round {s.round}, phase {s.phase}, {n} actions>"
