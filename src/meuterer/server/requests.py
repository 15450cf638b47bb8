"""The requests the server reads, bounded: HTTP bodies (:data:`MAX_BODY` bytes, nested at
most :data:`MAX_DEPTH` deep) and WebSocket messages (:data:`MAX_MESSAGE` characters), and
:class:`Refused`, a request refused with an HTTP status and a reason."""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any, Final

from starlette.requests import Request

from meuterer.cards import SEAT_COUNTS
from meuterer.errors import MeutererError
from meuterer.rules import Rules
from meuterer.serialize import structure

__all__ = [
    "MAX_BODY",
    "MAX_DEPTH",
    "MAX_MESSAGE",
    "Refused",
    "depth_of",
    "read_body",
    "read_message",
    "read_rules",
    "read_table_kind",
    "seat_number",
]

MAX_BODY: Final = 4096
"""Most bytes in a request's body."""
MAX_MESSAGE: Final = 2048
"""Most characters in a WebSocket message from a client."""
MAX_DEPTH: Final = 8
"""Deepest nesting of arrays and objects in a request's body or a WebSocket message."""


class Refused(Exception):
    """A request refused with an HTTP status and a reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def depth_of(text: str | bytes) -> int:
    r"""How deep arrays and objects nest in the JSON text ``text`` (strings skipped), scanned
    without parsing: so that a deeply nested text is refused before the parser recurses.

    >>> depth_of('{"a": [1, {"b": "[[["}]}'), depth_of('["\\"[["]'), depth_of("7")
    (3, 1, 0)
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    deepest = depth = 0
    for k, part in enumerate(_STRINGS.split(text)):
        if k % 2:  # a string's contents
            continue
        for char in part:
            if char in "[{":
                depth += 1
                deepest = max(deepest, depth)
            elif char in "]}":
                depth -= 1
    return deepest


_STRINGS: Final = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)


def read_message(text: str) -> dict[str, Any]:
    if len(text) > MAX_MESSAGE:
        raise ValueError(f"a message has at most {MAX_MESSAGE} characters")
    if depth_of(text) > MAX_DEPTH:
        raise ValueError(f"a message nests arrays and objects at most {MAX_DEPTH} deep")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError("a message is a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("a message is a JSON object")
    return data


def seat_number(value: object, players: int) -> int:
    try:
        seat = int(value) if isinstance(value, int | str) and len(str(value)) < 3 else -1
    except ValueError:
        seat = -1
    if not 0 <= seat < players:
        raise Refused(400, f"seat: a number from 0 to {players - 1}")
    return seat


def read_rules(data: object) -> Rules | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise Refused(400, 'rules: an object of rule options, such as {"pirates": true}')
    try:
        return structure(data, Rules, "$.rules")
    except MeutererError as error:
        raise Refused(400, str(error)) from None


async def read_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (or, from a page's form, its fields): bounded in size and depth."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"a request body has at most {MAX_BODY} bytes")
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        fields = urllib.parse.parse_qsl(body.decode("utf-8", "replace"), max_num_fields=20)
        return dict(fields)
    if depth_of(body) > MAX_DEPTH:
        raise Refused(400, f"the body nests arrays and objects at most {MAX_DEPTH} deep")
    try:
        data = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise Refused(400, "the body is a JSON object") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body is a JSON object")
    return data


def read_table_kind(query: Mapping[str, str]) -> tuple[int | None, Rules | None]:
    """The table a query describes: its ``players`` and its ``rules`` (the rule options as
    JSON text, bounded as a WebSocket message is); ``(None, None)`` without ``players``.

    >>> players, rules = read_table_kind({"players": "3", "rules": '{"pirates": true}'})
    >>> players, rules == Rules(pirates=True)
    (3, True)
    >>> read_table_kind({})
    (None, None)
    """
    players, text = query.get("players"), query.get("rules")
    if players is None:
        if text is not None:
            raise Refused(400, "rules: only with players")
        return None, None
    if players not in [str(count) for count in SEAT_COUNTS]:
        raise Refused(400, f"players: {' or '.join(str(count) for count in SEAT_COUNTS)}")
    if text is None:
        return int(players), None
    try:
        data = read_message(text)
    except ValueError:
        raise Refused(400, 'rules: a JSON object of rule options, such as {"pirates": true}') from None
    return int(players), read_rules(data)
