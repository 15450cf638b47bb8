"""The shipped conformance suite: its manifest, its schemas, its coverage, and a sample of
its fixtures regenerated from their actions by the reference (all of them with
MEUTERER_SLOW=1)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest

import meuterer
from meuterer.conform.fixtures import (
    VIEW_DIGEST_CHARS,
    check_manifest,
    coverage,
    file_digest,
    fixture_actions,
    fixture_rules,
    game_fixture,
    load_suite,
    prefix_actions,
    suite_dir,
    write_lines,
)
from meuterer.errors import REFUSAL_CODES, ActionParseError, IllegalActionError

SLOW = os.environ.get("MEUTERER_SLOW") == "1"
MANIFEST, GAMES, REFUSALS = load_suite()
BY_ID = {game["id"]: game for game in GAMES}


def schema(name: str) -> Any:
    return json.loads((suite_dir() / "schemas" / name).read_text(encoding="utf-8"))


def validator(name: str) -> Any:
    found = schema(name)
    cls = jsonschema.validators.validator_for(found)
    cls.check_schema(found)
    return cls(found)


def test_the_manifest_validates_and_matches_the_files() -> None:
    validator("manifest.schema.json").validate(MANIFEST)
    assert check_manifest() == []
    for name, digest in MANIFEST["schemas"].items():
        assert file_digest(suite_dir() / name) == digest
    assert MANIFEST["games"] == len(GAMES)
    assert MANIFEST["refusals"] == len(REFUSALS)
    assert MANIFEST["steps"] == sum(len(game["steps"]) for game in GAMES)


def test_a_tampered_file_is_caught(tmp_path: Path) -> None:
    for name in ("manifest.json", "refusals.jsonl.gz"):
        (tmp_path / name).write_bytes((suite_dir() / name).read_bytes())
    assert check_manifest(tmp_path) == ["games.jsonl.gz: missing"]
    write_lines(tmp_path / "games.jsonl.gz", GAMES[:1])
    assert check_manifest(tmp_path) == [
        "games.jsonl.gz: SHA-256 differs from the manifest",
    ]


def test_size_and_coverage() -> None:
    assert len(GAMES) >= 200
    assert len(REFUSALS) >= 100
    assert len({game["id"] for game in GAMES}) == len(GAMES)
    assert len({check["id"] for check in REFUSALS}) == len(REFUSALS)
    covered = MANIFEST["coverage"]
    for label in (
        "players-3",
        "players-4",
        "mutiny-tied",
        "mutiny-with-mate",
        "mutiny-without-mate",
        "mutiny-mate-support",
        "mutiny-merchant-support-ignored",
        "sale-tie-4",
        "pass-with-empty-hand",
        "reshuffle",
        "robbery",
        "loadmaster-discard",
        "shared-win",
    ):
        assert covered.get(label, 0) >= 3, label
    for option in (field.name for field in attrs.fields(meuterer.Rules)):
        assert covered.get(f"option:{option}", 0) >= 2, option
    engine_codes = set(REFUSAL_CODES) - {"not-legal", "spectator", "chance-action", "not-your-seat"}
    assert set(MANIFEST["refusal_codes"]) == engine_codes
    # The default rules alone cover the edge cases too (an engine without options runs them).
    base = [game for game in GAMES if game["id"].startswith("base-")]
    assert {3, 4} == {game["players"] for game in base}
    assert {"mutiny-tied", "sale-tie-4", "reshuffle"} <= {label for game in base for label in game["covers"]}


def test_refusals_validate_and_are_refused_with_their_codes() -> None:
    check = validator("refusal.schema.json")
    for refusal in REFUSALS:
        check.validate(refusal)
        game = BY_ID[refusal["game"]]
        state = meuterer.Game.replay(
            prefix_actions(game, refusal["step"]), game["players"], game["first_captain"], fixture_rules(game)
        ).state
        with pytest.raises((ActionParseError, IllegalActionError)) as caught:
            meuterer.apply(state, meuterer.parse_action(refusal["action"]))
        error = caught.value
        assert isinstance(error, ActionParseError | IllegalActionError)
        assert error.code == refusal["code"], refusal


def test_suite_1_1_adds_games_where_the_loadmaster_discards_nothing() -> None:
    # 1.1.0 is 1.0.0 (its first 208 games and 170 refusals, the same ids) plus games under
    # loadmaster_extra=0: each has "pN discard none" steps, and a refusal shows that
    # discarding a card there is the wrong count.
    assert MANIFEST["suite_version"] == "1.1.0"
    added = [game for game in GAMES if fixture_rules(game).loadmaster_extra == 0]
    assert [game["id"] for game in GAMES[-len(added) :]] == [game["id"] for game in added]
    assert len(GAMES) - len(added) == 208
    assert {3, 4} == {game["players"] for game in added}
    for game in added:
        assert any(text.endswith(" discard none") for text in fixture_actions(game)), game["id"]
    refused = [r for r in REFUSALS if BY_ID[r["game"]] in added]
    assert [r["id"] for r in REFUSALS[:170]] == [f"refusal-{n:03d}" for n in range(170)]
    assert all(BY_ID[r["game"]] not in added for r in REFUSALS[:170])
    assert any(r["code"] == "wrong-count" and r["action"].split()[1] == "discard" for r in refused)


SAMPLE = GAMES if SLOW else [*GAMES[::40], GAMES[-1]]


@pytest.mark.parametrize("game", SAMPLE, ids=[game["id"] for game in SAMPLE])
def test_games_validate_and_regenerate_identically(game: dict[str, Any]) -> None:
    validator("game.schema.json").validate(game)
    rules = fixture_rules(game)
    actions = [meuterer.parse_action(text) for text in fixture_actions(game)]
    assert game["covers"] == coverage(game["players"], game["first_captain"], rules, actions)
    again = game_fixture(game["id"], game["players"], game["first_captain"], rules, actions)
    assert again == game
    assert all(len(digest) == VIEW_DIGEST_CHARS for step in game["steps"] for digest in step["views"])
