"""The driver (meuterer conform): it passes the reference, catches a mutant and shrinks it,
writes a replayable counterexample, honours --expect-fail, and reports every kind of
misbehaving engine (tests/fake_engine.py) without hanging or raising."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import find, settings
from hypothesis.errors import NoSuchExample

import meuterer
from meuterer.cli.main import main
from meuterer.conform.client import EngineFailure, EngineProcess, ProcessAdapter
from meuterer.conform.driver import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_STALE,
    EXIT_USAGE,
    Capabilities,
    Options,
    Report,
    Result,
    read_expect_fail,
    run,
    setups_for,
    summary,
)
from meuterer.conform.fixtures import load_suite, read_lines, suite_dir
from meuterer.testing import check_engine

SRC = str(Path(meuterer.__file__).parents[1])
FAKE = str(Path(__file__).with_name("fake_engine.py"))
REFERENCE = [sys.executable, "-m", "meuterer", "engine"]
SLOW = os.environ.get("MEUTERER_SLOW") == "1"


@pytest.fixture(autouse=True)
def _engine_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines started by the driver import this worktree's meuterer."""
    monkeypatch.setenv("PYTHONPATH", SRC)


def fake(mode: str) -> list[str]:
    return [sys.executable, FAKE, mode]


def test_the_reference_passes_a_slice_of_the_corpus_and_fuzzing(tmp_path: Path) -> None:
    report = run(Options(command=REFERENCE, games=3, seed=1, limit=6, out=tmp_path))
    counts = report.counts()
    assert report.exit_code == EXIT_OK
    assert counts["game"] == {"passed": 6}
    assert counts["clone"] == {"passed": 1}
    assert counts["fuzz"] == {"passed": 1}
    assert report.fuzz_games == 3
    assert report.restarts == 0
    text = summary(report, REFERENCE)
    assert "corpus games     6 passed" in text
    assert text.splitlines()[-1].startswith("OK in ")


@pytest.mark.slow  # the whole corpus over stdio takes a minute
def test_the_reference_passes_the_whole_corpus(tmp_path: Path) -> None:
    report = run(Options(command=REFERENCE, games=20, seed=2, out=tmp_path))
    assert report.exit_code == EXIT_OK, summary(report, REFERENCE)
    _, games, refusals = load_suite()
    assert report.counts()["game"] == {"passed": len(games)}
    assert report.counts()["refusal"] == {"passed": len(refusals)}


def test_a_mutant_is_caught_shrunk_and_written_down(tmp_path: Path) -> None:
    # The shrink budget is wall time: generous, so that a loaded machine (CI runs two workers
    # beside a third job) still shrinks to the first offer.
    report = run(Options(command=fake("mutant"), games=20, seed=3, limit=2, out=tmp_path, shrink_seconds=90))
    assert report.exit_code == EXIT_FAILED
    failed = [r for r in report.results if r.status == "failed"]
    assert {r.kind for r in failed} == {"game", "fuzz"}
    fuzz = next(r for r in failed if r.kind == "fuzz")
    assert "legal actions" in fuzz.message
    assert "offer 3" in fuzz.message
    fixture_file, transcript_file = (Path(f) for f in fuzz.files)
    (counterexample,) = list(read_lines(fixture_file))
    # Shrunk to the deal and the first offer: the difference shows at the offer.
    steps = counterexample["steps"]
    assert steps[-2]["legal"][-1].endswith("offer 3")
    assert len(steps) <= 3 * 5 + 2 + 5 * 4
    transcript = transcript_file.read_text().splitlines()
    assert transcript[0].startswith("# meuterer conform counterexample")
    sent = [line for line in transcript if line.startswith("> ")]
    assert json.loads(sent[0][2:])["cmd"] == "hello"
    assert json.loads(sent[1][2:])["cmd"] == "new"
    # The transcript replays: the fixture file runs as extra fixtures and fails the same way.
    again = run(Options(command=fake("mutant"), games=0, limit=0, fixtures=[fixture_file], out=tmp_path))
    assert [r.status for r in again.results if r.kind == "game"] == ["failed"]


def test_expect_fail_skips_known_failures_and_reports_stale_ones(tmp_path: Path) -> None:
    _, games, _ = load_suite()
    first = games[0]["id"]
    listed = tmp_path / "known.txt"
    listed.write_text(f"# known failures\n{first}  # the offer\n\n")
    assert read_expect_fail(listed) == {first}
    report = run(Options(command=fake("mutant"), games=0, limit=1, expect_fail={first}, out=tmp_path))
    statuses = {r.ident: r.status for r in report.results}
    assert statuses[first] == "expected-failure"
    stale = run(Options(command=REFERENCE, games=0, limit=1, expect_fail={first}, out=tmp_path))
    assert stale.exit_code == EXIT_STALE
    assert "PASSED BUT EXPECTED TO FAIL" in summary(stale, REFERENCE)


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("garbage", "garbage"),
        ("hang", "timeout"),
        ("die", "died"),
        ("flood", "too-long"),
        ("lines", "wrong-id"),
        ("wrong-id", "wrong-id"),
        ("list", "garbage"),
        ("bad-status", "garbage"),
    ],
)
def test_misbehaving_engines_are_reported(mode: str, kind: str, tmp_path: Path) -> None:
    report = run(Options(command=fake(mode), games=0, limit=1, timeout=0.5, out=tmp_path))
    assert report.exit_code == EXIT_FAILED
    game = next(r for r in report.results if r.kind == "game")
    assert game.status == "failed"
    assert f"the engine ({kind})" in game.message
    if mode == "die":
        assert "boom: the fake engine died" in game.message
    assert report.restarts >= 1


def test_an_engine_that_cannot_greet_stops_the_run(tmp_path: Path) -> None:
    with pytest.raises(EngineFailure) as caught:
        run(Options(command=fake("no-hello"), games=0, limit=1, out=tmp_path))
    assert caught.value.kind == "garbage"
    with pytest.raises(EngineFailure) as missing:
        run(Options(command=["/nonexistent/engine"], games=0, limit=1, out=tmp_path))
    assert missing.value.kind == "start"


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = ["--out", str(tmp_path)]
    assert main(["conform", "--json", "--games", "0", "--limit", "1", *out, "--", *REFERENCE]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert data["exit_code"] == EXIT_OK
    assert data["counts"]["game"] == {"passed": 1}
    assert data["problems"] == []
    assert main(["conform", "--json", "--games", "0", "--only", "refusal-000", *out, "--", *REFERENCE]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["counts"] == {"refusal": {"passed": 1}}
    assert main(["conform", "--games", "0", "--limit", "1", *out, "--", *fake("no-hello")]) == EXIT_USAGE
    assert "could not be used (garbage)" in capsys.readouterr().err
    assert main(["conform", "--json", "--limit", "1", *out, "--", *fake("no-hello")]) == EXIT_USAGE
    assert json.loads(capsys.readouterr().out)["exit_code"] == EXIT_USAGE
    assert main(["conform", "--"]) == EXIT_USAGE
    assert main(["conform", "--timeout", "0", "--", *REFERENCE]) == EXIT_USAGE
    assert main(["conform", "--expect-fail", str(tmp_path / "none.txt"), "--", *REFERENCE]) == EXIT_USAGE
    assert main(["conform", "--games", "0", "--limit", "1", *out, "--", *fake("die")]) == EXIT_FAILED
    assert "FAILED game" in capsys.readouterr().out


def test_an_engine_without_options_views_or_clone_skips_what_it_cannot(tmp_path: Path) -> None:
    caps = Capabilities({"capabilities": {"players": [4], "options": [], "views": False, "clone": False}})
    assert caps.unsupported(3, meuterer.Rules()) == "3 players not supported"
    assert caps.unsupported(4, meuterer.Rules(pirates=True)) == "rule option(s) not supported: pirates"
    assert caps.unsupported(4, meuterer.Rules()) is None
    assert not caps.views
    assert not caps.clone


def test_random_games_vary_the_sizes_an_engine_plays() -> None:
    # The suite found a loadmaster_extra=0 bug in the example JS engine that random games
    # never drew: the fuzzing draws the sizes too, but only for an engine that declares them.
    every = Capabilities(
        {"capabilities": {"options": ["hand_size", "loadmaster_extra", "max_offer", "cabin_boy_points"]}}
    )
    found = find(setups_for(every), lambda setup: setup.rules.loadmaster_extra == 0 and setup.rules.hand_size == 3)
    assert (found.rules.max_offer, found.rules.cabin_boy_points) == (3, 2)  # shrunk to the box's values
    none = Capabilities({"capabilities": {"options": []}})
    with pytest.raises(NoSuchExample):
        find(setups_for(none), lambda setup: setup.rules.loadmaster_extra != 3, settings=settings(max_examples=200))


def test_the_process_adapter_plugs_into_check_engine() -> None:
    engine = EngineProcess(REFERENCE)
    try:
        check_engine(ProcessAdapter(engine), max_examples=2, seed=4)
    finally:
        engine.close()
    assert not engine.alive


def test_reports_as_json() -> None:
    report = Report(engine={"name": "x"}, suite_version="1.0.0")
    report.results += [Result("game", "a", "passed"), Result("game", "b", "skipped", "why")]
    data = report.as_json()
    assert data["counts"] == {"game": {"passed": 1, "skipped": 1}}
    assert data["skipped"][0]["message"] == "why"
    assert data["fuzz_games_per_second"] is None


def test_meuterer_conform_as_a_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "meuterer",
            "conform",
            "--games",
            "0",
            "--limit",
            "1",
            "--out",
            str(tmp_path),
            "--",
            *REFERENCE,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "corpus games     1 passed" in done.stdout


def test_the_process_channel_on_its_own() -> None:
    with pytest.raises(EngineFailure) as caught:
        EngineProcess(fake("hello-errored")).start()
    assert caught.value.kind == "errored"
    assert "cannot start" in caught.value.message
    newest = EngineProcess(fake("protocol-2"))
    with pytest.raises(EngineFailure) as newer:
        newest.start()
    assert not newest.alive
    assert newer.value.kind == "protocol"
    assert newer.value.message == "the engine speaks protocol 2; this driver speaks 1"
    engine = EngineProcess(fake("die"), timeout=5)
    engine.start()
    with pytest.raises(EngineFailure) as died:
        engine.request({"cmd": "new", "rules": {}, "players": 3, "first_captain": 0})
    assert died.value.kind == "died"
    assert "exited with status 3" in died.value.message
    assert "boom" in engine.stderr
    with pytest.raises(EngineFailure) as again:
        engine.request({"cmd": "scores", "game": "g1"})
    assert again.value.kind == "died"
    engine.kill()
    with pytest.raises(EngineFailure, match="not running"):
        engine.request({"cmd": "scores", "game": "g1"})
    engine.close()


def test_the_process_adapter_reports_refusals_and_skips_views() -> None:
    engine = EngineProcess(REFERENCE)
    try:
        adapter = ProcessAdapter(engine)
        game = adapter.start(3, 0, meuterer.Rules())
        with pytest.raises(EngineFailure, match="apply: illegal action"):
            adapter.apply(game, "p0 offer 1")
        adapter.views = False
        assert adapter.public_view(game) is None
    finally:
        engine.close()


def test_meuterer_engine_in_this_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    requests = tmp_path / "requests"
    requests.write_bytes(b'{"id":1,"cmd":"hello","protocol":1}\n{"id":2,"cmd":"quit"}\n')
    replies = tmp_path / "replies"
    with requests.open("rb") as stdin, replies.open("wb") as stdout:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(stdout))
        assert main(["engine"]) == 0
        sys.stdout.flush()
    assert [json.loads(line)["id"] for line in replies.read_text().splitlines()] == [1, 2]


def test_the_progress_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["conform", "--games", "1", "--limit", "1", "--out", str(tmp_path), "--", *REFERENCE]) == EXIT_OK


def test_an_engine_is_checked_only_on_what_it_supports(tmp_path: Path) -> None:
    _, games, refusals = load_suite()
    option_game = next(g for g in games if g["id"].startswith("option-pirates"))
    on_option_game = next(r for r in refusals if not r["game"].startswith("base-"))
    lost = tmp_path / "lost.jsonl"
    lost.write_text(json.dumps({**refusals[0], "id": "lost", "game": "nowhere"}) + "\n")
    only = {games[0]["id"], option_game["id"], on_option_game["id"], refusals[0]["id"]}
    report = run(Options(command=fake("basic"), games=2, seed=5, only=only, fixtures=[lost], out=tmp_path))
    statuses = {r.ident: (r.status, r.message) for r in report.results}
    assert report.exit_code == EXIT_OK
    assert statuses[games[0]["id"]] == ("passed", "")
    assert statuses[option_game["id"]][0] == "skipped"
    assert "pirates" in statuses[option_game["id"]][1]
    assert statuses[on_option_game["id"]][0] == "skipped"
    assert statuses["lost"] == ("skipped", "its game nowhere is not in the suite")
    assert statuses["clone"] == ("skipped", "the engine does not clone")
    assert statuses["fuzz"] == ("passed", "")


def test_a_damaged_suite_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(suite_dir(), suite)
    (suite / "refusals.jsonl.gz").write_bytes(b"")
    with pytest.raises(ValueError, match=r"does not match its manifest: refusals\.jsonl\.gz: SHA-256 differs"):
        run(Options(command=REFERENCE, games=0, suite=suite, out=tmp_path))
    shutil.copy(suite_dir() / "refusals.jsonl.gz", suite / "refusals.jsonl.gz")
    manifest = json.loads((suite / "manifest.json").read_text())
    (suite / "manifest.json").write_text(json.dumps({**manifest, "fixture_format": 2}))
    with pytest.raises(ValueError, match="reads fixture format 1, not 2"):
        run(Options(command=REFERENCE, games=0, suite=suite, out=tmp_path))
