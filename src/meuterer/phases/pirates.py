"""The pirate variant (SPEC section 5), whole: where the pirate ship starts (and returns
to, with ``pirates_return``), the pirate card's play, the ship's move and the robbery.
The phases reach it through the hooks of :data:`PIRATES` (see :mod:`meuterer.phases.variants`);
the pirate card itself is the deck's seventh kind (:attr:`meuterer.Rules.deck`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from meuterer.actions import Play
from meuterer.cards import EMPTY, Card
from meuterer.phases.common import Board, Changes, Table, discarded
from meuterer.phases.ids import rule
from meuterer.phases.offer_cargo import play_card
from meuterer.rules import Rules
from meuterer.state import State, Step

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


@rule("pirates.move")
def pirate_moves_to(pirate: Any, left: Any, islands: int) -> Any:
    """Where a pirate ship at ring position ``pirate`` stops: ``left`` islands
    counter-clockwise (the arithmetic of :func:`pirate_destination`, over ints or numpy
    arrays alike).

    >>> pirate_moves_to(1, 3, 12)
    10
    """
    return (pirate - left) % islands


@rule("pirates.rob", "pirates.last-card")
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


@rule("pirates.setup")
def piratennest(rules: Rules, ring: Sequence[int]) -> int | None:
    """Where the pirate ship starts (Piratennest's ring position), or ``None`` without pirates.

    >>> from meuterer import Rules
    >>> piratennest(Rules(pirates=True), range(12)), piratennest(Rules(), range(12))
    (9, None)
    """
    if not rules.pirates:
        return None
    return next(pos for pos, index in enumerate(ring) if rules.islands[index].name == "piratennest")


class Pirates:
    """The pirate variant's hooks (:class:`meuterer.phases.variants.Variant`): played when
    ``Rules(pirates=True)``.

    >>> import meuterer
    >>> s = meuterer.new_game(4, 0, meuterer.Rules(pirates=True, pirates_return=True))
    >>> PIRATES.pirate_ship(s.rules, s.ring), PIRATES.clean_up(s)
    (9, {'pirate': 9})
    """

    name = "pirates"
    transitions = (("play", Step.PLAY, Step.PLAY, play_pirate, (plays_pirate,)),)
    """Playing the pirate card (tried before the base game's play of a card)."""

    def applies(self, rules: Rules) -> bool:
        return rules.pirates

    def pirate_ship(self, rules: Rules, ring: Sequence[int]) -> int | None:
        return piratennest(rules, ring)

    @rule("pirates.return")
    def clean_up(self, state: Table) -> Changes:
        """With ``pirates_return``, the pirate ship goes back to Piratennest."""
        if state.rules.pirates_return:
            return {"pirate": piratennest(state.rules, state.ring)}
        return {}


PIRATES = Pirates()
"""The pirate variant."""
