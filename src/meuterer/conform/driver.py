"""The driver: ``meuterer conform -- COMMAND ARGS...`` checks an engine over the protocol.

It runs the shipped suite (game fixtures, then refused actions), checks ``clone``, then
plays games drawn by the kit's hypothesis strategies on the engine and on the reference.
On a difference found by fuzzing it shrinks the game (hypothesis, then whole rounds cut,
then cut after the first diverging step) and writes it as a fixture file with the exact
protocol transcript that reproduces it. See ``docs/conformance.md``.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Final

import attrs
from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from meuterer.actions import Action, parse_action
from meuterer.conform.client import Channel, EngineFailure, EngineProcess, rules_data
from meuterer.conform.fixtures import (
    FIXTURE_FORMAT,
    Fixture,
    check_manifest,
    fixture_actions,
    fixture_rules,
    game_fixture,
    load_suite,
    option_labels,
    read_lines,
    write_lines,
)
from meuterer.engine import apply, new_game
from meuterer.rules import Rules
from meuterer.testing import FIND_SETTINGS, Setup, action_sequences, drop_rounds, option_choices
from meuterer.views import dumps_view, view

EXIT_OK: Final = 0
"""Everything checked passed (skipped items allowed)."""
EXIT_FAILED: Final = 1
"""At least one difference, wrong refusal, or engine failure."""
EXIT_USAGE: Final = 2
"""Bad arguments, or an engine that cannot be started or greeted (no ``hello``)."""
EXIT_STALE: Final = 3
"""No failure, but an item listed in ``--expect-fail`` passed: remove it from the list."""

BATCH_BYTES: Final = 16 << 10
"""Requests sent before reading their replies (at most about this many bytes)."""


@attrs.define
class Difference:
    """Where an engine first differs from a fixture: at ``step`` (actions applied before it),
    ``what`` (``legal actions``, ``scores``, ``view of p1``, ``applying p0 offer 1``, ...)."""

    step: int
    what: str
    expected: str
    actual: str
    detail: str = ""

    def __str__(self) -> str:
        if self.step < 0:
            text = f"{self.what}: {self.actual}"
        else:
            text = f"step {self.step}, {self.what}: expected {self.expected}, got {self.actual}"
        return text + (f"\n    {self.detail}" if self.detail else "")


@attrs.define
class Result:
    """One checked item: ``kind`` is ``game``, ``refusal``, ``clone`` or ``fuzz``; ``status``
    ``passed``, ``failed``, ``skipped``, ``expected-failure`` or ``unexpected-pass``."""

    kind: str
    ident: str
    status: str
    message: str = ""
    files: list[str] = attrs.Factory(list)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.ident,
            "status": self.status,
            "message": self.message,
            "files": self.files,
        }


def _clip(value: object, most: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= most else text[:most] + f"… ({len(text)} chars)"


class Capabilities:
    """What the engine said it supports in its ``hello``."""

    def __init__(self, hello: dict[str, Any]) -> None:
        caps = hello.get("capabilities") if isinstance(hello.get("capabilities"), dict) else {}
        assert isinstance(caps, dict)
        players = caps.get("players", [3, 4])
        options = caps.get("options", [])
        self.players = {p for p in players if p in (3, 4)} if isinstance(players, list) else {3, 4}
        self.options = {o for o in options if isinstance(o, str)} if isinstance(options, list) else set()
        self.views = caps.get("views") is True
        self.clone = caps.get("clone") is True

    def unsupported(self, players: int, rules: Rules) -> str | None:
        """Why a game with this setup is skipped, or ``None`` if the engine plays it."""
        if players not in self.players:
            return f"{players} players not supported"
        missing = [label[7:] for label in option_labels(players, rules)[1:] if label[7:] not in self.options]
        return f"rule option(s) not supported: {', '.join(missing)}" if missing else None


class Player:
    """Plays fixtures on an engine through the protocol and finds the first difference."""

    def __init__(self, engine: Channel, caps: Capabilities) -> None:
        self.engine = engine
        self.caps = caps

    def _new(self, fixture: Fixture) -> tuple[str | None, str | None]:
        """A new game for ``fixture``: (handle, None), or (None, why skipped)."""
        reply = self.engine.request(
            {
                "cmd": "new",
                "rules": fixture["rules"],
                "players": fixture["players"],
                "first_captain": fixture["first_captain"],
            }
        )
        if reply["status"] == "skipped":
            return None, f"skipped by the engine: {reply.get('reason', '')}"
        if reply["status"] != "ok" or not isinstance(reply.get("game"), str):
            raise EngineFailure("errored", f"new: {_clip(reply)}", self.engine.stderr)
        return reply["game"], None

    def _drop(self, game: str) -> None:
        self.engine.request({"cmd": "drop", "game": game})

    def _stderr(self, reply: dict[str, Any]) -> str:
        """The end of the engine's stderr, for an ``errored`` reply (its own crash)."""
        return _tail(self.engine.stderr) if reply.get("status") == "errored" else ""

    def observations(self, game: str, players: int) -> list[dict[str, Any]]:
        requests: list[dict[str, Any]] = [{"cmd": "legal", "game": game}, {"cmd": "scores", "game": game}]
        if self.caps.views:
            seats: list[int | None] = [None, *range(players)]
            requests += [{"cmd": "view", "game": game, "seat": s, "form": "digest"} for s in seats]
        return requests

    def play(self, fixture: Fixture, pipelined: bool = True) -> Difference | str | None:
        """Play a game fixture: its first difference, a reason it was skipped (a string), or ``None``."""
        game, skipped = self._new(fixture)
        if game is None:
            return skipped
        steps = fixture["steps"]
        players = fixture["players"]
        per_step = len(json.dumps(self.observations(game, players))) + 200
        batch = max(1, BATCH_BYTES // per_step) if pipelined else 1
        for first in range(0, len(steps), batch):
            chunk = steps[first : first + batch]
            requests: list[dict[str, Any]] = []
            for step in chunk:
                requests += self.observations(game, players)
                if "action" in step:
                    requests.append({"cmd": "apply", "game": game, "action": step["action"]})
            replies = self.engine.pipeline(requests) if pipelined else [self.engine.request(r) for r in requests]
            at = 0
            for offset, step in enumerate(chunk):
                count = len(self.observations(game, players))
                found = self._compare(first + offset, step, replies[at : at + count], game, fixture)
                at += count
                if found is not None:
                    return found
                if "action" in step:
                    reply = replies[at]
                    at += 1
                    if reply["status"] != "ok":
                        return Difference(
                            first + offset, f"applying {step['action']}", "ok", _clip(reply), self._stderr(reply)
                        )
        self._drop(game)
        return None

    def _compare(
        self, index: int, step: Fixture, replies: list[dict[str, Any]], game: str, fixture: Fixture
    ) -> Difference | None:
        for reply, what in zip(replies, ("legal", "scores"), strict=False):
            if reply["status"] != "ok":
                return Difference(index, what, "ok", _clip(reply), self._stderr(reply))
        legal, scores = replies[0], replies[1]
        found = compare_legal(index, step, legal)
        if found is not None:
            return found
        if scores.get("scores") != step["scores"]:
            return Difference(index, "scores", _clip(step["scores"]), _clip(scores.get("scores")))
        for seat_index, reply in enumerate(replies[2:]):
            seat = None if seat_index == 0 else seat_index - 1
            who = "the spectator's view" if seat is None else f"p{seat}'s view"
            if reply["status"] != "ok":
                return Difference(index, who, "ok", _clip(reply), self._stderr(reply))
            digest = reply.get("digest")
            expected = step["views"][seat_index]
            if not isinstance(digest, str) or digest[: len(expected)] != expected:
                return Difference(index, who, expected, _clip(digest), self._view_detail(fixture, index, seat))
        return None

    def _view_detail(self, fixture: Fixture, index: int, seat: int | None) -> str:
        """The first key where the engine's view text differs from the reference's."""
        state = new_game(fixture["players"], fixture["first_captain"], fixture_rules(fixture))
        for text in fixture_actions(fixture)[:index]:
            state = apply(state, parse_action(text))
        expected = json.loads(dumps_view(view(state, seat)))
        # The game has gone on (requests are pipelined): replay the position in a new one.
        there, _ = self._new(fixture)
        if there is None:
            return "the view's text could not be asked for"
        prefix = fixture_actions(fixture)[:index]
        self.engine.pipeline([{"cmd": "apply", "game": there, "action": a} for a in prefix])
        reply = self.engine.request({"cmd": "view", "game": there, "seat": seat, "form": "text"})
        self._drop(there)
        try:
            actual = json.loads(reply["text"])
        except (KeyError, TypeError, ValueError):
            return f"the view's text could not be read: {_clip(reply)}"
        if not isinstance(actual, dict):
            return f"the view's text is not an object: {_clip(reply['text'])}"
        for key in sorted(set(expected) | set(actual)):
            want, got = expected.get(key, "(absent)"), actual.get(key, "(absent)")
            if want != got:
                return f"first differing key {key!r}: expected {_clip(want)}, got {_clip(got)}"
        text = reply["text"]
        wanted = dumps_view(view(state, seat))
        return f"same values, other bytes: expected {_clip(wanted)}, got {_clip(text)}"

    def refusal(self, check: Fixture, game_fixture_: Fixture) -> Difference | str | None:
        """Play a refusal fixture: the prefix, then the action that must be refused."""
        game, skipped = self._new(game_fixture_)
        if game is None:
            return skipped
        step = check["step"]
        prefix = fixture_actions(game_fixture_)[:step]
        for first in range(0, len(prefix), 100):
            chunk = prefix[first : first + 100]
            replies = self.engine.pipeline([{"cmd": "apply", "game": game, "action": a} for a in chunk])
            for offset, reply in enumerate(replies):
                if reply["status"] != "ok":
                    what = f"applying {chunk[offset]}"
                    return Difference(first + offset, what, "ok", _clip(reply), self._stderr(reply))
        reply, legal = self.engine.pipeline(
            [{"cmd": "apply", "game": game, "action": check["action"]}, {"cmd": "legal", "game": game}]
        )
        if reply["status"] != "refused" or reply.get("code") != check["code"]:
            got = reply["status"] + (f" with code {reply.get('code')!r}" if reply["status"] == "refused" else "")
            return Difference(step, f"applying {check['action']!r}", f"refused with code {check['code']!r}", got)
        found = compare_legal(step, game_fixture_["steps"][step], legal)
        if found is not None:
            found.what = f"{found.what} after the refusal (the game must be unchanged)"
            return found
        self._drop(game)
        return None

    def clone(self, fixture: Fixture, at: int) -> Difference | None:
        """A clone after ``at`` actions follows its own action; the original is untouched."""
        game, _ = self._new(fixture)
        if game is None:
            return None
        actions = fixture_actions(fixture)
        replies = self.engine.pipeline([{"cmd": "apply", "game": game, "action": a} for a in actions[:at]])
        if any(r["status"] != "ok" for r in replies):
            return Difference(0, "applying the prefix for the clone check", "ok", "a refusal")
        reply = self.engine.request({"cmd": "clone", "game": game})
        if reply["status"] != "ok" or not isinstance(reply.get("game"), str):
            return Difference(at, "clone", "a new game handle", _clip(reply))
        twin = reply["game"]
        replies = self.engine.pipeline(
            [
                {"cmd": "apply", "game": twin, "action": actions[at]},
                {"cmd": "legal", "game": twin},
                {"cmd": "legal", "game": game},
            ]
        )
        if replies[0]["status"] != "ok":
            return Difference(at, f"applying {actions[at]} to the clone", "ok", _clip(replies[0]))
        found = compare_legal(at + 1, fixture["steps"][at + 1], replies[1]) or compare_legal(
            at, fixture["steps"][at], replies[2]
        )
        if found is not None:
            found.what = f"{found.what} (clone check)"
            return found
        self._drop(twin)
        self._drop(game)
        return None


def compare_legal(index: int, step: Fixture, reply: dict[str, Any]) -> Difference | None:
    """The difference between a ``legal`` reply and a fixture step, or ``None``."""
    if reply.get("status") != "ok":
        return Difference(index, "legal", "ok", _clip(reply))
    if reply.get("actor") != step["actor"] or type(reply.get("actor")) is not type(step["actor"]):
        return Difference(index, "who acts", _clip(step["actor"]), _clip(reply.get("actor")))
    actions = reply.get("actions")
    if step["legal"] is None:
        if actions is not None or reply.get("ring") != step["ring"]:
            return Difference(index, "the ring's arrangement", _clip(step["ring"]), _clip(reply.get("ring")))
        return None
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        return Difference(index, "legal actions", "a list of strings", _clip(actions))
    if len(set(actions)) != len(actions):
        return Difference(index, "legal actions", "no duplicates", _clip(sorted(actions)))
    expected = step["legal"]
    if sorted(actions) != expected:
        missing = sorted(set(expected) - set(actions))
        extra = sorted(set(actions) - set(expected))
        return Difference(index, "legal actions", f"missing {_clip(missing)}", f"extra {_clip(extra)}")
    if "probabilities" in step:
        got = reply.get("probabilities")
        if not isinstance(got, list) or len(got) != len(actions):
            return Difference(index, "probabilities", "one per action", _clip(got))
        mine = dict(zip(actions, got, strict=True))
        for action, p in zip(expected, step["probabilities"], strict=True):
            if mine[action] != p:
                return Difference(index, f"probability of {action}", p, _clip(mine[action]))
    return None


# Fuzzing ----------------------------------------------------------------------------------


def setups_for(caps: Capabilities, rounds: Sequence[int | None] = (1, 2, 3, None)) -> st.SearchStrategy[Setup]:
    """Setups drawn over the options the engine supports (the others at their defaults).

    An engine that plays ``rounds`` also gets short games (1 to 3 rounds; hypothesis shrinks
    toward 1), so that a bug of the last round, or one that takes rounds of play to show (a
    reshuffle, a robbery, a rare tie), shrinks to a counterexample of one or two rounds; the
    corpus holds the full-length games. ``rounds``: the values of the option to draw from.
    The sizes (hand, the loadmaster's extra cards, highest offer, cabin boy's points) vary
    too, for an engine that plays them.
    """
    options: dict[str, st.SearchStrategy[Any]] = {}
    choices = {"rounds": st.sampled_from(rounds), **option_choices(sizes=True)}
    for name, strategy in choices.items():
        if name in caps.options:
            options[name] = strategy
    rules = st.fixed_dictionaries(options).map(lambda chosen: Rules(**chosen))
    counts = sorted(caps.players) or [3, 4]
    return st.sampled_from(counts).flatmap(lambda n: st.builds(Setup, st.just(n), st.integers(0, n - 1), rules))


HYPOTHESIS_SHARE: Final = 2 / 3
"""The share of the shrinking time hypothesis gets; cutting whole rounds gets the rest (a long
counterexample that hypothesis shrinks slowly then still loses its rounds)."""


class Fuzzer:
    """Differential games drawn by hypothesis, played on the engine and the reference.

    ``played`` games took ``seconds`` to search (until the first difference);
    ``shrinking_seconds`` is the time spent shrinking after it."""

    def __init__(self, player: Player, restart: Callable[[], None], shrink_seconds: float = 60.0) -> None:
        self.player = player
        self.restart = restart
        self.shrink_seconds = shrink_seconds
        self.played = 0
        self.seconds = 0.0
        self.shrinking_seconds = 0.0

    def _differs(self, setup: Setup, actions: Sequence[Action]) -> Difference | None:
        views = self.player.caps.views
        fixture = game_fixture("fuzz", setup.players, setup.first_captain, setup.rules, actions, [], views, ids=[])
        try:
            found = self.player.play(fixture)
        except EngineFailure as failure:
            self.restart()
            # Where it failed is not known: the whole game is the counterexample.
            return Difference(len(actions), f"the engine ({failure.kind})", "a reply", failure.message)
        return found if isinstance(found, Difference) else None

    def run(
        self, games: int, seed: int | None, tick: Callable[[], None]
    ) -> tuple[Setup, tuple[Action, ...], Difference] | None:
        """Play ``games`` games; the shrunk counterexample of the first difference, or ``None``.

        An engine that plays the ``rounds`` option first gets half of the games as one-round
        games (games of one round, and the first round of two-round games, up to the second
        captain's offer, so that phases 6 to 10 are played too), then games of 1 to 3 rounds
        or full length: a bug that can show in round 1 is then usually found there, and
        shrinks to one round, even when longer games would show it sooner (a robbery, which
        needs the pirate card played within reach of the merchant ship; a reshuffle)."""
        caps = self.player.caps
        parts: list[tuple[st.SearchStrategy[Setup], int | None, int]] = [(setups_for(caps), None, games)]
        if "rounds" in caps.options:
            parts = [(setups_for(caps, (1, 2)), 1, games // 2), (setups_for(caps), None, games - games // 2)]
        clock = time.monotonic
        first_found: list[float] = []
        best: list[tuple[Setup, tuple[Action, ...]]] = []

        def out_of_time(share: float = 1.0) -> bool:
            return bool(first_found) and clock() - first_found[0] > self.shrink_seconds * share

        def differs(example: tuple[Setup, tuple[Action, ...]]) -> bool:
            if out_of_time(HYPOTHESIS_SHARE):
                raise _OutOfTime
            started = clock()
            found = self._differs(*example)
            if not first_found:
                self.seconds += clock() - started
                self.played += 1
                tick()
            if found is None:
                return False
            best[:] = [example]
            if not first_found:
                first_found.append(clock())
            return True

        for setups, max_rounds, count in parts:
            if count <= 0:
                continue
            strategy = setups.flatmap(partial(_sequences, max_rounds=max_rounds))
            config = settings(FIND_SETTINGS, max_examples=count, derandomize=seed is None)
            try:
                find(strategy, differs, settings=config, random=None if seed is None else random.Random(seed))
            except NoSuchExample:
                continue
            except _OutOfTime:
                pass
            break
        if not best:
            return None
        setup, actions = best[0]

        def step_of(setup: Setup, candidate: Sequence[Action]) -> int | None:
            found = self._differs(setup, candidate)
            return None if found is None else found.step

        actions = drop_rounds(step_of, setup, actions, out_of_time)
        found = self._differs(setup, actions)
        assert found is not None
        self.shrinking_seconds = clock() - first_found[0]
        return setup, actions[: found.step + 1], found


def _sequences(setup: Setup, max_rounds: int | None) -> st.SearchStrategy[tuple[Setup, tuple[Action, ...]]]:
    return action_sequences(setup, max_rounds=max_rounds)


class _OutOfTime(BaseException):
    """Stops hypothesis's shrinking at the time bound."""


# The run ----------------------------------------------------------------------------------


@attrs.define
class Options:
    """The driver's settings (the command line's options)."""

    command: list[str]
    timeout: float = 2.0
    games: int = 100
    seed: int | None = None
    expect_fail: set[str] = attrs.Factory(set)
    out: Path = Path("conform-out")
    limit: int | None = None
    only: set[str] = attrs.Factory(set)
    fixtures: list[Path] = attrs.Factory(list)
    shrink_seconds: float = 60.0
    suite: Path | None = None


@attrs.define
class Report:
    """What a run found. ``fuzz_seconds`` is the time the fuzz games took until the first
    difference, ``shrink_seconds`` the time spent shrinking it; ``restarts`` counts the engines
    started again after a failure (a time-out, garbage, death)."""

    engine: dict[str, Any]
    suite_version: str
    results: list[Result] = attrs.Factory(list)
    seconds: float = 0.0
    corpus_seconds: float = 0.0
    fuzz_games: int = 0
    fuzz_seconds: float = 0.0
    shrink_seconds: float = 0.0
    restarts: int = 0
    exit_code: int = EXIT_OK

    def counts(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {}
        for result in self.results:
            row = table.setdefault(result.kind, {})
            row[result.status] = row.get(result.status, 0) + 1
        return table

    def as_json(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "suite_version": self.suite_version,
            "exit_code": self.exit_code,
            "counts": self.counts(),
            "seconds": round(self.seconds, 3),
            "corpus_seconds": round(self.corpus_seconds, 3),
            "fuzz_games": self.fuzz_games,
            "fuzz_games_per_second": round(self.fuzz_games / self.fuzz_seconds, 2) if self.fuzz_seconds else None,
            "shrink_seconds": round(self.shrink_seconds, 3),
            "restarts": self.restarts,
            "problems": [r.as_json() for r in self.results if r.status not in ("passed", "skipped")],
            "skipped": [r.as_json() for r in self.results if r.status == "skipped"],
        }


def read_expect_fail(path: Path) -> set[str]:
    """The ids listed in an ``--expect-fail`` file: one per line, ``#`` starts a comment."""
    ids = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        ident = line.split("#", 1)[0].strip()
        if ident:
            ids.add(ident)
    return ids


def run(options: Options, progress: Callable[[str, int], Callable[[], None]] | None = None) -> Report:
    """Run the suite and the fuzzing against ``options.command``.

    ``progress(label, total)`` (if given) is called at the start of each part and returns
    the function to call after each item. Raises :class:`EngineFailure` only when the
    engine cannot be started or greeted, and ``ValueError`` for a suite that does not match
    its manifest.
    """
    started = time.monotonic()
    problems = check_manifest(options.suite)
    if problems:
        raise ValueError("the conformance suite does not match its manifest: " + "; ".join(problems))
    manifest, games, refusals = load_suite(options.suite)
    if manifest.get("fixture_format") != FIXTURE_FORMAT:
        raise ValueError(f"this driver reads fixture format {FIXTURE_FORMAT}, not {manifest.get('fixture_format')!r}")
    by_id = {g["id"]: g for g in games}
    if options.only:
        games = [g for g in games if g["id"] in options.only]
        refusals = [r for r in refusals if r["id"] in options.only]
    if options.limit is not None:
        games, refusals = games[: options.limit], refusals[: options.limit]
    for extra in options.fixtures:
        for fixture in read_lines(extra):
            (games if fixture.get("kind") == "game" else refusals).append(fixture)
            if fixture.get("kind") == "game":
                by_id[fixture["id"]] = fixture
    engine = EngineProcess(options.command, options.timeout)
    try:
        report = _run(options, engine, games, refusals, by_id, manifest, started, progress)
    finally:  # however the run ends (an exception, Ctrl-C), the engine's process group ends too
        engine.kill()
    statuses = {r.status for r in report.results}
    if "failed" in statuses:
        report.exit_code = EXIT_FAILED
    elif "unexpected-pass" in statuses:
        report.exit_code = EXIT_STALE
    return report


def _run(
    options: Options,
    engine: EngineProcess,
    games: list[Fixture],
    refusals: list[Fixture],
    by_id: dict[str, Fixture],
    manifest: dict[str, Any],
    started: float,
    progress: Callable[[str, int], Callable[[], None]] | None,
) -> Report:
    hello = engine.start()
    caps = Capabilities(hello)
    player = Player(engine, caps)
    report = Report(engine=hello.get("implementation") or {}, suite_version=str(manifest.get("suite_version")))
    noop: Callable[[], None] = lambda: None  # noqa: E731

    def settle(kind: str, ident: str, outcome: Difference | str | None, files: Sequence[str] = ()) -> None:
        if isinstance(outcome, str):
            report.results.append(Result(kind, ident, "skipped", outcome))
            return
        failed = outcome is not None
        expected = ident in options.expect_fail
        status = {
            (False, False): "passed",
            (True, False): "failed",
            (True, True): "expected-failure",
            (False, True): "unexpected-pass",
        }[failed, expected]
        report.results.append(Result(kind, ident, status, "" if outcome is None else str(outcome), list(files)))

    def guarded(kind: str, ident: str, work: Callable[[], Difference | str | None]) -> None:
        try:
            outcome = work()
        except EngineFailure as failure:
            outcome = Difference(-1, f"the engine ({failure.kind})", "a reply", failure.message, _tail(failure.stderr))
            _restart(engine)
        settle(kind, ident, outcome)

    def skip_reason(fixture: Fixture) -> str | None:
        return caps.unsupported(fixture["players"], fixture_rules(fixture))

    tick = progress("corpus games", len(games)) if progress else noop
    for fixture in games:
        reason = skip_reason(fixture)
        if reason is not None:
            settle("game", fixture["id"], reason)
        else:
            guarded("game", fixture["id"], lambda f=fixture: player.play(f))  # type: ignore[misc]
        tick()
    tick = progress("refused actions", len(refusals)) if progress else noop
    for check in refusals:
        game = by_id.get(check["game"])
        if game is None:
            settle("refusal", check["id"], f"its game {check['game']} is not in the suite")
        elif (reason := skip_reason(game)) is not None:
            settle("refusal", check["id"], reason)
        else:
            guarded("refusal", check["id"], lambda c=check, g=game: player.refusal(c, g))  # type: ignore[misc]
        tick()
    if caps.clone:
        target = next((g for g in games if skip_reason(g) is None and len(g["steps"]) > 30), None)
        if target is not None:
            guarded("clone", "clone", lambda: player.clone(target, 25))
    else:
        settle("clone", "clone", "the engine does not clone")
    report.corpus_seconds = time.monotonic() - started
    if options.games > 0:
        tick = progress("fuzz games", options.games) if progress else noop
        fuzzer = Fuzzer(player, lambda: _restart(engine), options.shrink_seconds)
        found = None
        try:
            found = fuzzer.run(options.games, options.seed, tick)
        except EngineFailure as failure:  # pragma: no cover - failures are caught per game
            settle("fuzz", "fuzz", Difference(-1, f"the engine ({failure.kind})", "a reply", failure.message))
        else:
            files = _write_counterexample(engine, player, options.out, found) if found is not None else []
            settle("fuzz", "fuzz", None if found is None else found[2], files)
        report.fuzz_games, report.fuzz_seconds = fuzzer.played, fuzzer.seconds
        report.shrink_seconds = fuzzer.shrinking_seconds
    engine.close()
    report.restarts = engine.restarts
    report.seconds = time.monotonic() - started
    return report


def _restart(engine: EngineProcess) -> None:
    try:
        engine.restart()
    except EngineFailure:
        engine.kill()


def _tail(text: str, lines: int = 12) -> str:
    kept = text.strip().splitlines()[-lines:]
    return ("engine stderr (end):\n      " + "\n      ".join(kept)) if kept else ""


def _write_counterexample(
    engine: EngineProcess, player: Player, out: Path, found: tuple[Setup, tuple[Action, ...], Difference]
) -> list[str]:
    """Write the counterexample as a fixture file and the transcript that reproduces it."""
    setup, actions, difference = found
    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(" ".join(map(str, actions)).encode()).hexdigest()[:10]
    ident = f"fuzz-{digest}"
    fixture = game_fixture(ident, setup.players, setup.first_captain, setup.rules, actions, covers=[], ids=[])
    fixture_path = out / f"{ident}.jsonl"
    write_lines(fixture_path, [fixture])
    transcript: list[str] = []
    engine.close()
    engine.transcript = transcript
    try:
        engine.start()
        player.play(fixture, pipelined=False)
        engine.close()
    except EngineFailure:
        engine.kill()
    finally:
        engine.transcript = None
    transcript_path = out / f"{ident}.transcript"
    header = [
        f"# meuterer conform counterexample {ident}: {difference}".replace("\n", "\n# "),
        f"# {setup.players} players, first captain {setup.first_captain}, rules {json.dumps(rules_data(setup.rules))}",
        "# '>' lines are sent to the engine's stdin (without the marker), '<' lines are its replies",
    ]
    transcript_path.write_text("\n".join(header + transcript) + "\n", encoding="utf-8")
    return [str(fixture_path), str(transcript_path)]


# Text report ------------------------------------------------------------------------------


def summary(report: Report, command: Sequence[str]) -> str:
    """The report as text for people."""
    engine = report.engine
    name = f"{engine.get('name', '?')} {engine.get('version', '')} ({engine.get('language', '?')})"
    lines = [f"meuterer conform: {name}, suite {report.suite_version}", f"  command: {' '.join(command)}"]
    labels = {"game": "corpus games", "refusal": "refused actions", "clone": "clone", "fuzz": "fuzzing"}
    counts = report.counts()
    for kind in ("game", "refusal", "clone", "fuzz"):
        row = counts.get(kind)
        if not row:
            continue
        parts = [f"{n} {status}" for status, n in sorted(row.items())]
        extra = ""
        if kind == "fuzz" and report.fuzz_games:
            rate = report.fuzz_games / report.fuzz_seconds if report.fuzz_seconds else 0.0
            extra = f" ({report.fuzz_games} games, {rate:.1f} games/s"
            extra += f"; shrinking {report.shrink_seconds:.1f} s)" if report.shrink_seconds else ")"
        lines.append(f"  {labels[kind]:<16} {', '.join(parts)}{extra}")
    skipped = [r for r in report.results if r.status == "skipped"]
    if skipped:
        reasons: dict[str, int] = {}
        for r in skipped:
            reasons[r.message] = reasons.get(r.message, 0) + 1
        lines.append("  skipped:")
        lines += [f"    {n} x {why}" for why, n in sorted(reasons.items(), key=lambda item: -item[1])[:8]]
    problems = [r for r in report.results if r.status in ("failed", "unexpected-pass")]
    for r in problems[:20]:
        if r.status == "unexpected-pass":
            lines.append(f"PASSED BUT EXPECTED TO FAIL {r.kind} {r.ident}: remove it from the --expect-fail list")
        else:
            lines.append(f"FAILED {r.kind} {r.ident}: {r.message}")
        for path in r.files:
            lines.append(f"  wrote {path}")
    if len(problems) > 20:
        lines.append(f"... and {len(problems) - 20} more (--json lists them all)")
    verdict = {EXIT_OK: "OK", EXIT_FAILED: "FAILED", EXIT_STALE: "STALE EXPECTED FAILURES"}[report.exit_code]
    timing = f"{report.seconds:.1f} s (corpus {report.corpus_seconds:.1f} s)"
    lines.append(f"{verdict} in {timing}; engine restarts: {report.restarts}")
    return "\n".join(lines)
