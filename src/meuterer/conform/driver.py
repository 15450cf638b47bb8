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
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from meuterer.actions import Action
from meuterer.conform.client import EngineFailure, EngineProcess, rules_data
from meuterer.conform.fixtures import (
    FIXTURE_FORMAT,
    Fixture,
    check_manifest,
    fixture_rules,
    game_fixture,
    load_suite,
    read_lines,
    write_lines,
)
from meuterer.conform.fuzz import HYPOTHESIS_SHARE, Fuzzer, setups_for
from meuterer.conform.player import BATCH_BYTES, Capabilities, Player, _tail, compare_legal
from meuterer.conform.report import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_STALE,
    EXIT_USAGE,
    Difference,
    Report,
    Result,
    summary,
)
from meuterer.testing import Setup

__all__ = [
    "BATCH_BYTES",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_STALE",
    "EXIT_USAGE",
    "HYPOTHESIS_SHARE",
    "Capabilities",
    "Difference",
    "Fuzzer",
    "Options",
    "Player",
    "Report",
    "Result",
    "compare_legal",
    "read_expect_fail",
    "run",
    "setups_for",
    "summary",
]

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
