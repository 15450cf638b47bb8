"""Phases 3 and 4: reveal, the mutineer's destination, supports and the mutiny's outcome."""

from __future__ import annotations

from typing import Any

from meuterer.actions import Action, Support
from meuterer.cards import MAX_SEATS, Card, Role, add
from meuterer.phases.common import Board, Changes, Table, clockwise_from, set_at
from meuterer.phases.ids import rule
from meuterer.phases.offer_cargo import destination
from meuterer.rules import BASE_DECK
from meuterer.state import State

# Support actions built once, for as many support cards as the rulebook's deck holds
# (a custom deck with more builds the rest on demand).
_SUPPORT = tuple(tuple(Support(p, k) for k in range(BASE_DECK[Card.SUPPORT] + 1)) for p in range(MAX_SEATS))
_SUPPORT_UP_TO = tuple(tuple(built[: most + 1] for most in range(len(built))) for built in _SUPPORT)
"""Each seat's support choices up to each count, built once: the same tuple every time (the
adapters remember a legal list's ids by its identity)."""
_SIDES = (Role.MATE, Role.MUTINEER, Role.CABIN_BOY)
_MUTINEER, _CABIN_BOY, _MATE = Role.MUTINEER, Role.CABIN_BOY, Role.MATE
_SUPPORT_CARD = Card.SUPPORT


def holder(state: Board, role: Role) -> int | None:
    """The seat holding ``role`` this round, or ``None``."""
    roles = state.roles
    return roles.index(role) if role in roles else None  # no exception raised when nobody has it


@rule("p4.skip")
def has_mutineer(state: State, action: Action | None) -> bool:
    """Guard: someone chose the mutineer, so phase 4 is played."""
    return _MUTINEER in state.roles


@rule("p3.reveal", "p4.support-order")
def reveal(state: Table, action: Action | None) -> Changes:
    """Phase 3: the mutineer's destination is N islands clockwise from the start island.

    The mutiny participants (captain, mate, mutineer, cabin boy) then decide on
    supports once each, clockwise starting with the captain.
    """
    mutineer = holder(state, _MUTINEER)
    if mutineer is None:
        return {}
    n = sum(state.face_down[mutineer])
    order = tuple(p for p in clockwise_from(state, state.captain) if p == state.captain or state.roles[p] in _SIDES)
    return {
        "mutineer_destination": destination(state, n),
        "to_act": order[0],
        "queue": order[1:],
    }


def legal_support(state: Table) -> tuple[Action, ...]:
    """Add 0 up to all of one's face-down support cards."""
    p = state.to_act
    most = state.face_down[p][_SUPPORT_CARD]
    built = _SUPPORT_UP_TO[p]
    if most < len(built):
        return built[most]
    return _SUPPORT[p] + tuple(Support(p, k) for k in range(len(built), most + 1))


def last_supporter(state: State, action: Action) -> bool:
    """Guard: no participant is left to decide."""
    return not state.queue


def add_support(state: State, action: Support) -> Changes:
    """Turn ``count`` face-down support cards face up; the next participant decides."""
    p, k = action.player, action.count
    if k:
        changes: Changes = {
            "face_down": set_at(state.face_down, p, add(state.face_down[p], _SUPPORT_CARD, -k)),
            "face_up": set_at(state.face_up, p, add(state.face_up[p], _SUPPORT_CARD, k)),
        }
    else:  # adding no support changes no pile
        changes = {}
    if state.queue:
        changes["to_act"] = state.queue[0]
        changes["queue"] = state.queue[1:]
    return changes


@rule("p4.sides")
def strengths(board: Board) -> tuple[int, int]:
    """(captain's side, mutineer's side): face-up supports of each side's members, +1 for a mate.

    Supports in front of the merchant or loadmaster never count. ``board`` is a state
    or a player's view (which knows everyone's role from the reveal on).

    >>> import meuterer
    >>> from meuterer.cards import EMPTY, Card, Role, add
    >>> s = meuterer.new_game(4, 0)
    >>> s = meuterer.state.evolve(s, {
    ...     "roles": (None, Role.MATE, Role.MUTINEER, Role.CABIN_BOY),
    ...     "face_up": (add(EMPTY, Card.SUPPORT, 2), EMPTY, add(EMPTY, Card.SUPPORT, 1), add(EMPTY, Card.SUPPORT, 2))})
    >>> strengths(s)
    (3, 3)
    """
    face_up = board.face_up
    mate_up = mates = rebels_up = 0
    for p, role in enumerate(board.roles):
        if role is _MATE:
            mate_up += face_up[p][_SUPPORT_CARD]
            mates += 1
        elif role is _MUTINEER or role is _CABIN_BOY:
            rebels_up += face_up[p][_SUPPORT_CARD]
    return side_strengths(face_up[board.captain][_SUPPORT_CARD], mate_up, mates, rebels_up)


@rule("p4.strength")
def side_strengths(captain_up: Any, mate_up: Any, mates: Any, rebels_up: Any) -> tuple[Any, Any]:
    """(captain's side, mutineer's side) from the face-up supports of the captain, of the
    mate (``mates``: 1 if someone is the mate, else 0), and of the mutineer and the cabin
    boy together: a mate adds one to his supports. The arithmetic of :func:`strengths`,
    over ints or numpy arrays alike.

    >>> side_strengths(2, 0, 1, 3), side_strengths(2, 0, 0, 3)
    ((3, 3), (2, 3))
    """
    return captain_up + mates * (mate_up + 1), rebels_up


@rule("p4.tie")
def mutiny_succeeds(captain_side: Any, mutineer_side: Any) -> Any:
    """Whether a mutiny with these side strengths succeeds: a tie goes to the mutineer
    (over ints or numpy arrays alike).

    >>> mutiny_succeeds(3, 3), mutiny_succeeds(4, 3)
    (True, False)
    """
    return mutineer_side >= captain_side


def resolve_mutiny(state: Board, action: Action | None) -> Changes:
    """The stronger side wins; a tie goes to the mutineer."""
    return {"mutiny": mutiny_succeeds(*strengths(state))}
