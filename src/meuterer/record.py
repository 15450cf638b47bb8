"""Game records: a versioned JSON format, reading, writing and verification.

A record holds everything needed to replay a game: the rule set, the seats, the first
captain and every action in canonical notation, chance draws included. Optionally it
holds the SHA-256 digest of the state after each action and the final result, which
:func:`verify` checks. See ``docs/record-format.md`` and ``docs/record.schema.json``.

>>> import meuterer
>>> actions, _ = meuterer.random_game(seed=5, players=3)
>>> game = meuterer.Game.replay(actions, players=3)
>>> text = meuterer.write_record(game, names=("Ann", "Bob", "Cy"))
>>> record = meuterer.read_record(text)
>>> record.players, len(record.actions) == len(actions)
(('Ann', 'Bob', 'Cy'), True)
>>> report = meuterer.verify(record)
>>> report.ok, report.steps == len(actions)
(True, True)
>>> bad = text.replace('"first_captain": 0', '"first_captain": 1')
>>> print(meuterer.verify(bad).findings[0])
action 1 (draw p0 grain): illegal: the game expects the deal: a card drawn for p1
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import IO, Any

import attrs

from meuterer._version import __version__ as _version
from meuterer.actions import Action, parse_action
from meuterer.engine import apply, is_terminal, new_game, winners
from meuterer.errors import FormatError, MeutererError, SetupError
from meuterer.game import Game
from meuterer.rules import Rules
from meuterer.serialize import converter, state_digest, structure
from meuterer.state import State
from meuterer.textio import PENDING_WRITES as PENDING_WRITES  # re-exported: record was their home
from meuterer.textio import display as display
from meuterer.textio import expect, has_lone_surrogate, list_of, parse_json, read_text, some
from meuterer.textio import write_text_atomic as write_text_atomic

FORMAT_NAME = "meuterer-record"
FORMAT_VERSION = 1
MAX_RECORD_CHARS = 16 * 1024 * 1024
"""The longest record text :func:`read_record` reads (16 MiB)."""
MAX_ACTIONS = 10_000
"""The most actions a record may hold (a game has a few hundred; the longest game the
bounded rule options allow may not fit, and then cannot be written)."""
MAX_ACTION_CHARS = 1_000
"""The longest action text in a record (the longest legal action has under 200)."""
MAX_NAME_CHARS = 100
"""The longest seat name."""
MAX_LIBRARY_CHARS = 200
"""The longest ``library`` text."""


@attrs.frozen
class Result:
    """A game's final scores and winners, as a record states them."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


@attrs.frozen
class Record:
    """A game record, as read from or written to JSON."""

    rules: Rules
    players: tuple[str, ...]
    """Seat names, seat 0 first."""
    first_captain: int
    actions: tuple[Action, ...]
    digests: tuple[str, ...] | None = None
    """SHA-256 of the canonical state after each action (``meuterer.state_digest``)."""
    result: Result | None = None
    library: str = f"meuterer {_version}"
    """The program that wrote the record."""


@attrs.frozen
class Finding:
    """One problem found in a record.

    ``step`` is the 0-based index of the action concerned (``None`` for the whole
    record); the text says "action ``step + 1``", as ``meuterer replay`` and the replay page
    number actions from 1; ``path`` locates it in the JSON document. Where a value is wrong,
    ``expected`` is what replaying the actions gives and ``actual`` what the record says.
    """

    path: str
    message: str
    step: int | None = None
    action: str | None = None
    expected: str | None = None
    actual: str | None = None

    def __str__(self) -> str:
        where = f"action {self.step + 1} ({self.action})" if self.step is not None else self.path
        text = f"{where}: {self.message}"
        if self.expected is not None:
            text += f" (expected {self.expected}, got {self.actual})"
        return text


@attrs.frozen
class Report:
    """What :func:`verify` found. ``ok`` is True when there are no findings."""

    findings: tuple[Finding, ...]
    steps: int
    """How many actions replayed legally."""
    final: State | None
    """The state after the last legal action (``None`` if the game could not start)."""

    @property
    def ok(self) -> bool:
        """Whether the record is valid."""
        return not self.findings

    def __str__(self) -> str:
        if self.ok:
            over = " (game over)" if self.final is not None and is_terminal(self.final) else ""
            return f"valid: {self.steps} actions{over}"
        return "invalid:\n" + "\n".join(f"  {finding}" for finding in self.findings)


# Writing -------------------------------------------------------------------------------


def document_data(
    name: str,
    record: Record | Any,
    own: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON document of a record-like ``record`` (a :class:`Record` or a
    :class:`~meuterer.redact.RedactedRecord`) as plain data: the format ``name``, the
    shared members in their fixed order, the document's ``own`` members before
    ``actions``, then ``digests`` and ``result`` when present."""
    data: dict[str, Any] = {
        "format": {"name": name, "version": FORMAT_VERSION},
        "library": record.library,
        "rules": converter.unstructure(record.rules),
        "players": list(record.players),
        "first_captain": record.first_captain,
        **(own or {}),
        "actions": [str(a) for a in record.actions],
    }
    digests = getattr(record, "digests", None)
    if digests is not None:
        data["digests"] = list(digests)
    if record.result is not None:
        data["result"] = {"scores": list(record.result.scores), "winners": list(record.result.winners)}
    return data


def record_data(record: Record) -> dict[str, Any]:
    """The JSON document of ``record`` as plain data."""
    return document_data(FORMAT_NAME, record)


def _check_names(names: Sequence[object], seats: int) -> None:
    def usable(name: object) -> bool:
        return isinstance(name, str) and 0 < len(name) <= MAX_NAME_CHARS and not has_lone_surrogate(name)

    if len(names) != seats or not all(usable(n) for n in names):
        raise SetupError(
            f"names: one name of 1 to {MAX_NAME_CHARS} characters (Unicode text, no lone surrogate)"
            f" per seat ({seats}), got {list(names)!r}"
        )


def make_record(game: Game, names: Sequence[str] | None = None, digests: bool = True) -> Record:
    """The record of ``game``: its actions, per-step digests (unless ``digests`` is false)
    and, once the game is over, its result. Raises :class:`~meuterer.errors.SetupError`
    unless ``names`` has one name of 1 to 100 characters per seat."""
    players = tuple(names) if names is not None else tuple(f"p{p}" for p in range(game.players))
    _check_names(players, game.players)
    if len(game) > MAX_ACTIONS:
        raise SetupError(f"a record holds at most {MAX_ACTIONS} actions, the game has {len(game)}")
    result = None
    if is_terminal(game.state):
        result = Result(game.state.scores, winners(game.state))
    return Record(
        rules=game.rules,
        players=players,
        first_captain=game.first_captain,
        actions=game.actions,
        digests=tuple(state_digest(s) for s in game.states[1:]) if digests else None,
        result=result,
    )


def layout(data: dict[str, Any]) -> str:
    """A record-like document as JSON text: keys in the given order, one entry per line
    for ``actions`` and ``digests``, everything else on the key's line."""
    lines = []
    for key, value in data.items():
        if key in ("actions", "digests") and value:
            inner = ",\n".join(f"    {json.dumps(v, ensure_ascii=False)}" for v in value)
            lines.append(f'  "{key}": [\n{inner}\n  ]')
        else:
            lines.append(f'  "{key}": {json.dumps(value, ensure_ascii=False, separators=(",", ":"))}')
    return "{\n" + ",\n".join(lines) + "\n}\n"


def dumps_record(record: Record) -> str:
    """The record as JSON text (keys in a fixed order, one action per line)."""
    return layout(record_data(record))


def write_record(game: Game, file: os.PathLike[str] | IO[str] | None = None, names: Sequence[str] | None = None) -> str:
    """The record of ``game`` as JSON text; also written to ``file`` if given: a path
    (``pathlib.Path``, written atomically: the file holds the whole record or its old
    content) or a text stream. A ``str`` is refused with :class:`TypeError`: in every
    reader a ``str`` is the JSON text itself, never a file name."""
    text = dumps_record(make_record(game, names))
    if isinstance(file, str):
        raise TypeError(
            "write_record writes to a pathlib.Path or a text stream: a str is always record text in meuterer"
            f" (read_record(str) parses it), so use pathlib.Path({file[:100]!r})"
        )
    if isinstance(file, os.PathLike):
        try:
            write_text_atomic(file, text)
        except OSError as error:
            raise FormatError("$", f"cannot write {os.fspath(file)!r}: {error.strerror or error}") from None
    elif file is not None:
        file.write(text)
    return text


# Reading -------------------------------------------------------------------------------


_COMMON_KEYS = {"format", "library", "rules", "players", "first_captain", "actions", "result"}
_COMMON_REQUIRED = _COMMON_KEYS - {"library", "result"}


def read_source(source: str | bytes | os.PathLike[str] | IO[str], what: str = "a record") -> str:
    """The text of ``source`` (text, UTF-8 bytes, a path or a text stream), at most
    :data:`MAX_RECORD_CHARS` characters; raises :class:`FormatError`, or :class:`TypeError`
    for any other kind of argument (``None``, a number, a dict...)."""
    return read_text(source, MAX_RECORD_CHARS, what)


def parse_source(source: str | bytes | os.PathLike[str] | IO[str], what: str = "a record") -> object:
    """The parsed JSON of :func:`read_source`'s text. A ``str`` is the JSON text itself:
    when it is not JSON but looks like a file name, the error says to pass a ``pathlib.Path``."""
    text = read_source(source, what)
    try:
        return parse_json(text)
    except FormatError as error:
        stripped = text.strip()
        if isinstance(source, str) and stripped and "\n" not in stripped and stripped[0] not in '{["':
            hint = f"; a str is read as JSON text: to read the file, pass pathlib.Path({stripped[:100]!r})"
            raise FormatError(error.path, error.message + hint) from None
        raise


@attrs.frozen
class Document:
    """What records and redacted records share, as :func:`read_document` read it.

    ``actions`` are the action texts, each checked for length only."""

    library: str
    rules: Rules
    players: tuple[str, ...]
    first_captain: int
    actions: tuple[str, ...]
    result: Result | None


def read_document(data: object, name: str, own: dict[str, bool], what: str = "a record") -> Document:
    """Check the members every record-like document shares and return them.

    ``name`` is the expected format name; ``own`` maps the document's own keys to whether
    they are required (``{"digests": False}`` for a record). Raises :class:`FormatError`
    naming the path of the first problem. The caller reads its own keys.
    """
    if not isinstance(data, dict):
        raise FormatError("$", f"{what} is a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - _COMMON_KEYS - set(own))
    if unknown:
        raise FormatError("$", f"unknown key(s) {some(unknown)}")
    missing = sorted((_COMMON_REQUIRED | {key for key, required in own.items() if required}) - set(data))
    if missing:
        raise FormatError("$", f"missing key(s) {some(missing)}")
    fmt = expect(data, "format", dict, "an object")
    if fmt.get("name") != name or set(fmt) != {"name", "version"}:
        raise FormatError("$.format", f'expected {{"name": "{name}", "version": {FORMAT_VERSION}}}')
    if fmt["version"] != FORMAT_VERSION or type(fmt["version"]) is not int:
        raise FormatError("$.format.version", f"this library reads version {FORMAT_VERSION}, got {fmt['version']!r}")
    library = expect(data, "library", str, "text") if "library" in data else "unknown"
    if len(library) > MAX_LIBRARY_CHARS:
        raise FormatError("$.library", f"at most {MAX_LIBRARY_CHARS} characters")
    rules = structure(data["rules"], Rules, "$.rules")
    players = list_of(data, "players", str, "a seat name", 4)
    if len(players) not in (3, 4):
        raise FormatError("$.players", f"3 or 4 seats, got {len(players)}")
    for index, player in enumerate(players):
        if not 0 < len(player) <= MAX_NAME_CHARS:
            raise FormatError(f"$.players[{index}]", f"a name has 1 to {MAX_NAME_CHARS} characters")
    first_captain = expect(data, "first_captain", int, "a seat number")
    if not 0 <= first_captain < len(players):
        raise FormatError("$.first_captain", f"a seat from 0 to {len(players) - 1}, got {first_captain}")
    texts = list_of(data, "actions", str, "an action in canonical notation", MAX_ACTIONS)
    for index, text in enumerate(texts):
        if len(text) > MAX_ACTION_CHARS:
            raise FormatError(f"$.actions[{index}]", f"an action has at most {MAX_ACTION_CHARS} characters")
    result = structure(data["result"], Result, "$.result") if "result" in data else None
    return Document(library, rules, tuple(players), first_captain, tuple(texts), result)


_HEX = "0123456789abcdef"
_HEX_BYTES = _HEX.encode()


def _all_hex_digests(digests: tuple[str, ...]) -> bool:
    """Whether every digest is 64 lower-case hexadecimal digits (all at once, at C speed)."""
    joined = "".join(digests)
    return (
        joined.isascii()
        and not joined.encode().translate(None, _HEX_BYTES)
        and all(map((64).__eq__, map(len, digests)))
    )


def record_from_data(data: object) -> Record:
    """The :class:`Record` of a parsed JSON document; raises :class:`FormatError` naming the path."""
    document = read_document(data, FORMAT_NAME, {"digests": False})
    assert isinstance(data, dict)
    actions = []
    for index, text in enumerate(document.actions):
        try:
            actions.append(parse_action(text))
        except MeutererError as error:
            raise FormatError(f"$.actions[{index}]", str(error)) from None
    digests = None
    if "digests" in data:
        digests = tuple(list_of(data, "digests", str, "a SHA-256 in hexadecimal", MAX_ACTIONS))
        if not _all_hex_digests(digests):
            for index, digest in enumerate(digests):
                if len(digest) != 64 or digest.strip(_HEX):
                    raise FormatError(f"$.digests[{index}]", "expected 64 lower-case hexadecimal digits")
    d = document
    return Record(d.rules, d.players, d.first_captain, tuple(actions), digests, d.result, d.library)


def read_record(source: str | bytes | os.PathLike[str] | IO[str]) -> Record:
    """Read a record from JSON text, a path (``pathlib.Path``) or a text stream.

    Raises :class:`~meuterer.errors.FormatError` naming the path of the first problem, and
    :class:`TypeError` for an argument of another type (``None``, a number, a dict: a
    programming error, not bad data). Nothing is evaluated or unpickled: the input is
    parsed as JSON only, and repeated keys and lone surrogates are refused.
    """
    return record_from_data(parse_source(source))


# Verifying -----------------------------------------------------------------------------


def verify(source: Record | str | bytes | os.PathLike[str] | IO[str]) -> Report:
    """Replay a record and report every problem found; never raises.

    Anything that is not a readable record (malformed JSON, a wrong argument such as
    ``None`` or a dict, even an internal error) comes back as a single finding. Checks
    that every action is legal in turn, that each stated digest matches the state
    reached, and that the stated result is the game's. The first illegal action ends the
    replay (what follows cannot be checked).
    """
    try:
        return _verify(source)
    except Exception as error:  # verify reports, it never raises (MemoryError included)
        text = str(error)
        text = text if len(text) <= 500 else text[:500] + f"... ({len(text)} characters)"
        return Report((Finding("$", f"cannot be verified: {type(error).__name__}: {text}"),), 0, None)


def _verify(source: Record | str | bytes | os.PathLike[str] | IO[str]) -> Report:
    if not isinstance(source, Record):
        try:
            source = read_record(source)
        except FormatError as error:
            return Report((Finding(error.path, error.message),), 0, None)
        except TypeError as error:
            return Report((Finding("$", str(error)),), 0, None)
    record = source
    findings: list[Finding] = []
    try:
        state = new_game(len(record.players), record.first_captain, record.rules)
    except MeutererError as error:
        return Report((Finding("$", str(error)),), 0, None)
    digests = record.digests
    if digests is not None and len(digests) != len(record.actions):
        findings.append(
            Finding("$.digests", "one digest per action", expected=str(len(record.actions)), actual=str(len(digests)))
        )
    steps = 0
    digest_failed = False
    for index, action in enumerate(record.actions):
        try:
            state = apply(state, action)
        except MeutererError as error:
            reason = getattr(error, "reason", str(error))
            findings.append(Finding(f"$.actions[{index}]", f"illegal: {reason}", index, str(action)))
            break
        steps += 1
        if digests is not None and index < len(digests) and not digest_failed:
            replayed = state_digest(state)
            if replayed != digests[index]:
                digest_failed = True  # later digests would all differ too
                findings.append(
                    Finding(
                        f"$.digests[{index}]",
                        "the state reached differs from the recorded one",
                        index,
                        str(action),
                        expected=replayed,
                        actual=digests[index],
                    )
                )
    complete = steps == len(record.actions)
    if record.result is not None and complete:
        findings.extend(_check_result(record.result, state))
    return Report(tuple(findings), steps, state)


def _check_result(result: Result, state: State) -> list[Finding]:
    if not is_terminal(state):
        return [Finding("$.result", "a result is stated but the game is not over", actual=f"round {state.round}")]
    found = []
    for name, stated, actual in (("scores", result.scores, state.scores), ("winners", result.winners, winners(state))):
        if stated != actual:
            expected, got = str(list(actual)), str(list(stated))
            found.append(Finding(f"$.result.{name}", f"wrong {name}", expected=expected, actual=got))
    return found
