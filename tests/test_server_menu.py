"""The online tables' bot menu (``meuterer.server.menu``): strengths by name, each entry's
claims about the games it plays checked against the server's ``check_spec``, and the menu
``GET /api/tables`` gives, whole or for one kind of table."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from meuterer.cards import SEAT_COUNTS
from meuterer.errors import MeutererError
from meuterer.rules import Rules
from meuterer.server import Limits
from meuterer.server.app import create_app
from meuterer.server.bots import check_spec
from meuterer.server.menu import LEVELS, MENU, Choice, menu_json, offered

KINDS = [Rules(), Rules(pirates=True), Rules(rounds=3)]
"""Rule sets a table may have: the default one and two others."""
NUMPY = importlib.util.find_spec("numpy") is not None
"""The learned policy needs numpy: without it the server has no ``policy`` bot."""


def _available(choice: Choice) -> None:
    if choice.spec == "policy" and not NUMPY:
        pytest.skip("the policy bot needs numpy")


@pytest.mark.parametrize("choice", MENU, ids=[c.spec for c in MENU])
def test_each_entry_plays_exactly_the_games_it_claims(choice: Choice) -> None:
    _available(choice)
    for players in SEAT_COUNTS:
        for rules in KINDS:
            claimed = players in choice.players and (rules == Rules() or not choice.default_rules_only)
            if claimed:
                check_spec(choice.spec, players, rules)
            else:
                with pytest.raises(MeutererError):
                    check_spec(choice.spec, players, rules)
            assert choice.plays(players, rules) == claimed, (choice.spec, players, rules)


def test_the_entries_name_a_level_and_cite_a_measured_strength() -> None:
    assert [c.level for c in MENU if c.level != "practice"] == ["easy", "easy", "medium", "hard"]
    assert {c.spec for c in MENU} >= {"greedy", "random"}  # the practice bot stays a choice
    for choice in MENU:
        assert "%" in choice.description and "TODO" not in choice.description, choice
        assert len(choice.description) < 160 and "\n" not in choice.description  # one line
    assert [c.label for c in MENU if c.level == "hard"] == [f"hard bot ({c.spec})" for c in MENU if c.level == "hard"]
    assert [c.label for c in MENU if c.spec == "random"] == ["random (practice)"]
    with pytest.raises(ValueError, match="level"):
        Choice("expert", "ismcts:50", "")


@pytest.mark.parametrize("rules", KINDS, ids=["default", "pirates", "rounds"])
@pytest.mark.parametrize("players", SEAT_COUNTS)
def test_every_table_is_offered_one_bot_of_each_level_that_plays_it(players: int, rules: Rules) -> None:
    chosen = offered(players, rules)
    assert [c.level for c in chosen] == list(LEVELS)
    for choice in chosen:
        check_spec(choice.spec, players, rules)  # the check a table's opening makes
        first = next(c for c in MENU if c.level == choice.level and c.plays(players, rules))
        assert choice is first
    if players != 4 or rules != Rules():
        assert "policy" not in [c.spec for c in chosen]


@pytest.mark.skipif(not NUMPY, reason="the policy bot needs numpy")
def test_the_easy_bot_is_the_learned_policy_where_it_plays_and_greedy_elsewhere() -> None:
    assert [c.spec for c in offered(4, Rules()) if c.level == "easy"] == ["policy"]
    assert [c.spec for c in offered(3, Rules()) if c.level == "easy"] == ["greedy"]
    assert [c.spec for c in offered(4, Rules(pirates=True)) if c.level == "easy"] == ["greedy"]
    assert {c.spec for c in offered(4, Rules()) + offered(3, Rules()) if c.level == "medium"} == {"ismcts:10"}


# The API ---------------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = Limits(tables_per_minute=20, tables_per_client=20)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'menu.db'}", limits=limits)) as test_client:
        yield test_client


def test_the_tables_list_gives_the_whole_menu_and_keeps_the_bots(client: TestClient) -> None:
    listed = client.get("/api/tables").json()
    assert "policy" in listed["bots"] and "greedy" in listed["bots"]  # as before, for older clients
    assert listed["bot_menu"] == menu_json()
    entry = listed["bot_menu"][0]
    assert set(entry) == {"level", "label", "spec", "description", "players", "default_rules_only"}
    policy = next(e for e in listed["bot_menu"] if e["spec"] == "policy")
    assert policy["players"] == [4] and policy["default_rules_only"] and policy["level"] == "easy"


@pytest.mark.parametrize("rules", [None, {"pirates": True}, {"rounds": 3}])
def test_a_three_player_request_never_lists_the_policy(client: TestClient, rules: dict[str, object] | None) -> None:
    params = {"players": "3"} | ({} if rules is None else {"rules": json.dumps(rules)})
    answer = client.get("/api/tables", params=params)
    assert answer.status_code == 200, answer.text
    menu = answer.json()["bot_menu"]
    assert [e["level"] for e in menu] == list(LEVELS)
    assert "policy" not in [e["spec"] for e in menu]
    assert [e["label"] for e in menu][1] == "medium bot (ismcts:10)"


@pytest.mark.skipif(not NUMPY, reason="the policy bot needs numpy")
def test_a_four_player_table_under_the_default_rules_is_offered_the_policy(client: TestClient) -> None:
    default = client.get("/api/tables", params={"players": "4", "rules": "{}"}).json()["bot_menu"]
    assert [e["spec"] for e in default if e["level"] == "easy"] == ["policy"]
    pirates = client.get("/api/tables", params={"players": "4", "rules": '{"pirates": true}'}).json()["bot_menu"]
    assert "policy" not in [e["spec"] for e in pirates]


@pytest.mark.parametrize("players", SEAT_COUNTS)
def test_every_bot_offered_opens_a_table(client: TestClient, players: int) -> None:
    rules = {"pirates": True} if players == 3 else {}
    menu = client.get("/api/tables", params={"players": str(players), "rules": json.dumps(rules)}).json()["bot_menu"]
    for entry in menu:  # one bot and seat 0 taken, the others open: the game does not start
        body = {"players": players, "rules": rules, "bots": {"1": entry["spec"]}, "name": "ann", "seat": 0}
        opened = client.post("/api/tables", json=body)
        assert opened.status_code == 200, (entry, opened.text)


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"players": "5"}, "players: 3 or 4"),
        ({"players": "four"}, "players: 3 or 4"),
        ({"rules": "{}"}, "only with players"),
        ({"players": "3", "rules": "["}, "a JSON object"),
        ({"players": "3", "rules": '{"rounds": -1}'}, "rounds"),
        ({"players": "3", "rules": "[" * 20 + "]" * 20}, "a JSON object"),
    ],
)
def test_a_bad_table_in_the_query_is_refused(client: TestClient, params: dict[str, str], error: str) -> None:
    answer = client.get("/api/tables", params=params)
    assert answer.status_code == 400 and error in answer.json()["error"], answer.text
