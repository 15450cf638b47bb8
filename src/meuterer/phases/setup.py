"""Setup (SPEC section 2) and the shuffled ring's arrangement."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import overload

from meuterer._cache import Memo
from meuterer.actions import Action, ArrangeRing, RingArrangements
from meuterer.cards import EMPTY
from meuterer.errors import SetupError
from meuterer.phases.common import Board, Changes
from meuterer.phases.ids import rule
from meuterer.phases.variants import variant_of
from meuterer.rules import Ring, Rules
from meuterer.state import State, Step

_HOCHLAND = 0
_DEFAULT_RULES = Rules()


@rule("setup.seats", "setup.ring", "setup.active", "setup.deal")
def initial_state(players: int, first_captain: int, rules: Rules | None = None) -> State:
    """All islands passive but Hochland, where the ship lies; the full deck; the deal
    about to start with the captain, who draws his five cards first. With a shuffled ring,
    the arrangement (a chance action) comes first.

    The setup is checked here, for every engine: 3 or 4 players, a first captain who is a
    seat, a :class:`~meuterer.rules.Rules` (``None`` for the rulebook's); else
    :class:`~meuterer.errors.SetupError` says which is wrong.

    >>> initial_state(5, 0)
    Traceback (most recent call last):
    ...
    meuterer.errors.SetupError: Meuterer is played by 3 or 4 players, got 5
    """
    if rules is None:
        rules = _DEFAULT_RULES
    if not isinstance(rules, Rules):
        raise SetupError(f"rules must be a meuterer.Rules, got {type(rules).__name__}")
    if type(players) is not int or players not in (3, 4):
        raise SetupError(f"Meuterer is played by 3 or 4 players, got {players!r}")
    if type(first_captain) is not int or not 0 <= first_captain < players:
        raise SetupError(f"first_captain must be a seat from 0 to {players - 1}, got {first_captain!r}")
    empty = (EMPTY,) * players
    others = tuple((first_captain + i) % players for i in range(1, players))
    ring = tuple(range(len(rules.islands)))
    return State(
        players=players,
        rules=rules,
        step=Step.RING if rules.ring is Ring.SHUFFLED else Step.DEAL,
        round=1,
        captain=first_captain,
        to_act=first_captain,
        queue=others,
        offer=None,
        ring=ring,
        start=_HOCHLAND,
        active=(_HOCHLAND,),
        pirate=variant_of(rules).pirate_ship(rules, ring),
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


class Arrangements(RingArrangements):
    """Every arrangement of the shuffled ring of ``rules``' island table (see
    :class:`~meuterer.actions.RingArrangements`).

    >>> from meuterer import Rules
    >>> ring = Arrangements(Rules(ring="shuffled"))
    >>> len(ring)
    39916800
    >>> str(ring[0]).split(",")[:3], str(ring[-1]).split(",")[:3]
    (['ring hochland', 'frosthoehle', 'gruenland'], ['ring hochland', 'sandkap', 'fingerhut'])
    >>> ring.index(ring[12345])
    12345
    """

    def __init__(self, rules: Rules) -> None:
        super().__init__(tuple(island.name for island in rules.islands))


class ArrangementOutcomes(Sequence[tuple[Action, Fraction]]):
    """The shuffled ring's chance outcomes, lazily: each arrangement with probability 1/11!."""

    def __init__(self, arrangements: Arrangements) -> None:
        self.arrangements = arrangements
        self._p = Fraction(1, len(arrangements))

    def __len__(self) -> int:
        return len(self.arrangements)

    @overload
    def __getitem__(self, index: int) -> tuple[Action, Fraction]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[Action, Fraction]]: ...
    def __getitem__(self, index: int | slice) -> tuple[Action, Fraction] | Sequence[tuple[Action, Fraction]]:
        if isinstance(index, slice):
            return [(a, self._p) for a in self.arrangements[index]]
        return (self.arrangements[index], self._p)


_ARRANGEMENTS: Memo[Rules, Arrangements] = Memo(Arrangements, size=16)
"""The arrangements of the last rule sets asked about (each lazy: a few names and factorials)."""


def legal_ring(state: Board) -> Sequence[Action]:
    """Chance, shuffled ring: every arrangement (a lazy sequence of 11! actions)."""
    return _ARRANGEMENTS[state.rules]


def ring_outcomes(state: Board) -> ArrangementOutcomes:
    """Chance, shuffled ring: every arrangement with probability 1/11!, lazily."""
    legal = legal_ring(state)
    assert isinstance(legal, Arrangements)
    return ArrangementOutcomes(legal)


def sample_ring(state: Board, rng: random.Random) -> Action:
    """Chance, shuffled ring: a uniform arrangement, by one ``rng.randrange`` over the list."""
    arrangements = legal_ring(state)
    return arrangements[rng.randrange(len(arrangements))]


def arrange_ring(state: Board, action: ArrangeRing) -> Changes:
    """Lay the islands out as drawn; the pirate ship (in the pirate variant) goes to Piratennest."""
    names = [island.name for island in state.rules.islands]
    ring = tuple(names.index(name) for name in action.islands)
    return {"ring": ring, "pirate": variant_of(state.rules).pirate_ship(state.rules, ring)}
