"""The command line and the round-by-round account."""

from __future__ import annotations

import pytest

import meuterer
from meuterer.__main__ import main
from meuterer.narrate import narrate


def test_random_game_prints_every_round_and_the_final_scores(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["random-game", "--seed", "7", "--players", "3"]) == 0
    out = capsys.readouterr().out
    for n in range(1, 10):
        assert f"Round {n} — captain p" in out
    assert "Round 10" not in out
    _, final = meuterer.random_game(seed=7, players=3)
    best = meuterer.winners(final)
    assert f"with {final.scores[best[0]]} points" in out.splitlines()[-1]


def test_the_account_follows_the_game() -> None:
    actions, final = meuterer.random_game(seed=9, players=4)
    lines = narrate(actions, players=4)
    score_lines = [line for line in lines if line.startswith("  Scores:")]
    assert len(score_lines) == 8
    assert score_lines[-1] == "  Scores: " + "  ".join(f"p{p} {s}" for p, s in enumerate(final.scores))


def test_bad_arguments_exit_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["random-game", "--players", "5"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_bench_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--games", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("3 players, 2 games: games/s") and out[2].startswith("4 players")
    assert "view µs" in out[3] and "verify ms/record" in out[3]
