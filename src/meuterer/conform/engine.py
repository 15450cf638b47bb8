"""The reference engine over stdio: ``meuterer engine`` speaks the protocol of
``docs/protocol.md`` with this library behind it.

:class:`ReferenceEngine` answers one request (a dict) with one reply (a dict); :func:`serve`
runs it over a pair of byte streams, one JSON object per line.

>>> engine = ReferenceEngine()
>>> engine.handle({"id": 1, "cmd": "new", "rules": {}, "players": 3, "first_captain": 0})
{'id': 1, 'status': 'ok', 'game': 'g1'}
>>> engine.handle({"id": 2, "cmd": "legal", "game": "g1"})["probabilities"][:2]
['1/9', '5/36']
>>> engine.handle({"id": 3, "cmd": "apply", "game": "g1", "action": "p0 offer 1"})["code"]
'wrong-step'
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import traceback
from collections.abc import Callable
from fractions import Fraction
from typing import Any, BinaryIO, Final

import attrs

from meuterer._version import __version__
from meuterer.actions import parse_action
from meuterer.engine import apply, chance_outcomes, current_player, legal_actions, new_game
from meuterer.errors import ActionParseError, IllegalActionError, MeutererError
from meuterer.rules import Rules
from meuterer.serialize import structure
from meuterer.state import State, Step
from meuterer.views import dumps_view, view

PROTOCOL: Final = 1
"""The version of the engine protocol (``docs/protocol.md``)."""

OPTIONS: Final = tuple(field.name for field in attrs.fields(Rules))
"""Every rule option, by its record name (a field of :class:`~meuterer.Rules`): the capabilities
the reference declares."""

MAX_REQUEST_BYTES: Final = 1 << 20
"""The longest request line :func:`serve` reads (1 MiB, the driver's limit for a reply line);
a longer one gets one ``errored`` reply (``id`` null) and the rest of it is skipped."""
MAX_DEPTH: Final = 32
"""The deepest nesting of arrays and objects in a request :func:`serve` reads (the protocol's
requests need 4); a deeper one is answered ``errored`` with its ``id``."""

Reply = dict[str, Any]


def fraction_text(p: Fraction) -> str:
    """A probability as the protocol writes it: ``"n/d"`` in lowest terms, always with a slash.

    >>> fraction_text(Fraction(6, 36)), fraction_text(Fraction(1))
    ('1/6', '1/1')
    """
    return f"{p.numerator}/{p.denominator}"


def legal_reply(state: State) -> Reply:
    """The ``legal`` reply for ``state`` (without ``id`` and ``status``)."""
    actor = current_player(state)
    if actor is None:
        return {"actor": None, "actions": []}
    if actor >= 0:
        return {"actor": actor, "actions": [str(a) for a in legal_actions(state)]}
    if state.step is Step.RING:
        names = [island.name for island in state.rules.islands]
        count = len(legal_actions(state))
        return {
            "actor": "chance",
            "actions": None,
            "ring": {"first": names[0], "others": names[1:], "probability": f"1/{count}"},
        }
    outcomes = chance_outcomes(state)
    return {
        "actor": "chance",
        "actions": [str(a) for a, _ in outcomes],
        "probabilities": [fraction_text(p) for _, p in outcomes],
    }


def view_digest(state: State, seat: int | None) -> str:
    """The SHA-256 (hex) of the canonical JSON of ``view(state, seat)``."""
    return hashlib.sha256(dumps_view(view(state, seat)).encode()).hexdigest()


class ReferenceEngine:
    """This library behind the protocol: games by handle, requests answered as dicts."""

    def __init__(self) -> None:
        self.games: dict[str, State] = {}
        self._count = 0
        self._commands: dict[str, Callable[[Reply], Reply]] = {
            "hello": self._hello,
            "new": self._new,
            "legal": self._legal,
            "apply": self._apply,
            "view": self._view,
            "scores": self._scores,
            "clone": self._clone,
            "drop": self._drop,
            "quit": lambda request: {"status": "ok"},
        }

    def handle(self, request: object) -> Reply:
        """The reply to one request (never raises: failures are ``errored`` replies)."""
        if not isinstance(request, dict):
            return {"id": None, "status": "errored", "message": "a request is a JSON object"}
        ident = request.get("id")
        name = request.get("cmd")
        if not isinstance(name, str):
            return {"id": ident, "status": "errored", "message": f"cmd is a string, not {_json_type(name)}"}
        command = self._commands.get(name)
        if command is None:
            return {"id": ident, "status": "skipped", "reason": f"unknown command {_brief(name)}"}
        try:
            reply = command(request)
        except _Bad as error:
            reply = {"status": "errored", "message": str(error)}
        except Exception as error:  # pragma: no cover - a bug of the reference, reported, not raised
            reply = {
                "status": "errored",
                "message": f"{type(error).__name__}: {error}",
                "detail": traceback.format_exc(),
            }
        return {"id": ident, **reply}

    def _game(self, request: Reply) -> State:
        handle = request.get("game")
        if not isinstance(handle, str) or handle not in self.games:
            raise _Bad(f"no game {handle!r}")
        return self.games[handle]

    def _store(self, state: State) -> str:
        self._count += 1
        handle = f"g{self._count}"
        self.games[handle] = state
        return handle

    def _hello(self, request: Reply) -> Reply:
        return {
            "status": "ok",
            "protocol": PROTOCOL,
            "implementation": {"name": "meuterer", "version": __version__, "language": "python"},
            "capabilities": {"players": [3, 4], "options": list(OPTIONS), "views": True, "clone": True},
        }

    def _new(self, request: Reply) -> Reply:
        try:
            rules = structure(request.get("rules", {}), Rules, "$.rules")
            state = new_game(request.get("players"), request.get("first_captain"), rules)  # type: ignore[arg-type]
        except MeutererError as error:
            raise _Bad(str(error)) from None
        return {"status": "ok", "game": self._store(state)}

    def _legal(self, request: Reply) -> Reply:
        return {"status": "ok", **legal_reply(self._game(request))}

    def _apply(self, request: Reply) -> Reply:
        state = self._game(request)
        text = request.get("action")
        try:
            if not isinstance(text, str):
                raise ActionParseError(f"an action is a string, got {type(text).__name__}")
            after = apply(state, parse_action(text))
        except (ActionParseError, IllegalActionError) as error:
            return {"status": "refused", "code": error.code, "message": str(error)}
        self.games[request["game"]] = after
        return {"status": "ok"}

    def _view(self, request: Reply) -> Reply:
        state = self._game(request)
        seat = request.get("seat")
        if seat is not None and (type(seat) is not int or not 0 <= seat < state.players):
            raise _Bad(f"no seat {seat!r}")
        if request.get("form", "text") == "digest":
            return {"status": "ok", "digest": view_digest(state, seat)}
        return {"status": "ok", "text": dumps_view(view(state, seat))}

    def _scores(self, request: Reply) -> Reply:
        return {"status": "ok", "scores": list(self._game(request).scores)}

    def _clone(self, request: Reply) -> Reply:
        return {"status": "ok", "game": self._store(self._game(request))}  # states are immutable

    def _drop(self, request: Reply) -> Reply:
        self._game(request)
        del self.games[request["game"]]
        return {"status": "ok"}


class _Bad(Exception):
    """A request the engine cannot carry out (answered ``errored``)."""


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _brief(text: str, most: int = 80) -> str:
    return repr(text if len(text) <= most else text[:most] + "...")


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_dumps_ascii = json.JSONEncoder(separators=(",", ":")).encode
_TOKENS = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]')
_COLON = re.compile(rb"\s*:\s*")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is out of range")
    return number


def _constant(text: str) -> object:
    raise ValueError(f"{text} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_finite)


def _depth_and_id(line: bytes) -> tuple[int, object]:
    """How deep arrays and objects nest in ``line``, and the value of its top-level ``"id"``
    key if that is a number, a string or null (else ``None``), without parsing the line.

    >>> _depth_and_id(b'{"x": [[{"id": 2}]], "id": 7, "s": "[[["}')
    (4, 7)
    """
    depth = deepest = 0
    ident: object = None
    for match in _TOKENS.finditer(line):
        token = match.group()
        if token[0] == 0x22:  # a string: the top-level key "id"?
            colon = _COLON.match(line, match.end()) if depth == 1 and token == b'"id"' else None
            if colon is not None and line[colon.end() : colon.end() + 1] not in b"[{":
                try:
                    ident = _DECODER.raw_decode(line[colon.end() : colon.end() + 64].decode("utf-8", "replace"))[0]
                except ValueError:
                    ident = None
        elif token in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest, ident


def read_request(line: bytes) -> tuple[object, Reply | None]:
    """A request line as (the request, ``None``), or (``None``, the ``errored`` reply to it).

    A line that is not JSON is answered with ``id`` null; one nested deeper than
    :data:`MAX_DEPTH` with its top-level ``id`` (it is not parsed). ``NaN``, ``Infinity``
    and numbers beyond a double's range are not JSON.

    >>> read_request(b'{"id": 1, "cmd": "hello"}')
    ({'id': 1, 'cmd': 'hello'}, None)
    >>> read_request(b'{"id": 2, "cmd": NaN}')[1]["id"]
    >>> read_request(b'{"id": 3, "x": ' + b"[" * 40 + b"]" * 40 + b"}")[1]
    {'id': 3, 'status': 'errored', 'message': 'the request nests arrays and objects 41 deep; the most is 32'}
    """
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH:
        depth, ident = _depth_and_id(line)
        if depth > MAX_DEPTH:
            message = f"the request nests arrays and objects {depth} deep; the most is {MAX_DEPTH}"
            return None, {"id": ident, "status": "errored", "message": message}
    try:
        return _DECODER.decode(line.decode()), None
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        return None, {"id": None, "status": "errored", "message": f"not JSON: {error}"}


def _too_long() -> bytes:
    return _line({"id": None, "status": "errored", "message": f"request line longer than {MAX_REQUEST_BYTES} bytes"})


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer requests from ``stdin`` on ``stdout`` until ``quit`` or the end of input.

    Reads whatever is available, answers every complete line in it and flushes once, so a
    driver that pipelines its requests gets their replies in one write. Every non-blank line
    gets exactly one reply, whatever it holds (see :func:`read_request`); a line longer than
    :data:`MAX_REQUEST_BYTES` is answered as soon as it is that long, and its rest skipped.
    Returns 0.
    """
    engine = ReferenceEngine()
    fd = stdin.fileno()
    pending = b""
    skipping = False  # inside an overlong line, already answered
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return 0
        if skipping:
            end = chunk.find(b"\n")
            if end < 0:
                continue
            chunk, skipping = chunk[end + 1 :], False
        *lines, pending = (pending + chunk).split(b"\n")
        out = []
        done = False
        for line in lines:
            if not line.strip():
                continue
            if len(line) > MAX_REQUEST_BYTES:
                out.append(_too_long())
                continue
            request, error = read_request(line)
            out.append(_line(engine.handle(request) if error is None else error))
            if isinstance(request, dict) and request.get("cmd") == "quit":
                done = True
                break
        if not done and len(pending) > MAX_REQUEST_BYTES:
            out.append(_too_long())
            pending, skipping = b"", True
        if out:
            stdout.write(b"".join(out))
            stdout.flush()
        if done:
            return 0


def _line(reply: Reply) -> bytes:
    """A reply as one UTF-8 line (with ``\\u`` escapes if it holds a lone surrogate)."""
    try:
        return (_dumps(reply) + "\n").encode()
    except UnicodeEncodeError:
        return (_dumps_ascii(reply) + "\n").encode()
