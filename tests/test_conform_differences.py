"""Every kind of difference the driver reports, with the engine in this process: the
reference behind the protocol with one reply changed at a time."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import meuterer
from meuterer.conform import fuzz
from meuterer.conform.client import EngineFailure
from meuterer.conform.driver import Capabilities, Difference, Fuzzer, Player, Report, Result, compare_legal, summary
from meuterer.conform.engine import ReferenceEngine
from meuterer.conform.fixtures import game_fixture, refusal_fixture
from meuterer.testing import Setup

Reply = dict[str, Any]
Mutation = Callable[[Reply, Reply, ReferenceEngine], Reply]

ACTIONS, _ = meuterer.random_game(seed=3, players=3)
GAME = game_fixture("seed-3", 3, 0, meuterer.Rules(), ACTIONS, covers=[])
CAPS = Capabilities(ReferenceEngine().handle({"id": 0, "cmd": "hello"}))


class InProcess:
    """The reference as a channel, each reply passed through ``mutate``."""

    def __init__(self, mutate: Mutation | None = None) -> None:
        self.engine = ReferenceEngine()
        self.mutate = mutate
        self.stderr = "the end of stderr"

    def request(self, request: Reply, timeout: float | None = None) -> Reply:
        reply = self.engine.handle({"id": 0, **request})
        return reply if self.mutate is None else self.mutate(request, reply, self.engine)

    def pipeline(self, requests: Sequence[Reply], timeout: float | None = None) -> list[Reply]:
        return [self.request(r) for r in requests]


def play(mutate: Mutation, fixture: dict[str, Any] = GAME) -> Difference | str | None:
    return Player(InProcess(mutate), CAPS).play(fixture)


def when(
    cmd: str, change: Callable[[Reply, Reply], Reply], test: Callable[[Reply, Reply], bool] | None = None
) -> Mutation:
    def mutate(request: Reply, reply: Reply, engine: ReferenceEngine) -> Reply:
        if request["cmd"] == cmd and (test is None or test(request, reply)):
            return change(request, copy.deepcopy(reply))
        return reply

    return mutate


def at_offer(request: Reply, reply: Reply) -> bool:
    return any(" offer " in a for a in reply.get("actions") or [])


def test_the_reference_in_process_passes() -> None:
    assert play(lambda request, reply, engine: reply) is None


@pytest.mark.parametrize(
    ("mutate", "what", "detail"),
    [
        (when("scores", lambda q, r: {**r, "scores": [1, 0, 0]}), "scores", ""),
        (when("legal", lambda q, r: {**r, "status": "errored"}), "legal", "the end of stderr"),
        (when("legal", lambda q, r: {**r, "actor": 1}, at_offer), "who acts", ""),
        (when("legal", lambda q, r: {**r, "actions": r["actions"][:-1]}, at_offer), "legal actions", ""),
        (when("legal", lambda q, r: {**r, "actions": "p0 offer 0"}, at_offer), "legal actions", ""),
        (when("legal", lambda q, r: {**r, "actions": r["actions"] * 2}, at_offer), "legal actions", ""),
        (
            when("legal", lambda q, r: {**r, "probabilities": ["1/1"]}, lambda q, r: r["actor"] == "chance"),
            "probabilities",
            "",
        ),
        (
            when(
                "legal",
                lambda q, r: {**r, "probabilities": ["2/18", *r["probabilities"][1:]]},
                lambda q, r: r["actor"] == "chance",
            ),
            "probability of",
            "",
        ),
        (when("apply", lambda q, r: {**r, "status": "refused", "code": "not-legal"}), "applying", ""),
        (when("view", lambda q, r: {**r, "status": "errored"}), "the spectator's view", ""),
        (
            when(
                "view",
                lambda q, r: (
                    {**r, "digest": "0" * 64}
                    if "digest" in r
                    else {**r, "text": r["text"].replace('"scores":[0,0,0]', '"scores":[0,0,1]')}
                ),
                lambda q, r: q["seat"] == 1,
            ),
            "p1's view",
            "first differing key 'scores'",
        ),
        (
            when(
                "view",
                lambda q, r: (
                    {**r, "digest": "0" * 64} if "digest" in r else {**r, "text": r["text"].replace(",", ", ")}
                ),
            ),
            "the spectator's view",
            "same values, other bytes",
        ),
        (
            when("view", lambda q, r: {**r, "digest": "0" * 64} if "digest" in r else {**r, "text": "nope"}),
            "the spectator's view",
            "could not be read",
        ),
        (
            when("view", lambda q, r: {**r, "digest": "0" * 64} if "digest" in r else {**r, "text": "[]"}),
            "the spectator's view",
            "not an object",
        ),
    ],
)
def test_differences_are_found_and_named(mutate: Mutation, what: str, detail: str) -> None:
    found = play(mutate)
    assert isinstance(found, Difference)
    assert found.what.startswith(what), found
    assert detail in found.detail
    assert str(found).startswith(f"step {found.step}, {found.what}: expected")


def test_the_shuffled_ring_is_compared() -> None:
    rules = meuterer.Rules(ring="shuffled")
    actions, _ = meuterer.random_game(seed=1, players=4, rules=rules)
    fixture = game_fixture("ring", 4, 0, rules, actions[:30], covers=[])
    assert play(lambda request, reply, engine: reply, fixture) is None
    wrong = when(
        "legal",
        lambda q, r: {**r, "ring": {**r["ring"], "others": r["ring"]["others"][::-1]}},
        lambda q, r: "ring" in r,
    )
    found = play(wrong, fixture)
    assert isinstance(found, Difference)
    assert found.what == "the ring's arrangement"


def test_new_skipped_or_errored() -> None:
    skipped = when("new", lambda q, r: {"id": 0, "status": "skipped", "reason": "no pirates here"})
    assert play(skipped) == "skipped by the engine: no pirates here"
    errored = when("new", lambda q, r: {"id": 0, "status": "errored", "message": "boom"})
    with pytest.raises(EngineFailure, match="new:"):
        play(errored)
    refusal = refusal_fixture("r", GAME, 15, "p0 offer 7", "out-of-range")
    assert Player(InProcess(skipped), CAPS).refusal(refusal, GAME) == "skipped by the engine: no pirates here"
    assert Player(InProcess(skipped), CAPS).clone(GAME, 20) is None


def test_refusal_differences() -> None:
    good = refusal_fixture("r", GAME, 15, "p0 offer 7", "out-of-range")
    assert Player(InProcess(), CAPS).refusal(good, GAME) is None
    wrong_code = refusal_fixture("r", GAME, 15, "p0 offer 7", "not-legal")
    found = Player(InProcess(), CAPS).refusal(wrong_code, GAME)
    assert isinstance(found, Difference)
    assert found.actual == "refused with code 'out-of-range'"
    accepted = refusal_fixture("r", GAME, 15, "p0 offer 1", "out-of-range")
    found = Player(InProcess(), CAPS).refusal(accepted, GAME)
    assert isinstance(found, Difference)
    assert found.actual == "ok"
    refuse_all = when("apply", lambda q, r: {**r, "status": "refused", "code": "not-legal"})
    found = Player(InProcess(refuse_all), CAPS).refusal(good, GAME)
    assert isinstance(found, Difference)
    assert found.what == "applying draw p0 salt"

    changed: list[bool] = []

    def forgets(request: Reply, reply: Reply, engine: ReferenceEngine) -> Reply:
        if request["cmd"] == "apply" and reply["status"] == "refused":
            changed.append(True)
        if request["cmd"] == "legal" and changed:
            return {**reply, "actions": reply["actions"][1:]}
        return reply

    found = Player(InProcess(forgets), CAPS).refusal(good, GAME)
    assert isinstance(found, Difference)
    assert found.what.endswith("after the refusal (the game must be unchanged)")


def test_clone_differences() -> None:
    assert Player(InProcess(), CAPS).clone(GAME, 20) is None
    same = when("clone", lambda q, r: {**r, "game": q["game"]})
    found = Player(InProcess(same), CAPS).clone(GAME, 20)
    assert isinstance(found, Difference)
    assert found.what.endswith("(clone check)")
    errored = when("clone", lambda q, r: {"id": 0, "status": "errored", "message": "no"})
    found = Player(InProcess(errored), CAPS).clone(GAME, 20)
    assert isinstance(found, Difference)
    assert found.what == "clone"
    refuse_all = when("apply", lambda q, r: {**r, "status": "refused", "code": "not-legal"})
    found = Player(InProcess(refuse_all), CAPS).clone(GAME, 20)
    assert isinstance(found, Difference)
    assert found.what == "applying the prefix for the clone check"

    def refuse_on_clone(request: Reply, reply: Reply, engine: ReferenceEngine) -> Reply:
        if request["cmd"] == "apply" and request["game"] != "g1":
            return {**reply, "status": "refused", "code": "not-legal"}
        return reply

    found = Player(InProcess(refuse_on_clone), CAPS).clone(GAME, 20)
    assert isinstance(found, Difference)
    assert found.what.endswith("to the clone")


def test_compare_legal_on_a_bad_reply() -> None:
    step = GAME["steps"][15]
    assert compare_legal(15, step, {"status": "errored"}) == Difference(15, "legal", "ok", '{"status": "errored"}')


def test_the_fuzzer_reports_engine_failures_and_stops_shrinking_in_time() -> None:
    restarts: list[bool] = []

    class Dying(InProcess):
        def request(self, request: Reply, timeout: float | None = None) -> Reply:
            if request["cmd"] == "legal":
                raise EngineFailure("died", "the engine exited with status 3")
            return super().request(request)

    caps = Capabilities({"capabilities": {"players": [3], "options": []}})
    fuzzer = Fuzzer(Player(Dying(), caps), lambda: restarts.append(True), shrink_seconds=0.0)
    found = fuzzer.run(5, seed=1, tick=lambda: None)
    assert found is not None
    setup, _, difference = found
    assert isinstance(setup, Setup)
    assert setup.players == 3
    assert difference.what == "the engine (died)"
    assert str(difference).endswith("the engine (died): expected a reply, got the engine exited with status 3")
    assert restarts
    assert fuzzer.played == 1


class Recording(InProcess):
    """The reference, remembering the rules of every game started; ``later_round`` makes
    its scores wrong from the second captain's offer on (a bug one-round games never show)."""

    def __init__(self, later_round: bool = False) -> None:
        super().__init__()
        self.rules: list[dict[str, Any]] = []
        self.offers: dict[str, int] = {}
        self.later_round = later_round

    def request(self, request: Reply, timeout: float | None = None) -> Reply:
        reply = super().request(request)
        if request["cmd"] == "new":
            self.rules.append(request["rules"])
        elif request["cmd"] == "apply" and " offer " in request["action"]:
            self.offers[request["game"]] = self.offers.get(request["game"], 0) + 1
        elif request["cmd"] == "scores" and self.later_round and self.offers.get(request["game"], 0) > 1:
            reply = {**reply, "scores": [99] * len(reply["scores"])}
        return reply


def test_the_fuzzer_plays_one_round_games_first_then_games_of_any_length() -> None:
    engine = Recording()
    fuzzer = Fuzzer(Player(engine, CAPS), lambda: None)
    assert fuzzer.run(20, seed=1, tick=lambda: None) is None
    assert fuzzer.played == len(engine.rules) == len(engine.offers) == 20
    games = sorted(engine.offers, key=lambda handle: int(handle[1:]))
    # First one round: games of one round, or the first round of games of two.
    assert {rules["rounds"] for rules in engine.rules[:10]} == {1, 2}
    assert {engine.offers[game] for game in games[:10]} == {1}
    assert {rules["rounds"] for rules in engine.rules[10:]} - {1, 2}
    assert max(engine.offers[game] for game in games[10:]) > 2


def test_a_bug_of_later_rounds_is_found_in_games_of_several_rounds() -> None:
    engine = Recording(later_round=True)
    fuzzer = Fuzzer(Player(engine, CAPS), lambda: None, shrink_seconds=5.0)
    found = fuzzer.run(20, seed=1, tick=lambda: None)
    assert found is not None
    setup, actions, difference = found
    assert setup.rules.rounds != 1
    assert difference.what == "scores"
    assert sum(1 for action in actions if isinstance(action, meuterer.actions.Offer)) == 2
    assert fuzzer.played > 10


@pytest.mark.parametrize("share", [None, 1.0])
def test_hypothesis_leaves_a_third_of_the_shrinking_time_to_cutting_rounds(
    monkeypatch: pytest.MonkeyPatch, share: float | None
) -> None:
    """With a clock that advances one second at every reading, hypothesis would shrink for
    longer than the 30 s bound; it stops at two thirds of it, so that cutting whole rounds
    still has time (with all of it, ``share=1.0``, it would have none)."""

    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            self.now += 1.0
            return self.now

    monkeypatch.setattr(fuzz, "time", Clock())
    if share is not None:
        monkeypatch.setattr(fuzz, "HYPOTHESIS_SHARE", share)
    time_left: list[bool] = []
    cut = meuterer.testing.drop_rounds

    def drop_rounds(differs: Any, setup: Setup, actions: Any, out_of_time: Callable[[], bool]) -> Any:
        time_left.append(not out_of_time())
        return cut(differs, setup, actions, out_of_time)

    monkeypatch.setattr(fuzz, "drop_rounds", drop_rounds)
    fuzzer = Fuzzer(Player(Recording(later_round=True), CAPS), lambda: None, shrink_seconds=30.0)
    assert fuzzer.run(20, seed=1, tick=lambda: None) is not None
    assert time_left == [share is None]


def test_an_engine_without_the_rounds_option_gets_games_of_any_length_from_the_start() -> None:
    engine = Recording()
    caps = Capabilities({"capabilities": {"players": [3, 4], "options": []}})
    assert Fuzzer(Player(engine, caps), lambda: None).run(3, seed=1, tick=lambda: None) is None
    assert len(engine.rules) == 3
    assert all(rules["rounds"] is None for rules in engine.rules)


def test_the_summary_of_many_problems() -> None:
    report = Report(engine={"name": "x", "version": "1", "language": "y"}, suite_version="1.0.0", exit_code=1)
    report.results += [Result("game", f"g{i}", "failed", "oops", ["a.jsonl"]) for i in range(25)]
    text = summary(report, ["x"])
    assert "  wrote a.jsonl" in text
    assert "... and 5 more (--json lists them all)" in text
    assert text.splitlines()[-1].startswith("FAILED in")
