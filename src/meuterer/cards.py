"""Card kinds, roles and card multisets.

A hand, a pile or the deck is a multiset of card kinds, stored as a tuple of counts
indexed by :class:`Card` (``Counts``).

>>> from meuterer.cards import Card, counts_of, counts_str
>>> hand = counts_of([Card.WINE, Card.GRAIN, Card.WINE])
>>> hand
(0, 0, 2, 0, 1, 0, 0)
>>> counts_str(hand)
'wine wine grain'
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

Counts = tuple[int, ...]
"""A multiset of cards: ``counts[card]`` is how many cards of that kind it holds."""


class Card(IntEnum):
    """A kind of goods card, in canonical order."""

    RUBY = 0
    SALT = 1
    WINE = 2
    CLOTH = 3
    GRAIN = 4
    SUPPORT = 5
    PIRATE = 6

    def __str__(self) -> str:
        return self.name.lower()


class Role(IntEnum):
    """A role card a non-captain player may choose after passing."""

    MUTINEER = 0
    CABIN_BOY = 1
    MATE = 2
    MERCHANT = 3
    LOADMASTER = 4

    def __str__(self) -> str:
        return self.name.lower()


SEAT_COUNTS: tuple[int, ...] = (3, 4)
"""The player counts Meuterer is played with."""
MAX_SEATS: int = max(SEAT_COUNTS)
"""The most seats a game has (seats are numbered 0 to ``MAX_SEATS - 1``)."""

CARDS: tuple[Card, ...] = tuple(Card)
GOODS: tuple[Card, ...] = (Card.RUBY, Card.SALT, Card.WINE, Card.CLOTH, Card.GRAIN)
"""The five sellable kinds. Support and pirate cards are never sold."""
ROLES: tuple[Role, ...] = tuple(Role)
EMPTY: Counts = (0,) * len(CARDS)

CARD_BY_NAME: dict[str, Card] = {str(c): c for c in CARDS}
ROLE_BY_NAME: dict[str, Role] = {str(r): r for r in ROLES}


def counts_of(cards: Iterable[Card]) -> Counts:
    """The multiset holding ``cards``."""
    counts = [0] * len(CARDS)
    for card in cards:
        counts[card] += 1
    return tuple(counts)


def cards_of(counts: Counts) -> tuple[Card, ...]:
    """The cards of a multiset, in canonical order."""
    return tuple(card for card in CARDS for _ in range(counts[card]))


def counts_str(counts: Counts) -> str:
    """The cards of a multiset as text, in canonical order (``'-'`` when empty)."""
    return " ".join(map(str, cards_of(counts))) or "-"


def add(counts: Counts, card: int, n: int = 1) -> Counts:
    """``counts`` with ``n`` more cards of kind ``card`` (``n`` may be negative)."""
    return counts[:card] + (counts[card] + n,) + counts[card + 1 :]


def plus(a: Counts, b: Counts) -> Counts:
    """The union (sum) of two multisets."""
    return tuple(x + y for x, y in zip(a, b, strict=True))


def minus(a: Counts, b: Counts) -> Counts:
    """``a`` without the cards of ``b`` (``b`` must be contained in ``a``)."""
    return tuple(x - y for x, y in zip(a, b, strict=True))
