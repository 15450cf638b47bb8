"""A table's chat: short lines of plain text from its seats, read by everyone at the table
(spectators too). Each line is at most :data:`MAX_CHAT` characters of printable text; a seat
may say :data:`CHAT_BURST` lines at once and one more every :data:`CHAT_EVERY` seconds; the
table keeps its last :data:`KEPT` lines, and a page that (re)opens the table is sent them. The
server stores each line with its table before telling it (:meth:`.Store.say`), so a restart
keeps the chat (:meth:`Chat.restore`). The pages show the lines as text, never as markup.

>>> chat = Chat()
>>> chat.say(1, "bob", "  <b>hi</b>  all ", now=0.0)
{'seat': 1, 'name': 'bob', 'text': '<b>hi</b> all'}
>>> for _ in range(CHAT_BURST - 1):
...     _ = chat.say(1, "bob", "again", now=0.0)
>>> chat.say(1, "bob", "once more", now=0.0)
Traceback (most recent call last):
...
meuterer.server.chat.ChatError: a seat may say 5 lines at once and one more every 3 s: wait a little
"""

from __future__ import annotations

import time
import unicodedata
from collections import deque
from collections.abc import Iterable
from typing import Any, Final

from meuterer.errors import MeutererError

__all__ = ["CHAT_BURST", "CHAT_EVERY", "KEPT", "MAX_CHAT", "Chat", "ChatError"]

MAX_CHAT: Final = 200
"""Most characters in a chat line."""
KEPT: Final = 50
"""Lines a table keeps (and sends to a page that opens it)."""
CHAT_BURST: Final = 5
"""Lines a seat may say at once."""
CHAT_EVERY: Final = 3.0
"""Seconds after which a seat may say one more line."""


class ChatError(MeutererError):
    """A chat line refused: not text, too long, not printable, or too many too fast."""


class Chat:
    """One table's chat: its last lines and each seat's budget of lines."""

    def __init__(self) -> None:
        self.lines: deque[dict[str, Any]] = deque(maxlen=KEPT)
        self.said = 0
        """Lines said at the table so far (the next line's number)."""
        self._budget: dict[int, tuple[float, float]] = {}

    @classmethod
    def restore(cls, said: Iterable[tuple[int, dict[str, Any]]]) -> Chat:
        """The chat of the stored lines ``said`` (each with its number), oldest first.

        >>> chat = Chat.restore([(7, {"seat": 0, "name": "ann", "text": "hi"})])
        >>> list(chat.lines), chat.said
        ([{'seat': 0, 'name': 'ann', 'text': 'hi'}], 8)
        """
        chat = cls()
        for idx, line in said:
            chat.lines.append(line)
            chat.said = idx + 1
        return chat

    def say(self, seat: int, name: str, text: object, now: float | None = None) -> dict[str, Any]:
        """Add the line ``text`` said at seat ``seat`` by ``name``, and return it (as sent)."""
        if not isinstance(text, str):
            raise ChatError("a chat line is text")
        text = " ".join(text.split())
        if not text or len(text) > MAX_CHAT:
            raise ChatError(f"a chat line has 1 to {MAX_CHAT} characters")
        if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text):
            raise ChatError("a chat line is printable text")
        now = time.monotonic() if now is None else now
        budget, last = self._budget.get(seat, (float(CHAT_BURST), now))
        budget = min(float(CHAT_BURST), budget + (now - last) / CHAT_EVERY)
        if budget < 1:
            raise ChatError(
                f"a seat may say {CHAT_BURST} lines at once and one more every {CHAT_EVERY:g} s: wait a little"
            )
        self._budget[seat] = (budget - 1, now)
        line = {"seat": seat, "name": name, "text": text}
        self.lines.append(line)
        self.said += 1
        return line
