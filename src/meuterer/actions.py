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
from collections.abc import Iterable, Iterator, Sequence
from math import factorial
from typing import Any, ClassVar, overload

import attrs

from meuterer._cache import Memo
from meuterer.cards import CARD_BY_NAME, MAX_SEATS, ROLE_BY_NAME, Card, Role
from meuterer.errors import ActionParseError, ActionTypeError, MeutererError


def _seat(player: int) -> str:
    return f"p{player}"


# Action fields convert on construction, so an action built with plain ints for cards or
# roles (``Play(0, 6)``) or a list for a tuple is the canonical one, and fires the same.
def _card(value: Card | int) -> Card:
    if type(value) is Card:
        return value
    if type(value) is int and 0 <= value < len(Card):
        return Card(value)
    error = MeutererError if type(value) is int else ActionTypeError
    raise error(f"not a card: {repr(value)[:60]} (a meuterer.Card or its number)")


def _role(value: Role | int) -> Role:
    if type(value) is Role:
        return value
    if type(value) is int and 0 <= value < len(Role):
        return Role(value)
    error = MeutererError if type(value) is int else ActionTypeError
    raise error(f"not a role: {repr(value)[:60]} (a meuterer.Role or its number)")


def _int(instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    """An action's number is a plain ``int``: not a bool (``True == 1`` would be written
    ``True``) nor a subclass that prints otherwise, so every action reads back from its text."""
    if type(value) is not int:
        raise ActionTypeError(
            f"{type(instance).__name__}.{attribute.name} is an int, got {type(value).__name__} {repr(value)[:60]}"
        )


def _str(instance: object, attribute: attrs.Attribute[str], value: object) -> None:
    """An island name is a plain ``str`` (a subclass could print otherwise)."""
    if type(value) is not str:
        raise ActionTypeError(
            f"{type(instance).__name__}.{attribute.name} is a str, got {type(value).__name__} {repr(value)[:60]}"
        )


def _cards(values: Iterable[Card | int]) -> tuple[Card, ...]:
    return tuple(map(_card, values))


def _names(values: Iterable[str]) -> tuple[str, ...]:
    names = values if type(values) is tuple else tuple(values)
    for name in names:
        if type(name) is not str:
            raise ActionTypeError(f"ArrangeRing.islands are str, got {type(name).__name__} {repr(name)[:60]}")
    return names


@attrs.frozen
class Draw:
    """Chance: ``player`` draws ``card`` from the deck (``draw p1 grain``)."""

    kind: ClassVar[str] = "draw"
    player: int = attrs.field(validator=_int)
    card: Card = attrs.field(converter=_card)

    def __str__(self) -> str:
        return f"draw {_seat(self.player)} {self.card}"


@attrs.frozen
class Offer:
    """Phase 1: the captain offers ``amount`` victory points to a mate (``p0 offer 2``)."""

    kind: ClassVar[str] = "offer"
    player: int = attrs.field(validator=_int)
    amount: int = attrs.field(validator=_int)

    def __str__(self) -> str:
        return f"{_seat(self.player)} offer {self.amount}"


@attrs.frozen
class Play:
    """Phase 2: ``player`` plays one card face up (``p1 play wine``)."""

    kind: ClassVar[str] = "play"
    player: int = attrs.field(validator=_int)
    card: Card = attrs.field(converter=_card)

    def __str__(self) -> str:
        return f"{_seat(self.player)} play {self.card}"


@attrs.frozen
class Pass:
    """Phase 2: ``player`` passes, laying his hand face down (``p1 pass``)."""

    kind: ClassVar[str] = "pass"
    player: int = attrs.field(validator=_int)

    def __str__(self) -> str:
        return f"{_seat(self.player)} pass"


@attrs.frozen
class ChooseRole:
    """Phase 2: right after passing, a non-captain takes a role (``p1 role mutineer``)."""

    kind: ClassVar[str] = "role"
    player: int = attrs.field(validator=_int)
    role: Role = attrs.field(converter=_role)

    def __str__(self) -> str:
        return f"{_seat(self.player)} role {self.role}"


@attrs.frozen
class Support:
    """Phase 4: a mutiny participant adds ``count`` support cards (``p0 support 1``)."""

    kind: ClassVar[str] = "support"
    player: int = attrs.field(validator=_int)
    count: int = attrs.field(validator=_int)

    def __str__(self) -> str:
        return f"{_seat(self.player)} support {self.count}"


@attrs.frozen
class Sale:
    """One part of a sale declaration: ``count`` cards of ``card`` on ``island``."""

    island: str = attrs.field(validator=_str)
    card: Card = attrs.field(converter=_card)
    count: int = attrs.field(validator=_int)

    def __str__(self) -> str:
        return f"{self.island}:{self.card}:{self.count}"


def _sales(values: Iterable[Sale]) -> tuple[Sale, ...]:
    return values if type(values) is tuple else tuple(values)


@attrs.frozen
class Sell:
    """Phase 5: ``player`` declares his sales, islands in ascending ring position.

    ``p2 sell hochland:cloth:2``; an empty declaration is ``p3 sell none``.
    """

    kind: ClassVar[str] = "sell"
    player: int = attrs.field(validator=_int)
    sales: tuple[Sale, ...] = attrs.field(converter=_sales)

    def __str__(self) -> str:
        body = ",".join(map(str, self.sales)) or "none"
        return f"{_seat(self.player)} sell {body}"


@attrs.frozen
class Discard:
    """Phase 8: the loadmaster discards ``cards`` (canonical order): ``p2 discard grain grain salt``;
    discarding nothing (``Rules(loadmaster_extra=0)``) is ``p2 discard none``."""

    kind: ClassVar[str] = "discard"
    player: int = attrs.field(validator=_int)
    cards: tuple[Card, ...] = attrs.field(converter=_cards)

    def __str__(self) -> str:
        return f"{_seat(self.player)} discard " + (" ".join(map(str, self.cards)) or "none")


@attrs.frozen
class ArrangeRing:
    """Chance, shuffled ring only: the islands clockwise from position 0, Hochland first
    (``ring hochland,sandkap,...``)."""

    kind: ClassVar[str] = "ring"
    player: ClassVar[int] = -1
    """Chance actions belong to no seat."""
    islands: tuple[str, ...] = attrs.field(converter=_names)

    def __str__(self) -> str:
        return "ring " + ",".join(self.islands)


Action = Draw | Offer | Play | Pass | ChooseRole | Support | Sell | Discard | ArrangeRing
"""Any action."""

ACTION_TYPES: tuple[type[Action], ...] = (Draw, Offer, Play, Pass, ChooseRole, Support, Sell, Discard, ArrangeRing)
KINDS: tuple[str, ...] = tuple(t.kind for t in ACTION_TYPES)

# The canonical instances of the small action families, shared by the legal-action
# generators and parse_action: an action read from a record is then the very object the
# engine lists, which apply recognises by identity.
DRAWS: tuple[tuple[Draw, ...], ...] = tuple(tuple(Draw(p, c) for c in Card) for p in range(MAX_SEATS))
"""``DRAWS[seat][card]``: the canonical :class:`Draw` instances."""
PLAYS: tuple[tuple[Play, ...], ...] = tuple(tuple(Play(p, c) for c in Card) for p in range(MAX_SEATS))
"""``PLAYS[seat][card]``: the canonical :class:`Play` instances."""
PASSES: tuple[Pass, ...] = tuple(Pass(p) for p in range(MAX_SEATS))
"""``PASSES[seat]``: the canonical :class:`Pass` instances."""
ROLE_CHOICES: tuple[tuple[ChooseRole, ...], ...] = tuple(
    tuple(ChooseRole(p, r) for r in Role) for p in range(MAX_SEATS)
)
"""``ROLE_CHOICES[seat][role]``: the canonical :class:`ChooseRole` instances."""

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


_PARSED: Memo[str, Action] = Memo(size=1 << 13)


def parse_action(text: str) -> Action:
    """Read an action from its canonical text; raise :class:`ActionParseError` if it is not one.

    Only the canonical form is accepted (single spaces, lower case), so that
    ``str(parse_action(t)) == t`` for every accepted ``t``. Draws, plays, passes and role
    choices come back as their canonical instances (:data:`PLAYS` and the like).
    """
    if not isinstance(text, str):
        raise ActionParseError(f"an action must be text, got {type(text).__name__}")
    action = _PARSED.get(text)
    if action is None:
        action = _parse(text)
        if len(text) <= 256:  # remember the short texts records repeat
            _PARSED.put(text, action)
    return action


def _parse(text: str) -> Action:
    tokens = text.split(" ")
    if len(tokens) < 2 or not all(tokens):
        raise ActionParseError(f"{text!r}: not an action (expected e.g. 'p1 play wine' or 'draw p1 grain')")
    if tokens[0] == "draw":
        _arity(text, tokens[1:], 2)
        return DRAWS[_parse_seat(text, tokens[1])][_parse_card(text, tokens[2])]
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
        action = PLAYS[player][_parse_card(text, args[0])]
    elif kind == "pass":
        _arity(text, args, 0)
        action = PASSES[player]
    elif kind == "role":
        _arity(text, args, 1)
        if args[0] not in ROLE_BY_NAME:
            raise ActionParseError(f"{text!r}: unknown role {args[0]!r}")
        action = ROLE_CHOICES[player][ROLE_BY_NAME[args[0]]]
    elif kind == "support":
        _arity(text, args, 1)
        action = Support(player, _parse_number(text, args[0]))
    elif kind == "sell":
        _arity(text, args, 1)
        sales = () if args[0] == "none" else tuple(_parse_sale(text, t) for t in args[0].split(","))
        action = Sell(player, sales)
    elif kind == "discard":
        if not args:
            raise ActionParseError(f"{text!r}: discard names its cards, or 'none'")
        cards = () if args == ["none"] else tuple(_parse_card(text, t) for t in args)
        action = Discard(player, cards)
    else:
        raise ActionParseError(f"{text!r}: unknown action kind {kind!r}")
    if str(action) != text:
        raise ActionParseError(f"{text!r}: not in canonical form (expected {str(action)!r})")
    return action


def lehmer_digits(rank: Any, n: int) -> list[Any]:
    """The digits of ``rank`` (an int, or an integer array: one rank per game) in the
    factorial base, ``n`` of them: the arrangement of ``n`` things of that rank takes, at
    each position, the ``digit``-th of those not placed yet (in their first order). Both
    executors unrank the shuffled ring with it.

    >>> lehmer_digits(4, 3), lehmer_digits(5, 3)
    ([2, 0, 0], [2, 1, 0])
    """
    digits = []
    for size in range(n, 0, -1):
        block = factorial(size - 1)
        digits.append(rank // block)
        rank = rank % block
    return digits


class RingArrangements(Sequence[ArrangeRing]):
    """Every arrangement of a shuffled ring, listed lazily: Hochland first, then the other
    islands in each of their (n-1)! orders, in lexicographic order of their table indices.

    Indexing unranks a permutation and :meth:`index` ranks one, so nothing is enumerated.
    Both engines list the shuffled ring's chance outcomes with it.

    >>> ring = RingArrangements(("a", "b", "c", "d"))
    >>> [str(arrangement) for arrangement in ring]
    ['ring a,b,c,d', 'ring a,b,d,c', 'ring a,c,b,d', 'ring a,c,d,b', 'ring a,d,b,c', 'ring a,d,c,b']
    >>> ring.index(ArrangeRing(("a", "d", "b", "c"))), ArrangeRing(("b", "a", "c", "d")) in ring
    (4, False)
    """

    def __init__(self, names: tuple[str, ...]) -> None:
        """``names``: the island table's names, in table order (the first stays first)."""
        self._names = tuple(names)
        self._rest = self._names[1:]
        self._len = factorial(len(self._rest))

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> ArrangeRing: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[ArrangeRing]: ...
    def __getitem__(self, index: int | slice) -> ArrangeRing | Sequence[ArrangeRing]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("arrangement index out of range")
        pool = list(self._rest)
        order = [pool.pop(pick) for pick in lehmer_digits(index, len(pool))]
        return ArrangeRing((self._names[0], *order))

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        """The rank of an arrangement; ``ValueError`` if it is not one."""
        if not isinstance(value, ArrangeRing) or value.islands[:1] != self._names[:1]:
            raise ValueError("not an arrangement of this ring")
        rest = value.islands[1:]
        if sorted(rest) != sorted(self._rest) or len(set(rest)) != len(rest):
            raise ValueError("not an arrangement of this ring")
        pool, rank = list(self._rest), 0
        for name in rest:
            position = pool.index(name)
            rank += position * factorial(len(pool) - 1)
            pool.pop(position)
        return rank

    def __contains__(self, value: object) -> bool:
        try:
            self.index(value)
        except ValueError:
            return False
        return True

    def __iter__(self) -> Iterator[ArrangeRing]:
        return (self[i] for i in range(self._len))
