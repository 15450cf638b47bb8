"""Untrusted text in and out: a text source read with a bound, JSON parsed strictly, a file
written whole or not at all, JSON members checked with the path of the first problem, and
text made safe to show.

Generic helpers that :mod:`meuterer.serialize`, :mod:`meuterer.record` and
:mod:`meuterer.redact` (and the tournament's result files) build on.

>>> read_text("café".encode(), limit=10, what="a note")
'café'
>>> read_text("x" * 11, limit=10, what="a note")
Traceback (most recent call last):
meuterer.errors.FormatError: $: a note is at most 10 characters
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from meuterer.errors import FormatError

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def display(text: str) -> str:
    """``text`` safe to show on a terminal or a page: control characters (ANSI escape
    sequences start with one) and bidirectional controls become visible ``\\x..`` /
    ``\\u....`` escapes, so a seat name can neither move the cursor, recolour the
    terminal nor reorder the text around it.

    >>> print(display("Ann\\x1b[2J\\u202egnp.exe"))
    Ann\\x1b[2J\\u202egnp.exe
    """
    return _UNSAFE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


PENDING_WRITES: set[str] = set()
"""The temporary files :func:`write_text_atomic` is writing now (a process stopped by a
signal removes them before it ends)."""


def write_text_atomic(path: str | os.PathLike[str], text: str, durable: bool = True) -> None:
    """Write ``text`` to ``path`` so that it holds either its old content or all of
    ``text``, never a part: a temporary file in the same directory, then a rename.
    ``durable`` also waits for the disk before the rename (``fsync``)."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    PENDING_WRITES.add(temporary)
    try:
        os.chmod(temporary, _mode(target))
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        PENDING_WRITES.discard(temporary)


def _mode(target: Path) -> int:
    """The permissions of ``target`` if it exists, else those a new file gets (the umask's)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def read_text(source: str | bytes | os.PathLike[str] | IO[str], limit: int, what: str) -> str:
    """The text of ``source`` (text, UTF-8 bytes, a path or a text stream), at most
    ``limit`` characters; raises :class:`FormatError`, or :class:`TypeError`
    for any other kind of argument (``None``, a number, a dict...)."""
    if isinstance(source, os.PathLike):
        try:
            with open(source, encoding="utf-8") as stream:
                text = stream.read(limit + 1)
        except OSError as error:
            raise FormatError("$", f"cannot read {os.fspath(source)!r}: {error.strerror}") from None
        except UnicodeDecodeError as error:
            raise FormatError("$", f"not UTF-8 text: {error}") from None
    elif isinstance(source, bytes | bytearray | memoryview):
        if len(source) > 4 * limit:
            raise FormatError("$", f"{what} is at most {limit} characters")
        try:
            text = bytes(source).decode("utf-8")
        except UnicodeDecodeError as error:
            raise FormatError("$", f"not UTF-8 text: {error}") from None
    elif isinstance(source, str):
        text = source
    elif callable(getattr(source, "read", None)):
        try:
            text = source.read(limit + 1)
        except UnicodeDecodeError as error:
            raise FormatError("$", f"not UTF-8 text: {error}") from None
        except OSError as error:
            raise FormatError("$", f"cannot read the stream: {error}") from None
        if not isinstance(text, str):
            raise FormatError("$", f"expected a text stream, got {type(text).__name__} from it")
    else:
        raise TypeError(f"{what} is read from text, bytes, a path or a text stream, not {type(source).__name__}")
    if len(text) > limit:
        raise FormatError("$", f"{what} is at most {limit} characters")
    return text


def expect(data: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise FormatError(f"$.{key}", f"expected {what}, got {shown(value)}")
    return value


def shown(value: object) -> str:
    """At most 60 characters of ``value`` as JSON (never the whole of a huge value)."""
    if isinstance(value, str):
        return json.dumps(value[:60])[:60]
    if isinstance(value, list | dict):
        return f"a JSON {'array' if isinstance(value, list) else 'object'} of {len(value)} entries"
    return json.dumps(value)[:60]


def some(names: Sequence[str], most: int = 10) -> str:
    """At most ``most`` of ``names`` (60 characters of each), and how many more there are.

    >>> print(some(["a", "b", "c"], most=2))
    'a', 'b' and 1 more
    """
    shown = ", ".join(repr(name[:60]) for name in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def list_of(data: dict[str, Any], key: str, kind: type, what: str, limit: int) -> list[Any]:
    values: list[Any] = expect(data, key, list, f"a list of {what}")
    if len(values) > limit:
        raise FormatError(f"$.{key}", f"at most {limit} entries, got {len(values)}")
    for index, value in enumerate(values):
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            raise FormatError(f"$.{key}[{index}]", f"expected {what}, got {shown(value)}")
    return values


MAX_CONTAINERS = 10_000
"""The most JSON arrays and objects (counted as ``[`` and ``{`` characters) a document
may hold; records, states and views hold a few dozen."""


MAX_KEYS = 1_000
"""The most members a JSON object may have (a rule set's island table has the most a
document needs: a few dozen)."""


class _DuplicateKey(Exception):
    pass


class _TooManyKeys(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len(pairs) > MAX_KEYS:
        raise _TooManyKeys(len(pairs))
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


_SURROGATE = re.compile("[\ud800-\udfff]")
_MAYBE_SURROGATE = re.compile("[\ud800-\udfff]|\\\\u[dD][89a-fA-F]")
"""A surrogate, or what may be one escaped: only such texts need :func:`_check_text`."""


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate code point (so it is not writable as UTF-8).

    >>> has_lone_surrogate("Ann"), has_lone_surrogate("\\ud800")
    (False, True)
    """
    return _SURROGATE.search(text) is not None


def _item_path(path: str, key: object) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"


def _check_text(data: object) -> None:
    """Raise :class:`FormatError` at the first string (or key) holding a lone surrogate."""
    message = "a lone surrogate (U+D800 to U+DFFF) is not text"
    if isinstance(data, str):
        if _SURROGATE.search(data):
            raise FormatError("$", message)
        return
    todo: list[tuple[str, object]] = [("$", data)]
    while todo:  # at most MAX_CONTAINERS containers; paths are built only for those
        path, container = todo.pop()
        items = enumerate(container) if isinstance(container, list) else container.items()  # type: ignore[attr-defined]
        for key, value in items:
            if isinstance(key, str) and _SURROGATE.search(key):
                raise FormatError(path, message)
            if isinstance(value, str):
                if _SURROGATE.search(value):
                    raise FormatError(_item_path(path, key), message)
            elif isinstance(value, list | dict):
                todo.append((_item_path(path, key), value))


def parse_json(text: str | bytes) -> object:
    """Parse JSON text strictly; every failure is a :class:`FormatError` (never a bare
    ``ValueError`` or ``RecursionError``). Nothing but JSON is ever evaluated.

    Refused: a repeated key in an object (JSON leaves its meaning open), a string with a
    lone surrogate (it cannot be written back as UTF-8), more than :data:`MAX_CONTAINERS`
    arrays and objects, and anything but ``str`` or ``bytes`` (a :class:`TypeError`).

    >>> parse_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    meuterer.errors.FormatError: $: not JSON: the key 'a' appears twice in an object
    >>> parse_json('"\\ud800"')
    Traceback (most recent call last):
    ...
    meuterer.errors.FormatError: $: a lone surrogate (U+D800 to U+DFFF) is not text
    """
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise FormatError("$", f"not UTF-8 text: {error}") from None
    if not isinstance(text, str):
        raise TypeError(f"expected JSON as str or bytes, got {type(text).__name__}")
    if text.count("[") + text.count("{") > MAX_CONTAINERS:
        raise FormatError("$", f"not usable JSON: more than {MAX_CONTAINERS} arrays and objects")
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as error:
        # Some messages end in "at" ("Unterminated string starting at"): say it once.
        what = error.msg.removesuffix(" at")
        raise FormatError("$", f"not JSON: {what} at line {error.lineno}, column {error.colno}") from None
    except _TooManyKeys as error:
        members = error.args[0]
        raise FormatError("$", f"not usable JSON: an object with {members} members (at most {MAX_KEYS})") from None
    except _DuplicateKey as error:
        raise FormatError("$", f"not JSON: the key {error.args[0]!r} appears twice in an object") from None
    except UnicodeDecodeError as error:
        raise FormatError("$", f"not UTF-8 text: {error}") from None
    except RecursionError:
        raise FormatError("$", "not JSON: nested too deeply") from None
    except ValueError as error:  # e.g. an integer beyond Python's digit limit
        raise FormatError("$", f"not usable JSON: {error}") from None
    # Only a non-ASCII text or one with an escape can hold a surrogate: str.isascii and
    # str.find are much faster than the pattern on long texts.
    if (not text.isascii() or "\\u" in text) and _MAYBE_SURROGATE.search(text):
        _check_text(data)
    return data
