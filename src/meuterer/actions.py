"""Typed actions and their canonical text notation.

Every decision and every chance event of a game is one action. ``str(action)`` is
its canonical text, and :func:`parse_action` reads it back exactly:

>>> from meuterer import parse_action
>>> action = parse_action("p0 sell hochland:grain:1,karge_zunge:grain:2")
>>> action.player, action.sales[1]
(0, Sale(island='karge_zunge', card=<Card.GRAIN: 4>, count=2))
>>> str(action)
'p0 sell hochland:grain:1,karge_zunge:grain:2'
>>> str(parse_action("draw p1 grain"))
'draw p1 grain'
"""

from __future__ import annotations

import re
from typing import ClassVar

import attrs

from meuterer.cards import CARD_BY_NAME, ROLE_BY_NAME, Card, Role
from meuterer.cards import MAX_SEATS as MAX_SEATS  # its home is meuterer.cards
from meuterer.errors import ActionParseError


def _seat(player: int) -> str:
    return f"p{player}"


@attrs.frozen
class Draw:
    """Chance: ``player`` draws ``card`` from the deck (``draw p1 grain``)."""

    kind: ClassVar[str] = "draw"
    player: int
    card: Card

    def __str__(self) -> str:
        return f"draw {_seat(self.player)} {self.card}"


@attrs.frozen
class Offer:
    """Phase 1: the captain offers ``amount`` victory points to a mate (``p0 offer 2``)."""

    kind: ClassVar[str] = "offer"
    player: int
    amount: int

    def __str__(self) -> str:
        return f"{_seat(self.player)} offer {self.amount}"


@attrs.frozen
class Play:
    """Phase 2: ``player`` plays one card face up (``p1 play wine``)."""

    kind: ClassVar[str] = "play"
    player: int
    card: Card

    def __str__(self) -> str:
        return f"{_seat(self.player)} play {self.card}"


@attrs.frozen
class Pass:
    """Phase 2: ``player`` passes, laying his hand face down (``p1 pass``)."""

    kind: ClassVar[str] = "pass"
    player: int

    def __str__(self) -> str:
        return f"{_seat(self.player)} pass"


@attrs.frozen
class ChooseRole:
    """Phase 2: right after passing, a non-captain takes a role (``p1 role mutineer``)."""

    kind: ClassVar[str] = "role"
    player: int
    role: Role

    def __str__(self) -> str:
        return f"{_seat(self.player)} role {self.role}"


@attrs.frozen
class Support:
    """Phase 4: a mutiny participant adds ``count`` support cards (``p0 support 1``)."""

    kind: ClassVar[str] = "support"
    player: int
    count: int

    def __str__(self) -> str:
        return f"{_seat(self.player)} support {self.count}"


@attrs.frozen
class Sale:
    """One part of a sale declaration: ``count`` cards of ``card`` on ``island``."""

    island: str
    card: Card
    count: int

    def __str__(self) -> str:
        return f"{self.island}:{self.card}:{self.count}"


@attrs.frozen
class Sell:
    """Phase 5: ``player`` declares his sales, islands in ascending ring position.

    ``p2 sell hochland:cloth:2``; an empty declaration is ``p3 sell none``.
    """

    kind: ClassVar[str] = "sell"
    player: int
    sales: tuple[Sale, ...]

    def __str__(self) -> str:
        body = ",".join(map(str, self.sales)) or "none"
        return f"{_seat(self.player)} sell {body}"


@attrs.frozen
class Discard:
    """Phase 8: the loadmaster discards ``cards`` (canonical order): ``p2 discard grain grain salt``."""

    kind: ClassVar[str] = "discard"
    player: int
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"{_seat(self.player)} discard " + " ".join(map(str, self.cards))


@attrs.frozen
class ArrangeRing:
    """Chance, shuffled ring only: the islands clockwise from position 0, Hochland first
    (``ring hochland,sandkap,...``)."""

    kind: ClassVar[str] = "ring"
    player: ClassVar[int] = -1
    """Chance actions belong to no seat."""
    islands: tuple[str, ...]

    def __str__(self) -> str:
        return "ring " + ",".join(self.islands)


Action = Draw | Offer | Play | Pass | ChooseRole | Support | Sell | Discard | ArrangeRing
"""Any action."""

ACTION_TYPES: tuple[type[Action], ...] = (Draw, Offer, Play, Pass, ChooseRole, Support, Sell, Discard, ArrangeRing)
KINDS: tuple[str, ...] = tuple(t.kind for t in ACTION_TYPES)

_SEAT = re.compile(r"p([0-9])")
_NUMBER = re.compile(r"0|[1-9][0-9]{0,5}")


def _parse_seat(text: str, token: str) -> int:
    match = _SEAT.fullmatch(token)
    if match is None or int(match.group(1)) >= MAX_SEATS:
        raise ActionParseError(f"{text!r}: {token!r} is not a seat (p0 to p{MAX_SEATS - 1})")
    return int(match.group(1))


def _parse_number(text: str, token: str) -> int:
    if _NUMBER.fullmatch(token) is None:
        raise ActionParseError(f"{text!r}: {token!r} is not a number")
    return int(token)


def _parse_card(text: str, token: str) -> Card:
    try:
        return CARD_BY_NAME[token]
    except KeyError:
        raise ActionParseError(f"{text!r}: unknown card {token!r}") from None


def _parse_sale(text: str, token: str) -> Sale:
    parts = token.split(":")
    if len(parts) != 3 or not parts[0]:
        raise ActionParseError(f"{text!r}: a sale is island:card:count, got {token!r}")
    return Sale(parts[0], _parse_card(text, parts[1]), _parse_number(text, parts[2]))


def _arity(text: str, args: list[str], n: int) -> None:
    if len(args) != n:
        raise ActionParseError(f"{text!r}: expected {n} argument(s) after the action kind, got {len(args)}")


def parse_action(text: str) -> Action:
    """Read an action from its canonical text; raise :class:`ActionParseError` if it is not one.

    Only the canonical form is accepted (single spaces, lower case), so that
    ``str(parse_action(t)) == t`` for every accepted ``t``.
    """
    if not isinstance(text, str):
        raise ActionParseError(f"an action must be text, got {type(text).__name__}")
    tokens = text.split(" ")
    if len(tokens) < 2 or not all(tokens):
        raise ActionParseError(f"{text!r}: not an action (expected e.g. 'p1 play wine' or 'draw p1 grain')")
    if tokens[0] == "draw":
        _arity(text, tokens[1:], 2)
        return Draw(_parse_seat(text, tokens[1]), _parse_card(text, tokens[2]))
    if tokens[0] == "ring":
        _arity(text, tokens[1:], 1)
        names = tokens[1].split(",")
        if not all(names):
            raise ActionParseError(f"{text!r}: a ring names islands separated by commas")
        return ArrangeRing(tuple(names))
    player = _parse_seat(text, tokens[0])
    kind, args = tokens[1], tokens[2:]
    action: Action
    if kind == "offer":
        _arity(text, args, 1)
        action = Offer(player, _parse_number(text, args[0]))
    elif kind == "play":
        _arity(text, args, 1)
        action = Play(player, _parse_card(text, args[0]))
    elif kind == "pass":
        _arity(text, args, 0)
        action = Pass(player)
    elif kind == "role":
        _arity(text, args, 1)
        if args[0] not in ROLE_BY_NAME:
            raise ActionParseError(f"{text!r}: unknown role {args[0]!r}")
        action = ChooseRole(player, ROLE_BY_NAME[args[0]])
    elif kind == "support":
        _arity(text, args, 1)
        action = Support(player, _parse_number(text, args[0]))
    elif kind == "sell":
        _arity(text, args, 1)
        sales = () if args[0] == "none" else tuple(_parse_sale(text, t) for t in args[0].split(","))
        action = Sell(player, sales)
    elif kind == "discard":
        if not args:
            raise ActionParseError(f"{text!r}: discard names at least one card")
        action = Discard(player, tuple(_parse_card(text, t) for t in args))
    else:
        raise ActionParseError(f"{text!r}: unknown action kind {kind!r}")
    if str(action) != text:
        raise ActionParseError(f"{text!r}: not in canonical form (expected {str(action)!r})")
    return action
