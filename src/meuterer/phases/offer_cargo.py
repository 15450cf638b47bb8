"""Phases 1 and 2: the captain's offer; playing cards, passing and choosing roles."""

from __future__ import annotations

from meuterer.actions import Action, ChooseRole, Offer, Pass, Play
from meuterer.cards import CARDS, EMPTY, MAX_SEATS, ROLES, add
from meuterer.phases.common import Changes, next_unpassed, set_at
from meuterer.state import State

_SEATS = range(MAX_SEATS)
_PLAY = tuple(tuple(Play(p, c) for c in CARDS) for p in _SEATS)
_PASS = tuple(Pass(p) for p in _SEATS)
_ROLE = tuple(tuple(ChooseRole(p, r) for r in ROLES) for p in _SEATS)


# Phase 1 -------------------------------------------------------------------------------


def legal_offer(state: State) -> tuple[Action, ...]:
    """The captain offers 0 to ``rules.max_offer`` points."""
    return tuple(Offer(state.captain, n) for n in range(state.rules.max_offer + 1))


def make_offer(state: State, action: Offer) -> Changes:
    """Record the offer; phase 2 starts with the captain."""
    return {"offer": action.amount, "to_act": state.captain}


# Phase 2 -------------------------------------------------------------------------------


def legal_play(state: State) -> tuple[Action, ...]:
    """Play any card in hand, or pass (the only choice with an empty hand)."""
    p = state.to_act
    hand = state.hands[p]
    plays = _PLAY[p]
    return tuple(plays[c] for c in CARDS if hand[c]) + (_PASS[p],)


def play_card(state: State, action: Play) -> Changes:
    """Move one card from hand to face up; the next unpassed player acts."""
    p, card = action.player, action.card
    return {
        "hands": set_at(state.hands, p, add(state.hands[p], card, -1)),
        "face_up": set_at(state.face_up, p, add(state.face_up[p], card, 1)),
        "to_act": next_unpassed(state.players, state.passed, p),
    }


def passer_is_not_captain(state: State, action: Pass) -> bool:
    """Guard: a non-captain who passes goes on to choose a role."""
    return action.player != state.captain


def passer_is_last(state: State, action: Action) -> bool:
    """Guard: everyone else has already passed, so phase 2 ends."""
    return sum(state.passed) == state.players - 1


def pass_turn(state: State, action: Pass) -> Changes:
    """Lay the hand face down. The captain's destination is fixed by the count.

    The passing player keeps the turn when he must still choose a role; otherwise the
    next unpassed player acts.
    """
    p = action.player
    passed = set_at(state.passed, p, True)
    changes: Changes = {
        "hands": set_at(state.hands, p, EMPTY),
        "face_down": set_at(state.face_down, p, state.hands[p]),
        "passed": passed,
    }
    if p == state.captain:
        changes["captain_destination"] = (state.start + sum(state.hands[p])) % len(state.ring)
        changes["to_act"] = next_unpassed(state.players, passed, p)
    return changes


def legal_role(state: State) -> tuple[Action, ...]:
    """Any role card still in the centre."""
    taken = state.roles
    return tuple(a for r, a in zip(ROLES, _ROLE[state.to_act], strict=True) if r not in taken)


def everyone_passed(state: State, action: Action) -> bool:
    """Guard: the player choosing a role was the last to pass."""
    return all(state.passed)


def take_role(state: State, action: ChooseRole) -> Changes:
    """Take the role secretly; the next unpassed player acts."""
    p = action.player
    return {
        "roles": set_at(state.roles, p, action.role),
        "role_order": state.role_order + (p,),
        "to_act": next_unpassed(state.players, state.passed, p),
    }
