"""The JavaScript engine of ``examples/engine-js`` (a second implementation written from the
docs) passes ``meuterer conform``, and the driver catches its one-rule mutations.

Needs ``node``; without it every test here skips and says so. The whole mutation table runs
with ``MEUTERER_SLOW=1`` (CI sets it); the default run checks one mutation. The 60 s bound per
mutation is checked by ``scripts/mutation_run.py`` (its exit status), never by a timed assertion.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent
MAIN_JS = ROOT / "examples" / "engine-js" / "main.js"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None, reason="node is not installed: the JavaScript engine cannot run"
)
slow = pytest.mark.skipif(os.environ.get("MEUTERER_SLOW") != "1", reason="slow: run with MEUTERER_SLOW=1")


_script = load_script


def _conform(*options: str, mutation: str | None = None) -> tuple[int, dict[str, object]]:
    env = dict(os.environ)
    env.pop("MEUTERER_JS_MUTATION", None)
    if mutation:
        env["MEUTERER_JS_MUTATION"] = mutation
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    process = subprocess.run(
        [sys.executable, "-m", "meuterer", "conform", "--json", "--no-progress", *options, "--", "node", str(MAIN_JS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    report: dict[str, object] = json.loads(process.stdout)
    return process.returncode, report


def _exchange(*requests: dict[str, object], mutation: str | None = None) -> list[dict[str, object]]:
    env = dict(os.environ)
    env.pop("MEUTERER_JS_MUTATION", None)
    if mutation:
        env["MEUTERER_JS_MUTATION"] = mutation
    text = "".join(json.dumps(r) + "\n" for r in requests)
    process = subprocess.run(
        ["node", str(MAIN_JS)], input=text, capture_output=True, text=True, env=env, timeout=30, check=True
    )
    return [json.loads(line) for line in process.stdout.splitlines()]


def test_hello_declares_what_it_plays() -> None:
    (hello,) = _exchange({"id": 1, "cmd": "hello", "protocol": 1})
    assert hello["status"] == "ok" and hello["protocol"] == 1
    capabilities = hello["capabilities"]
    assert isinstance(capabilities, dict)
    assert capabilities["players"] == [3, 4] and capabilities["views"] is True and capabilities["clone"] is True
    assert {"pirates", "ring", "withholding", "rounds"} <= set(capabilities["options"])


def test_unsupported_setups_are_skipped_and_bad_requests_answered() -> None:
    replies = _exchange(
        {"id": 1, "cmd": "new", "rules": {}, "players": 5, "first_captain": 0},
        {"id": 2, "cmd": "new", "rules": {"jokers": True}, "players": 3, "first_captain": 0},
        {"id": 3, "cmd": "legal", "game": "nope"},
        {"id": 4, "cmd": "teleport"},
        {"id": 5, "cmd": "quit"},
    )
    assert [r["status"] for r in replies] == ["skipped", "skipped", "errored", "skipped", "ok"]
    assert [r["id"] for r in replies] == [1, 2, 3, 4, 5]


def test_the_view_matches_the_protocol_example() -> None:
    """docs/view-json.md's example: the transcript's game, then ``p0 play salt``, ``p1 play wine``."""
    deal = ["salt cloth wine grain grain", "ruby ruby support wine wine", "support cloth support cloth grain"]
    actions = [f"draw p{seat} {card}" for seat, cards in enumerate(deal) for card in cards.split()]
    actions += ["p0 offer 1", "p0 play wine", "p1 play wine", "p2 pass", "p2 role mutineer"]
    actions += ["p0 play salt", "p1 play wine"]
    requests: list[dict[str, object]] = [{"id": 1, "cmd": "new", "rules": {}, "players": 3, "first_captain": 0}]
    requests += [{"id": 2 + i, "cmd": "apply", "game": "g1", "action": a} for i, a in enumerate(actions)]
    requests.append({"id": 99, "cmd": "view", "game": "g1", "seat": None, "form": "digest"})
    replies = _exchange(*requests)
    assert [r["status"] for r in replies[1:-1]] == ["ok"] * len(actions)
    assert replies[-1]["digest"] == "1036bfa21e346bc5ec59ccc805d8af03ca27d5dc67e7c08e0e9e5e349f2166d4"


def test_refusals_carry_their_codes() -> None:
    replies = _exchange(
        {"id": 1, "cmd": "new", "rules": {}, "players": 3, "first_captain": 0},
        {"id": 2, "cmd": "apply", "game": "g1", "action": "draw p1 ruby"},
        {"id": 3, "cmd": "apply", "game": "g1", "action": "p0 offer  1"},
        {"id": 4, "cmd": "apply", "game": "g1", "action": "p3 pass"},
        {"id": 5, "cmd": "apply", "game": "g1", "action": "p0 offer 1"},
        {"id": 6, "cmd": "apply", "game": "g1", "action": "draw p0 pirate"},
    )
    assert [r.get("code") for r in replies[1:]] == [
        "not-your-turn",
        "malformed",
        "no-such-seat",
        "wrong-step",
        "not-in-deck",
    ]


def test_js_engine_passes_a_slice_of_the_suite() -> None:
    code, report = _conform("--limit", "3", "--games", "0")
    assert report["problems"] == [], report["problems"]
    assert code == 0


def test_js_engine_writes_and_reads_an_empty_discard(tmp_path: Path) -> None:
    """With ``loadmaster_extra: 0`` the loadmaster discards nothing: ``pN discard none``
    (the shipped suite has no such game, see docs/notation.md)."""
    import meuterer
    from meuterer.conform.fixtures import game_fixture, write_lines

    rules = meuterer.Rules(loadmaster_extra=0)
    actions, _ = meuterer.random_game(seed=1, players=3, rules=rules)
    assert any(str(a).endswith(" discard none") for a in actions)
    path = tmp_path / "empty-discard.jsonl"
    write_lines(path, [game_fixture("empty-discard", 3, 0, rules, actions, covers=[])])
    code, report = _conform("--limit", "0", "--games", "0", "--fixtures", str(path))
    assert report["problems"] == [] and report["skipped"] == [], report
    assert report["counts"] == {"game": {"passed": 1}, "clone": {"passed": 1}} and code == 0


@slow
def test_js_engine_passes_the_whole_suite() -> None:
    code, report = _conform()
    assert report["problems"] == [], report["problems"]
    assert report["skipped"] == [] and code == 0


def test_a_mutation_is_caught_and_shrunk_to_one_round() -> None:
    outcome = _script("mutation_run").run_one("tie-to-captain", shrink_seconds=120.0)
    assert outcome.detected, outcome.what
    assert outcome.rounds == 1 and outcome.actions is not None and outcome.actions < 40


@slow
def test_every_mutation_is_caught_and_shrunk_to_one_round() -> None:
    runner = _script("mutation_run")
    # Time is the script's bound (60 s each, on its exit status), not a test assertion: here
    # shrinking gets two minutes, so that a busy machine does not leave a longer counterexample.
    outcomes = [runner.run_one(name, shrink_seconds=120.0) for name in runner.mutations()]
    assert len(outcomes) >= 10
    failed = [o for o in outcomes if not o.short]
    assert not failed, runner.table(failed, runner.mutations())
