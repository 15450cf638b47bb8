"""The pirate variant (SPEC section 5): the pirate ship's move and the robbery."""

from __future__ import annotations

from meuterer.actions import Play
from meuterer.cards import EMPTY, Card
from meuterer.phases.common import Board, Changes, discarded
from meuterer.phases.offer_cargo import play_card
from meuterer.state import State

_PIRATE = Card.PIRATE


def plays_pirate(state: State, action: Play) -> bool:
    """Guard: the card played is the pirate card."""
    return action.card is _PIRATE


def pirate_destination(board: Board, left: int) -> int | None:
    """Where the pirate ship stops when the pirate card is played by a player left with
    ``left`` cards in hand: ``left`` islands counter-clockwise (``None`` without pirates).

    >>> import meuterer
    >>> s = meuterer.new_game(4, 0, meuterer.Rules(pirates=True))
    >>> s.pirate, pirate_destination(s, 3), pirate_destination(s, 0)
    (9, 6, 9)
    """
    if board.pirate is None:
        return None
    return (board.pirate - left) % len(board.ring)


def robbery(board: Board, left: int) -> bool:
    """Whether a pirate ship moving ``left`` islands counter-clockwise reaches or passes
    the merchant ship (with 0 cards left it does not move and does not rob).

    >>> import meuterer
    >>> s = meuterer.new_game(4, 0, meuterer.Rules(pirates=True))
    >>> s.pirate, s.start, robbery(s, 8), robbery(s, 9), robbery(s, 11)
    (9, 0, False, True, True)
    """
    pirate = board.pirate
    if left == 0 or pirate is None:
        return False
    n = len(board.ring)
    start = board.start
    return (pirate - start) % n <= left if pirate != start else left >= n or board.rules.pirates_rob_at_start


def play_pirate(state: State, action: Play) -> Changes:
    """Play the pirate card face up; the pirate ship moves counter-clockwise as many
    islands as the player has cards left. If it reaches or passes the merchant ship, every
    face-up card of every player (the pirate card included) goes to the discard pile."""
    changes = play_card(state, action)
    assert state.pirate is not None
    left = sum(state.hands[action.player]) - 1
    changes["pirate"] = pirate_destination(state, left)
    if robbery(state, left):
        changes["discard"] = discarded(state.discard, changes["face_up"])
        changes["face_up"] = (EMPTY,) * state.players
    return changes
