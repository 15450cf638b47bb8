"""A table's seats: who holds each, their secret tokens and browser keys.

A seat's holder is known by a secret token (only its SHA-256 is kept) and, if his page
gave one, by his browser's key (its SHA-256 too). :func:`claim` seats a player,
:func:`holder` finds the seat of a token.

>>> from meuterer.server.seats import Seat, claim, holder
>>> seats = [Seat(), Seat(bot="greedy")]
>>> token = claim(seats, 0, "  ann  ")
>>> holder(seats, token), seats[0].name, seats[0].open
(0, 'ann', False)
>>> claim(seats, 0, "bob")
Traceback (most recent call last):
...
meuterer.server.seats.TableError: seat 0 is taken
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Sequence
from typing import Any, Final

import attrs

from meuterer.agents import make_agent
from meuterer.errors import MeutererError

__all__ = [
    "MAX_NAME",
    "Seat",
    "TableError",
    "answer",
    "browser_key",
    "check_seat",
    "claim",
    "hash_token",
    "holder",
    "host",
    "mark_connected",
    "release",
    "seat_list",
    "vacate",
]

MAX_NAME: Final = 40
"""Most characters in a player's name."""


class TableError(MeutererError):
    """A request the table refuses (a taken seat, a bad token, a bot's seat...)."""


def hash_token(token: str) -> str:
    """The stored form of a seat's secret token (its SHA-256; the token itself is never kept)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def browser_key(key: object) -> str | None:
    """The stored form (SHA-256) of a browser key: the random text a page keeps in its
    browser's storage and sends when it joins, so that a table knows which browser holds
    which seat. ``None`` for no key; :class:`TableError` for anything but 16 to 100
    printable ASCII characters.

    >>> browser_key(None), browser_key("k" * 16) == hash_token("k" * 16)
    (None, True)
    """
    if key is None:
        return None
    if not isinstance(key, str) or not 16 <= len(key) <= 100 or not key.isascii() or not key.isprintable():
        raise TableError("a browser key is 16 to 100 printable ASCII characters")
    return hash_token(key)


@attrs.define
class Seat:
    """A seat: a human player's (``bot is None``) or a bot's (an agent spec such as ``greedy``)."""

    name: str = ""
    bot: str | None = None
    token_hash: str | None = None
    """SHA-256 of the seat's secret token; ``None`` while nobody holds the seat."""
    stand_in: bool = False
    """A stand-in bot plays this human seat (its player left or let his turn time run out)."""
    key_hash: str | None = None
    """SHA-256 of the browser key of the seat's holder (or of its last holder), if he gave one."""
    reserved: bool = False
    """The seat was left during the game: only its last holder's browser may take it (or
    whoever comes once the host releases it)."""
    connected: bool = False
    """A page of the seat's holder is open at the table now (kept in memory only)."""
    asked: bool = False
    """A rematch gave the seat to its player, who has not said yet whether he plays again
    (the game waits for his answer; see :func:`answer`)."""
    fill: str | None = None
    """The bot the host chose for an asked seat whose player declines (``None``: it opens)."""

    @property
    def open(self) -> bool:
        """A human seat nobody holds."""
        return self.bot is None and self.token_hash is None

    @property
    def ready(self) -> bool:
        """Someone plays the seat: a bot, or a player who is not asked for his answer."""
        return not self.open and not self.asked

    def public(self) -> dict[str, Any]:
        """What everyone may know of the seat."""
        return {
            "name": self.name,
            "bot": self.bot,
            "open": self.open,
            "stand_in": self.stand_in,
            "reserved": self.reserved,
            "asked": self.asked,
            "presence": self.presence,
            "label": self.label,
        }

    @property
    def label(self) -> str:
        """The seat in words for the page: ``bot: greedy``, ``ann (connected)``, ``ann (away)``,
        ``ann (a stand-in bot plays)`` or ``open``."""
        if self.bot is not None:
            return f"bot: {self.bot}"
        if self.token_hash is None and not self.stand_in:
            return "open"
        if self.asked:
            return f"{self.name} (asked: plays again?)"
        return f"{self.name} ({'a stand-in bot plays' if self.stand_in else self.presence})"

    @property
    def presence(self) -> str:
        """``bot`` (its own or a stand-in plays it), ``connected``, ``away`` (held, no page
        open) or ``open``."""
        if self.bot is not None or self.stand_in:
            return "bot"
        if self.token_hash is None:
            return "open"
        return "connected" if self.connected else "away"


def check_seat(seats: list[Seat], seat: object) -> None:
    """Raise :class:`TableError` unless ``seat`` is a seat number of ``seats``."""
    if type(seat) is not int or not 0 <= seat < len(seats):
        raise TableError(f"a seat is a number from 0 to {len(seats) - 1}, not {seat!r}")


def claim(seats: list[Seat], seat: int, name: str, key: object = None) -> str:
    """Seat ``name`` at the open seat ``seat``; the secret token that identifies its holder.

    ``key``: the joining browser's key (see :func:`browser_key`). One person, one seat: a
    browser that holds a seat already is refused another. A *reserved* seat (left during
    the game) goes only to the browser that left it.
    """
    check_seat(seats, seat)
    held = seats[seat]
    if not held.open:
        raise TableError(f"seat {seat} is taken")
    name = " ".join(str(name).split())[:MAX_NAME] or f"p{seat}"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in name):
        raise TableError("a name is printable text (no control, format, private or lone surrogate characters)")
    key_hash = browser_key(key)
    mine = [p for p, s in enumerate(seats) if key_hash is not None and s.token_hash and s.key_hash == key_hash]
    if mine:
        raise TableError(f"this browser holds seat {mine[0]} at this table already: one person, one seat")
    if held.reserved and (key_hash is None or not hmac.compare_digest(held.key_hash or "", key_hash)):
        raise TableError(
            f"seat {seat} was left during the game: only its player may take it back (from the same "
            "browser), unless the host lets someone else take it"
        )
    token = secrets.token_urlsafe(24)
    held.token_hash = hash_token(token)
    held.key_hash = key_hash
    held.reserved = held.asked = False
    held.name = name
    held.stand_in = False
    return token


def holder(seats: list[Seat], token: object) -> int:
    """The seat whose secret token ``token`` is (compared in constant time), or raise."""
    if isinstance(token, str) and 0 < len(token) <= 100:
        wanted = hash_token(token)
        found = [p for p, s in enumerate(seats) if hmac.compare_digest(s.token_hash or "", wanted)]
        if found:
            return found[0]
    raise TableError("no seat at this table has that token")


def host(seats: list[Seat]) -> int | None:
    """The host: the person in the lowest-numbered seat held."""
    return next((p for p, s in enumerate(seats) if s.token_hash is not None), None)


def seat_list(players: int, seats: Sequence[Seat] | None) -> list[Seat]:
    """The seats of a new table of ``players`` (open seats if ``seats`` is ``None``); a bot's
    spec that is not one is refused now (``AgentSpecError``)."""
    if players not in (3, 4):
        raise TableError(f"a table has 3 or 4 players, not {players!r}")
    found = list(seats) if seats is not None else [Seat() for _ in range(players)]
    if len(found) != players:
        raise TableError(f"a table of {players} players needs {players} seats, got {len(found)}")
    for seat in found:
        if seat.bot is not None:
            make_agent(seat.bot)
    return found


def vacate(seats: list[Seat], seat: int, *, stand_in: bool, reserve: bool) -> None:
    """The holder of the human seat ``seat`` leaves it; a stand-in bot plays it if
    ``stand_in``, and it is kept for its player's browser if ``reserve``."""
    check_seat(seats, seat)
    if seats[seat].bot is not None:
        raise TableError(f"seat {seat} is a bot's")
    seats[seat].token_hash = seats[seat].fill = None
    seats[seat].stand_in = stand_in
    seats[seat].reserved = reserve
    seats[seat].asked = False


def release(seats: list[Seat], by: int, seat: int) -> None:
    """The host (seat ``by``) lets anyone take the reserved seat ``seat``."""
    check_seat(seats, seat)
    if by != host(seats):
        raise TableError(f"only the host (seat {host(seats)}) may let someone else take a seat")
    if not seats[seat].reserved:
        raise TableError(f"seat {seat} is not reserved for a player who left")
    seats[seat].reserved = False
    seats[seat].key_hash = None


def mark_connected(seats: list[Seat], held: set[int | None]) -> bool:
    """Mark as connected the seats in ``held`` (those with a page open) that someone holds,
    the others not; whether any seat changed.

    >>> seats = [Seat(token_hash="x"), Seat()]
    >>> mark_connected(seats, {0, 1}), [s.presence for s in seats], mark_connected(seats, {0})
    (True, ['connected', 'open'], False)
    """
    changed = False
    for p, seat in enumerate(seats):
        connected = p in held and seat.token_hash is not None
        changed = changed or connected != seat.connected
        seat.connected = connected
    return changed


def answer(seats: list[Seat], seat: int, play: bool) -> None:
    """The player asked at seat ``seat`` (see :attr:`Seat.asked`) answers: he plays again
    (``play``), or he declines and his seat goes to the bot the host chose for it
    (:attr:`Seat.fill`) or, if none, is open to anyone.

    >>> seats = [Seat("ann", token_hash="x", asked=True, fill="greedy"), Seat("bob", token_hash="y", asked=True)]
    >>> answer(seats, 0, play=False)
    >>> answer(seats, 1, play=False)
    >>> seats[0].label, seats[1].label
    ('bot: greedy', 'open')
    """
    check_seat(seats, seat)
    held = seats[seat]
    if not held.asked:
        raise TableError(f"seat {seat} is not asked whether it plays again")
    held.asked = False
    if play:
        held.fill = None
        return
    held.token_hash = held.key_hash = None
    held.name, held.bot = (held.fill, held.fill) if held.fill else ("", None)
    held.fill = None
