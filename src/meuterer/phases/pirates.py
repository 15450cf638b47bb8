"""The pirate variant (SPEC section 5): the pirate ship's move and the robbery."""

from __future__ import annotations

from meuterer.actions import Play
from meuterer.cards import EMPTY, Card, plus
from meuterer.phases.common import Changes
from meuterer.phases.offer_cargo import play_card
from meuterer.state import State


def plays_pirate(state: State, action: Play) -> bool:
    """Guard: the card played is the pirate card."""
    return action.card is Card.PIRATE


def robbery(state: State, left: int) -> bool:
    """Whether a pirate ship moving ``left`` islands counter-clockwise reaches or passes
    the merchant ship (with 0 cards left it does not move and does not rob)."""
    if left == 0 or state.pirate is None:
        return False
    n = len(state.ring)
    passed = {(state.pirate - k) % n for k in range(1, left + 1)}
    return state.start in passed or (state.pirate == state.start and state.rules.pirates_rob_at_start)


def play_pirate(state: State, action: Play) -> Changes:
    """Play the pirate card face up; the pirate ship moves counter-clockwise as many
    islands as the player has cards left. If it reaches or passes the merchant ship, every
    face-up card of every player (the pirate card included) goes to the discard pile."""
    changes = play_card(state, action)
    assert state.pirate is not None
    left = sum(state.hands[action.player]) - 1
    changes["pirate"] = (state.pirate - left) % len(state.ring)
    if robbery(state, left):
        discard = state.discard
        for cards in changes["face_up"]:
            discard = plus(discard, cards)
        changes["discard"] = discard
        changes["face_up"] = (EMPTY,) * state.players
    return changes
