"""Issue 37, defect 7: ``meuterer conform`` ends the engine's whole process group (on a normal
exit, a time-out, the engine's death, an exception in the driver, a SIGTERM to the driver),
and its time limit tells a slow engine (it keeps using CPU time) from a hung one. Issue 40:
the report counts only real restarts and gives the shrinking time apart from the search."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import meuterer
from meuterer.conform.client import EngineFailure, EngineProcess
from meuterer.conform.driver import EXIT_FAILED, EXIT_OK, Options, Report, Result, run, summary

SRC = str(Path(meuterer.__file__).parents[1])
FAKE = str(Path(__file__).with_name("fake_engine.py"))
LONGEST = 10
"""docs/protocol.md: an engine that keeps using CPU time gets up to 10 times the time limit."""
NEW = {"cmd": "new", "rules": {}, "players": 3, "first_captain": 0}


def fake(mode: str) -> list[str]:
    return [sys.executable, FAKE, mode]


def gone(pid: int) -> bool:
    """The process has exited (a zombie left to a parent that does not reap counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return True
    return stat[stat.rfind(b")") + 2 :][:1] in (b"Z", b"X")


def all_gone(pids: list[int], seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while not all(gone(pid) for pid in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The file where ``spawn:`` engines list their pids; whatever is left of them at the end
    is killed (by pid), so that a failing test leaves no orphans either."""
    path = tmp_path / "pids"
    monkeypatch.setenv("FAKE_ENGINE_PIDS", str(path))
    monkeypatch.setenv("PYTHONPATH", SRC)
    yield path
    for pid in listed(path):
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


def listed(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize(
    ("mode", "exit_code"),
    [("spawn:reference", EXIT_OK), ("spawn:hang", EXIT_FAILED), ("spawn:die", EXIT_FAILED)],
    ids=["exit", "timeout", "error"],
)
def test_no_process_of_the_engine_outlives_the_run(mode: str, exit_code: int, pids: Path, tmp_path: Path) -> None:
    # On aa94876: the engine was killed, its three helpers (per engine started) stayed.
    report = run(Options(command=fake(mode), games=0, limit=1, timeout=0.3, out=tmp_path))
    assert report.exit_code == exit_code
    assert (report.restarts > 0) == (exit_code == EXIT_FAILED)
    started = listed(pids)
    assert len(started) == 4 * (1 + report.restarts)  # each engine and its three helpers
    assert all_gone(started)


def test_an_exception_in_the_driver_ends_the_engines_group(pids: Path, tmp_path: Path) -> None:
    def progress(label: str, total: int) -> object:
        def tick() -> None:
            raise KeyboardInterrupt

        return tick

    with pytest.raises(KeyboardInterrupt):
        run(Options(command=fake("spawn:reference"), games=0, limit=2, out=tmp_path), progress)  # type: ignore[arg-type]
    assert len(listed(pids)) == 4
    assert all_gone(listed(pids))


def test_a_terminated_driver_ends_the_engines_group(pids: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "meuterer", "conform", "--timeout", "60", "--out", str(tmp_path), "--"]
    driver = subprocess.Popen([*command, *fake("spawn:hang")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 60
        while len(listed(pids)) < 4 and time.monotonic() < end:
            time.sleep(0.05)
        assert len(listed(pids)) == 4
        time.sleep(0.3)  # the driver now waits for the hung engine's reply to `new`
        driver.terminate()
        assert driver.wait(30) == 128 + signal.SIGTERM
    finally:
        driver.kill()
        driver.communicate()
    assert all_gone(listed(pids))


def test_a_slow_engine_is_waited_for_while_it_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    # On aa94876: "no reply within 0.5 s", though the engine was computing the reply.
    # (seconds, not tenths: on a loaded machine a busy engine may get no CPU for half a second)
    monkeypatch.setenv("FAKE_ENGINE_BUSY", "2.5")
    engine = EngineProcess(fake("slow"), timeout=2.0)
    engine.start()
    try:
        began = time.monotonic()
        assert engine.request(NEW)["status"] == "ok"
        assert time.monotonic() - began > 2.0
    finally:
        engine.close()


def test_a_hung_engine_is_told_apart_from_a_slow_one() -> None:
    engine = EngineProcess(fake("hang"), timeout=0.3)
    engine.start()
    began = time.monotonic()
    with pytest.raises(EngineFailure) as hung:
        engine.request(NEW)
    waited = time.monotonic() - began
    engine.kill()
    assert hung.value.kind == "timeout"
    assert hung.value.message.startswith("hung: no reply within ")
    assert "used no CPU time in the last 0.3 s" in hung.value.message
    assert 0.6 <= waited < 0.3 * LONGEST


def test_an_engine_computing_for_ever_fails_as_slow_after_the_longest_wait() -> None:
    engine = EngineProcess(fake("busy"), timeout=0.3)
    engine.start()
    began = time.monotonic()
    with pytest.raises(EngineFailure) as busy:
        engine.request(NEW)
    waited = time.monotonic() - began
    engine.kill()
    assert busy.value.kind == "timeout"
    assert busy.value.message.startswith("slow: no reply within ")
    assert "raise --timeout" in busy.value.message
    assert waited >= 0.3 * LONGEST


def test_an_engine_whose_helpers_hold_its_output_open_is_reported_dead(pids: Path) -> None:
    engine = EngineProcess(fake("spawn:die"), timeout=0.3)
    engine.start()
    with pytest.raises(EngineFailure) as died:
        engine.request(NEW)
    assert died.value.kind == "died"
    assert "exited with status 3" in died.value.message
    engine.kill()
    assert all_gone(listed(pids))


# Issue 40: real restarts only, and the shrinking time -------------------------------------------


def test_a_fuzz_failure_restarts_nothing_and_its_shrinking_time_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On aa94876: "restarts: 1" (the counterexample's transcript restarted the engine), and the
    # games per second counted the shrinking time as search time.
    monkeypatch.setenv("PYTHONPATH", SRC)
    report = run(Options(command=fake("mutant"), games=10, seed=3, limit=0, out=tmp_path, shrink_seconds=3))
    assert report.exit_code == EXIT_FAILED
    assert report.restarts == 0
    assert report.fuzz_games >= 1
    assert report.shrink_seconds > 0
    assert report.fuzz_seconds + report.shrink_seconds <= report.seconds
    data = report.as_json()
    assert data["restarts"] == 0
    assert data["shrink_seconds"] == round(report.shrink_seconds, 3)
    text = summary(report, ["mutant"])
    assert f"; shrinking {report.shrink_seconds:.1f} s)" in text
    assert text.endswith("engine restarts: 0")


def test_a_clean_fuzz_run_reports_no_shrinking() -> None:
    report = Report(engine={}, suite_version="1", fuzz_games=10, fuzz_seconds=2.0)
    report.results.append(Result("fuzz", "fuzz", "passed"))
    assert "(10 games, 5.0 games/s)" in summary(report, ["x"])
    assert report.as_json()["shrink_seconds"] == 0
