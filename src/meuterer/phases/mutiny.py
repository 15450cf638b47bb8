"""Phases 3 and 4: reveal, the mutineer's destination, supports and the mutiny's outcome."""

from __future__ import annotations

from meuterer.actions import Action, Support
from meuterer.cards import Card, Role, add
from meuterer.phases.common import Changes, clockwise_from, set_at
from meuterer.state import State

_SUPPORT = tuple(tuple(Support(p, k) for k in range(7)) for p in range(4))
_SIDES = (Role.MATE, Role.MUTINEER, Role.CABIN_BOY)


def holder(state: State, role: Role) -> int | None:
    """The seat holding ``role`` this round, or ``None``."""
    try:
        return state.roles.index(role)
    except ValueError:
        return None


def has_mutineer(state: State, action: Action | None) -> bool:
    """Guard: someone chose the mutineer, so phase 4 is played."""
    return Role.MUTINEER in state.roles


def reveal(state: State, action: Action | None) -> Changes:
    """Phase 3: the mutineer's destination is N islands clockwise from the start island.

    The mutiny participants (captain, mate, mutineer, cabin boy) then decide on
    supports once each, clockwise starting with the captain.
    """
    mutineer = holder(state, Role.MUTINEER)
    if mutineer is None:
        return {}
    n = sum(state.face_down[mutineer])
    order = tuple(p for p in clockwise_from(state, state.captain) if p == state.captain or state.roles[p] in _SIDES)
    return {
        "mutineer_destination": (state.start + n) % len(state.ring),
        "to_act": order[0],
        "queue": order[1:],
    }


def legal_support(state: State) -> tuple[Action, ...]:
    """Add 0 up to all of one's face-down support cards."""
    p = state.to_act
    most = state.face_down[p][Card.SUPPORT]
    return tuple(_SUPPORT[p][k] if k < 7 else Support(p, k) for k in range(most + 1))


def last_supporter(state: State, action: Action) -> bool:
    """Guard: no participant is left to decide."""
    return not state.queue


def add_support(state: State, action: Support) -> Changes:
    """Turn ``count`` face-down support cards face up; the next participant decides."""
    p, k = action.player, action.count
    changes: Changes = {
        "face_down": set_at(state.face_down, p, add(state.face_down[p], Card.SUPPORT, -k)),
        "face_up": set_at(state.face_up, p, add(state.face_up[p], Card.SUPPORT, k)),
    }
    if state.queue:
        changes["to_act"] = state.queue[0]
        changes["queue"] = state.queue[1:]
    return changes


def strengths(state: State) -> tuple[int, int]:
    """(captain's side, mutineer's side): face-up supports of each side's members, +1 for a mate.

    Supports in front of the merchant or loadmaster never count.
    """
    captain_side = state.face_up[state.captain][Card.SUPPORT]
    mutineer_side = 0
    for p, role in enumerate(state.roles):
        if role is Role.MATE:
            captain_side += state.face_up[p][Card.SUPPORT] + 1
        elif role is Role.MUTINEER or role is Role.CABIN_BOY:
            mutineer_side += state.face_up[p][Card.SUPPORT]
    return captain_side, mutineer_side


def resolve_mutiny(state: State, action: Action | None) -> Changes:
    """The stronger side wins; a tie goes to the mutineer."""
    captain_side, mutineer_side = strengths(state)
    return {"mutiny": mutineer_side >= captain_side}
