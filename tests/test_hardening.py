"""Issue 11: every reader refuses what it cannot mean, and its errors stay in the hierarchy."""

from __future__ import annotations

import json
from functools import cache

import pytest

import meuterer
import meuterer.serialize
from meuterer import FormatError, Game
from meuterer.record import make_record
from meuterer.redact import dumps_redacted, loads_redacted, redact
from meuterer.views import dumps_view, loads_view, view


@cache
def game() -> Game:
    actions, _ = meuterer.random_game(seed=11, players=4)
    return Game.replay(actions, players=4)


def record_text() -> str:
    return meuterer.write_record(game())


def redacted_text() -> str:
    return dumps_redacted(redact(make_record(game()), 1))


def state_text() -> str:
    return meuterer.dumps_state(game().at(40))


def view_text() -> str:
    return dumps_view(view(game().at(40), 2))


READERS = {
    "record": (record_text, meuterer.read_record),
    "redacted": (redacted_text, loads_redacted),
    "state": (state_text, meuterer.loads_state),
    "view": (view_text, loads_view),
}


def repeat_key(text: str, key: str, value: str) -> str:
    """``text`` with a second ``key`` member (``value``) added after the first ``{``."""
    return text.replace("{", "{" + json.dumps(key) + ":" + value + ",", 1)


# Duplicate keys (item 8) ----------------------------------------------------------------------


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_refuses_a_repeated_key(reader: str) -> None:
    make, read = READERS[reader]
    text = make()
    first_key = next(iter(json.loads(text)))
    value = json.dumps(json.loads(text)[first_key])
    with pytest.raises(FormatError) as info:
        read(repeat_key(text, first_key, value))
    assert info.value.path == "$" and f"the key {first_key!r} appears twice" in info.value.message


@pytest.mark.parametrize("key", ["result", "actions", "rules", "first_captain", "players", "digests"])
def test_verify_refuses_a_tampered_first_copy_of_a_member(key: str) -> None:
    text = record_text()
    data = json.loads(text)
    tampered = {"result": '{"scores":[99,0,0,0],"winners":[0]}', "actions": "[]", "rules": '{"hand_size":4}'}
    value = tampered.get(key, json.dumps(data[key]))
    doubled = text.replace(f'"{key}":', f'"{key}": {value}, "{key}":', 1)
    report = meuterer.verify(doubled)
    assert not report.ok and "appears twice" in report.findings[0].message


def test_a_repeated_key_deep_inside_is_refused() -> None:
    text = record_text().replace('"hand_size":5', '"hand_size":5,"hand_size":5')
    with pytest.raises(FormatError, match="'hand_size' appears twice"):
        meuterer.read_record(text)


# Lone surrogates (item 7) ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["\\ud800", "\\udfff", "a\\udc80b", "\\ude00\\ud83d"])
def test_a_seat_name_with_a_lone_surrogate_is_refused(name: str) -> None:
    text = record_text().replace('"players": ["p0"', f'"players": ["{name}"')
    assert text != record_text()
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path == "$.players[0]" and "surrogate" in info.value.message
    assert not meuterer.verify(text).ok
    redacted = redacted_text().replace('"players": ["p0"', f'"players": ["{name}"')
    with pytest.raises(FormatError, match="surrogate"):
        loads_redacted(redacted)


def test_a_literal_surrogate_in_a_python_string_is_refused_too() -> None:
    text = record_text().replace('"players": ["p0"', '"players": ["\ud800"')
    with pytest.raises(FormatError, match="surrogate"):
        meuterer.read_record(text)


def test_an_escaped_surrogate_pair_is_text() -> None:
    text = record_text().replace('"players": ["p0"', '"players": ["\\ud83d\\ude00"')
    assert meuterer.read_record(text).players[0] == "\U0001f600"
    assert meuterer.verify(text).ok


def test_names_with_a_lone_surrogate_cannot_be_written() -> None:
    with pytest.raises(meuterer.SetupError):
        meuterer.write_record(game(), names=("\ud800", "b", "c", "d"))


# JSON error messages ------------------------------------------------------------------------


def test_an_unterminated_string_is_reported_once_with_its_place() -> None:
    text = '{\n  "format": {"name": "meuterer-record"},\n  "library": "x",\n  "rules": "abc'
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert "at at" not in info.value.message
    assert info.value.message == "not JSON: Unterminated string starting at line 4, column 12"


def test_too_many_arrays_and_objects_are_refused_before_parsing() -> None:
    limit = meuterer.serialize.MAX_CONTAINERS
    text = "[" + ",".join(["[]"] * limit) + "]"
    with pytest.raises(FormatError, match="arrays and objects"):
        meuterer.read_record(text)
    assert not meuterer.verify(text).ok


# Wrong argument types (item 5): TypeError from readers, a finding from verify ----------------

WRONG = [None, 3, 2.5, {}, [], object(), {"format": 1}]


@pytest.mark.parametrize("argument", WRONG, ids=repr)
def test_readers_raise_type_error_for_a_wrong_argument(argument: object) -> None:
    for read in (meuterer.read_record, loads_redacted, meuterer.loads_state):
        with pytest.raises(TypeError, match="read from"):
            read(argument)  # type: ignore[arg-type]


@pytest.mark.parametrize("argument", [*WRONG, bytearray(), bytearray(b"{}"), memoryview(b"[]")], ids=repr)
def test_verify_reports_a_wrong_argument_as_one_finding(argument: object) -> None:
    report = meuterer.verify(argument)  # type: ignore[arg-type]
    assert not report.ok and len(report.findings) == 1 and report.findings[0].path == "$"
    assert report.steps == 0 and report.final is None


def test_bytes_like_sources_are_read_as_utf8_text() -> None:
    text = record_text()
    assert meuterer.read_record(bytearray(text.encode())) == meuterer.read_record(text)
    assert meuterer.verify(memoryview(text.encode())).ok


def test_verify_reports_even_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(state: object, action: object) -> object:
        raise MemoryError

    monkeypatch.setattr(meuterer.record, "apply", broken)
    report = meuterer.verify(record_text())
    assert not report.ok and "MemoryError" in report.findings[0].message


# The shared document reader (issue 10 §2) --------------------------------------------------


def test_records_and_redacted_records_share_one_reader_and_writer() -> None:
    record, redacted = json.loads(record_text()), json.loads(redacted_text())
    assert list(record)[:5] == list(redacted)[:5] == ["format", "library", "rules", "players", "first_captain"]
    long_library = '"library": "' + "x" * (meuterer.record.MAX_LIBRARY_CHARS + 1) + '"'
    for text, read in ((record_text(), meuterer.read_record), (redacted_text(), loads_redacted)):
        bad = text.replace(f'"library": "meuterer {meuterer.__version__}"', long_library)
        with pytest.raises(FormatError) as info:
            read(bad)
        assert info.value.path == "$.library"


def test_an_overlong_action_text_is_refused_before_it_is_parsed() -> None:
    sales = ", ".join(["1 ruby at eisfelsen"] * 100_000)
    text = record_text().replace('"draw p0', f'"p0 sell {sales}", "draw p0', 1)
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path == "$.actions[0]" and "at most 1000 characters" in info.value.message
