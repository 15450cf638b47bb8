"""The history behind an OpenSpiel state: :class:`_Node`, everything a state holds, never
changed once made (so cloning a state copies nothing), with the actions applied as a linked
list of :class:`_Move` shared between states, and pickled flat (:func:`_restore`)."""

from __future__ import annotations

from typing import Any

import attrs

from meuterer import engine
from meuterer.actions import Action
from meuterer.encoding import ActionIds
from meuterer.openspiel.params import _CHANCE, _TERMINAL
from meuterer.state import State
from meuterer.views import (
    Rounds,
    seen,
    update_rounds,
)


class _Move:
    """One applied action, linked to the one before (a shared, immutable history)."""

    __slots__ = ("action", "after", "before", "previous", "rounds")

    def __init__(self, previous: _Move | None, before: State, action: Action, after: State) -> None:
        self.previous = previous
        self.before = before
        self.action = action
        self.after = after
        self.rounds: Rounds | None = None
        """The public facts of each round once this action is applied (computed when asked)."""


@attrs.frozen
class _Origin:
    """Where a resampled state's history starts: each column's record (each seat, then a
    spectator) and the rounds so far, as the resampled player may know them."""

    records: tuple[tuple[str, ...], ...]
    rounds: Rounds


@attrs.frozen
class _Setup:
    """What every state of one game shares."""

    ids: ActionIds
    reward: str
    utility: str


class _Node:
    """Everything a state holds, never changed once made (so cloning a state copies nothing);
    ``memo`` keeps what was computed for it (the player to act, legal ids, chance outcomes)."""

    __slots__ = ("bases", "last", "memo", "origin", "placed", "player", "previous", "setup", "state")

    def __init__(
        self,
        setup: _Setup,
        state: State,
        placed: tuple[int, ...] = (),
        last: _Move | None = None,
        origin: _Origin | None = None,
        previous: tuple[float, ...] | None = None,
        bases: tuple[float, ...] | None = None,
    ) -> None:
        self.setup = setup
        self.state = state
        self.placed = placed
        """Shuffled ring being laid out: table indices of the islands placed after Hochland."""
        self.last = last
        """The last action applied (the history, as a linked list)."""
        self.origin = origin
        """For a resampled state: the history before the resample."""
        self.previous = previous
        """``reward="step"``: the utilities at the last state that was not a chance node, before this one."""
        self.bases = bases
        """``reward="turn"``: each seat's utility when he last decided."""
        self.memo: dict[Any, Any] = {}
        player = engine.current_player(state)
        self.player: int = _TERMINAL if player is None else _CHANCE if player == engine.CHANCE else player
        """The seat to act, ``PlayerId.CHANCE`` or ``PlayerId.TERMINAL`` (pyspiel's numbers)."""

    def __deepcopy__(self, memo: object) -> _Node:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled flat: a linked list as deep as the game would exhaust pickle's recursion.
        moves = [(move.before, move.action, move.after) for move in self.moves()]
        return _restore, (self.setup, self.state, self.placed, moves, self.origin, self.previous, self.bases)

    def moves(self) -> list[_Move]:
        """The actions applied since the start (or the resample), in order."""
        moves = []
        move = self.last
        while move is not None:
            moves.append(move)
            move = move.previous
        moves.reverse()
        return moves

    def record(self, player: int | None) -> tuple[str, ...]:
        """The game so far as ``player`` (a seat, or ``None``) saw it, one action a line."""
        lines = list(self.origin.records[self.state.players if player is None else player]) if self.origin else []
        lines += [str(seen(move.before, move.action, move.after, player)) for move in self.moves()]
        return tuple(lines)

    def rounds(self) -> Rounds:
        """The public facts of each round so far (:func:`meuterer.views.update_rounds`)."""
        pending = []
        move = self.last
        while move is not None and move.rounds is None:
            pending.append(move)
            move = move.previous
        if move is not None and move.rounds is not None:
            rounds = move.rounds
        elif self.origin is not None:
            rounds = self.origin.rounds
        else:
            rounds = update_rounds((), pending[-1].before if pending else self.state)
        for move in reversed(pending):
            rounds = move.rounds = update_rounds(rounds, move.after)
        return rounds


def _restore(
    setup: _Setup,
    state: State,
    placed: tuple[int, ...],
    moves: list[tuple[State, Action, State]],
    origin: _Origin | None,
    previous: tuple[float, ...] | None,
    bases: tuple[float, ...] | None,
) -> _Node:
    last = None
    for before, action, after in moves:
        last = _Move(last, before, action, after)
    return _Node(setup, state, placed, last, origin, previous, bases)
