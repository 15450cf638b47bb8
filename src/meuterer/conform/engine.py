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
import os
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

MAX_REQUEST_BYTES: Final = 16 << 20
"""The longest request line :func:`serve` reads; a longer one is answered ``errored``."""

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
        command = self._commands.get(request.get("cmd"))  # type: ignore[arg-type]
        if command is None:
            return {"id": ident, "status": "skipped", "reason": f"unknown command {request.get('cmd')!r}"}
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


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer requests from ``stdin`` on ``stdout`` until ``quit`` or the end of input.

    Reads whatever is available, answers every complete line in it and flushes once, so a
    driver that pipelines its requests gets their replies in one write. Returns 0.
    """
    engine = ReferenceEngine()
    fd = stdin.fileno()
    pending = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return 0
        pending += chunk
        if b"\n" not in chunk:
            if len(pending) > MAX_REQUEST_BYTES:
                stdout.write(_line({"id": None, "status": "errored", "message": "request line too long"}))
                stdout.flush()
                pending = b""
            continue
        *lines, pending = pending.split(b"\n")
        out = []
        done = False
        for line in lines:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
            except ValueError as error:
                out.append(_line({"id": None, "status": "errored", "message": f"not JSON: {error}"}))
                continue
            out.append(_line(engine.handle(request)))
            if isinstance(request, dict) and request.get("cmd") == "quit":
                done = True
                break
        stdout.write(b"".join(out))
        stdout.flush()
        if done:
            return 0


def _line(reply: Reply) -> bytes:
    return (_dumps(reply) + "\n").encode()
