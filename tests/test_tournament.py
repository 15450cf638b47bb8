"""Tournaments: seeded and reproducible whatever the number of processes, summaries, files, CLI."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import Role
from meuterer.agents import Agent, GreedyAgent, RandomAgent, play_game
from meuterer.agents.registry import make_agent
from meuterer.cli.simulate import register
from meuterer.errors import SetupError
from meuterer.fast import play_game as fast_play_game
from meuterer.tournament import (
    GameResult,
    ResultsFile,
    format_for,
    game_seed,
    lineup,
    play_game_result,
    ray_available,
    read_results,
    results_text,
    run_tournament,
    seating,
    summarize,
    wilson,
    write_text_atomic,
)
from meuterer.tournament.run import _Counter


def test_wilson_interval() -> None:
    # Reference values: 50 of 100 gives 0.4038 to 0.5962; 0 of n has upper bound z²/(n + z²).
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    edge = 1.96**2 / (10 + 1.96**2)
    assert wilson(0, 10)[0] == 0.0 and math.isclose(wilson(0, 10)[1], edge)
    assert math.isclose(wilson(10, 10)[0], 1 - edge) and wilson(10, 10)[1] == 1.0
    low, high = wilson(2.5, 10)  # shared wins are fractional
    assert low < 0.25 < high
    assert wilson(0, 0) == (0.0, 1.0)


def test_game_seeds_are_fixed_forever() -> None:
    # Reproducibility across versions and machines: these numbers must never change.
    assert game_seed(0, 0) == 11750487182340329936
    assert game_seed(7, 123) == 6827946204499288001
    assert len({game_seed(seed, index) for seed in range(5) for index in range(50)}) == 250


def test_lineups_and_seating() -> None:
    assert lineup(["ismcts:10", "greedy"], 4) == ("ismcts:10", "greedy", "greedy", "greedy")
    with pytest.raises(SetupError, match="5 agents for 4 seats"):
        lineup(["random"] * 5, 4)
    with pytest.raises(SetupError, match="at least one"):
        lineup([], 3)
    rotations = [seating(["a", "b", "c", "d"], index) for index in range(4)]
    for seat in range(4):
        assert sorted(str(seated[seat]) for seated in rotations) == ["a", "b", "c", "d"]
    assert seating(["a", "b", "c"], 2, rotate=False) == ("a", "b", "c")


def test_agent_specs() -> None:
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    agent = make_agent("ismcts:30:random")
    assert (agent.iterations, agent.rollout) == (30, "random")  # type: ignore[attr-defined]
    assert isinstance(make_agent(GreedyAgent), GreedyAgent)
    for bad in ("greedy:3", "ismcts:many", "ismcts:0", "ismcts:5:clever", "nobody"):
        with pytest.raises(SetupError):
            make_agent(bad)


def test_the_tournament_hook_sees_the_game_play_game_plays() -> None:
    agents: list[Agent] = [GreedyAgent(), RandomAgent(), GreedyAgent(), RandomAgent()]
    actions, final = play_game(agents, seed=11, first_captain=2)
    count = _Counter(4)
    history, state = fast_play_game(agents, seed=11, first_captain=2, hook=count)
    moves, mutineers, won = count.moves, count.mutineers, count.won
    assert (state, history) == (final, actions)
    assert sum(moves) == sum(1 for a in actions if not isinstance(a, meuterer.Draw))
    # Count the mutinies again from the states.
    game = meuterer.Game.replay(actions, players=4, first_captain=2)
    led, succeeded = [0] * 4, [0] * 4
    for before, after in zip(game.states, game.states[1:], strict=False):
        if before.mutiny is None and after.mutiny is not None:
            seat = after.roles.index(Role.MUTINEER)
            led[seat] += 1
            succeeded[seat] += after.mutiny
    assert (mutineers, won) == (led, succeeded) and sum(led) > 0


def test_a_game_result() -> None:
    result, history = play_game_result(["greedy", "random", "random"], index=4, seed=9)
    assert result.agents == ("random", "greedy", "random")  # game 4: agent 0 in seat 4 % 3
    actions, final = play_game([RandomAgent(), GreedyAgent(), RandomAgent()], seed=game_seed(9, 4))
    assert history == actions and result.scores == final.scores and result.winners == meuterer.winners(final)
    assert result.rounds == 9 and result.actions == len(actions)
    assert math.isclose(sum(result.shares), 1.0)


def test_ties_share_the_win() -> None:
    result = GameResult(
        0, 0, ("a", "b", "a", "b"), 0, (30, 12, 30, 30), (0, 2, 3), 8, 300, (1,) * 4, (0,) * 4, (0,) * 4
    )
    assert result.shares == (1 / 3, 0.0, 1 / 3, 1 / 3)
    summary = summarize([result], 4)
    a, b = summary.agents
    assert (a.label, a.games, b.label, b.games) == ("a", 2, "b", 2)
    assert math.isclose(a.wins.successes, 2 / 3) and math.isclose(b.wins.successes, 1 / 3)


def test_same_seed_same_results_with_one_or_two_processes(tmp_path: Path) -> None:
    specs = ["greedy", "random"]
    one = run_tournament(specs, games=10, players=3, seed=21, jobs=1, chunk=3)
    two = run_tournament(specs, games=10, players=3, seed=21, jobs=2, chunk=2)
    assert one.results == two.results
    assert [r.index for r in two.results] == list(range(10))
    assert results_text(one.results, "jsonl") == results_text(two.results, "jsonl")
    assert results_text(one.results, "csv") == results_text(two.results, "csv")
    other = run_tournament(specs, games=10, players=3, seed=22)
    assert other.results != one.results


def test_summary_counts(tmp_path: Path) -> None:
    run = run_tournament(["greedy", "random", "random", "random"], games=8, seed=3, records=tmp_path)
    summary = run.summary()
    assert summary.games == 8 and summary.players == 4
    assert [g.label for g in summary.agents] == ["greedy", "random"]
    greedy, random_ = summary.agents
    assert (greedy.games, random_.games) == (8, 24)
    assert math.isclose(greedy.wins.successes + random_.wins.successes, 8)
    assert greedy.wins.rate > 0.5  # the greedy bot wins most games against random players
    assert all(g.games == 8 for g in summary.seats)
    assert summary.rounds == 64
    assert summary.mutinies.successes == sum(r.mutinies for r in run.results)
    assert summary.mean_actions == sum(r.actions for r in run.results) / 8
    assert greedy.ms_per_move > 0 and summary.cpu_seconds > 0
    # One valid record per game, with the scores of the results.
    files = sorted(tmp_path.glob("game-*.json"))
    assert [f.name for f in files] == [f"game-{i:06d}.json" for i in range(8)]
    for file, result in zip(files, run.results, strict=True):
        record = meuterer.read_record(file)
        report = meuterer.verify(record)
        assert report.ok and report.final is not None and report.final.scores == result.scores
        assert record.players[0] == f"{result.agents[0]}-0"


def test_per_game_files() -> None:
    run = run_tournament(["greedy", "random", "random"], games=4, seed=5)
    rows = list(csv.DictReader(io.StringIO(results_text(run.results, "csv"))))
    assert [int(row["score_1"]) for row in rows] == [r.scores[1] for r in run.results]
    assert [row["agent_0"] for row in rows] == [r.agents[0] for r in run.results]
    lines = [json.loads(line) for line in results_text(run.results).splitlines()]
    assert [line["scores"] for line in lines] == [list(r.scores) for r in run.results]
    assert set(lines[0]) == {
        "game", "seed", "agents", "first_captain", "scores", "winners", "rounds", "actions", "moves", "mutineers",
        "mutinies_won",
    }  # fmt: skip


def test_bad_runs_are_refused() -> None:
    with pytest.raises(SetupError, match="3 or 4"):
        run_tournament(["random"], games=1, players=5)
    with pytest.raises(SetupError, match="games"):
        run_tournament(["random"], games=-1)
    with pytest.raises(SetupError, match="unknown agent"):
        run_tournament(["random", "clever"], games=1)


@pytest.mark.skipif(not ray_available(), reason="ray is not installed (pip install 'meuterer[ray]')")
def test_ray_gives_the_same_results_as_local_processes() -> None:
    import ray

    try:
        on_ray = run_tournament(["greedy", "random"], games=6, players=3, seed=8, jobs=2, backend="ray")
    finally:
        ray.shutdown()
    local = run_tournament(["greedy", "random"], games=6, players=3, seed=8)
    assert on_ray.results == local.results and on_ray.backend == "ray"


# The command ---------------------------------------------------------------------------


def simulate(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="meuterer")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["simulate", *argv])
    status: int = args.run(args)
    return status


def test_simulate_prints_a_summary_and_writes_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.csv"
    records = tmp_path / "records"
    argv = ["-n", "6", "--players", "3", "--agents", "greedy,random", "--seed", "4", "--out", str(out)]
    assert simulate(*argv, "--records", str(records), "--no-progress") == 0
    text = capsys.readouterr().out
    assert "6 games, 3 players: greedy, random, random (seats rotate); seed 4" in text
    for heading in ("Per agent", "Per seat", "Wins per agent and seat", "Mutinies:", "Game length:"):
        assert heading in text
    run = run_tournament(["greedy", "random"], games=6, players=3, seed=4)
    assert out.read_text() == results_text(run.results, "csv")
    assert len(list(records.glob("*.json"))) == 6
    jsonl = tmp_path / "games.jsonl"
    assert simulate("-n", "6", "--players", "3", "--agents", "greedy,random", "--seed", "4", "--jobs", "2",
                    "--out", str(jsonl)) == 0  # fmt: skip
    assert jsonl.read_text() == results_text(run.results, "jsonl")


def test_simulate_refuses_bad_agents(capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate("-n", "2", "--agents", "greedy,clever", "--no-progress") == 2
    assert "unknown agent 'clever'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        simulate("-n", "2", "--players", "5")


def test_results_files_stream_whole_lines_and_resume(tmp_path: Path) -> None:
    run = run_tournament(["greedy", "random"], games=5, players=3, seed=2)
    for name in ("r.csv", "r.jsonl"):
        path = tmp_path / name
        with ResultsFile(path) as file:
            for result in run.results[:3]:
                file.write(result)
                # each write is on disk at once, as whole lines
                assert path.read_text().endswith("\n")
        full = results_text(run.results[:3], format_for(path))
        assert path.read_text() == full
        # a crash in the middle of a line: resuming drops the broken line and appends
        path.write_text(full + results_text(run.results[3:4], format_for(path)).splitlines()[-1][:7])
        with ResultsFile(path, resume=True) as file:
            assert file.done == list(run.results[:3])
            for result in run.results[3:]:
                file.write(result)
        assert path.read_text() == results_text(run.results, format_for(path))
        with path.open() as stream:
            assert read_results(stream, format_for(path)) == list(run.results)
    with pytest.raises(meuterer.FormatError):
        read_results(io.StringIO("{}\n"))


def test_atomic_writes_leave_the_old_file_or_the_new_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.json"
    write_text_atomic(path, "old")
    assert path.read_text() == "old"

    def broken(src: str, dst: str) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr("os.replace", broken)
    with pytest.raises(OSError, match="disk gone"):
        write_text_atomic(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]  # no temporary file left


def test_a_resumed_tournament_gives_the_uninterrupted_results() -> None:
    whole = run_tournament(["greedy", "random"], games=8, players=3, seed=6)
    seen: list[GameResult] = []
    part = run_tournament(
        ["greedy", "random"], games=8, players=3, seed=6, done=whole.results[2:5], on_result=seen.append
    )
    assert part.results == whole.results
    assert sorted(r.index for r in seen) == [0, 1, 5, 6, 7]  # only the missing games were played
    with pytest.raises(SetupError, match="not game 2 of this run"):
        run_tournament(["greedy", "random"], games=8, players=3, seed=7, done=whole.results[2:3])
    with pytest.raises(SetupError, match="not game 2 of this run"):
        run_tournament(["random", "greedy"], games=8, players=3, seed=6, done=whole.results[2:3])


def test_simulate_resume_completes_an_interrupted_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    argv = ["-n", "9", "--players", "3", "--agents", "greedy,random", "--seed", "5", "--out", str(out), "--no-progress"]
    whole = run_tournament(["greedy", "random"], games=9, players=3, seed=5)
    out.write_text(results_text(whole.results[:4]) + '{"game": 4, "se')  # killed while writing game 4
    assert simulate(*argv, "--resume") == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "Resumed: 4 games were already in" in said and "Time (5 games played now): " in said
    assert out.read_text() == results_text(whole.results)
    assert simulate("-n", "3", "--resume", "--no-progress") == 2
    assert "--resume needs --out" in capsys.readouterr().err


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_simulate_stops_cleanly_on_ctrl_c_and_resumes(tmp_path: Path, jobs: str) -> None:
    # The run is far too long to end by itself while the test waits (issue 21: with 120
    # games it sometimes finished before the signal came, and exited 0): only Ctrl-C ends it.
    out = tmp_path / "games.csv"
    records = tmp_path / "records"
    common = ["--agents", "greedy", "--seed", "3", "--jobs", jobs, "--out", str(out), "--records", str(records)]
    argv = [sys.executable, "-m", "meuterer", "simulate", *common, "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(Path(meuterer.__file__).parents[1])}
    process = subprocess.Popen(
        [*argv, "-n", "1000000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    deadline = time.monotonic() + 120
    while _lines(out) < 4 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=240)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    said = " ".join(stdout.split())
    assert "Interrupted: " in said and "To finish the run: the same command with --resume" in said, said[-400:]
    text = out.read_text()
    assert text.endswith("\n")
    with out.open() as stream:
        kept = read_results(stream, "csv")
    assert len(kept) >= 3
    assert all(meuterer.verify(records / f"game-{r.index:06d}.json").ok for r in kept)
    assert not list(records.glob(".*"))  # no temporary record left behind
    # Resuming (to a few games past the last one kept) plays the rest; the rows are those
    # of an uninterrupted run.
    games = max(r.index for r in kept) + 3
    done = subprocess.run([*argv, "-n", str(games), "--resume"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    whole = run_tournament(["greedy"], games=games, players=4, seed=3)
    with out.open() as stream:
        assert sorted(read_results(stream, "csv"), key=lambda r: r.index) == list(whole.results)


_WHOLE = run_tournament(["greedy", "random"], games=7, players=3, seed=11)


@settings(max_examples=15, deadline=None)
@given(done=st.sets(st.integers(0, 6)), jobs=st.sampled_from([1, 2]))
def test_resuming_from_any_finished_games_gives_the_same_run(done: set[int], jobs: int) -> None:
    known = [result for result in _WHOLE.results if result.index in done]
    seen: list[GameResult] = []
    run = run_tournament(
        ["greedy", "random"], games=7, players=3, seed=11, jobs=jobs, done=known, on_result=seen.append
    )
    assert run.results == _WHOLE.results
    assert sorted(result.index for result in seen) == sorted(set(range(7)) - done)


@pytest.mark.parametrize("index", range(6))
def test_tournament_games_run_on_the_fast_engine_with_the_reference_results(index: int) -> None:
    from meuterer.agents import Move
    from meuterer.tournament import game_seed, play_game_result, seating

    specs = ("greedy", "random", "greedy", "random")
    result, history = play_game_result(specs, index, seed=21)
    agents = [make_agent(spec) for spec in seating(specs, index, True)]
    moves, mutineers, won = [0] * 4, [0] * 4, [0] * 4

    def count(move: Move) -> None:
        if move.seconds is not None:
            moves[move.action.player] += 1
        if move.before.mutiny is None and move.after.mutiny is not None:
            leader = move.after.roles.index(Role.MUTINEER)
            mutineers[leader] += 1
            won[leader] += int(move.after.mutiny)

    actions, final = play_game(agents, game_seed(21, index), 0, hook=count)
    assert history == actions and result.scores == final.scores
    assert (list(result.moves), list(result.mutineers), list(result.mutinies_won)) == (moves, mutineers, won)
    assert len(result.think) == 4 and all(seconds >= 0 for seconds in result.think)
