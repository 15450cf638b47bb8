"""The shipped conformance suite: its manifest, its schemas, its coverage, and a sample of
its fixtures regenerated from their actions by the reference (all of them with
MEUTERER_SLOW=1)."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest

import meuterer
from meuterer.actions import Discard, Draw, Offer, Sell
from meuterer.cards import Card, Role
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
    rule_ids,
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
    # 1.1.0 is 1.0.0 (its first 208 games and 170 refusals, the same ids) plus ten games under
    # loadmaster_extra=0: each has "pN discard none" steps, and a refusal shows that
    # discarding a card there is the wrong count.
    added = GAMES[208:218]
    assert all(fixture_rules(game).loadmaster_extra == 0 for game in added)
    assert all(fixture_rules(game).loadmaster_extra for game in GAMES[:208])
    assert {3, 4} == {game["players"] for game in added}
    for game in added:
        assert any(text.endswith(" discard none") for text in fixture_actions(game)), game["id"]
    refused = [r for r in REFUSALS[170:202] if BY_ID[r["game"]] in added]
    assert [r["id"] for r in REFUSALS[:170]] == [f"refusal-{n:03d}" for n in range(170)]
    assert all(BY_ID[r["game"]] not in added for r in REFUSALS[:170])
    assert any(r["code"] == "wrong-count" and r["action"].split()[1] == "discard" for r in refused)


RULES_MD = Path(__file__).parent.parent / "docs" / "rules.md"


def documented_rule_ids() -> list[str]:
    text = RULES_MD.read_text(encoding="utf-8").split("\n## Rule ids\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", text, re.M)


def test_the_manifest_counts_every_rule_id_with_three_games_or_a_reason() -> None:
    # issue 40, item 4: per rule id of docs/rules.md, the games exercising it.
    table = MANIFEST["rule_coverage"]
    assert list(table) == documented_rule_ids()
    counted = Counter(ident for game in GAMES for ident in game["rule_ids"])
    assert set(counted) <= set(table)
    for ident, entry in table.items():
        assert entry["games"] == counted[ident], ident
        assert entry["games"] >= 3 or entry.get("reason"), ident


def test_rule_ids_agree_with_the_edge_cases_each_game_covers() -> None:
    # Two ways to see the same events: the rule ids and the coverage labels.
    pairs = {
        "p4.tie": "mutiny-tied",
        "pirates.rob": "robbery",
        "p8.loadmaster": "loadmaster-discard",
        "p8.reshuffle": "reshuffle",
        "p2.empty-hand": "pass-with-empty-hand",
        "p4.sides": "mutiny",
        "pirates.setup": "option:pirates",
    }
    for game in GAMES:
        for ident, label in pairs.items():
            assert (ident in game["rule_ids"]) == (label in game["covers"]), (game["id"], ident)


def test_rule_ids_of_a_game_without_mutiny_ties_or_pirates() -> None:
    actions, _ = meuterer.random_game(seed=3, players=3)
    fixture = game_fixture("example", 3, 0, meuterer.Rules(), actions)
    ids = rule_ids(fixture)
    assert list(ids) == fixture["rule_ids"] == sorted(ids)
    assert {"setup.deal", "p1.offer", "p8.draw", "end.winner"} <= set(ids)
    assert not {"pirates.setup", "pirates.rob", "pirates.move", "rules.deck"} & set(ids)
    shortened = {**fixture, "steps": fixture["steps"][:20]}
    assert "p8.draw" not in rule_ids(shortened)  # no phase 8 in the first 20 actions


def why(question: str) -> list[dict[str, Any]]:
    return [game for game in GAMES if game["id"].startswith(f"why-{question}-")]


def test_suite_1_2_names_a_game_after_each_question_a_game_decides() -> None:
    # issue 40's questions 1-6 and 9-12 (7 is about the protocol's lines, 8 is a refusal).
    assert MANIFEST["suite_version"] == "1.2.0"
    assert "1.2.0" in MANIFEST["changelog"]
    added = [game["id"] for game in GAMES if game["id"].startswith(("why-", "rule-"))]
    assert [game["id"] for game in GAMES[218:]] == added
    for question in ("01", "02", "03", "04-05", "06", "09", "10", "11", "12"):
        assert why(question), question
    for game in why("06"):
        rules = fixture_rules(game)
        assert rules.pirates and rules.deck[Card.PIRATE] == 1
        assert "option:deck" not in game["covers"]  # an engine declaring pirates alone runs it
    for game in why("11"):
        rules = fixture_rules(game)
        assert sum(rules.deck) == 4 * rules.hand_size + rules.loadmaster_extra + 1
        assert "p8.reshuffle" in game["rule_ids"] and "rules.deck" in game["rule_ids"]


def test_suite_1_2_adds_games_where_the_merchant_ship_passes_the_pirate_ship() -> None:
    games = [game for game in GAMES if game["id"].startswith("rule-pirates-no-effect-")]
    assert {3, 4} == {game["players"] for game in games}
    for game in games:
        passed = False
        for state, action in replayed(game):
            after = meuterer.apply(state, action)
            if after.round > state.round and state.pirate is not None:
                sailed = (after.start - state.start) % len(state.ring)
                passed = passed or 0 < (state.pirate - state.start) % len(state.ring) <= sailed
        assert passed, game["id"]
        assert "pirates.no-effect" in game["rule_ids"]


def replayed(game: dict[str, Any]) -> list[tuple[meuterer.State, Any]]:
    state = meuterer.new_game(game["players"], game["first_captain"], fixture_rules(game))
    found = []
    for text in fixture_actions(game):
        action = meuterer.parse_action(text)
        found.append((state, action))
        state = meuterer.apply(state, action)
    return found


def test_why_10_games_sell_different_goods_on_an_island_that_is_not_hochland_and_buys_any() -> None:
    games = why("10")
    assert len(games) >= 4
    for game in games:
        rules = fixture_rules(game)
        anywhere = {island.name for island in rules.islands if island.buys is None} - {"hochland"}
        sold = {(s.island, s.card) for _, a in replayed(game) if isinstance(a, Sell) for s in a.sales}
        assert any(len({card for name, card in sold if name == island}) > 1 for island in anywhere), game["id"]
        assert "p5.buys" in game["rule_ids"]
    cloth = [game for game in games if fixture_rules(game).islands[0].buys is Card.CLOTH]
    assert cloth, "a game where Hochland buys only cloth"
    refused = [r for r in REFUSALS if r["game"].startswith("why-10-")]
    assert any(r["action"].split()[2].startswith("hochland:") and r["code"] == "not-bought" for r in refused)


def test_question_8_a_support_card_offered_to_any_island_is_refused() -> None:
    offered = [r for r in REFUSALS if r["game"].startswith("why-") and ":support:" in r["action"]]
    assert offered
    assert {r["code"] for r in offered} == {"not-bought"}


def test_why_12_loadmasters_with_a_full_hand_draw_and_discard_their_extra_cards() -> None:
    games = why("12-a-loadmaster")
    assert {0, 3} <= {fixture_rules(game).loadmaster_extra for game in games}
    for game in games:
        rules = fixture_rules(game)
        steps = replayed(game)
        # the first phase 8 whose loadmaster holds a full hand after the clean-up
        starts = [
            (i, after.roles.index(Role.LOADMASTER))
            for i, ((state, _), (after, _)) in enumerate(pairwise(steps), 1)
            if state.step is meuterer.Step.SELL
            and after.step is not meuterer.Step.SELL
            and Role.LOADMASTER in after.roles
            and sum(after.hands[after.roles.index(Role.LOADMASTER)]) == rules.hand_size
        ]
        assert starts, game["id"]
        first, seat = starts[0]
        phase_8 = []
        for _, action in steps[first:]:
            if isinstance(action, Offer):
                break
            phase_8.append(action)
        drawn = [a for a in phase_8 if isinstance(a, Draw) and a.player == seat]
        discards = [a for a in phase_8 if isinstance(a, Discard)]
        assert len(drawn) == rules.loadmaster_extra, game["id"]
        if rules.loadmaster_extra:
            assert [len(a.cards) for a in discards] == [rules.loadmaster_extra]
        else:
            assert discards == []  # a full hand and no extra: nothing drawn, no discard step


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
