"""``meuterer play``, driven end to end with scripted answers on its standard input."""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import signal
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any, TextIO, cast

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rich.console import Console

import meuterer
from meuterer import Role
from meuterer.agents.registry import AgentSpecError, make_agent
from meuterer.cli.play import make_bots, play, register
from meuterer.cli.play.saving import Secret, read_secret

CARD = r"(ruby|salt|wine|cloth|grain|support|pirate)"
ROLE = r"(mutineer|cabin.boy|mate|merchant|loadmaster)"


def _console(out: io.StringIO) -> Console:
    return Console(file=out, width=110, no_color=True, emoji=False, highlight=False)


def _play(answers: str, tmp_path: Path, **options: Any) -> tuple[int, str, Path]:
    """Play with ``answers`` on the input; returns the status, everything shown, the record path."""
    out = io.StringIO()
    record = tmp_path / "game.json"
    options.setdefault("bots", "random")
    options.setdefault("seed", 3)
    status = play(stdin=io.StringIO(answers), console=_console(out), record=record, **options)
    return status, out.getvalue(), record


def _finished(record: Path) -> meuterer.Game:
    report = meuterer.verify(record)
    assert report.ok, str(report)
    game = meuterer.Game.from_record(meuterer.read_record(record))
    assert meuterer.is_terminal(game.state)
    return game


def _rounds(out: str) -> list[str]:
    return re.split(r"─+ Round \d+ of \d+", out)[1:]


def _assert_nothing_hidden_shown(out: str, me: int, players: int) -> None:
    """No other player's draws, hand or role before the reveal appears in ``out``."""
    others = "".join(str(p) for p in range(players) if p != me)
    # another player's draw never names the card
    assert re.search(rf"^p[{others}] draws? .*{CARD}", out, re.MULTILINE) is None
    assert re.search(rf"^p[{others}] draws (a card|\d+ cards)$", out, re.MULTILINE)
    # the players' table shows the others' hands as a number of cards
    rows = re.findall(rf"^ p([{others}])\s+random\s+-?\d+\s+(\S+)", out, re.MULTILINE)
    assert rows
    assert all(hand.isdigit() for _, hand in rows)
    # before the reveal, no line tells another player's role (the offer to "a mate" aside)
    for part in _rounds(out):
        secret = part.split("Everyone has passed")[0]
        for line in secret.splitlines():
            if re.match(rf"^ ?p[{others}]\b", line) and "offers" not in line:
                assert re.search(rf"\b{ROLE}\b", line) is None, line
    # the others' roles, once taken, show as '?' until the reveal
    assert re.search(rf"^ p[{others}] .* \?\s+passed", out, re.MULTILINE)


def test_a_whole_game_answering_1(tmp_path: Path) -> None:
    status, out, record = _play("1\n" * 500, tmp_path, players=4, seat=0, seed=3)
    assert status == 0
    # the table, the legal moves numbered, the prompt
    assert "Islands, clockwise from the merchant ship" in out
    assert "merchant ship, active" in out
    assert "1   p0 offer 0   offer 0 VP: a mate would score 1 if you keep the ship" in out
    assert re.search(r"^\d+\s+p0 pass\s+lay your \d cards? face down: your destination is \+\d", out, re.MULTILINE)
    assert "Your move (1-4, a move, help, why, undo, board, quit): 1" in out
    assert re.search(r"^Your hand: \S.*face down: .* role: captain", out, re.MULTILINE)
    # every bot action in words
    assert re.search(rf"^p[123] plays (a|the) {CARD}", out, re.MULTILINE)
    assert re.search(r"^p[123] passes with \d cards? face down and takes a role$", out, re.MULTILINE)
    assert re.search(r"^p[123] declares: (nothing|\d \w+ on \w+)", out, re.MULTILINE)
    assert re.search(r"^p[123] (adds no support|turns \d support card)", out, re.MULTILINE)
    assert re.search(rf"^Everyone has passed\. Roles: p\d {ROLE}", out, re.MULTILINE)
    assert "You draw " in out
    assert len(_rounds(out)) == 8
    # the end: final scores, winners, the record
    game = _finished(record)
    final = game.state
    assert "Final scores" in out
    for seat, score in enumerate(final.scores):
        assert re.search(rf"^\s+p{seat}\s+(you|random)\s+{score}\b", out, re.MULTILINE)
    best = meuterer.winners(final)
    verdict = out.split("Final scores")[1]
    assert ("You win!" in verdict) == (best == (0,))
    assert f"saved to {record} (verified)" in " ".join(out.split())
    assert meuterer.read_record(record).players == ("human", "random", "random", "random")
    _assert_nothing_hidden_shown(out, 0, 4)


class _Chooser:
    """A player who reads the moves on the screen and answers with a random one, by its
    number, its full text or its text without the seat."""

    def __init__(self, screen: io.StringIO, seed: int) -> None:
        self.screen = screen
        self.rng = random.Random(seed)
        self.answers: list[str] = []

    def readline(self) -> str:
        shown = self.screen.getvalue().split("Your moves")[-1]
        moves: list[tuple[str, str]] = re.findall(r"^(\d+)\s+(p\d(?: \S+)+?)\s{2,}", shown, re.MULTILINE)
        number, text = self.rng.choice(moves)
        answer = self.rng.choice([number, text, text.split(" ", 1)[1], f"  {text.upper()} "])
        self.answers.append(answer)
        return answer + "\n"


@pytest.mark.parametrize(("players", "seat", "pirates"), [(3, 1, True), (4, 2, False)])
def test_a_whole_game_answered_by_numbers_and_texts(tmp_path: Path, players: int, seat: int, pirates: bool) -> None:
    out = io.StringIO()
    chooser = _Chooser(out, seed=players)
    record = tmp_path / "game.json"
    stdin = cast(TextIO, chooser)
    status = play(players, seat, "random", seed=8, pirates=pirates, record=record, stdin=stdin, console=_console(out))
    text = out.getvalue()
    assert status == 0, text[-2000:]
    assert "is not a legal move" not in text
    assert "neither a move nor a command" not in text
    assert any(not answer.isdigit() for answer in chooser.answers)
    assert any(answer.isdigit() for answer in chooser.answers)
    game = _finished(record)
    assert game.rules.pirates is pirates
    assert len(_rounds(text)) == (9 if players == 3 else 8)
    _assert_nothing_hidden_shown(text, seat, players)
    if pirates:
        assert "pirate ship" in text


def test_help_invalid_input_and_undo(tmp_path: Path) -> None:
    script = [
        "undo",  # nothing to undo yet
        "help",
        "banana",
        "0",
        "9",
        "p0 offer 9",
        "p1 pass",
        "offer 2",
        "undo",  # back to the offer
        "p0 offer 1",
        "board",
        "pass",  # the captain passes with his five cards
    ]
    status, out, record = _play("\n".join(script) + "\n" + "1\n" * 400, tmp_path, players=4, seat=0, seed=5)
    assert status == 0
    assert "Nothing to undo: you have not decided anything yet." in out
    assert "Commands:" in out
    assert "Phase 1, the captain's offer" in out
    assert "Sorry, 'banana' is neither a move nor a command." in out
    assert "There is no move 0: choose a number from 1 to 4." in out
    assert "There is no move 9: choose a number from 1 to 4." in out
    assert "'p0 offer 9' is not a legal move now: the offer is a number from 0 to 3, not 9." in out
    assert "'p1 pass' is not a legal move now: p0 may act only for p0, not for p1." in out
    assert "You offer 2 VP to a mate" in out
    assert "Undone: your move 'p0 offer 2'" in out
    assert "You offer 1 VP to a mate" in out
    assert "You pass with 5 cards face down: the captain's destination is +5 affeninsel (ship value 2)" in out
    game = _finished(record)
    moves = [str(action) for action in game.actions]
    assert "p0 offer 1" in moves
    assert "p0 offer 2" not in moves
    assert moves[moves.index("p0 offer 1") + 1] == "p0 pass"


def test_undo_takes_back_the_bots_moves_and_eof_quits(tmp_path: Path) -> None:
    # p2 decides after p0's offer and play and p1's play; "undo" at his third decision
    # takes back his second move and the bots' moves after it; the same answer then
    # replays the same game, and the end of input leaves it cleanly.
    status, out, record = _play("1\n1\nundo\n1\n", tmp_path, players=4, seat=2, seed=6)
    assert status == 0
    undone = re.search(r"Undone: your move '(p2 play \w+)' and the (\d+) actions? after it", out)
    assert undone is not None
    before, after = out.split("Undone:")
    mine = f"You play a {undone.group(1).split()[-1]}"
    bots = [line for line in before.split(mine)[-1].splitlines() if re.match(r"p[013] ", line)]
    assert len(bots) >= int(undone.group(2)) >= 1
    again = [line for line in after.split(mine)[1].splitlines() if re.match(r"p[013] ", line)]
    assert again == bots
    assert "End of input: leaving the game." in out
    assert out.rstrip().endswith("shows it.")
    report = meuterer.verify(record)
    assert report.ok
    assert report.final is not None
    assert not meuterer.is_terminal(report.final)
    (tmp_path / "straight").mkdir()
    _, _, straight = _play("1\n1\n", tmp_path / "straight", players=4, seat=2, seed=6)
    assert meuterer.read_record(straight).actions == meuterer.read_record(record).actions


def test_quit(tmp_path: Path) -> None:
    status, out, record = _play("quit\n", tmp_path, players=3, seat=0, seed=2)
    assert status == 0
    assert "You leave the game." in out
    assert "The unfinished game" in out
    assert meuterer.verify(record).ok


def test_after_an_undo_the_same_answers_give_the_same_game(tmp_path: Path) -> None:
    # The cards and the bots' moves depend on the seed and the step only, so undoing
    # cannot fish for better cards.
    records = []
    for name, answers in (("a", "1\n1\n1\nquit\n"), ("b", "2\nundo\n1\n1\n1\nquit\n")):
        record = tmp_path / f"{name}.json"
        out = io.StringIO()
        assert play(4, 0, "random", seed=9, record=record, stdin=io.StringIO(answers), console=_console(out)) == 0
        records.append(meuterer.read_record(record).actions)
    assert records[0] == records[1]
    assert "p0 offer 0" in map(str, records[0])


def test_bots() -> None:
    assert make_agent("random", seed=1).name == "random"
    with pytest.raises(AgentSpecError, match=r"unknown agent 'clever': use random, greedy, ismcts\[:ITERATIONS"):
        make_agent("clever", seed=1)
    with pytest.raises(AgentSpecError, match="random takes no option"):
        make_agent("random:5", seed=1)
    with pytest.raises(AgentSpecError, match=r"names 2 bot\(s\), but 4 players need 3 \(one for each of p0, p1, p3\)"):
        make_bots("random,random", 4, 2, 1)
    bots = make_bots("random", 3, 1, 1)
    assert sorted(bots) == [0, 2]
    assert [name for name, _ in bots.values()] == ["random", "random"]


def test_bots_are_imported_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[dict[str, int]] = []

    class Search:
        name = "ismcts"

        def __init__(self, iterations: int = 100, seed: int | None = None) -> None:
            made.append({"iterations": iterations, "seed": seed or 0})

        def act(self, view: object, legal: Any, rng: random.Random) -> Any:
            return legal[0]

    fake = types.ModuleType("meuterer.agents.ismcts")
    fake.ISMCTSAgent = Search  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "meuterer.agents.ismcts", fake)
    make_agent("ismcts:50", seed=7)
    make_agent("ismcts", seed=8)
    assert made == [{"iterations": 50, "seed": 7}, {"iterations": 100, "seed": 8}]

    monkeypatch.setitem(sys.modules, "meuterer.agents.greedy", None)  # an import of it fails
    with pytest.raises(AgentSpecError, match=r"agent 'greedy' is not available .*use 'random' instead"):
        make_agent("greedy", seed=1)


def test_bad_options(tmp_path: Path) -> None:
    status, out, record = _play("", tmp_path, bots="random,nonsense,random")
    assert status == 2
    assert "unknown agent 'random,nonsense,random'" in out or "unknown agent 'nonsense'" in out
    assert not record.exists()
    status, out, _ = _play("", tmp_path, players=3, seat=3)
    assert status == 2
    assert "--seat is a seat from 0 to 2, not 3" in out


def test_register_and_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="meuterer")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["play", "--players", "3", "--seat", "2", "--bots", "random", "--seed", "4", "--pirates"])
    assert (args.players, args.seat, args.bots, args.seed, args.pirates, args.record) == (3, 2, "random", 4, True, None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert "You are p2; the bots are p0 random, p1 random. Seed 4: it decides every card" in " ".join(out.split())
    assert meuterer.verify(tmp_path / "meuterer-game-4.json").ok
    assert (tmp_path / "meuterer-game-4.json.secret").exists()
    defaults = parser.parse_args(["play"])
    assert (defaults.players, defaults.seat, defaults.bots, defaults.seed) == (4, 0, None, None)


# Nothing lost: saving after every action, signals, no overwriting, resuming ----------------------


class _Watcher:
    """Answers "1" at every prompt after checking the record on disk holds the game so far."""

    def __init__(self, record: Path, screen: io.StringIO) -> None:
        self.record = record
        self.screen = screen
        self.saved: list[int] = []

    def readline(self) -> str:
        report = meuterer.verify(self.record)
        assert report.ok, str(report)
        self.saved.append(len(meuterer.read_record(self.record).actions))
        return "1\n"


def test_the_record_is_saved_after_every_action(tmp_path: Path) -> None:
    out = io.StringIO()
    record = tmp_path / "game.json"
    watcher = _Watcher(record, out)
    assert play(3, 0, "random", seed=4, record=record, stdin=cast(TextIO, watcher), console=_console(out)) == 0
    final = meuterer.read_record(record).actions
    assert watcher.saved == sorted(watcher.saved) and len(set(watcher.saved)) == len(watcher.saved) > 20
    # at every prompt the file held every action up to the human's decision
    game = meuterer.Game.replay(final, players=3)
    for n in watcher.saved:
        assert meuterer.current_player(game.at(n)) == 0
    # no temporary files; the seed beside the record
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "game.json.secret"]


def test_an_existing_record_is_replaced_only_if_the_player_says_so(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    record.write_text("an earlier game")
    status, out, _ = _play("n\nquit\n", tmp_path, players=3, seed=2)
    assert status == 0
    assert f"{record} exists: replace it with this game? [y/N] n" in " ".join(out.split())
    assert record.read_text() == "an earlier game"
    assert meuterer.verify(tmp_path / "game-2.json").ok
    assert "This game is saved to" in out
    status, out, _ = _play("", tmp_path, players=3, seed=2)  # no answer is no
    assert record.read_text() == "an earlier game" and meuterer.verify(tmp_path / "game-3.json").ok
    status, out, _ = _play("y\nquit\n", tmp_path, players=3, seed=2)
    assert status == 0 and meuterer.verify(record).ok


def test_default_record_names_never_overwrite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for answers in ("1\n" * 30 + "quit\n", "quit\n"):
        out = io.StringIO()
        play(4, 0, "random", seed=12, stdin=io.StringIO(answers), console=_console(out))
    first = meuterer.read_record(tmp_path / "meuterer-game-12.json")
    second = meuterer.read_record(tmp_path / "meuterer-game-12-2.json")
    assert len(first.actions) > len(second.actions)


def test_an_unwritable_path_does_not_lose_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spare = tmp_path / "spare"
    spare.mkdir()
    (spare / "game.json").write_text("someone else's game")  # never overwritten either
    monkeypatch.setattr("tempfile.tempdir", str(spare))
    record = tmp_path / "no such folder" / "game.json"
    out = io.StringIO()
    status = play(3, 0, "random", seed=2, record=record, stdin=io.StringIO("1\n1\nquit\n"), console=_console(out))
    text = " ".join(out.getvalue().split())
    assert status == 0
    assert f"Cannot save the record ({record}: No such file or directory): saving it to {spare / 'game-2.json'}" in text
    assert meuterer.verify(spare / "game-2.json").ok
    assert (spare / "game.json").read_text() == "someone else's game"
    # Nowhere to write: the actions are shown, and they are the game.
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "nowhere"))
    out = io.StringIO()
    status = play(3, 0, "random", seed=2, record=record, stdin=io.StringIO("1\n1\nquit\n"), console=_console(out))
    assert status == 1
    shown = out.getvalue().split("Its actions, to replay with Game.replay:")[1]
    actions = re.findall(r"'([^']+)'", shown)
    assert meuterer.Game.replay(actions, players=3).actions == meuterer.read_record(spare / "game-2.json").actions


def test_a_saved_game_resumes_where_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    out = io.StringIO()
    assert (
        play(4, 2, "greedy,random,ismcts:3", seed=6, stdin=io.StringIO("1\n1\n1\nquit\n"), console=_console(out)) == 0
    )
    saved = tmp_path / "a" / "meuterer-game-6.json"
    assert f"'meuterer play --resume {saved.name}' goes on with it" in " ".join(out.getvalue().split())
    stopped = meuterer.read_record(saved)
    assert stopped.players == ("greedy", "random", "human", "ismcts:3")
    out = io.StringIO()
    assert play(resume=saved.name, stdin=io.StringIO("1\n" * 500), console=_console(out)) == 0
    text = out.getvalue()
    assert f"Resuming the saved game after {len(stopped.actions)} actions." in text
    assert "exists: replace it" not in text  # resuming goes on in the same file
    resumed = _finished(saved)
    assert resumed.actions[: len(stopped.actions)] == stopped.actions
    # the same game as played without a stop
    monkeypatch.chdir(tmp_path / "b")
    assert (
        play(4, 2, "greedy,random,ismcts:3", seed=6, stdin=io.StringIO("1\n" * 500), console=_console(io.StringIO()))
        == 0
    )
    assert meuterer.read_record(tmp_path / "b" / "meuterer-game-6.json").actions == resumed.actions
    # what cannot be resumed
    out = io.StringIO()
    assert play(resume=tmp_path / "nothing.json", console=_console(out)) == 2
    assert "cannot resume" in out.getvalue()
    (tmp_path / "bots.json").write_text(meuterer.write_record(meuterer.Game.replay(stopped.actions, 4)))
    out = io.StringIO()
    assert play(resume=tmp_path / "bots.json", console=_console(out)) == 2
    assert "no single seat named 'human'" in " ".join(out.getvalue().split())


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_closing_the_terminal_saves_the_game(tmp_path: Path, signame: str) -> None:
    record = tmp_path / "game.json"
    argv = [sys.executable, "-m", "meuterer", "play", "--players", "3", "--bots", "random", "--seed", "5",
            "--record", str(record)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(meuterer.__file__).parents[1])}
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdin is not None
    process.stdin.write(b"1\n1\n")
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not record.exists() or len(meuterer.read_record(record).actions) < 20):
        time.sleep(0.05)
    time.sleep(0.3)  # waiting for the third answer
    process.send_signal(getattr(signal, signame))
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + getattr(signal, signame), stderr
    assert b"Traceback" not in stderr
    report = meuterer.verify(record)
    assert report.ok and report.final is not None and not meuterer.is_terminal(report.final)
    assert (
        sum(1 for a in meuterer.read_record(record).actions if a.player == 0 and not isinstance(a, meuterer.Draw)) >= 2
    )


class _Keyboard:
    """A terminal whose user presses Ctrl-C at the first prompt."""

    def isatty(self) -> bool:
        return True

    def readline(self, *args: object) -> str:
        raise KeyboardInterrupt

    def fileno(self) -> int:
        raise OSError("not a real terminal")


def test_ctrl_c_is_not_the_end_of_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Keyboard())
    monkeypatch.setattr("builtins.input", lambda prompt="": sys.stdin.readline())
    out = io.StringIO()
    record = tmp_path / "game.json"
    status = play(3, 0, "random", seed=2, record=record, console=_console(out))
    text = out.getvalue()
    assert status == 130
    assert "Interrupted: leaving the game." in text
    assert "End of input" not in text
    assert meuterer.verify(record).ok


# The terminal game never misstates the game (issue 14 §4) ----------------------------------------


class _Asker:
    """Answers "why" before every third decision, else "1"; keeps count."""

    def __init__(self) -> None:
        self.count = 0

    def readline(self) -> str:
        self.count += 1
        return "why\n" if self.count % 3 == 0 else "1\n"


def _scripted(tmp_path: Path, seed: int, seat: int = 0) -> tuple[str, meuterer.Game]:
    out = io.StringIO()
    record = tmp_path / f"game-{seed}.json"
    stdin = cast(TextIO, _Asker())
    console = Console(file=out, width=250, no_color=True, emoji=False, highlight=False)
    assert play(4, seat, "greedy", seed=seed, record=record, stdin=stdin, console=console) == 0
    return out.getvalue(), _finished(record)


def _mutinies(game: meuterer.Game) -> list[tuple[int, meuterer.State, meuterer.State]]:
    """(step, before, after) of each mutiny's resolution."""
    states = game.states
    return [
        (k, states[k], states[k + 1])
        for k in range(len(game))
        if states[k].mutiny is None and states[k + 1].mutiny is not None
    ]


def _sides(before: meuterer.State, after: meuterer.State) -> tuple[int, int]:
    """The mutineer's and the captain's side when the mutiny was decided, from the cards."""
    support = meuterer.Card.SUPPORT
    captain = after.face_up[before.captain][support]
    mutineer = 0
    for p, role in enumerate(after.roles):
        if role is Role.MATE:
            captain += after.face_up[p][support] + 1
        elif role in (Role.MUTINEER, Role.CABIN_BOY):
            mutineer += after.face_up[p][support]
    return mutineer, captain


@pytest.mark.parametrize("seed", [2, 3])
def test_the_mutiny_is_told_as_it_was(tmp_path: Path, seed: int) -> None:
    out, game = _scripted(tmp_path, seed)
    told = re.findall(
        r"^The mutiny (succeeds|fails): the mutineer's side (\d+), the captain's side (\d+)\.$", out, re.M
    )
    truth = []
    for _, before, after in _mutinies(game):
        mutineer, captain = _sides(before, after)
        assert after.mutiny == (mutineer >= captain)
        truth.append(("succeeds" if after.mutiny else "fails", str(mutineer), str(captain)))
    assert told == truth
    assert any(outcome == "succeeds" for outcome, _, _ in truth)
    assert any(any(r is Role.MATE for r in after.roles) and after.mutiny for _, _, after in _mutinies(game))


def test_after_a_mutiny_the_board_names_the_real_captain(tmp_path: Path) -> None:
    out, game = _scripted(tmp_path, 2)
    segments = re.split(r"^The mutiny (?:succeeds|fails): .*$", out, flags=re.M)[1:]
    checked = 0
    for (_, before, after), segment in zip(_mutinies(game), segments, strict=True):
        segment = re.split(r"─+ (?:Round \d+ of \d+|Game over)", segment)[0]
        if not after.mutiny or "Your moves" not in segment:
            continue
        board = " ".join(segment.split())
        deposed, new = before.captain, after.captain
        assert f"Captain p{deposed} offers" not in board and f"Captain p{new} offers" not in board
        assert (
            f"p{deposed} offered {before.offer} VP to a mate as captain; the mutiny deposed him, "
            f"and p{new} holds the captain cards now."
        ) in board
        assert before.captain_destination is not None and after.mutineer_destination is not None
        assert (
            f"The deposed captain p{deposed}'s destination: {before.island_name(before.captain_destination)}." in board
        )
        sails = after.island_name(after.mutineer_destination)
        assert f"The mutineer's destination: {sails} (the ship sails there)." in board
        assert re.search(rf"^ p{deposed} .* captain \(deposed\)", segment, re.M)
        assert re.search(rf"^ p{new} .* mutineer, now captain", segment, re.M)
        assert "role: none yet" not in segment or deposed != 0
        checked += 1
    assert checked >= 1


def _told_draws(out: str, me: int = 0) -> list[tuple[int, int] | str]:
    told: list[tuple[int, int] | str] = []
    for line in out.splitlines():
        if line.startswith("The deck is empty"):
            told.append("reshuffle")
        elif found := re.match(r"^p(\d) draws (a card|(\d+) cards)$", line):
            told.append((int(found.group(1)), int(found.group(3) or 1)))
        elif line.startswith("You draw "):
            told.append((me, len(line[len("You draw ") :].split(", "))))
    return told


def _recorded_draws(game: meuterer.Game) -> list[tuple[int, int] | str]:
    recorded: list[tuple[int, int] | str] = []
    group: list[int] | None = None
    for k, action in enumerate(game.actions):
        if not isinstance(action, meuterer.Draw):
            group = None
            continue
        if sum(game.states[k].deck) == 0:  # the discard pile becomes the deck before this draw
            recorded.append("reshuffle")
            group = None
        if group is not None and group[0] == action.player:
            group[1] += 1
            recorded[-1] = (group[0], group[1])
        else:
            group = [action.player, 1]
            recorded.append((action.player, 1))
    return recorded


@pytest.mark.parametrize("seed", [2, 4])
def test_draws_are_told_in_the_records_order_around_a_reshuffle(tmp_path: Path, seed: int) -> None:
    out, game = _scripted(tmp_path, seed)
    recorded = _recorded_draws(game)
    assert "reshuffle" in recorded[20:]  # the deal aside, the deck ran out at least once
    assert _told_draws(out) == recorded


def test_why_shows_the_bots_reasons_without_their_secrets(tmp_path: Path) -> None:
    out, game = _scripted(tmp_path, 2)
    assert "Your move (1-4, a move, help, why, undo, board, quit): why" in out
    playing, end = out.split("Game over")
    # during the game: the bots' moves, no reason (reasons draw on the bots' cards)
    assert "The bots' reasons draw on cards you cannot see: they are told when the game is over." in playing
    assert re.search(r"^p[123] (offer|play|pass|role|support|sell|discard)\b[^:\n]*: ", playing, re.M) is None
    for part in _rounds(playing):  # a role taken is not shown before the reveal
        secret = part.split("Everyone has passed")[0]
        assert re.search(rf"^p[123] role {ROLE}", secret, re.M) is None
    assert re.search(r"^p[123] takes a role$", playing, re.M)
    _assert_nothing_hidden_shown(playing.replace("greedy", "random"), 0, 4)
    # at the end: the reasons of the moves asked about
    assert "The bots' reasons for the moves you asked about:" in end
    shown = re.findall(r"^(p[123] [a-z]+(?: [^\s:]+)*): (.+)$", end, re.M)
    moves = {str(a) for a in game.actions}
    told = {move for move, _ in shown if move in moves}
    assert any(" play " in move for move in told) and any(" offer " in move for move in told)
    assert any(" role " in move for move in told)
    assert re.search(r"^p[123] play \w+: plays \w+ toward a majority on ", end, re.M)
    assert re.search(r"^p[123] offer \d: offers \d: the likelier a mutiny", end, re.M)


@settings(
    max_examples=8,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # a whole game each: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.integers(0, 10**6),
    players=st.sampled_from([3, 4]),
    seat=st.integers(0, 3),
    pirates=st.booleans(),
)
def test_any_game_is_told_as_recorded(tmp_path: Path, seed: int, players: int, seat: int, pirates: bool) -> None:
    """Whatever the game: the mutinies' sides and outcomes and the draws around reshuffles
    are told as the record has them."""
    seat %= players
    out = io.StringIO()
    record = tmp_path / f"any-{seed}-{players}-{seat}-{pirates}.json"
    console = Console(file=out, width=250, no_color=True, emoji=False, highlight=False)
    answers = io.StringIO("1\n" * 600)
    assert play(players, seat, "random", seed=seed, pirates=pirates, record=record, stdin=answers, console=console) == 0
    text, game = out.getvalue(), _finished(record)
    pattern = r"^The mutiny (succeeds|fails): the mutineer's side (\d+), the captain's side (\d+)\.$"
    truth = [
        ("succeeds" if after.mutiny else "fails", *map(str, _sides(before, after)))
        for _, before, after in _mutinies(game)
    ]
    assert re.findall(pattern, text, re.M) == truth
    assert _told_draws(text, seat) == _recorded_draws(game)


# Issue 19: nothing shown during a game rebuilds a hidden card; resuming goes on as the game would -----


def _secrets(monkeypatch: pytest.MonkeyPatch, *numbers: int) -> None:
    """The secret seeds ``play`` draws, in turn (the last one repeated)."""
    given = list(numbers)

    def draw() -> int:
        return given.pop(0) if len(given) > 1 else given[0]

    monkeypatch.setattr("meuterer.cli.play.saving.new_secret_number", draw)


_SECRET = '{"format": {"name": "meuterer-play-secret", "version": 1}, "seed": 1, "draws": 2, "shown": true}'
_K1 = 0x5EC2E7_0000_1111_2222_3333_4444_5555
_K2 = 0x5EC2E7_6666_7777_8888_9999_AAAA_BBBB


def test_without_a_seed_the_cards_come_from_a_secret_shown_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 19.1: the printed seed (below 1,000,000) decided every card
    _secrets(monkeypatch, _K1)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert play(3, 0, "random", stdin=io.StringIO("1\n" * 600), console=_console(out)) == 0
    text = " ".join(out.getvalue().split())
    playing, end = text.split("Game over")
    assert "The cards and the bots draw from a secret seed, shown when the game is over." in playing
    assert str(_K1) not in playing and "Seed" not in playing
    assert f"The cards came from the secret seed {_K1}: 'meuterer play --seed {_K1}'" in end
    (saved,) = tmp_path.glob("*.json")
    assert re.fullmatch(r"meuterer-game-\d{8}T\d{6}\.json", saved.name)  # the name tells nothing
    # the secret shown at the end is the game's: --seed replays it
    assert play(3, 0, "random", seed=_K1, stdin=io.StringIO("1\n" * 600), console=_console(io.StringIO())) == 0
    assert meuterer.read_record(tmp_path / f"meuterer-game-{_K1}.json").actions == _finished(saved).actions


def _split_between(game: meuterer.Game, first: int, then: int) -> int:
    """The step from which the draws of ``game`` come from the seed ``then`` instead of
    ``first`` (asserting there is one, and that both seeds drew a card the other would not)."""
    states = game.states
    fits: list[tuple[int, bool, bool]] = []
    for n, action in enumerate(game.actions):
        if meuterer.is_chance_node(states[n]):
            by = [meuterer.sample_chance(states[n], random.Random(f"{k}/{n}/chance")) for k in (first, then)]
            fits.append((n, by[0] == action, by[1] == action))
    splits = [
        s
        for s in range(len(game) + 1)
        if all(one for n, one, _ in fits if n < s) and all(two for n, _, two in fits if n >= s)
    ]
    assert splits
    assert any(one and not two for _, one, two in fits) and any(two and not one for _, one, two in fits)
    return splits[0]


def test_an_undo_in_a_secret_game_redraws_the_cards_to_come(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 19.1: with the same draws after an undo, a player could look at a card to come
    # and take his move back
    _secrets(monkeypatch, _K1, _K2)
    record = tmp_path / "game.json"
    out = io.StringIO()
    answers = "1\n" * 12 + "undo\n" + "1\n" * 600
    assert play(3, 0, "random", record=record, stdin=io.StringIO(answers), console=_console(out)) == 0
    game = _finished(record)
    split = _split_between(game, _K1, _K2)
    assert split > 0  # the deal came from the first secret, every draw after the undo from the new one
    assert f"The cards came from the secret seed {_K1}; after undos, from the secret seeds {_K2}." in " ".join(
        out.getvalue().split()
    )


def test_a_resumed_game_goes_on_as_it_would_have(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 19.13: resuming picked a new seed, so the game after it differed
    first, then = "1\n" * 8 + "undo\n" + "1\n" * 8, "1\n" * 600
    _secrets(monkeypatch, _K1, _K2)
    stopped = tmp_path / "stopped.json"
    console = _console(io.StringIO())
    assert play(3, 1, "greedy,random", record=stopped, stdin=io.StringIO(first + "quit\n"), console=console) == 0
    assert not meuterer.is_terminal(meuterer.Game.from_record(meuterer.read_record(stopped)).state)
    _secrets(monkeypatch, 0)  # resuming never draws a new secret
    out = io.StringIO()
    assert play(resume=stopped, stdin=io.StringIO(then), console=_console(out)) == 0
    assert str(_K2) not in out.getvalue().split("Game over")[0]
    _secrets(monkeypatch, _K1, _K2)
    straight = tmp_path / "straight.json"
    assert play(3, 1, "greedy,random", record=straight, stdin=io.StringIO(first + then), console=console) == 0
    assert _finished(stopped).actions == _finished(straight).actions
    # with a chosen seed and a name of one's own too
    for name, answers in (("a.json", ["1\n" * 30 + "quit\n", then]), ("b.json", ["1\n" * 30 + then])):
        assert (
            play(3, 0, "random", seed=77, record=tmp_path / name, stdin=io.StringIO(answers[0]), console=console) == 0
        )
        if len(answers) > 1:
            assert play(resume=tmp_path / name, stdin=io.StringIO(answers[1]), console=console) == 0
    assert _finished(tmp_path / "a.json").actions == _finished(tmp_path / "b.json").actions


def test_resuming_without_the_secret(tmp_path: Path) -> None:
    record, screen = tmp_path / "game.json", io.StringIO()
    assert play(3, 0, "random", record=record, stdin=io.StringIO("1\n" * 20 + "quit\n"), console=_console(screen)) == 0
    assert "goes on with it (with game.json.secret, kept beside it);" in " ".join(screen.getvalue().split())
    secret = tmp_path / "game.json.secret"
    secret.write_text('{"format": {"name": "meuterer-play-secret", "version": 1}, "seed": 1.5}')
    out = io.StringIO()
    assert play(resume=record, stdin=io.StringIO("quit\n"), console=_console(out)) == 2
    assert f"cannot resume {record}" in " ".join(out.getvalue().split())
    secret.unlink()
    out = io.StringIO()
    assert play(resume=record, stdin=io.StringIO("1\n" * 600), console=_console(out)) == 0
    assert f"{secret} is missing: the rest of the game is drawn from a new secret." in " ".join(out.getvalue().split())
    _finished(record)
    out = io.StringIO()
    assert play(seed=10**100, stdin=io.StringIO(""), console=_console(out), save=False) == 2
    assert "--seed is a whole number of at most 100 digits" in out.getvalue()


class _Tattler:
    """A bot whose moves never depend on its cards, but whose reasons tell them."""

    name = "tattler"

    def act(self, view: Any, legal: Any, rng: random.Random) -> Any:
        return self.decide(view, legal, rng).action

    def decide(self, view: Any, legal: Any, rng: random.Random) -> Any:
        from meuterer.agents.base import Decision

        move = next((a for a in legal if isinstance(a, meuterer.actions.Pass)), legal[0])
        return Decision(move, f"I hold {meuterer.cards.counts_str(view.hand)}")


def test_why_tells_nothing_the_player_cannot_see(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 19.2: two states the human cannot tell apart (they differ in a bot's hidden
    # cards only) give the same screen, though the bot's reasons differ
    from meuterer.agents import registry

    monkeypatch.setitem(registry._REGISTRY, "tattler", registry.Entry(_Tattler))
    state, deal = meuterer.new_game(4, 0), list[meuterer.Draw]()
    rng = random.Random(1)
    while meuterer.is_chance_node(state):
        draw = meuterer.sample_chance(state, rng)
        assert isinstance(draw, meuterer.Draw)
        deal.append(draw)
        state = meuterer.apply(state, draw)
    i = next(k for k, a in enumerate(deal) if a.player == 0)
    j = next(k for k, a in enumerate(deal) if a.player == 2 and a.card != deal[i].card)
    swapped = list(deal)
    swapped[i], swapped[j] = meuterer.Draw(0, deal[j].card), meuterer.Draw(2, deal[i].card)
    screens, hands = [], []
    for name, actions in (("a", deal), ("b", swapped)):
        game = meuterer.Game.replay(actions, 4)
        hands.append(game.state.hands[0])
        (tmp_path / name).mkdir()
        record = tmp_path / name / "game.json"
        meuterer.write_record(game, record, names=("tattler", "human", "tattler", "tattler"))
        out = io.StringIO()
        answers = "why\np1 play ruby\np1 play " + str(deal[i].card) + "\np1 support 9\np1 sell none\nquit\n"
        assert play(resume=record, seed=5, stdin=io.StringIO(answers), console=_console(out)) == 0
        screens.append(out.getvalue().replace(str(tmp_path / name), "DIR"))
    assert meuterer.view(meuterer.Game.replay(deal, 4).state, 1) == meuterer.view(
        meuterer.Game.replay(swapped, 4).state, 1
    )
    assert hands[0] != hands[1]  # the bot's reasons differ...
    assert "p0 offer 0" in screens[0] and "p0 pass" in screens[0]
    assert screens[0] == screens[1]  # ...but what the human sees does not


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x" * 2000, "is at most 1000 characters"),
        ("[]", "is not a meuterer-play-secret, version 1"),
        ('{"format": {"name": "meuterer-play-secret", "version": 2}}', "is not a meuterer-play-secret"),
        ('{"format": {"name": "meuterer-play-secret", "version": 1}, "seed": 1}', "expected the keys"),
        (_SECRET.replace('"seed": 1', '"seed": 1.5'), "expected a whole number of at most 100 digits"),
        (_SECRET.replace('"draws": 2', '"draws": ' + "9" * 101), "expected a whole number of at most 100 digits"),
        (_SECRET.replace("true", '"yes"'), "expected true or false"),
        ('{"a": 1, "a": 2}', "appears twice"),
    ],
)
def test_a_malformed_secret_is_refused(tmp_path: Path, text: str, message: str) -> None:
    record = tmp_path / "game.json"
    (tmp_path / "game.json.secret").write_text(text)
    with pytest.raises(meuterer.FormatError, match=message):
        read_secret(record)


def test_an_unreadable_secret_is_refused(tmp_path: Path) -> None:
    (tmp_path / "game.json.secret").mkdir()  # a directory: cannot be read
    with pytest.raises(meuterer.FormatError, match="cannot read"):
        read_secret(tmp_path / "game.json")
    (tmp_path / "bytes.json.secret").write_bytes(b"\xff\xfe")
    with pytest.raises(meuterer.FormatError, match="cannot read"):
        read_secret(tmp_path / "bytes.json")
    (tmp_path / "good.json.secret").write_text(_SECRET)
    assert read_secret(tmp_path / "good.json") == Secret(1, 2, True)
    assert Secret(1, 2, True).redrawn() == Secret(1, 2, True)  # a chosen seed stays after an undo
