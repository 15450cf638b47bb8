"""Rule options: one named, documented option for every point the rulebook leaves open.

Options that size the game (the deck, hand size, the loadmaster's extra cards, the
highest offer, the rounds) have generous upper bounds (:data:`MAX_DECK`...), so every
action space and every game stays small enough to list and replay quickly.

>>> from meuterer import Rules
>>> Rules().rounds_for(3), Rules().rounds_for(4)
(9, 8)
>>> Rules(withholding=True) == Rules()
False

Every option is checked when a rule set is made; a wrong one is a
:class:`~meuterer.errors.RulesError` that names the option and what it may be:

>>> Rules(sale_order="foo")
Traceback (most recent call last):
...
meuterer.errors.RulesError: sale_order must be one of new_captain, round_captain, got 'foo'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import attrs

from meuterer.cards import Counts
from meuterer.errors import RulesError
from meuterer.islands import ISLANDS, MAX_POINTS, Island, validate_islands


class SaleOrder(StrEnum):
    """Who starts declaring sales in phase 5."""

    NEW_CAPTAIN = "new_captain"
    """The holder of the captain cards after role points (the mutineer after a
    successful mutiny). SPEC default: role points are scored first, so the captain
    cards have already changed hands."""
    ROUND_CAPTAIN = "round_captain"
    """The player who was captain during the round."""


class DiscardPool(StrEnum):
    """Which cards the loadmaster may discard in phase 8."""

    DRAWN = "drawn"
    """Only cards he has just drawn ([HU]: "a most húzott kártyák közül"). SPEC default."""
    HAND = "hand"
    """Any 3 cards of his hand."""


class Reshuffle(StrEnum):
    """When the discard pile becomes the new deck."""

    ON_DRAW = "on_draw"
    """When a card must be drawn and the deck is empty (SPEC and issue default)."""
    WHEN_EMPTY = "when_empty"
    """As soon as a draw empties the deck ([HU]: "Ha kifogy a pakli", when the deck runs
    out), so cards discarded later wait for the next reshuffle. If the discard pile is
    empty at that moment, the next draw from the empty deck reshuffles instead."""


def _member(kind: type[Any], name: str, value: object) -> Any:
    """``value`` as a member of the string enum ``kind`` (the member or its value), else a
    :class:`RulesError` naming the option ``name`` and its valid values."""
    if type(value) is kind:
        return value
    if type(value) is str:
        for member in kind:
            if member.value == value:
                return member
    valid = ", ".join(member.value for member in kind)
    raise RulesError(f"{name} must be one of {valid}, got {repr(value)[:60]}")


def _to_ring(value: object) -> Ring:
    return _member(Ring, "ring", value)  # type: ignore[no-any-return]


def _to_sale_order(value: object) -> SaleOrder:
    return _member(SaleOrder, "sale_order", value)  # type: ignore[no-any-return]


def _to_discard_pool(value: object) -> DiscardPool:
    return _member(DiscardPool, "discard_pool", value)  # type: ignore[no-any-return]


def _to_reshuffle(value: object) -> Reshuffle:
    return _member(Reshuffle, "reshuffle", value)  # type: ignore[no-any-return]


def _flag(instance: Rules, attribute: attrs.Attribute[bool], value: object) -> None:
    if type(value) is not bool:
        raise RulesError(f"{attribute.name} must be True or False, got {repr(value)[:60]}")


def _validate_rounds(instance: Rules, attribute: attrs.Attribute[int | None], value: int | None) -> None:
    if value is not None and (type(value) is not int or not 1 <= value <= MAX_ROUNDS):
        raise RulesError(f"rounds must be a positive whole number, at most {MAX_ROUNDS}, got {repr(value)[:60]}")


def _validate_table(instance: Rules, attribute: attrs.Attribute[tuple[Island, ...]], value: tuple[Island, ...]) -> None:
    validate_islands(value)


class Ring(StrEnum):
    """How the islands are arranged."""

    FIXED = "fixed"
    """The clockwise order of the island table ([HU] lists it; the worked example needs it)."""
    SHUFFLED = "shuffled"
    """Hochland at position 0, the other eleven shuffled by one chance action before the deal."""


BASE_DECK: Counts = (4, 5, 6, 7, 8, 6, 0)
"""30 goods and 6 support cards ([HU] contents list, without the pirate)."""


def _default_deck(rules: Rules) -> Counts:
    return BASE_DECK[:6] + (1 if rules.pirates else 0,)


MAX_DECK = 500
"""The most cards a deck may hold (the rulebook's has 36 or 37)."""
MAX_HAND_SIZE = 20
"""The largest ``hand_size`` (the rulebook's is 5)."""
MAX_LOADMASTER_EXTRA = 6
"""The largest ``loadmaster_extra`` (the rulebook's is 3): the loadmaster's discards are
every multiset of that many of his cards, at most 924 with 6."""
MAX_OFFER = 100
"""The largest ``max_offer`` (the rulebook's is 3): one legal offer per amount."""
MAX_ROUNDS = 1000
"""The most ``rounds`` a game may have (the rulebook's 8 or 9)."""


def _validate_deck(instance: Rules, attribute: attrs.Attribute[Counts], value: Counts) -> None:
    if len(value) != 7 or any(type(n) is not int or n < 0 for n in value):
        raise RulesError(f"deck must hold 7 non-negative counts (ruby..pirate), got {repr(value)[:60]}")
    if sum(value) > MAX_DECK:
        raise RulesError(f"a deck holds at most {MAX_DECK} cards, got {sum(value)}")
    if value[6] != (1 if instance.pirates else 0):
        wanted = "1 pirate card with pirates=True" if instance.pirates else "no pirate card without pirates=True"
        raise RulesError(f"the deck must hold {wanted}, got {value[6]}")


TABLE, VARIANT, OPEN, SIZE = "table", "variant", "open", "size"
"""The kinds of rule option (each field's ``metadata["kind"]``): the tables of the game
(islands, deck, rounds), the variants (the pirates and the ring), the points the rulebook
leaves open, and the sizes of the box (hand, loadmaster's cards, offer, cabin boy's points)."""


def _kind(kind: str, *samples: object) -> dict[str, object]:
    """A field's metadata: its kind, and for a number the values tools try (the default first)."""
    return {"kind": kind, "samples": samples}


def _at_least(least: int, most: int | None = None) -> Any:
    def validate(instance: Rules, attribute: attrs.Attribute[int], value: int) -> None:
        if type(value) is not int or value < least or (most is not None and value > most):
            bounds = f"of at least {least}" + ("" if most is None else f" and at most {most}")
            raise RulesError(f"{attribute.name} must be a whole number {bounds}, got {repr(value)[:60]}")

    return validate


@attrs.frozen
class Rules:
    """A rule set. ``Rules()`` is the SPEC default for the base game.

    Rule sets are immutable, comparable and hashable; every option is named.
    """

    islands: tuple[Island, ...] = attrs.field(default=ISLANDS, validator=_validate_table, metadata=_kind(TABLE))
    """The island table in clockwise ring order (SPEC section 1); replaceable data."""
    pirates: bool = attrs.field(default=False, validator=_flag, metadata=_kind(VARIANT))
    """The pirate variant (SPEC section 5, [HU] back of the pirate ship card): the pirate
    card is shuffled into the deck and the pirate ship starts at Piratennest."""
    deck: Counts = attrs.field(
        default=attrs.Factory(_default_deck, takes_self=True), validator=_validate_deck, metadata=_kind(TABLE)
    )
    """Deck composition as counts of ruby, salt, wine, cloth, grain, support, pirate
    (36 cards; 37 with the pirate); at most :data:`MAX_DECK` cards."""
    ring: Ring = attrs.field(default=Ring.FIXED, converter=_to_ring, metadata=_kind(VARIANT))
    """The island arrangement (see :class:`Ring`)."""
    rounds: int | None = attrs.field(default=None, validator=_validate_rounds, metadata=_kind(TABLE, None, 3, 12))
    """Rounds in a game; ``None`` means the rulebook's 8 with 4 players, 9 with 3; at most
    :data:`MAX_ROUNDS`."""
    sale_order: SaleOrder = attrs.field(default=SaleOrder.NEW_CAPTAIN, converter=_to_sale_order, metadata=_kind(OPEN))
    """Who declares sales first in phase 5 (rulebook open; see :class:`SaleOrder`)."""
    withholding: bool = attrs.field(default=False, validator=_flag, metadata=_kind(OPEN))
    """``False`` (SPEC default, "sell what you can"): a player must sell every face-up
    card of a kind he declares, and may leave no island undeclared that would buy some
    of his unsold goods. ``True``: players may withhold cards freely."""
    discard_pool: DiscardPool = attrs.field(default=DiscardPool.DRAWN, converter=_to_discard_pool, metadata=_kind(OPEN))
    """Which cards the loadmaster discards from (see :class:`DiscardPool`)."""
    reshuffle: Reshuffle = attrs.field(default=Reshuffle.ON_DRAW, converter=_to_reshuffle, metadata=_kind(OPEN))
    """When the discard pile is shuffled into a new deck (see :class:`Reshuffle`)."""
    pirates_rob_at_start: bool = attrs.field(default=False, validator=_flag, metadata=_kind(VARIANT))
    """Pirate variant, no source says: ``False`` (SPEC default) — a pirate ship that starts
    its move on the merchant ship's island and sails away does not rob; ``True`` — it robs."""
    pirates_return: bool = attrs.field(default=False, validator=_flag, metadata=_kind(VARIANT))
    """Pirate variant, no source says: ``False`` (SPEC default) — the pirate ship stays where
    it stopped; ``True`` — it returns to Piratennest at the clean-up (phase 7)."""

    hand_size: int = attrs.field(default=5, validator=_at_least(1, MAX_HAND_SIZE), metadata=_kind(SIZE, 5, 3, 4, 6))
    """Cards in a full hand (setup and phase 8); at most :data:`MAX_HAND_SIZE`."""
    loadmaster_extra: int = attrs.field(
        default=3, validator=_at_least(0, MAX_LOADMASTER_EXTRA), metadata=_kind(SIZE, 3, 0, 1, 2, 4)
    )
    """Extra cards the loadmaster draws, and then discards, in phase 8; at most
    :data:`MAX_LOADMASTER_EXTRA`."""
    max_offer: int = attrs.field(default=3, validator=_at_least(0, MAX_OFFER), metadata=_kind(SIZE, 3, 0, 1, 5))
    """The captain's highest offer to the mate (captain cards show 0 to 3); at most
    :data:`MAX_OFFER`."""
    cabin_boy_points: int = attrs.field(default=2, validator=_at_least(0, MAX_POINTS), metadata=_kind(SIZE, 2, 0, 4))
    """Victory points of the cabin boy after a successful mutiny; at most
    :data:`~meuterer.islands.MAX_POINTS`."""

    def __attrs_post_init__(self) -> None:
        # Four full hands and the loadmaster's extra cards are the most ever outside the
        # deck and discard pile (23 by default), so both can never run out together.
        most_out = 4 * self.hand_size + self.loadmaster_extra
        if sum(self.deck) <= most_out:
            raise RulesError(f"the deck needs more than {most_out} cards, got {sum(self.deck)}")

    def rounds_for(self, players: int) -> int:
        """The number of rounds of a game with ``players`` players."""
        if self.rounds is not None:
            return self.rounds
        return 9 if players == 3 else 8


for _field in attrs.fields(Rules):  # every option says what it is (tools read it)
    if _field.metadata.get("kind") not in (TABLE, VARIANT, OPEN, SIZE):
        raise TypeError(f"Rules.{_field.name} declares no kind: give it metadata=_kind(...)")

DEFAULT_RULES = Rules()
"""The SPEC default rule set."""


def option_kind(name: str) -> str:
    """The kind of the rule option ``name`` (``TABLE``, ``VARIANT``, ``OPEN`` or
    ``SIZE``), as its field declares it.

    >>> option_kind("withholding"), option_kind("hand_size")
    ('open', 'size')
    """
    kind: str = attrs.fields_dict(Rules)[name].metadata["kind"]
    return kind


def option_values(name: str) -> tuple[Any, ...]:
    """The values of the rule option ``name`` that tests and tools try, the default first:
    both values of a flag, every member of a choice, the sample values its field declares
    for a number or a table (``()`` for the island table and the deck: no list of them).

    >>> option_values("sale_order")
    (<SaleOrder.NEW_CAPTAIN: 'new_captain'>, <SaleOrder.ROUND_CAPTAIN: 'round_captain'>)
    >>> option_values("pirates"), option_values("max_offer"), option_values("deck")
    ((False, True), (3, 0, 1, 5), ())
    """
    default = getattr(DEFAULT_RULES, name)
    if isinstance(default, bool):
        return (default, not default)
    if isinstance(default, StrEnum):
        return (default, *(member for member in type(default) if member is not default))
    samples: tuple[Any, ...] = attrs.fields_dict(Rules)[name].metadata["samples"]
    return samples
