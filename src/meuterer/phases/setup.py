"""Setup (SPEC section 2): the state before the deal."""

from __future__ import annotations

from meuterer.cards import EMPTY
from meuterer.rules import Rules
from meuterer.state import State, Step

_HOCHLAND = 0


def initial_state(players: int, first_captain: int, rules: Rules) -> State:
    """All islands passive but Hochland, where the ship lies; the full deck; the deal
    about to start with the captain, who draws his five cards first."""
    empty = (EMPTY,) * players
    others = tuple((first_captain + i) % players for i in range(1, players))
    return State(
        players=players,
        rules=rules,
        step=Step.DEAL,
        round=1,
        captain=first_captain,
        to_act=first_captain,
        queue=others,
        offer=None,
        ring=tuple(range(len(rules.islands))),
        start=_HOCHLAND,
        active=(_HOCHLAND,),
        hands=empty,
        face_up=empty,
        face_down=empty,
        passed=(False,) * players,
        roles=(None,) * players,
        role_order=(),
        captain_destination=None,
        mutineer_destination=None,
        mutiny=None,
        sales=(None,) * players,
        scores=(0,) * players,
        deck=rules.deck,
        discard=EMPTY,
        draws_left=rules.hand_size,
        drawn=EMPTY,
    )
