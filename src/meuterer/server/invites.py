"""What a table's host chooses when he opens it, besides the game: its name, whether it is
private (left out of the lobby's list, joined only with its short code), its invite code and
its turn time (``None``: no limit).

>>> invite = read_invite({"title": "  Friday  night ", "private": True, "turn_seconds": None}, 120.0)
>>> invite.title, invite.private, invite.turn_seconds, len(invite.code)
('Friday night', True, None, 6)
>>> read_invite({"turn_seconds": 5}, 120.0)
Traceback (most recent call last):
...
meuterer.server.invites.InviteError: turn_seconds: a number of seconds from 10 to 3600, or null for no limit
"""

from __future__ import annotations

import math
import secrets
import unicodedata
from typing import Any, Final

import attrs

from meuterer.errors import MeutererError

__all__ = ["ALPHABET", "CODE_LENGTH", "MAX_TITLE", "TURN_SECONDS", "Invite", "InviteError", "Invites", "read_invite"]

MAX_TITLE: Final = 40
"""Most characters in a table's name."""
CODE_LENGTH: Final = 6
"""Characters in an invite code."""
ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""The characters of an invite code: no 0/O or 1/I to mistake when it is read out."""
TURN_SECONDS: Final = (10.0, 3600.0)
"""The shortest and longest turn time a host may choose (or none at all)."""


class InviteError(MeutererError):
    """A table's name, privacy, code or turn time that the server refuses."""


@attrs.frozen
class Invite:
    """A table's name, privacy, invite code and turn time (``None``: no limit)."""

    title: str = ""
    private: bool = False
    code: str = attrs.field(factory=lambda: "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH)))
    turn_seconds: float | None = 120.0

    @property
    def seconds(self) -> float:
        """The turn time as the table counts it (infinite: no limit)."""
        return math.inf if self.turn_seconds is None else self.turn_seconds

    def public(self) -> dict[str, Any]:
        """What anyone who sees the table may know (never its code)."""
        return {"title": self.title, "private": self.private, "turn_seconds": self.turn_seconds}


def read_invite(data: dict[str, Any], default_seconds: float) -> Invite:
    """The name, privacy and turn time of a table-opening request (``default_seconds``: the
    server's turn time, when the request chooses none), with a new code."""
    title = data.get("title", "")
    if not isinstance(title, str):
        raise InviteError("title: a text")
    title = " ".join(title.split())[:MAX_TITLE]
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in title):
        raise InviteError("title: printable text (no control, format, private or lone surrogate characters)")
    private = data.get("private", False)
    if not isinstance(private, bool):
        raise InviteError("private: true or false")
    seconds = data.get("turn_seconds", default_seconds)  # the server's, unless the host chooses
    low, high = TURN_SECONDS
    chosen = "turn_seconds" in data and seconds is not None
    if chosen and (type(seconds) not in (int, float) or not low <= seconds <= high):
        raise InviteError(f"turn_seconds: a number of seconds from {low:g} to {high:g}, or null for no limit")
    return Invite(title, private, turn_seconds=None if seconds is None else float(seconds))


class Invites(dict[str, Invite]):
    """Every table's invite, by the table's id."""

    def find(self, code: object) -> str | None:
        """The id of the table whose code is ``code`` (any case), if any."""
        if not isinstance(code, str) or len(code) != CODE_LENGTH or not code.isascii():
            return None
        wanted = code.upper()
        return next((t for t, invite in self.items() if secrets.compare_digest(invite.code, wanted)), None)

    def check(self, table_id: str, code: object) -> None:
        """Refuse a seat at a private table to whoever does not give its code."""
        invite = self.get(table_id)
        if invite is not None and invite.private and self.find(code) != table_id:
            raise InviteError("this table is private: join it with its invite link or code")

    def told(self, table_id: str, seat: int | None) -> dict[str, Any]:
        """What a socket's snapshot says of the table's invite: its name and turn time to
        everyone, its code only to the seats."""
        invite = self.get(table_id, Invite(turn_seconds=None))
        told: dict[str, Any] = {"invite": invite.public()}
        if seat is not None:
            told["invite"]["code"] = invite.code
        return told
