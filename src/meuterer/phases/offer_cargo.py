"""Phases 1 and 2: the captain's offer; playing cards, passing and choosing roles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from meuterer._cache import Memo
from meuterer.actions import PASSES, PLAYS, ROLE_CHOICES, Action, ChooseRole, Offer, Pass, Play
from meuterer.cards import CARDS, EMPTY, ROLES, Counts, Role
from meuterer.phases.common import Board, Changes, next_unpassed, set_at
from meuterer.phases.ids import rule
from meuterer.state import State

_PLAY: tuple[tuple[Action, ...], ...] = PLAYS
_PASS: tuple[Action, ...] = PASSES
_ROLE: tuple[tuple[Action, ...], ...] = ROLE_CHOICES


# Phase 1 -------------------------------------------------------------------------------


_OFFERS: Memo[tuple[int, int], tuple[Action, ...]] = Memo(size=64)


@rule("p1.offer")
def legal_offer(state: Board) -> tuple[Action, ...]:
    """The captain offers 0 to ``rules.max_offer`` points."""
    key = (state.captain, state.rules.max_offer)
    found = _OFFERS.get(key)
    if found is None:
        found = tuple(Offer(key[0], n) for n in range(key[1] + 1))
        if key[1] <= 64:  # keep only small offer lists
            _OFFERS.put(key, found)
    return found


def make_offer(state: Board, action: Offer) -> Changes:
    """Record the offer; phase 2 starts with the captain."""
    return {"offer": action.amount, "to_act": state.captain}


# Phase 2 -------------------------------------------------------------------------------


_PLAYS: Memo[tuple[int, Counts], tuple[Action, ...]] = Memo(
    lambda key: tuple(_PLAY[key[0]][c] for c in CARDS if key[1][c]) + (_PASS[key[0]],), size=1 << 14
)


def legal_play(state: State) -> tuple[Action, ...]:
    """Play any card in hand, or pass (the only choice with an empty hand)."""
    p = state.to_act
    return plays(p, state.hands[p])


@rule("p2.play", "p2.empty-hand")
def plays(seat: int, hand: Counts) -> tuple[Action, ...]:
    """The plays of ``seat`` holding ``hand``: each kind held, in card order, then the pass.

    >>> [str(a) for a in plays(1, (0, 2, 0, 0, 0, 1, 0))]
    ['p1 play salt', 'p1 play support', 'p1 pass']
    """
    return _PLAYS[seat, hand]


def play_card(state: State, action: Play) -> Changes:
    """Move one card from hand to face up; the next unpassed player acts."""
    # The hottest effect: set_at and add inlined.
    p, card = action.player, action.card
    hands = list(state.hands)
    hand = list(hands[p])
    hand[card] -= 1
    hands[p] = tuple(hand)
    face_up = list(state.face_up)
    shown = list(face_up[p])
    shown[card] += 1
    face_up[p] = tuple(shown)
    return {"hands": tuple(hands), "face_up": tuple(face_up), "to_act": next_unpassed(state.players, state.passed, p)}


def passer_is_not_captain(state: State, action: Pass) -> bool:
    """Guard: a non-captain who passes goes on to choose a role."""
    return action.player != state.captain


def passer_is_last(state: State, action: Action) -> bool:
    """Guard: everyone else has already passed, so phase 2 ends."""
    return sum(state.passed) == state.players - 1


def destination(board: Board, cards: int) -> int:
    """The ring position ``cards`` islands clockwise from the start island: the destination
    of a captain who passes with ``cards`` cards, or of a mutineer with that many face down.

    >>> import meuterer
    >>> s = meuterer.new_game(4, 0)
    >>> destination(s, 3), s.island_name(destination(s, 3)), destination(s, 12)
    (3, 'karge_zunge', 0)
    """
    return int(destination_from(board.start, cards, len(board.ring)))


@rule("p2.captain-destination")
def destination_from(start: Any, cards: Any, islands: int) -> Any:
    """The ring position ``cards`` islands clockwise from position ``start`` on a ring of
    ``islands``: the arithmetic of :func:`destination`, over ints or numpy arrays alike.

    >>> destination_from(10, 3, 12)
    1
    """
    return (start + cards) % islands


@rule("p2.pass")
def pass_turn(state: State, action: Pass) -> Changes:
    """Lay the hand face down. The captain's destination is fixed by the count.

    The passing player keeps the turn when he must still choose a role; otherwise the
    next unpassed player acts.
    """
    p = action.player
    passed = set_at(state.passed, p, True)
    hands = list(state.hands)
    hand = hands[p]
    hands[p] = EMPTY
    face_down = list(state.face_down)
    face_down[p] = hand
    changes: Changes = {"hands": tuple(hands), "face_down": tuple(face_down), "passed": passed}
    if p == state.captain:
        changes["captain_destination"] = destination(state, sum(state.hands[p]))
        changes["to_act"] = next_unpassed(state.players, passed, p)
    return changes


_ROLES_LEFT: Memo[tuple[int, tuple[Role | None, ...]], tuple[Action, ...]] = Memo(
    lambda key: tuple(a for r, a in zip(ROLES, _ROLE[key[0]], strict=True) if r not in key[1]), size=1 << 12
)


def legal_role(state: State) -> tuple[Action, ...]:
    """Any role card still in the centre."""
    return roles_left(state.to_act, state.roles)


@rule("p2.role")
def roles_left(seat: int, taken: tuple[Role | None, ...]) -> tuple[Action, ...]:
    """The role choices of ``seat`` when ``taken`` (one entry a seat) are held: every role
    card still in the centre, in role order.

    >>> from meuterer.cards import Role
    >>> [str(a) for a in roles_left(0, (None, Role.MUTINEER, Role.MATE))]
    ['p0 role cabin_boy', 'p0 role merchant', 'p0 role loadmaster']
    """
    return _ROLES_LEFT[seat, taken]


@rule("hidden.roles")
def roles_seen(
    player: int, order: Sequence[int], roles: Sequence[Role | None], choosing: bool
) -> tuple[Role, ...] | None:
    """The role cards ``player`` saw in the centre when he chose (or, ``choosing``, sees
    now): every role not taken by a seat before him in ``order``; ``None`` if he has not
    chosen and is not choosing.

    >>> from meuterer.cards import Role
    >>> [str(r) for r in roles_seen(1, (0, 1), (Role.MATE, Role.MERCHANT), False)]
    ['mutineer', 'cabin_boy', 'merchant', 'loadmaster']
    >>> roles_seen(1, (0,), (Role.MATE, None), False) is None
    True
    """
    if player in order:
        before = order[: order.index(player)]
    elif choosing:
        before = order
    else:
        return None
    gone = {roles[seat] for seat in before}
    return tuple(role for role in ROLES if role not in gone)


def everyone_passed(state: State, action: Action) -> bool:
    """Guard: the player choosing a role was the last to pass."""
    return all(state.passed)


def take_role(state: State, action: ChooseRole) -> Changes:
    """Take the role secretly; the next unpassed player acts."""
    p = action.player
    roles = list(state.roles)
    roles[p] = action.role
    to_act = next_unpassed(state.players, state.passed, p)
    return {"roles": tuple(roles), "role_order": state.role_order + (p,), "to_act": to_act}
