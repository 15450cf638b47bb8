"""Immutable game snapshots.

A :class:`State` holds the whole truth of a game at one moment, hidden information
included. It is a frozen attrs class of plain values (ints, enums, tuples;
card multisets as :data:`~meuterer.cards.Counts`), so it is hashable, compared by value
and serialisable with cattrs. The engine never changes a state; it makes new ones.

Islands are named in the state by their *ring position* (0 is Hochland, counting
clockwise); ``state.island(pos)`` gives the island card at a position.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import IntEnum, StrEnum
from types import MappingProxyType
from typing import Any, TypedDict

import attrs

from meuterer.actions import Sale
from meuterer.cards import Counts, Role
from meuterer.islands import Island
from meuterer.rules import Rules


class Phase(IntEnum):
    """The phase of a round, numbered as in the rulebook, plus the deal and the game's end."""

    DEAL = 0
    OFFER = 1
    """1. The captain's offer to a mate."""
    PLAY = 2
    """2. Offering goods: playing cards, passing, choosing roles."""
    REVEAL = 3
    """3. Roles are revealed; the mutineer's destination is fixed."""
    MUTINY = 4
    """4. Mutiny: participants add support cards."""
    SCORING = 5
    """5. Role points, then sales."""
    SAIL = 6
    """6. The ship sails."""
    CLEAN_UP = 7
    """7. Face-up cards are discarded; face-down cards go back to the hands."""
    DRAW = 8
    """8. Players draw up to a full hand (``hand_size``); the loadmaster draws and discards his extra cards."""
    ROLES_RETURN = 9
    """9. Role cards return to the centre."""
    END_OF_ROUND = 10
    """10. The round ends."""
    GAME_OVER = 11

    def __str__(self) -> str:
        return self.name.lower()


class Step(StrEnum):
    """A state of the round's finite-state machine: a phase or one of its sub-steps."""

    RING = "ring"
    DEAL = "deal"
    OFFER = "offer"
    PLAY = "play"
    CHOOSE_ROLE = "choose_role"
    REVEAL = "reveal"
    MUTINY = "mutiny"
    RESOLVE_MUTINY = "resolve_mutiny"
    ROLE_POINTS = "role_points"
    SELL = "sell"
    SAIL = "sail"
    CLEAN_UP = "clean_up"
    DRAW = "draw"
    LOADMASTER_DISCARD = "loadmaster_discard"
    ROLES_RETURN = "roles_return"
    END_OF_ROUND = "end_of_round"
    GAME_OVER = "game_over"


STEP_PHASE: dict[Step, Phase] = {
    Step.RING: Phase.DEAL,
    Step.DEAL: Phase.DEAL,
    Step.OFFER: Phase.OFFER,
    Step.PLAY: Phase.PLAY,
    Step.CHOOSE_ROLE: Phase.PLAY,
    Step.REVEAL: Phase.REVEAL,
    Step.MUTINY: Phase.MUTINY,
    Step.RESOLVE_MUTINY: Phase.MUTINY,
    Step.ROLE_POINTS: Phase.SCORING,
    Step.SELL: Phase.SCORING,
    Step.SAIL: Phase.SAIL,
    Step.CLEAN_UP: Phase.CLEAN_UP,
    Step.DRAW: Phase.DRAW,
    Step.LOADMASTER_DISCARD: Phase.DRAW,
    Step.ROLES_RETURN: Phase.ROLES_RETURN,
    Step.END_OF_ROUND: Phase.END_OF_ROUND,
    Step.GAME_OVER: Phase.GAME_OVER,
}


class _Stored:
    """The base that owns a :class:`State`'s field storage (its instance dictionary).

    :class:`State` hides that dictionary: ``vars(state)`` and ``state.__dict__`` give a
    read-only view, so no public path writes a snapshot. The library reaches the storage
    through this class's own descriptor (:func:`fields_of`, :func:`make_state`)."""


_STORAGE: Any = _Stored.__dict__["__dict__"]
fields_of: Callable[[Any], dict[str, Any]] = _STORAGE.__get__
"""The writable field dictionary of a :class:`State`, for the library's copy paths only
(a state's fields must never change once it is made)."""
_set_storage: Callable[[Any, dict[str, Any]], None] = _STORAGE.__set__


@attrs.frozen(slots=False)  # dict-backed: see evolve; its __init__ is replaced below
class State(_Stored):
    """A snapshot of a game. Build one with :func:`meuterer.new_game`; never by hand.

    Frozen: its fields cannot be set, and ``vars(state)`` is a read-only view.

    >>> import meuterer
    >>> state = meuterer.new_game(3, 0)
    >>> vars(state)["round"] = 7
    Traceback (most recent call last):
    ...
    TypeError: 'mappingproxy' object does not support item assignment
    """

    players: int
    """Number of seats (3 or 4), numbered clockwise from 0."""
    rules: Rules
    step: Step
    """The machine state: the phase and, within it, whose decision is pending."""
    round: int
    """1-based round number."""
    captain: int
    """Seat holding the captain cards."""
    to_act: int
    """Seat whose decision (or draw) is pending; meaningless when the game is over."""
    queue: tuple[int, ...]
    """Seats still to act after ``to_act`` in the current step (deal, mutiny, sales, drawing)."""
    offer: int | None
    """The captain's offer to the mate this round, once made."""
    ring: tuple[int, ...]
    """Index into ``rules.islands`` of the island at each ring position."""
    start: int
    """Ring position of the merchant ship (the start island)."""
    active: tuple[int, ...]
    """Ring positions of the active islands, ascending."""
    pirate: int | None
    """Ring position of the pirate ship (pirate variant), or ``None``."""
    hands: tuple[Counts, ...]
    face_up: tuple[Counts, ...]
    face_down: tuple[Counts, ...]
    passed: tuple[bool, ...]
    roles: tuple[Role | None, ...]
    """Each seat's role this round (hidden from others until phase 3)."""
    role_order: tuple[int, ...]
    """Seats in the order they chose roles this round (who saw which roles)."""
    captain_destination: int | None
    mutineer_destination: int | None
    mutiny: bool | None
    """``True``/``False`` once a mutiny succeeded/failed this round; ``None`` otherwise."""
    sales: tuple[tuple[Sale, ...] | None, ...]
    """Each seat's sale declaration this round (a tuple of :class:`~meuterer.actions.Sale`)."""
    scores: tuple[int, ...]
    deck: Counts
    """The composition of the deck (never an order: each draw is a chance event)."""
    discard: Counts
    draws_left: int
    """Cards ``to_act`` still has to draw (deal and phase 8)."""
    drawn: Counts
    """Cards ``to_act`` has drawn so far in phase 8 (the loadmaster discards from these)."""

    @property
    def phase(self) -> Phase:
        """The rulebook phase."""
        return STEP_PHASE[self.step]

    def island(self, position: int) -> Island:
        """The island card at ring ``position``."""
        return self.rules.islands[self.ring[position % len(self.ring)]]

    def island_name(self, position: int) -> str:
        """The notation name of the island at ring ``position``."""
        return self.island(position).name

    def position_of(self, name: str) -> int | None:
        """The ring position of the island called ``name``, or ``None``."""
        for position, index in enumerate(self.ring):
            if self.rules.islands[index].name == name:
                return position
        return None

    @property
    def __dict__(self) -> Mapping[str, Any]:  # type: ignore[override]
        """A read-only view of the fields (``vars(state)``)."""
        return MappingProxyType(fields_of(self))

    def __getstate__(self) -> dict[str, Any]:
        return fields_of(self).copy()

    def __setstate__(self, fields: dict[str, Any]) -> None:
        if fields_of(self):  # only a state being unpickled, still empty, takes fields
            raise attrs.exceptions.FrozenInstanceError()
        _set_storage(self, dict(fields))


FIELDS: tuple[str, ...] = tuple(f.name for f in attrs.fields(State))


def _fields_init() -> Callable[..., None]:
    # State's __init__, derived from its fields: one dictionary display handed to the
    # storage, instead of attrs' guarded setattr per field (mypy reads the signature
    # from the attrs plugin, the same fields).
    parameters = ", ".join(FIELDS)
    display = ", ".join(f"{name!r}: {name}" for name in FIELDS)
    namespace: dict[str, Any] = {"_store": _set_storage}
    exec(f"def __init__(self, {parameters}):\n    _store(self, {{{display}}})", namespace)  # noqa: S102 - our own names
    init: Callable[..., None] = namespace["__init__"]
    init.__annotations__ = {**{f.name: f.type for f in attrs.fields(State)}, "return": "None"}
    init.__qualname__, init.__module__ = "State.__init__", __name__
    return init


setattr(State, "__init__", _fields_init())  # noqa: B010 - mypy reads the attrs plugin's signature


class Changes(TypedDict, total=False):
    """What an effect returns: the :class:`State` fields it replaces, type-checked by mypy."""

    players: int
    rules: Rules
    step: Step
    round: int
    captain: int
    to_act: int
    queue: tuple[int, ...]
    offer: int | None
    ring: tuple[int, ...]
    start: int
    active: tuple[int, ...]
    pirate: int | None
    hands: tuple[Counts, ...]
    face_up: tuple[Counts, ...]
    face_down: tuple[Counts, ...]
    passed: tuple[bool, ...]
    roles: tuple[Role | None, ...]
    role_order: tuple[int, ...]
    captain_destination: int | None
    mutineer_destination: int | None
    mutiny: bool | None
    sales: tuple[tuple[Sale, ...] | None, ...]
    scores: tuple[int, ...]
    deck: Counts
    discard: Counts
    draws_left: int
    drawn: Counts


_FIELD_SET = frozenset(FIELDS)
new_snapshot: Callable[[type[State]], State] = object.__new__
"""An empty :class:`State` (no fields yet), for :func:`store_fields` to fill: the library's
copy paths only (:func:`make_state` is the two in one call)."""
store_fields: Callable[[State, dict[str, Any]], None] = _set_storage
"""Give an empty :class:`State` from :func:`new_snapshot` its field dictionary (taken
over, not copied; not checked): the library's copy paths only."""
# The engine makes a new state on every step. attrs' frozen __init__ (and attrs.evolve,
# which introspects the class on every call) pays a guarded setattr per field; State is
# a dict-backed class so that a copy with changes is two C-level dict updates instead.


def evolve(state: State, changes: Changes | Mapping[str, Any]) -> State:
    """A copy of ``state`` with the fields in ``changes`` replaced; ``changes`` is left as it was.

    Raises ``TypeError`` for a name that is not a field of :class:`State`. Values are not
    converted or validated (effects produce well-typed values; mypy checks :class:`Changes`).

    >>> import meuterer
    >>> s = meuterer.new_game(3, 0)
    >>> changes = {"round": 2}
    >>> evolve(s, changes).round, s.round, changes
    (2, 1, {'round': 2})
    """
    if not _FIELD_SET.issuperset(changes):
        raise TypeError(f"State has no fields {sorted(set(changes) - _FIELD_SET)}")
    fields = fields_of(state).copy()
    fields.update(changes)
    return make_state(fields)


def make_state(fields: dict[str, Any]) -> State:
    """A :class:`State` over ``fields`` (taken over, not copied; not checked): the
    library's fast path for a new snapshot."""
    new = new_snapshot(State)
    _set_storage(new, fields)
    return new
