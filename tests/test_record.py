"""Game records (write, read, verify), the canonical state JSON and its digest, and bad input."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import meuterer
import meuterer.record
import meuterer.serialize
from meuterer import (
    FormatError,
    Game,
    MeutererError,
    Record,
    Report,
    Result,
    Rules,
    State,
)
from tests.strategies import GameSetup, game_setups, walk

GAMES = settings(max_examples=10, deadline=None)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Games and their records ----------------------------------------------------------------


@cache
def complete_game(players: int, seed: int, rules: Rules | None = None) -> Game:
    """A complete seeded random game (first captain ``seed % players``)."""
    actions, _ = meuterer.random_game(seed=seed, players=players, first_captain=seed % players, rules=rules)
    return Game.replay(actions, players=players, first_captain=seed % players, rules=rules)


@cache
def partial_game(players: int = 4, seed: int = 7, steps: int = 120) -> Game:
    actions, _ = meuterer.random_game(seed=seed, players=players, first_captain=seed % players)
    return Game.replay(actions[:steps], players=players, first_captain=seed % players)


@cache
def record_text(players: int = 4, seed: int = 7, rules: Rules | None = None) -> str:
    """The record of a complete game, with digests and result."""
    return meuterer.write_record(complete_game(players, seed, rules))


def data_of(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text)
    return data


def text_of(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


def only_finding(report: Report) -> meuterer.Finding:
    assert not report.ok
    assert len(report.findings) == 1, str(report)
    return report.findings[0]


def no_ruby_step(game: Game) -> tuple[int, str]:
    """A step where the player to play has no ruby, and the text of that illegal play."""
    for k, state in enumerate(game.states):
        if state.step is meuterer.Step.PLAY and state.hands[state.to_act][meuterer.Card.RUBY] == 0:
            return k, f"p{state.to_act} play ruby"
    raise AssertionError("no such step")


# Writing and reading --------------------------------------------------------------------


def test_write_record_returns_text_that_reads_back() -> None:
    game = complete_game(4, 7)
    text = meuterer.write_record(game)
    record = meuterer.read_record(text)
    assert meuterer.write_record(Game.from_record(record)) == text
    assert meuterer.record.dumps_record(record) == text


def test_write_record_to_a_path(tmp_path: Path) -> None:
    game = complete_game(3, 2)
    path = tmp_path / "game.json"
    text = meuterer.write_record(game, path)
    assert path.read_text(encoding="utf-8") == text
    assert meuterer.read_record(path) == meuterer.read_record(text)
    # a str is record text in every reader, so no writer takes it for a file name (issue 19)
    other = tmp_path / "other.json"
    with pytest.raises(TypeError, match=r"use pathlib\.Path"):
        meuterer.write_record(game, str(other))  # type: ignore[arg-type]
    assert not other.exists()
    with pytest.raises(meuterer.FormatError, match=r"a str is read as JSON text: to read the file, pass pathlib\.Path"):
        meuterer.read_record(str(path))


def test_write_record_to_a_text_stream() -> None:
    game = partial_game()
    stream = io.StringIO()
    text = meuterer.write_record(game, stream)
    assert stream.getvalue() == text
    stream.seek(0)
    assert meuterer.read_record(stream) == meuterer.read_record(text)


def test_read_record_from_str_bytes_path_and_stream(tmp_path: Path) -> None:
    names = ("Jenő", "Anita", "Péter", "Krisztina")
    text = meuterer.write_record(complete_game(4, 7), names=names)
    path = tmp_path / "r.json"
    path.write_bytes(text.encode("utf-8"))
    expected = meuterer.read_record(text)
    assert expected.players == names
    assert meuterer.read_record(text.encode("utf-8")) == expected
    assert meuterer.read_record(path) == expected
    with path.open(encoding="utf-8") as stream:
        assert meuterer.read_record(stream) == expected
    assert meuterer.read_record(io.StringIO(text)) == expected


def test_record_fields_of_a_complete_game() -> None:
    game = complete_game(4, 7)
    record = meuterer.read_record(meuterer.write_record(game))
    assert isinstance(record, Record)
    assert record.rules == game.rules
    assert record.players == ("p0", "p1", "p2", "p3")
    assert record.first_captain == game.first_captain
    assert record.actions == game.actions
    assert record.digests == tuple(meuterer.state_digest(s) for s in game.states[1:])
    assert record.result == Result(game.state.scores, meuterer.winners(game.state))
    assert record.library == f"meuterer {meuterer.__version__}"


def test_record_fields_of_a_partial_game_with_names_and_rules() -> None:
    rules = Rules(sale_order="round_captain", withholding=True, discard_pool="hand", reshuffle="when_empty")
    actions, _ = meuterer.random_game(seed=4, players=3, first_captain=1, rules=rules)
    game = Game.replay(actions[:50], players=3, first_captain=1, rules=rules)
    record = meuterer.read_record(meuterer.write_record(game, names=["Ann", "Bob", "Cy"]))
    assert record.rules == rules and record.players == ("Ann", "Bob", "Cy") and record.first_captain == 1
    assert record.actions == tuple(actions[:50])
    assert record.digests is not None and len(record.digests) == 50
    assert record.result is None


@pytest.mark.parametrize(
    "names",
    [("a", "b"), ("a", "b", "c"), ("a", "b", "c", "d", "e"), ("", "b", "c", "d"), ("x" * 101, "b", "c", "d")],
    ids=["2 names", "3 names for 4 seats", "5 names", "empty name", "long name"],
)
def test_write_record_refuses_names_that_make_a_bad_record(names: tuple[str, ...]) -> None:
    with pytest.raises(MeutererError):
        meuterer.write_record(partial_game(), names=names)


def test_the_written_document_has_the_documented_keys() -> None:
    data = data_of(record_text())
    assert list(data) == ["format", "library", "rules", "players", "first_captain", "actions", "digests", "result"]
    assert data["format"] == {"name": "meuterer-record", "version": 1}
    assert all(isinstance(a, str) for a in data["actions"])
    assert data["actions"] == [str(a) for a in complete_game(4, 7).actions]
    assert set(data["result"]) == {"scores", "winners"}
    assert "result" not in data_of(meuterer.write_record(partial_game()))


def test_optional_keys_may_be_left_out() -> None:
    data = data_of(record_text())
    for key in ("library", "digests", "result"):
        del data[key]
    record = meuterer.read_record(text_of(data))
    assert record.digests is None and record.result is None
    assert record.actions == complete_game(4, 7).actions
    assert meuterer.verify(record).ok


def test_an_empty_game_round_trips() -> None:
    game = Game.new(players=3)
    record = meuterer.read_record(meuterer.write_record(game))
    assert record.actions == () and record.digests == () and record.result is None
    report = meuterer.verify(record)
    assert report.ok and report.steps == 0 and report.final == game.state


# Verify: valid records ------------------------------------------------------------------


VARIANTS = [None, Rules(pirates=True), Rules(ring="shuffled", reshuffle="when_empty", discard_pool="hand")]


@pytest.mark.parametrize(("players", "seed"), [(3, 2), (3, 5), (4, 7), (4, 9)])
@pytest.mark.parametrize("rules", VARIANTS, ids=["default", "pirates", "shuffled-ring"])
def test_a_complete_record_with_digests_and_result_is_valid(players: int, seed: int, rules: Rules | None) -> None:
    game = complete_game(players, seed, rules)
    text = meuterer.write_record(game)
    assert '"result"' in text and '"digests"' in text
    for source in (text, meuterer.read_record(text), text.encode()):
        report = meuterer.verify(source)
        assert report.ok and report.findings == ()
        assert report.steps == len(game)
        assert report.final == game.state and meuterer.is_terminal(report.final)
        assert str(report) == f"valid: {len(game)} actions (game over)"


@pytest.mark.parametrize("players", [3, 4])
def test_a_partial_record_without_result_is_valid(players: int) -> None:
    game = partial_game(players, seed=5, steps=90)
    report = meuterer.verify(meuterer.write_record(game))
    assert report.ok and report.steps == 90 and report.final == game.state
    assert str(report) == "valid: 90 actions"


def test_a_record_without_digests_is_valid() -> None:
    game = complete_game(4, 7)
    record = meuterer.record.make_record(game, digests=False)
    assert record.digests is None
    assert meuterer.verify(meuterer.record.dumps_record(record)).ok


def test_verify_reads_a_path(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    meuterer.write_record(complete_game(3, 2), path)
    assert meuterer.verify(path).ok


# Verify: findings -----------------------------------------------------------------------


def test_an_illegal_action_is_reported_with_its_index_text_and_reason() -> None:
    game = complete_game(4, 7)
    k, bad = no_ruby_step(game)
    player = bad.split()[0]
    data = data_of(meuterer.write_record(game))
    data["actions"][k] = bad
    report = meuterer.verify(text_of(data))
    finding = only_finding(report)
    assert finding.step == k and finding.action == bad and finding.path == f"$.actions[{k}]"
    assert f"{player} cannot play ruby: no ruby in hand" in finding.message
    assert f"action {k + 1} ({bad})" in str(finding)  # numbered from 1, as on the replay page
    assert report.steps == k and report.final == game.at(k)
    assert str(report).startswith("invalid:")


def test_an_illegal_action_ends_the_replay_and_the_result_is_not_checked() -> None:
    data = data_of(record_text())
    data["actions"][50] = "p0 support 9"
    data["result"]["scores"] = [0, 0, 0, 0]
    finding = only_finding(meuterer.verify(text_of(data)))
    assert finding.step == 50 and finding.action == "p0 support 9"


def test_actions_after_the_end_are_illegal() -> None:
    data = data_of(record_text())
    n = len(data["actions"])
    data["actions"].append("p0 offer 0")
    del data["digests"]
    report = meuterer.verify(text_of(data))
    assert not report.ok
    finding = report.findings[0]
    assert finding.step == n and finding.action == "p0 offer 0" and "over" in finding.message
    assert report.steps == n


def test_a_wrong_digest_is_reported_with_expected_and_actual() -> None:
    game = complete_game(4, 7)
    data = data_of(meuterer.write_record(game))
    true = data["digests"][30]
    data["digests"][30] = "0" * 64
    report = meuterer.verify(text_of(data))
    finding = only_finding(report)
    assert finding.path == "$.digests[30]" and finding.step == 30 and finding.action == str(game.actions[30])
    # expected: what replaying the actions gives; actual: what the record says
    assert finding.expected == true and finding.actual == "0" * 64
    assert f"expected {true}, got {'0' * 64}" in str(finding)
    assert report.steps == len(game)  # the replay goes on


def test_only_the_first_wrong_digest_is_reported() -> None:
    data = data_of(record_text())
    data["digests"][10] = "a" * 64
    data["digests"][20] = "b" * 64
    finding = only_finding(meuterer.verify(text_of(data)))
    assert finding.path == "$.digests[10]"


def test_digests_of_another_game_are_wrong_from_the_first_step() -> None:
    data = data_of(record_text(4, 7))
    data["digests"] = data_of(record_text(4, 9))["digests"][: len(data["actions"])]
    data["digests"] += ["c" * 64] * (len(data["actions"]) - len(data["digests"]))
    report = meuterer.verify(text_of(data))
    assert [f.path for f in report.findings] == ["$.digests[0]"]


@pytest.mark.parametrize("change", [-1, +1])
def test_a_wrong_number_of_digests_is_reported(change: int) -> None:
    data = data_of(record_text())
    n = len(data["actions"])
    if change < 0:
        data["digests"].pop()
    else:
        data["digests"].append("d" * 64)
    report = meuterer.verify(text_of(data))
    assert not report.ok
    finding = report.findings[0]
    assert finding.path == "$.digests"
    assert finding.expected == str(n) and finding.actual == str(n + change)


def test_wrong_scores_are_reported_with_expected_and_actual() -> None:
    game = complete_game(4, 7)
    data = data_of(meuterer.write_record(game))
    stated = list(game.state.scores)
    stated[0] += 1
    data["result"]["scores"] = stated
    finding = only_finding(meuterer.verify(text_of(data)))
    assert finding.path == "$.result.scores" and "scores" in finding.message
    assert finding.expected == str(list(game.state.scores)) and finding.actual == str(stated)


def test_wrong_winners_are_reported_with_expected_and_actual() -> None:
    game = complete_game(4, 7)
    data = data_of(meuterer.write_record(game))
    true = list(meuterer.winners(game.state))
    stated = [p for p in range(4) if p not in true][:1]
    data["result"]["winners"] = stated
    finding = only_finding(meuterer.verify(text_of(data)))
    assert finding.path == "$.result.winners" and "winners" in finding.message
    assert finding.expected == str(true) and finding.actual == str(stated)


def test_wrong_scores_and_winners_are_both_reported() -> None:
    data = data_of(record_text())
    data["result"] = {"scores": [0, 0, 0, 0], "winners": [0, 1, 2, 3]}
    report = meuterer.verify(text_of(data))
    assert [f.path for f in report.findings] == ["$.result.scores", "$.result.winners"]


def test_a_result_stated_for_an_unfinished_game_is_reported() -> None:
    game = partial_game()
    data = data_of(meuterer.write_record(game))
    data["result"] = {"scores": list(game.state.scores), "winners": [0]}
    report = meuterer.verify(text_of(data))
    finding = only_finding(report)
    assert finding.path == "$.result" and "not over" in finding.message
    assert report.steps == len(game)


def test_a_complete_record_cut_short_with_its_result_is_invalid() -> None:
    data = data_of(record_text())
    data["actions"].pop()
    data["digests"].pop()
    finding = only_finding(meuterer.verify(text_of(data)))
    assert finding.path == "$.result"


@pytest.mark.parametrize("players", [3, 4])
def test_a_wrong_first_captain_fails_at_the_first_draw(players: int) -> None:
    game = complete_game(players, 6)
    data = data_of(meuterer.write_record(game))
    data["first_captain"] = (game.first_captain + 1) % players
    report = meuterer.verify(text_of(data))
    finding = only_finding(report)
    assert finding.step == 0 and finding.action == str(game.actions[0]) and finding.path == "$.actions[0]"
    assert "illegal" in finding.message and f"p{data['first_captain']}" in finding.message
    assert report.steps == 0


def test_a_record_for_the_wrong_number_of_seats_is_invalid() -> None:
    data = data_of(record_text(3, 2))
    data["players"].append("p3")
    report = meuterer.verify(text_of(data))
    assert not report.ok and report.findings[0].step is not None


def test_a_record_under_other_rules_is_invalid() -> None:
    data = data_of(record_text())
    del data["digests"]
    data["rules"]["islands"][3]["values"] = [9, 9, 9]
    report = meuterer.verify(text_of(data))
    assert not report.ok


def test_expected_and_actual_mean_the_same_thing_in_every_finding() -> None:
    game = complete_game(4, 7)
    data = data_of(meuterer.write_record(game))
    recorded_digest = "0" * 64
    data["digests"][5] = recorded_digest
    recorded_scores = [s + 1 for s in game.state.scores]
    data["result"]["scores"] = recorded_scores
    data["digests"].append("e" * 64)
    findings = {f.path: f for f in meuterer.verify(text_of(data)).findings}
    digest, scores, count = findings["$.digests[5]"], findings["$.result.scores"], findings["$.digests"]
    record_side = [
        digest.expected == recorded_digest,
        scores.expected == str(recorded_scores),
        count.expected == str(len(data["digests"])),
    ]
    assert len(set(record_side)) == 1, record_side


# Bad input: each is a FormatError with a path, or a single finding through verify ------


def set_at(data: dict[str, Any], path: tuple[Any, ...], value: object) -> None:
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def delete_at(data: dict[str, Any], path: tuple[Any, ...]) -> None:
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]


def edited(path: tuple[Any, ...], value: object) -> Callable[[dict[str, Any]], None]:
    return lambda data: set_at(data, path, value)


def deleted(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    return lambda data: delete_at(data, path)


BAD_DATA: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    # format
    ("format name", edited(("format", "name"), "chess-pgn"), "$.format"),
    ("format version 2", edited(("format", "version"), 2), "$.format.version"),
    ("format version 0", edited(("format", "version"), 0), "$.format.version"),
    ("format version text", edited(("format", "version"), "1"), "$.format.version"),
    ("format version float", edited(("format", "version"), 1.0), "$.format.version"),
    ("format version bool", edited(("format", "version"), True), "$.format.version"),
    ("format without version", deleted(("format", "version")), "$.format"),
    ("format extra key", edited(("format", "flavour"), "x"), "$.format"),
    ("format as text", edited(("format",), "meuterer-record"), "$.format"),
    ("format null", edited(("format",), None), "$.format"),
    # actions
    ("unknown action kind", edited(("actions", 5), "p1 dance"), "$.actions[5]"),
    ("unknown card", edited(("actions", 0), "draw p0 gold"), "$.actions[0]"),
    ("unknown seat", edited(("actions", 17), "p9 pass"), "$.actions[17]"),
    ("non-canonical spacing", edited(("actions", 3), "draw  p0 grain"), "$.actions[3]"),
    ("upper case", edited(("actions", 3), "DRAW p0 grain"), "$.actions[3]"),
    ("empty action", edited(("actions", 8), ""), "$.actions[8]"),
    ("action as number", edited(("actions", 2), 7), "$.actions[2]"),
    ("action as object", edited(("actions", 2), {"draw": "p0"}), "$.actions[2]"),
    ("actions as text", edited(("actions",), "draw p0 grain"), "$.actions"),
    # rules
    ("unknown rule option", edited(("rules", "pirates"), True), "$.rules"),
    ("bad sale order", edited(("rules", "sale_order"), "youngest"), "$.rules"),
    ("bad reshuffle", edited(("rules", "reshuffle"), 3), "$.rules"),
    ("withholding as text", edited(("rules", "withholding"), "no"), "$.rules"),
    ("rounds zero", edited(("rules", "rounds"), 0), "$.rules"),
    ("negative hand size", edited(("rules", "hand_size"), -1), "$.rules"),
    ("hand size as text", edited(("rules", "hand_size"), "5"), "$.rules"),
    ("deck too short", edited(("rules", "deck"), [1, 2, 3]), "$.rules"),
    ("negative deck count", edited(("rules", "deck", 0), -4), "$.rules"),
    ("pirate in deck", edited(("rules", "deck", 6), 2), "$.rules"),
    ("island ship as text", edited(("rules", "islands", 3, "ship"), "4"), "$.rules"),
    ("unknown island key", edited(("rules", "islands", 1, "colour"), "blue"), "$.rules"),
    ("island without name", deleted(("rules", "islands", 2, "name")), "$.rules"),
    ("island buys gold", edited(("rules", "islands", 2, "buys"), "gold"), "$.rules"),
    ("too few islands", deleted(("rules", "islands", 11)), "$.rules"),
    ("rules as list", edited(("rules",), []), "$.rules"),
    ("rules null", edited(("rules",), None), "$.rules"),
    # missing and extra keys
    ("missing format", deleted(("format",)), "$"),
    ("missing rules", deleted(("rules",)), "$"),
    ("missing players", deleted(("players",)), "$"),
    ("missing first captain", deleted(("first_captain",)), "$"),
    ("missing actions", deleted(("actions",)), "$"),
    ("extra key", edited(("comment",), "nice game"), "$"),
    ("misspelt key", edited(("digest",), []), "$"),
    # numbers out of range
    ("first captain 4", edited(("first_captain",), 4), "$.first_captain"),
    ("first captain -1", edited(("first_captain",), -1), "$.first_captain"),
    ("first captain text", edited(("first_captain",), "0"), "$.first_captain"),
    ("first captain bool", edited(("first_captain",), False), "$.first_captain"),
    ("first captain float", edited(("first_captain",), 0.0), "$.first_captain"),
    ("first captain null", edited(("first_captain",), None), "$.first_captain"),
    ("two players", edited(("players",), ["a", "b"]), "$.players"),
    ("five players", edited(("players",), ["a", "b", "c", "d", "e"]), "$.players"),
    ("no players", edited(("players",), []), "$.players"),
    ("empty name", edited(("players", 1), ""), "$.players[1]"),
    ("long name", edited(("players", 2), "x" * 101), "$.players[2]"),
    ("name as number", edited(("players", 0), 0), "$.players[0]"),
    ("players as text", edited(("players",), "abcd"), "$.players"),
    # digests and result
    ("short digest", edited(("digests", 4), "abc"), "$.digests[4]"),
    ("upper-case digest", edited(("digests", 4), "A" * 64), "$.digests[4]"),
    ("non-hex digest", edited(("digests", 9), "g" * 64), "$.digests[9]"),
    ("digest as number", edited(("digests", 0), 1), "$.digests[0]"),
    ("digests null", edited(("digests",), None), "$.digests"),
    ("result without winners", deleted(("result", "winners")), "$.result"),
    ("result extra key", edited(("result", "margin"), 3), "$.result"),
    ("scores as text", edited(("result", "scores"), "1 2 3 4"), "$.result"),
    ("score as float", edited(("result", "scores", 0), 1.5), "$.result"),
    ("result as list", edited(("result",), [1, 2]), "$.result"),
    ("result null", edited(("result",), None), "$.result"),
    ("library as number", edited(("library",), 1), "$.library"),
]


@pytest.mark.parametrize(("what", "mutate", "path"), BAD_DATA, ids=[case[0] for case in BAD_DATA])
def test_bad_data_raises_format_error_naming_the_path(
    what: str, mutate: Callable[[dict[str, Any]], None], path: str
) -> None:
    data = data_of(record_text())
    mutate(data)
    text = text_of(data)
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    error = info.value
    assert isinstance(error, MeutererError) and isinstance(error, ValueError)
    assert error.path == path or error.path.startswith(path + ".") or error.path.startswith(path + "["), (
        error.path,
        str(error),
    )
    assert str(error).startswith(error.path) and error.message
    finding = only_finding(meuterer.verify(text))
    assert finding.path == error.path and finding.step is None


def test_an_unknown_rule_option_is_named() -> None:
    data = data_of(record_text())
    data["rules"]["pirates"] = True
    with pytest.raises(FormatError, match="pirates"):
        meuterer.read_record(text_of(data))


def test_an_unknown_action_is_named_with_its_index() -> None:
    data = data_of(record_text())
    data["actions"][12] = "p1 dance"
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text_of(data))
    assert info.value.path == "$.actions[12]" and "dance" in info.value.message


@pytest.mark.parametrize(
    "text",
    ["", " ", "{", "}", "[1,", '{"format": }', "not json", "{'format': 1}", "NaN", '{"a": 1,}', "\x00"],
)
def test_malformed_json_raises_format_error_at_the_root(text: str) -> None:
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path == "$"
    assert only_finding(meuterer.verify(text)).path == "$"


@pytest.mark.parametrize("text", ["[]", "1", "null", '"record"', "true", "[{}]"])
def test_json_that_is_not_an_object_raises_format_error(text: str) -> None:
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path == "$"


def test_deep_nesting_is_a_format_error() -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(FormatError):
        meuterer.read_record(text)
    assert not meuterer.verify(text).ok


@pytest.mark.parametrize("cut", [1, 10, 100, 1000, -200, -30, -3, -2])
def test_a_truncated_record_raises_format_error(cut: int) -> None:
    text = record_text()
    short = text[:cut]
    with pytest.raises(FormatError) as info:
        meuterer.read_record(short)
    assert info.value.path == "$" and "not JSON" in info.value.message
    assert only_finding(meuterer.verify(short)).path == "$"
    with pytest.raises(FormatError):
        meuterer.read_record(short.encode())


def test_oversized_input_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = record_text()
    path = tmp_path / "big.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(meuterer.record, "MAX_RECORD_CHARS", len(text) - 1)
    for source in (text, text.encode(), path, io.StringIO(text)):
        with pytest.raises(FormatError) as info:
            meuterer.read_record(source)
        assert info.value.path == "$" and str(len(text) - 1) in info.value.message
    assert only_finding(meuterer.verify(text)).path == "$"
    monkeypatch.setattr(meuterer.record, "MAX_RECORD_CHARS", len(text))
    assert meuterer.read_record(text).actions == complete_game(4, 7).actions


def test_the_documented_limits() -> None:
    assert meuterer.record.MAX_RECORD_CHARS == 16 * 1024 * 1024
    assert meuterer.record.MAX_ACTIONS == 10_000
    assert meuterer.record.MAX_ACTION_CHARS == 1_000
    assert meuterer.record.MAX_NAME_CHARS == 100
    assert meuterer.record.MAX_LIBRARY_CHARS == 200


def test_too_many_actions_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    text = meuterer.write_record(partial_game(4, 7, 11))
    monkeypatch.setattr(meuterer.record, "MAX_ACTIONS", 10)
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path == "$.actions"
    with pytest.raises(meuterer.SetupError, match="at most 10 actions"):
        meuterer.write_record(partial_game(4, 7, 11))


@pytest.mark.parametrize("raw", [b"\xff\xfe\x00", b"\x80", b'{"format": "\xe9"}', "Péter".encode("latin-1"), b"\xc3"])
def test_non_utf8_bytes_raise_format_error(raw: bytes, tmp_path: Path) -> None:
    with pytest.raises(FormatError) as info:
        meuterer.read_record(raw)
    assert info.value.path == "$"
    assert only_finding(meuterer.verify(raw)).path == "$"
    path = tmp_path / "latin1.json"
    path.write_bytes(raw)
    with pytest.raises(FormatError):
        meuterer.read_record(path)
    assert not meuterer.verify(path).ok


def test_a_record_with_a_non_utf8_name_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(meuterer.write_record(partial_game(), names=("Péter", "b", "c", "d")).encode("latin-1"))
    with pytest.raises(FormatError) as info:
        meuterer.read_record(path)
    assert info.value.path == "$" and "UTF-8" in info.value.message


def test_a_missing_file_raises_format_error(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "game.json"
    with pytest.raises(FormatError) as info:
        meuterer.read_record(path)
    assert info.value.path == "$" and "game.json" in info.value.message
    finding = only_finding(meuterer.verify(path))
    assert "game.json" in finding.message


def test_a_binary_stream_is_read_or_refused_cleanly() -> None:
    text = record_text()
    refused: FormatError | None = None
    try:
        record = meuterer.read_record(io.BytesIO(text.encode()))  # type: ignore[arg-type]
    except FormatError as error:
        refused = error
    if refused is None:
        assert record == meuterer.read_record(text)
    else:
        assert refused.path == "$"


def test_a_directory_is_not_a_record(tmp_path: Path) -> None:
    with pytest.raises(FormatError):
        meuterer.read_record(tmp_path)


def test_a_text_stream_of_non_utf8_bytes_raises_format_error() -> None:
    stream = io.TextIOWrapper(io.BytesIO(b"\xff{}"), encoding="utf-8")
    with pytest.raises(FormatError):
        meuterer.read_record(stream)


def test_verify_of_a_text_stream_of_non_utf8_bytes_is_a_finding() -> None:
    stream = io.TextIOWrapper(io.BytesIO(b"\xff{}"), encoding="utf-8")
    assert not meuterer.verify(stream).ok


def test_a_huge_integer_raises_format_error() -> None:
    data = data_of(record_text())
    data["first_captain"] = "HUGE"
    text = text_of(data).replace('"HUGE"', "9" * 5000)
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path in ("$", "$.first_captain")
    assert only_finding(meuterer.verify(text)).path == info.value.path


def test_verify_of_a_huge_integer_is_a_finding() -> None:
    assert not meuterer.verify('{"first_captain": ' + "1" * 5000 + "}").ok


@pytest.mark.parametrize(("key", "value"), [("hand_size", 5.0), ("withholding", 0), ("max_offer", 3.0)])
def test_rule_types_are_strict_whatever_was_read_before(key: str, value: object) -> None:
    text = record_text()
    meuterer.read_record(text)  # a valid read of the same rule set
    data = data_of(text)
    data["rules"][key] = value
    with pytest.raises(FormatError):
        meuterer.read_record(text_of(data))


def test_rule_types_are_strict_on_a_rule_set_not_seen_before() -> None:
    data = data_of(record_text())
    data["rules"]["rounds"] = 7
    data["rules"]["hand_size"] = 5.0
    with pytest.raises(FormatError):
        meuterer.read_record(text_of(data))


def test_nothing_is_evaluated() -> None:
    for text in ['{"__class__": "os.system"}', "__import__('os')", "!!python/object:os.system"]:
        with pytest.raises(FormatError):
            meuterer.read_record(text)


# Hypothesis: mutated records ------------------------------------------------------------

BASES: list[tuple[int, int, Rules | None]] = [
    (4, 7, None),
    (3, 2, None),
    (4, 9, Rules(pirates=True, ring="shuffled", withholding=True)),
    (3, 4, Rules(pirates=True, pirates_rob_at_start=True, pirates_return=True, sale_order="round_captain")),
]


@cache
def base_text(index: int) -> str:
    if index < len(BASES):
        return record_text(*BASES[index])
    return meuterer.write_record(partial_game(4, 5, 100))  # a game in progress, no result


json_leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["p0 pass", "draw p1 grain", "p2 sell none", "hochland", "ruby", "new_captain", "a" * 64])
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=8,
)
action_texts = st.sampled_from(
    ["p0 pass", "p1 play wine", "draw p0 support", "p2 offer 1", "p3 role mate", "p1 support 2", "p0 sell none"]
) | st.text(max_size=30)


def edit_somewhere(draw: st.DrawFn, root: Any) -> None:
    """Descend ``root`` to a random container and edit, delete, add or retype an entry there."""
    parent = root
    key: Any = None
    while True:
        keys = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        child = parent[key]
        if isinstance(child, dict | list) and child and draw(st.booleans()):
            parent = child
            continue
        break
    op = draw(st.sampled_from(["edit", "delete", "add", "retype"]))
    if op == "add" or not parent:
        if isinstance(parent, dict):
            name = draw(st.text(max_size=12) | st.sampled_from(["digests", "result", "rounds", "name", "deck"]))
            parent[name] = draw(json_values)
        else:
            parent.insert(draw(st.integers(0, len(parent))), draw(json_values))
    elif op == "delete":
        del parent[key]
    elif op == "retype":
        retypes: list[Callable[[Any], Any]] = [str, lambda v: [v], lambda v: {"value": v}, lambda v: None, float]
        retype = draw(st.sampled_from(retypes))
        try:
            parent[key] = retype(parent[key])
        except (TypeError, ValueError):
            parent[key] = str(parent[key])
    else:
        parent[key] = draw(json_values)


@st.composite
def mutated(draw: st.DrawFn, data: Any) -> Any:
    """A copy of the record document ``data`` after one random edit somewhere in it."""
    data = copy.deepcopy(data)
    kind = draw(st.sampled_from(["actions", "digests", "anywhere", "anywhere", "rules"]))
    if kind in ("actions", "digests") and isinstance(data.get(kind), list) and data[kind]:
        steps = data[kind]
        n = len(steps)
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        op = draw(st.sampled_from(["drop", "swap", "duplicate", "edit", "move", "cut"]))
        if op == "drop":
            del steps[i]
        elif op == "swap":
            steps[i], steps[j] = steps[j], steps[i]
        elif op == "duplicate":
            steps.insert(j, steps[i])
        elif op == "move":
            steps.insert(j, steps.pop(i))
        elif op == "cut":
            del steps[i:]
        else:
            steps[i] = draw(action_texts if kind == "actions" else json_values)
    elif kind == "rules" and isinstance(data.get("rules"), dict) and data["rules"]:
        edit_somewhere(draw, data["rules"])
    elif data:
        edit_somewhere(draw, data)
    return data


@st.composite
def mutated_state(draw: st.DrawFn, document: Any) -> Any:
    """A copy of the state document after one random edit, inside its rules or anywhere."""
    document = copy.deepcopy(document)
    if isinstance(document.get("rules"), dict) and document["rules"] and draw(st.booleans()):
        edit_somewhere(draw, document["rules"])
    elif document:
        edit_somewhere(draw, document)
    return document


def check_reading(text: str) -> Report:
    """read_record returns a Record or raises a MeutererError; verify returns a Report."""
    record: Record | None = None
    refused: MeutererError | None = None
    try:
        record = meuterer.read_record(text)
    except MeutererError as error:
        refused = error
    if refused is None:
        assert isinstance(record, Record)
    elif isinstance(refused, FormatError):
        assert isinstance(refused.path, str) and refused.path.startswith("$")
        event(f"FormatError at {refused.path.split('[')[0]}")
    else:
        event(type(refused).__name__)
    report = meuterer.verify(text)
    event(f"report ok={report.ok}")
    assert isinstance(report, Report)
    assert all(isinstance(f, meuterer.Finding) for f in report.findings)
    assert isinstance(str(report), str)
    if record is None:
        assert not report.ok
    else:
        assert meuterer.verify(record) == report
    return report


@FUZZ
@given(st.integers(0, len(BASES)), st.data())
def test_mutated_records_give_only_documented_errors_or_findings(base: int, data: st.DataObject) -> None:
    document = data_of(base_text(base))
    count = data.draw(st.integers(1, 3), label="mutations")
    for _ in range(count):
        document = data.draw(mutated(document), label="mutated")
    check_reading(text_of(document))


@FUZZ
@given(st.integers(0, len(BASES)), st.data())
def test_truncated_records_give_only_documented_errors_or_findings(base: int, data: st.DataObject) -> None:
    text = base_text(base)
    cut = data.draw(st.integers(0, len(text)), label="cut")
    report = check_reading(text[:cut])
    if cut < len(text.rstrip()):
        assert not report.ok
    as_bytes = text.encode()[: data.draw(st.integers(0, len(text.encode())), label="byte cut")]
    with contextlib.suppress(MeutererError):
        meuterer.read_record(as_bytes)
    assert isinstance(meuterer.verify(as_bytes), Report)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(BASES) - 1), st.data())
def test_swapping_two_distinct_actions_makes_a_record_invalid(base: int, data: st.DataObject) -> None:
    document = data_of(base_text(base))
    actions = document["actions"]
    i = data.draw(st.integers(0, len(actions) - 2), label="i")
    j = data.draw(st.integers(i + 1, len(actions) - 1), label="j")
    assume(actions[i] != actions[j])
    actions[i], actions[j] = actions[j], actions[i]
    assert not check_reading(text_of(document)).ok


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(BASES) - 1), st.data(), st.booleans())
def test_dropping_an_action_from_a_complete_record_makes_it_invalid(
    base: int, data: st.DataObject, keep_digests: bool
) -> None:
    document = data_of(base_text(base))
    assert "result" in document
    i = data.draw(st.integers(0, len(document["actions"]) - 1), label="i")
    del document["actions"][i]
    if keep_digests:
        del document["digests"][i]
    else:
        del document["digests"]
    report = check_reading(text_of(document))
    if keep_digests or not report.ok:
        assert not report.ok
        return
    # Without digests a shorter game can be legal with the same result (drop the second of
    # two plays of the same card): then it must really be a whole game with that result.
    game = Game.from_record(meuterer.read_record(text_of(document)))
    assert meuterer.is_terminal(game.state) and list(game.state.scores) == document["result"]["scores"]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(BASES)), st.data())
def test_duplicating_an_action_makes_a_record_invalid(base: int, data: st.DataObject) -> None:
    document = data_of(base_text(base))
    actions = document["actions"]
    i = data.draw(st.integers(0, len(actions) - 1), label="i")
    actions.insert(i, actions[i])
    document["digests"].insert(i, document["digests"][i])
    assert not check_reading(text_of(document)).ok


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(BASES)), st.data())
def test_editing_a_digest_makes_a_record_invalid(base: int, data: st.DataObject) -> None:
    document = data_of(base_text(base))
    digests = document["digests"]
    i = data.draw(st.integers(0, len(digests) - 1), label="i")
    new = data.draw(st.text("0123456789abcdef", min_size=64, max_size=64), label="digest")
    assume(new != digests[i])
    digests[i] = new
    report = check_reading(text_of(document))
    assert [f.path for f in report.findings] == [f"$.digests[{i}]"]


# The canonical state JSON ---------------------------------------------------------------


def canonical(text: str) -> str:
    return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@GAMES
@given(game_setups())
def test_every_state_of_a_game_round_trips_exactly(setup: GameSetup) -> None:
    first = True
    for before, _, after in walk(*setup):
        for state in (before, after) if first else (after,):
            text = meuterer.dumps_state(state)
            back = meuterer.loads_state(text)
            assert back == state and hash(back) == hash(state)
            assert meuterer.dumps_state(back) == text
            assert meuterer.loads_state(text.encode()) == state
            assert text == canonical(text)
            assert meuterer.state_digest(state) == hashlib.sha256(text.encode()).hexdigest()
        first = False


def test_the_canonical_text_has_sorted_keys_and_no_spaces() -> None:
    game = complete_game(4, 7)
    for state in game.states[::17]:
        text = meuterer.dumps_state(state)
        assert text == canonical(text)
        assert ": " not in text and ", " not in text and "\n" not in text
        keys = list(json.loads(text))
        assert keys == sorted(keys)
        assert list(json.loads(text)["rules"]) == sorted(json.loads(text)["rules"])


def test_the_digest_is_sha256_of_the_canonical_utf8_text() -> None:
    state = complete_game(3, 2).state
    digest = meuterer.state_digest(state)
    assert digest == hashlib.sha256(meuterer.dumps_state(state).encode("utf-8")).hexdigest()
    assert len(digest) == 64 and digest == digest.lower()


def test_equal_states_have_equal_texts_and_different_states_different_digests() -> None:
    game = complete_game(4, 7)
    again = Game.replay(game.actions, game.players, game.first_captain)
    assert [meuterer.dumps_state(s) for s in game.states] == [meuterer.dumps_state(s) for s in again.states]
    digests = [meuterer.state_digest(s) for s in game.states]
    assert len(set(digests)) == len(set(game.states))


def test_a_state_with_other_rules_has_another_digest() -> None:
    assert meuterer.state_digest(meuterer.new_game(4)) != meuterer.state_digest(
        meuterer.new_game(4, rules=Rules(withholding=True))
    )


def test_loads_state_accepts_keys_in_any_order_and_white_space() -> None:
    state = partial_game().state
    text = json.dumps(json.loads(meuterer.dumps_state(state)), indent=2)
    assert meuterer.loads_state(text) == state
    shuffled = dict(reversed(list(json.loads(text).items())))
    assert meuterer.loads_state(json.dumps(shuffled)) == state


@pytest.mark.parametrize(
    "text",
    ["", "{", "[]", "null", "1", "{}", '{"players": 4}', "not json", "\ufeff{}"],
)
def test_bad_state_text_raises_format_error(text: str) -> None:
    with pytest.raises(FormatError) as info:
        meuterer.loads_state(text)
    assert info.value.path.startswith("$")


def test_non_utf8_state_bytes_raise_format_error() -> None:
    with pytest.raises(FormatError):
        meuterer.loads_state(b"\xff" + meuterer.dumps_state(meuterer.new_game()).encode())


def test_an_oversized_state_text_is_refused() -> None:
    text = meuterer.dumps_state(meuterer.new_game())
    padded = text + " " * (meuterer.serialize.MAX_STATE_TEXT - len(text) + 1)
    with pytest.raises(FormatError) as info:
        meuterer.loads_state(padded)
    assert info.value.path == "$"


STATE_EDITS: list[tuple[str, Any, str]] = [
    ("players", 5, "$.players"),
    ("captain", 4, "$.captain"),
    ("to_act", -1, "$.to_act"),
    ("round", 0, "$"),
    ("deck", [1, 2, 3], "$.deck"),
    ("hands", [[0] * 7] * 4, "$"),
    ("ring", list(range(11)) + [0], "$.ring"),
    ("step", "dance", "$.step"),
    ("offer", 9, "$.offer"),
    ("scores", [0, 0], "$.scores"),
    ("passed", [1, 0, 0, 0], "$.passed"),
    ("roles", ["captain", None, None, None], "$.roles"),
]


@pytest.mark.parametrize(("key", "value", "path"), STATE_EDITS, ids=[case[0] for case in STATE_EDITS])
def test_an_inconsistent_state_raises_format_error_naming_the_path(key: str, value: Any, path: str) -> None:
    data = json.loads(meuterer.dumps_state(partial_game().state))
    data[key] = value
    with pytest.raises(FormatError) as info:
        meuterer.loads_state(json.dumps(data))
    assert info.value.path.startswith(path), (info.value.path, str(info.value))


def test_a_state_with_an_unknown_or_missing_key_raises_format_error() -> None:
    data = json.loads(meuterer.dumps_state(partial_game().state))
    with pytest.raises(FormatError):
        meuterer.loads_state(json.dumps({**data, "colour": "red"}))
    del data["deck"]
    with pytest.raises(FormatError):
        meuterer.loads_state(json.dumps(data))


def test_deeply_nested_state_text_raises_format_error() -> None:
    with pytest.raises(FormatError):
        meuterer.loads_state("[" * 100_000 + "]" * 100_000)


def test_a_huge_integer_in_a_state_raises_format_error() -> None:
    data = json.loads(meuterer.dumps_state(meuterer.new_game()))
    text = json.dumps(data).replace('"round": 1', '"round": ' + "7" * 5000)
    assert "7" * 5000 in text
    with pytest.raises(FormatError):
        meuterer.loads_state(text)


@cache
def sample_states() -> tuple[State, ...]:
    game = complete_game(4, 9)
    return game.states[::23] + (game.state,)


@FUZZ
@given(st.integers(0, 10), st.data())
def test_mutated_state_json_gives_only_format_error(index: int, data: st.DataObject) -> None:
    states = sample_states()
    state = states[index % len(states)]
    document = json.loads(meuterer.dumps_state(state))
    count = data.draw(st.integers(1, 2), label="mutations")
    for _ in range(count):
        document = data.draw(mutated_state(document), label="mutated")
    text = json.dumps(document, ensure_ascii=False)
    if data.draw(st.booleans(), label="truncate"):
        text = text[: data.draw(st.integers(0, len(text)), label="cut")]
    refused: FormatError | None = None
    try:
        back = meuterer.loads_state(text)
    except FormatError as error:
        refused = error
    if refused is None:
        assert isinstance(back, State)
        assert meuterer.loads_state(meuterer.dumps_state(back)) == back
    else:
        assert refused.path.startswith("$")
