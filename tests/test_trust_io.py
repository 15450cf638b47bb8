"""Issue 19, part B: bounded readers, nothing lost on a full disk or a killed run, one
numbering, one meaning for ``str``, and what users tripped on."""

from __future__ import annotations

import argparse
import errno
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

import meuterer
from meuterer import FormatError, Game, Rules
from meuterer.cli.simulate import register
from meuterer.errors import IllegalActionError
from meuterer.record import make_record
from meuterer.redact import dumps_redacted, loads_redacted, redact, replay_views
from meuterer.tournament import ResultsFile, results_text, run_tournament
from meuterer.views import dumps_view, loads_view, view


@cache
def game() -> Game:
    actions, _ = meuterer.random_game(seed=11, players=4)
    return Game.replay(actions, players=4)


# Item 4: a hidden draw where no card is drawn ------------------------------------------------


def shuffled_ring_record(actions: list[str]) -> str:
    data = json.loads(dumps_redacted(redact(make_record(Game.new(4, 0, Rules(ring="shuffled"))), 1)))
    data["actions"] = actions
    return json.dumps(data)


def test_a_hidden_draw_before_the_ring_is_arranged_is_refused_at_once() -> None:
    # Before the fix: a scan of all 11! arrangements (about a minute), then StopIteration.
    record = loads_redacted(shuffled_ring_record(["draw p0 ?"]))
    with pytest.raises(IllegalActionError, match="no hidden draw") as info:
        replay_views(record)
    assert "at action 1 of the redacted record" in str(info.value.__notes__)


# Item 5: views read from outside are checked like states -----------------------------------------


def view_data() -> dict[str, object]:
    data: dict[str, object] = json.loads(dumps_view(view(game().at(40), 2)))
    return data


@pytest.mark.parametrize(
    ("key", "value", "path"),
    [
        ("face_up", "drop", "$.face_up"),
        ("hand", [10**12, 0, 0, 0, 0, 0, 0], "$.hand"),
        ("unseen", [], "$.unseen"),
        ("deck_size", 10**12, "$.deck_size"),
        ("hand_sizes", [-1, 5, 5, 5], "$.hand_sizes"),
        ("players", 9, "$.players"),
        ("player", 7, "$.player"),
        ("deck_size", 3, "$"),
        ("round", 10**6, "$"),
    ],
)
def test_a_forged_view_is_refused_with_a_format_error(key: str, value: object, path: str) -> None:
    data = view_data()
    if value == "drop":
        data[key] = data[key][:-1]  # type: ignore[index]
    else:
        data[key] = value
    with pytest.raises(FormatError) as info:
        loads_view(json.dumps(data))
    assert info.value.path == path


def test_a_view_whose_derived_fields_disagree_is_refused() -> None:
    data = view_data()
    unseen = list(data["unseen"])  # type: ignore[call-overload]
    card = next(i for i, c in enumerate(unseen) if c)
    unseen[card] -= 1
    unseen[(card + 1) % 7] += 1
    data["unseen"] = unseen
    with pytest.raises(FormatError):
        loads_view(json.dumps(data))


def test_every_view_of_real_games_still_reads_back() -> None:
    for rules in (Rules(), Rules(ring="shuffled", pirates=True), Rules(withholding=True, discard_pool="hand")):
        actions, _ = meuterer.random_game(seed=3, players=3, rules=rules)
        for state in Game.replay(actions, players=3, rules=rules).states[::7]:
            for seat in (None, 0, 1, 2):
                v = view(state, seat)
                assert loads_view(dumps_view(v)) == v


def test_loads_view_has_a_size_cap_and_refuses_other_types() -> None:
    with pytest.raises(FormatError, match="at most"):
        loads_view(" " * (meuterer.serialize.MAX_STATE_TEXT + 1))
    with pytest.raises(TypeError):
        loads_view(None)  # type: ignore[arg-type]


# Item 10: workers die with their parent --------------------------------------------------------


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found.update(int(child) for child in task.read_text().split())
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_simulate_workers_die_with_a_killed_parent(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "games.csv"
    argv = [sys.executable, "-m", "meuterer", "simulate", "-n", "1000000", "--agents", "greedy", "--jobs", "2",
            "--seed", "1", "--out", str(out), "--no-progress"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(meuterer.__file__).parents[1])}
    parent = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 120
        while (out.stat().st_size if out.exists() else 0) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = _children(parent.pid)
        assert len(workers) == 2
    finally:
        parent.send_signal(signum)
        parent.wait(timeout=30)
    deadline = time.monotonic() + 20
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # do not leave them running if the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []


# Item 11: a full disk, an unwritable place, an existing file ------------------------------------


def simulate(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="meuterer")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["simulate", *argv])
    status: int = args.run(args)
    return status


RUN = ("-n", "3", "--players", "3", "--agents", "greedy,random", "--seed", "5", "--no-progress")


def test_simulate_never_replaces_results_without_being_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("precious\n")
    assert simulate(*RUN, "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "exists" in err and "--resume" in err and "--force" in err and "Traceback" not in err
    assert out.read_text() == "precious\n"
    assert simulate(*RUN, "--out", str(out), "--force") == 0
    whole = run_tournament(["greedy", "random"], games=3, players=3, seed=5)
    assert out.read_text() == results_text(whole.results)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_simulate_on_a_full_disk_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate(*RUN, "--out", "/dev/full", "--force") == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "No space left on device" in err
    assert err.splitlines()[0].startswith("meuterer simulate: error: cannot write")


def test_simulate_records_in_an_unwritable_place_say_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert simulate(*RUN, "--records", str(blocker / "records")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("meuterer simulate: error: cannot write")


def test_a_failed_results_write_leaves_only_whole_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = run_tournament(["greedy", "random"], games=3, players=3, seed=5)
    path = tmp_path / "games.csv"
    file = ResultsFile(path)
    file.write(whole.results[0])
    real = file._file.write

    def half_then_full(data: bytes) -> int:
        real(bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(file._file, "write", half_then_full, raising=False)
    with pytest.raises(OSError, match="No space"):
        file.write(whole.results[1])
    monkeypatch.undo()
    file.close()
    assert path.read_text() == results_text(whole.results[:1], "csv")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_simulate_out_in_a_read_only_directory_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # pragma: no cover - CI runs as a user, this machine as root
    tmp_path.chmod(0o500)
    try:
        assert simulate(*RUN, "--out", str(tmp_path / "games.csv")) == 2
    finally:
        tmp_path.chmod(0o700)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "cannot use --out" in err


def test_replay_html_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from meuterer.cli.main import main

    record = tmp_path / "game.json"
    meuterer.write_record(Game.replay(game().actions[:30], players=4), record)
    page = tmp_path / "game.html"
    page.write_text("old page")

    def full(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("os.replace", full)
    assert main(["replay", str(record), "--html", str(page)]) == 1
    monkeypatch.undo()
    assert page.read_text() == "old page"
    assert {p.name for p in tmp_path.iterdir()} == {"game.json", "game.html"}  # no temporary file left


def test_write_record_to_a_path_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.json"
    path.write_text("old")

    def full(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("os.replace", full)
    with pytest.raises(FormatError, match="No space left"):
        meuterer.write_record(game(), path)
    monkeypatch.undo()
    assert path.read_text() == "old" and {p.name for p in tmp_path.iterdir()} == {"game.json"}


# Item 12: one numbering --------------------------------------------------------------------------


def test_verify_replay_and_the_page_number_an_action_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from meuterer.cli.main import main
    from meuterer.viewer import replay_html

    data = json.loads(meuterer.write_record(Game.replay(game().actions[:40], players=4)))
    data["actions"][30] = "p0 support 9"
    del data["digests"]
    bad = json.dumps(data)
    finding = meuterer.verify(bad).findings[0]
    number = finding.step + 1  # type: ignore[operator]
    assert str(finding).startswith(f"action {number} ({finding.action})")
    page = replay_html(bad)
    assert f"<span class=n>{number}</span> {finding.action}</li>" in page
    assert f"action {number} ({finding.action})" in page
    path = tmp_path / "bad.json"
    path.write_text(bad)
    assert main(["replay", str(path)]) == 1
    assert f"(at action {number} of the record)" in capsys.readouterr().err
    assert main(["replay", str(path), "--step", str(number - 1)]) == 0
    shown = capsys.readouterr().out
    assert f"[{number - 1}] {data['actions'][number - 2]}" in shown and f"[{number}] " not in shown


# Item 15: one meaning for str ------------------------------------------------------------------


def test_a_str_is_json_text_in_every_reader_and_no_writer_takes_it_for_a_path(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    with pytest.raises(TypeError, match=r"pathlib\.Path"):
        meuterer.write_record(game(), str(path))  # type: ignore[arg-type]
    meuterer.write_record(game(), path)
    for reader in (meuterer.read_record, loads_redacted):
        with pytest.raises(FormatError, match=r"pass pathlib\.Path"):
            reader(str(path))
    assert meuterer.read_record(path) == meuterer.read_record(path.read_text())


# Item 18: a finished run resumed states no speed ----------------------------------------------------


def test_resuming_a_finished_run_states_no_speed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    assert simulate(*RUN, "--out", str(out)) == 0
    capsys.readouterr()
    assert simulate(*RUN, "--out", str(out), "--resume") == 0
    said = capsys.readouterr().out
    assert "games/s" not in said and "no game played now" in said


# Item 18: what reaches the terminal and the page ---------------------------------------------------

HOSTILE_NAME = "Ann\x1b[2J\x1b]0;owned\x07\u202egnp.exe\u2066"


def test_seat_names_reach_the_terminal_and_the_page_without_controls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from meuterer.cli.main import main
    from meuterer.svg import board
    from meuterer.viewer import replay_html

    names = (HOSTILE_NAME, "Bob", "Cy", "Dee")
    record = tmp_path / "game.json"
    meuterer.write_record(Game.replay(game().actions[:20], players=4), record, names=names)
    assert main(["replay", str(record)]) == 0
    out = capsys.readouterr().out
    page = replay_html(record)
    picture = board(game().at(20), names=names)
    for shown in (out, page, picture):
        assert not any(c in shown for c in "\x1b\x07\u202e\u2066")
    assert "Ann\\x1b[2J" in out and "<title>Meuterer: Ann\\x1b[2J" in page


def test_bad_arguments_get_one_line_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    from meuterer.cli.main import main

    assert main(["random-game", "--first-captain", "9"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "first_captain must be a seat from 0 to 3, got 9" in err
    with pytest.raises(SystemExit) as info:
        main(["bench", "--games", "0"])
    assert info.value.code == 2 and "at least 1" in capsys.readouterr().err


def test_the_text_replay_reads_a_redacted_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from meuterer.cli.main import main

    path = tmp_path / "mine.json"
    path.write_text(dumps_redacted(redact(make_record(Game.replay(game().actions[:30], players=4)), 1)))
    assert main(["replay", str(path), "--step", "6"]) == 0
    out = capsys.readouterr().out
    assert "the game as p1 (p1) saw it" in out and "[1] draw p0 ?" in out and "[6] draw p1 " in out
    assert "[7]" not in out and "unknown key" not in out


# Item 7: budgets for long records and huge error texts ------------------------------------------------


def boards_of(page: str) -> list[str]:
    import base64
    import gzip
    import re

    packed = re.search(r'<script type="application/octet-stream" id="boards">([^<]*)</script>', page)
    assert packed is not None
    boards: list[str] = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    return boards


def test_a_long_game_gets_a_board_every_few_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    import meuterer.viewer
    from meuterer.svg import board

    monkeypatch.setattr(meuterer.viewer, "MAX_PICTURES", 10)
    played = Game.replay(game().actions[:60], players=4)
    page = meuterer.viewer.replay_html(played)
    stride = 7  # 61 steps, at most 10 boards
    assert boards_of(page) == [board(state) for state in played.states[::stride]]
    assert '"stride":7' in page and "this long game has a board every" in page


def test_a_game_of_usual_length_gets_every_board() -> None:
    from meuterer.svg import board
    from meuterer.viewer import MAX_PICTURES, replay_html

    assert len(game().states) <= MAX_PICTURES
    assert boards_of(replay_html(game())) == [board(state) for state in game().states]


@pytest.mark.skipif(os.environ.get("MEUTERER_SLOW") != "1", reason="slow: run with MEUTERER_SLOW=1")
def test_the_page_of_the_longest_record_stays_in_the_memory_budget() -> None:  # pragma: no cover - slow
    import tracemalloc

    from meuterer.viewer import MAX_PICTURES, replay_html
    from tests.test_budget import MEBIBYTES, longest_game

    text = meuterer.write_record(longest_game())
    tracemalloc.start()
    try:
        page = replay_html(text)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    assert peak <= MEBIBYTES and len(boards_of(page)) <= MAX_PICTURES


def test_unknown_keys_are_refused_early_and_named_briefly() -> None:
    head = meuterer.write_record(Game.replay(game().actions[:5], players=4))
    many = "{" + "".join(f'"k{i}":0,' for i in range(200_000)) + head[1:]
    with pytest.raises(FormatError, match=r"an object with 2000[0-9][0-9] members") as info:
        meuterer.read_record(many)
    assert len(str(info.value)) < 200
    some = "{" + "".join(f'"k{i:03d}":0,' for i in range(500)) + head[1:]
    report = meuterer.verify(some)
    assert "unknown key(s) 'k000', 'k001'" in str(report) and "and 490 more" in str(report)
    assert len(str(report)) < 400


# Item 19: the docs say what the program does ------------------------------------------------------

ROOT = Path(__file__).parents[1]


def test_the_docs_cite_no_document_the_repository_lacks() -> None:
    assert "SPEC" not in (ROOT / "docs" / "views.md").read_text(encoding="utf-8")


def test_simulate_md_documents_every_option_of_simulate() -> None:
    parser = argparse.ArgumentParser(prog="meuterer")
    command = register(parser.add_subparsers(dest="command"))
    page = (ROOT / "docs" / "simulate.md").read_text(encoding="utf-8")
    options = [max(action.option_strings, key=len) for action in command._actions if action.option_strings]
    assert [option for option in options if f"`{option}" not in page and option != "--help"] == []


def test_readme_and_simulate_md_agree_on_the_long_run_and_the_tests_take_minutes() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "simulate.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if "simulate -n 2000 --agents ismcts:50,greedy" in line)
    stated = line.split("#")[1].strip().split(" on ")[0].replace("-", "\u2013")  # ~17-25 min, an en dash
    assert f"**{stated}**" in page
    assert "about\n5 minutes" in readme or "about 5 minutes" in readme


# Issue 37, defect 11: the newcomer's trips -------------------------------------------------------

PIP_INSTALL = re.compile(r"pip install\s+(?:-\S+\s+)*(?:\"([^\"]*)\"|'([^']*)'|([^\s`]+))")


def test_no_page_installs_meuterer_from_pypi_where_it_is_not() -> None:
    # On aa94876: docs/conformance.md (twice, with its CI example) and README's extras.
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    wrong = []
    for page in pages:
        for match in PIP_INSTALL.finditer(page.read_text(encoding="utf-8")):
            target = next(group for group in match.groups() if group is not None)
            if target.startswith("meuterer") and " @ " not in target:
                wrong.append(f"{page.name}: {match.group()}")
    assert wrong == []
    conformance = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    assert 'pip install ".[conform]"' in conformance
    assert 'pip install "./meuterer[conform]"' in conformance  # the CI example, from a submodule


def test_the_development_line_installs_the_extras_mypy_needs() -> None:
    # A fresh venv with only ".[dev]" left `mypy --strict src tests examples` with errors: it
    # needs starlette, sqlalchemy, httpx, websockets (server), numpy (gym), ray and torch (rl).
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    development = readme.split("## Development", 1)[1]
    line = next(line for line in development.splitlines() if "pip install -e" in line)
    extras = set(re.search(r'"\.\[([^\]]*)\]"', line)[1].split(","))  # type: ignore[index]
    assert {"dev", "server", "gym", "ray", "rl"} <= extras
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert all(f"\n{extra} = [" in pyproject for extra in extras)


def test_bench_reference_without_the_yardstick_says_so_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "ref_sim.py"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_reference.py"), "--yardstick", str(missing)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(meuterer.__file__).parents[1])},
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"bench_reference.py: no yardstick at {missing} (give --yardstick PATH or MEUTERER_YARDSTICK)"
    ]


def test_server_md_gives_the_table_pages_address() -> None:
    page = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    app = (ROOT / "src" / "meuterer" / "server" / "app.py").read_text(encoding="utf-8")
    assert 'Route("/table/{table_id}", table_page)' in app
    assert re.search(r"`http://HOST:PORT/table/ID`", page)
    assert re.search(r"http://127\.0\.0\.1:8000/table/[\w-]{12}`", page)


def test_a_seat_is_told_anothers_draws_in_the_terminals_words() -> None:
    # On aa94876 the table's account said "p0 draws 5 card(s)" where the terminal says "5 cards".
    from meuterer.server.table import SeatLog
    from meuterer.views import seen

    state = meuterer.new_game(4, 0)
    log = SeatLog(1, view(state, 1))
    rng = random.Random(3)
    told = []
    for _ in range(5):
        action = meuterer.sample_chance(state, rng)
        after = meuterer.apply(state, action)
        log.add(seen(state, action, after, 1), view(after, 1))
        state = after
        told.append(log.pending())
    assert told == ["p0 draws a card", "p0 draws 2 cards", "p0 draws 3 cards", "p0 draws 4 cards", "p0 draws 5 cards"]


def test_a_record_without_names_shows_each_seat_once_in_the_replay_page() -> None:
    # On aa94876: "shown as p1 (p1) saw it", and score columns headed "p0 p0", "p1 p1", ...
    from meuterer.viewer import replay_html

    record = make_record(Game.replay(game().actions[:30], players=4))
    assert record.players == ("p0", "p1", "p2", "p3")
    page = replay_html(record, perspective=1)
    assert "shown as p1 saw it" in page
    assert "(p1)" not in page
    assert '"labels":["p0","p1","p2","p3"]' in page.replace(" ", "")
    named = replay_html(make_record(Game.replay(game().actions[:30], players=4), names=("Ann", "p1", "p3", "Dee")))
    assert '"labels":["p0Ann","p1","p2p3","p3Dee"]' in named.replace(" ", "")


@pytest.mark.browser
def test_the_replay_pages_score_table_heads_unnamed_seats_once_in_chromium(tmp_path: Path) -> None:
    from meuterer.viewer import write_html

    from .browser import browser_page

    path = write_html(make_record(Game.replay(game().actions[:30], players=4)), tmp_path / "unnamed.html")
    with browser_page() as page:
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready=yes]", timeout=20_000)
        assert page.inner_text("#scores tr").split("\t")[1:] == ["p0", "p1", "p2", "p3"]


def test_play_md_names_the_file_a_game_goes_to_when_its_name_is_taken(tmp_path: Path) -> None:
    from meuterer.cli.play.saving import free_path

    (tmp_path / "meuterer-game-7.json").write_text("{}")
    taken = free_path(tmp_path / "meuterer-game-7.json").name
    assert taken == "meuterer-game-7-2.json"
    page = (ROOT / "docs" / "play.md").read_text(encoding="utf-8")
    assert f"`{taken}`" in page
