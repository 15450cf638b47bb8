"""The golden records in tests/data/records/ verify, and the script reproduces them exactly."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

import meuterer

RECORDS = Path(__file__).parent / "data" / "records"
FILES = sorted(RECORDS.glob("*.json"))


def _generator() -> object:
    path = Path(__file__).parent.parent / "scripts" / "make_golden_records.py"
    spec = importlib.util.spec_from_file_location("make_golden_records", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _without_library(text: str) -> str:
    return re.sub(r'"library": "[^"]*"', '"library": ""', text)


def test_there_are_golden_records_for_the_worked_example_and_both_player_counts() -> None:
    names = {f.name for f in FILES}
    assert {"worked-example-round-1.json", "random-3p-seed2026.json", "random-4p-seed2000.json"} <= names


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_each_golden_record_verifies(path: Path) -> None:
    record = meuterer.read_record(path)
    report = meuterer.verify(record)
    assert report.ok, str(report)
    assert record.digests is not None and len(record.digests) == len(record.actions) == report.steps
    if path.name.startswith("random"):
        assert record.result is not None and report.final is not None and meuterer.is_terminal(report.final)


def test_the_worked_example_record_ends_in_round_two_with_the_books_scores() -> None:
    report = meuterer.verify(RECORDS / "worked-example-round-1.json")
    assert report.final is not None
    assert report.final.round == 2 and report.final.phase is meuterer.Phase.OFFER
    assert report.final.captain == 1 and report.final.scores == (2, 5, 4, 4)


def test_the_script_reproduces_the_golden_records() -> None:
    expected = _generator().golden()  # type: ignore[attr-defined]
    assert sorted(expected) == [f.name for f in FILES]
    for name, text in expected.items():
        assert _without_library(text) == _without_library((RECORDS / name).read_text(encoding="utf-8")), (
            f"{name} changed: run scripts/make_golden_records.py and say why in CHANGELOG.md"
        )


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_each_golden_record_follows_the_published_schema(path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent.parent / "docs" / "record.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), schema)


def test_the_schema_refuses_what_the_reader_refuses() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent.parent / "docs" / "record.schema.json").read_text(encoding="utf-8"))
    good = json.loads(FILES[0].read_text(encoding="utf-8"))
    for key, value in [("first_captain", -1), ("actions", ["p1 dance"]), ("format", {"name": "x", "version": 1})]:
        bad = {**good, key: value}
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        with pytest.raises(meuterer.FormatError):
            meuterer.read_record(json.dumps(bad))


def test_a_record_without_loadmaster_extras_follows_the_published_schema() -> None:
    """Issue 40: with ``loadmaster_extra=0`` the loadmaster discards ``none``; the schema says so."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent.parent / "docs" / "record.schema.json").read_text(encoding="utf-8"))
    rules = meuterer.Rules(loadmaster_extra=0)
    actions, _ = meuterer.random_game(seed=3, rules=rules)
    assert any(str(action).endswith(" discard none") for action in actions)
    record = json.loads(meuterer.write_record(meuterer.Game.replay(actions, rules=rules)))
    jsonschema.validate(record, schema)
