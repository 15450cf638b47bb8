"""The pirate variant (SPEC section 5): the pirate ship's move and the robbery."""

from __future__ import annotations

from typing import Any

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
    return int(pirate_moves_to(board.pirate, left, len(board.ring)))


def pirate_moves_to(pirate: Any, left: Any, islands: int) -> Any:
    """Where a pirate ship at ring position ``pirate`` stops: ``left`` islands
    counter-clockwise (the arithmetic of :func:`pirate_destination`, over ints or numpy
    arrays alike).

    >>> pirate_moves_to(1, 3, 12)
    10
    """
    return (pirate - left) % islands


def robs(pirate: Any, start: Any, left: Any, islands: int, at_start: Any) -> Any:
    """Whether a pirate ship at ``pirate`` moving ``left`` islands counter-clockwise reaches
    or passes the merchant ship at ``start`` (``at_start``: whether it robs when both are on
    one island, :attr:`meuterer.Rules.pirates_rob_at_start`); with no card left it stays.
    The arithmetic of :func:`robbery`, over ints or numpy arrays alike.

    >>> robs(9, 0, 9, 12, False), robs(9, 0, 8, 12, False), robs(0, 0, 3, 12, True)
    (True, False, True)
    """
    behind = (pirate != start) & ((pirate - start) % islands <= left)
    alongside = (pirate == start) & ((left >= islands) | at_start)
    return (left > 0) & (behind | alongside)


def robbery(board: Board, left: int) -> bool:
    """Whether a pirate ship moving ``left`` islands counter-clockwise reaches or passes
    the merchant ship (with 0 cards left it does not move and does not rob).

    >>> import meuterer
    >>> s = meuterer.new_game(4, 0, meuterer.Rules(pirates=True))
    >>> s.pirate, s.start, robbery(s, 8), robbery(s, 9), robbery(s, 11)
    (9, 0, False, True, True)
    """
    pirate = board.pirate
    if pirate is None:
        return False
    return bool(robs(pirate, board.start, left, len(board.ring), board.rules.pirates_rob_at_start))


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
