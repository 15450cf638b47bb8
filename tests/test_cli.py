"""The command line and the round-by-round account."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

import meuterer
from meuterer.__main__ import build_parser, main
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


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(meuterer.__file__).parents[1])}


def test_a_closed_pipe_ends_quietly() -> None:
    # random-game | head -0: the reader has gone before the first line is written (its end
    # of the pipe is closed before the command starts, so the outcome does not race).
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        process = subprocess.run(
            [sys.executable, "-m", "meuterer", "random-game", "--actions"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=_env(),
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert process.returncode == 141
    assert process.stderr == b""


def test_ctrl_c_ends_without_a_traceback(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("meuterer.cli.main.random_game", interrupted)
    assert main(["random-game"]) == 130
    assert capsys.readouterr().err == "\nmeuterer: interrupted\n"


def test_every_subcommand_has_a_description() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        assert sub.description and len(sub.description) > 40, name


def test_verify_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actions, _ = meuterer.random_game(seed=2, players=3)
    good = tmp_path / "good.json"
    meuterer.write_record(meuterer.Game.replay(actions, players=3), good)
    bad = tmp_path / "bad.json"
    bad.write_text(good.read_text().replace('"p0 offer', '"p1 offer', 1))
    assert main(["verify", str(good)]) == 0
    assert main(["verify", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{good}: ok" in out or f"{good}: valid" in out.lower() or out.count(str(good)) == 2
    assert main(["replay", str(good), "--step", "3"]) == 0
    shown = capsys.readouterr().out
    assert "[1] " in shown and "[3] " in shown and "[0] " not in shown and "[4] " not in shown
    assert main(["replay", str(tmp_path / "missing.json")]) == 1
    assert "missing.json" in capsys.readouterr().err


def test_replay_writes_an_html_page_from_any_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actions, _ = meuterer.random_game(seed=2, players=3)
    record = tmp_path / "game.json"
    meuterer.write_record(meuterer.Game.replay(actions[:60], players=3), record)
    page = tmp_path / "game.html"
    assert main(["replay", str(record), "--html", str(page)]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    whole = page.read_text(encoding="utf-8")
    assert whole.startswith("<!DOCTYPE html>") and "http://" not in whole.replace("http://www.w3.org", "")
    assert main(["replay", str(record), "--html", str(page), "--seat", "1"]) == 0
    assert page.read_text(encoding="utf-8") != whole
    assert main(["replay", str(record), "--html", str(page), "--seat", "5"]) == 1
    assert "seat" in capsys.readouterr().err
    assert main(["replay", str(record), "--seat", "1"]) == 2


def test_replay_rejects_a_negative_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", "x.json", "--step", "-3"])
    assert exit_info.value.code == 2
    assert "a number of actions is 0 or more, not -3" in capsys.readouterr().err


def test_the_readme_options_table_is_one_table() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Rules and options")[1].split("\n## ")[0]
    lines = section.splitlines()
    rows = [k for k, line in enumerate(lines) if line.startswith("|")]
    assert rows == list(range(rows[0], rows[0] + len(rows)))  # no blank line splits it
    assert any("`pirates`" in lines[k] for k in rows) and any("`sale_order`" in lines[k] for k in rows)
