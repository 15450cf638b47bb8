"""Per-game results of a tournament, and files of them: JSON lines or CSV, written whole
lines at a time as games finish, read back to resume an interrupted run.

>>> import io
>>> seats = ("greedy", "random", "random")
>>> result = GameResult(3, 42, seats, 0, (20, 9, 9), (0,), 9, 250, (60, 50, 50), (1, 0, 0), (1, 0, 0))
>>> out = io.StringIO()
>>> write_results([result], out, "csv")
>>> read_results(io.StringIO(out.getvalue()), "csv") == [result]
True
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, TextIO

import attrs

from meuterer.errors import FormatError, SetupError
from meuterer.record import write_text_atomic as write_text_atomic  # re-exported (it was defined here)

__all__ = [
    "Format",
    "GameResult",
    "ResultsFile",
    "format_for",
    "read_results",
    "results_text",
    "write_results",
    "write_text_atomic",
]

Format = Literal["csv", "jsonl"]


@attrs.frozen
class GameResult:
    """The outcome of one game. Everything but the timings ``think`` and ``seconds`` is
    reproducible from the run's seed."""

    index: int
    seed: int
    agents: tuple[str, ...]
    """The label of the agent in each seat."""
    first_captain: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int
    actions: int
    """All actions, chance draws included."""
    moves: tuple[int, ...]
    """Decisions taken by each seat (forced ones included)."""
    mutineers: tuple[int, ...]
    """Mutinies led by each seat."""
    mutinies_won: tuple[int, ...]
    """Successful mutinies led by each seat."""
    think: tuple[float, ...] = attrs.field(default=(), eq=False)
    """Seconds each seat spent deciding (not reproducible)."""
    seconds: float = attrs.field(default=0.0, eq=False)
    """Seconds the game took, agents and engine (not reproducible)."""

    @property
    def mutinies(self) -> int:
        """Mutinies in the game (rounds with a mutineer)."""
        return sum(self.mutineers)

    @property
    def shares(self) -> tuple[float, ...]:
        """Each seat's share of the win: ``1/k`` for each of ``k`` tied winners, else 0."""
        return tuple(1 / len(self.winners) if seat in self.winners else 0.0 for seat in range(len(self.scores)))

    def data(self) -> dict[str, Any]:
        """The reproducible fields as plain JSON data (one line of a JSON-lines file)."""
        return {
            "game": self.index,
            "seed": self.seed,
            "agents": list(self.agents),
            "first_captain": self.first_captain,
            "scores": list(self.scores),
            "winners": list(self.winners),
            "rounds": self.rounds,
            "actions": self.actions,
            "moves": list(self.moves),
            "mutineers": list(self.mutineers),
            "mutinies_won": list(self.mutinies_won),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> GameResult:
        """The result :meth:`data` describes (timings unknown: zero)."""
        return cls(
            index=int(data["game"]),
            seed=int(data["seed"]),
            agents=tuple(str(a) for a in data["agents"]),
            first_captain=int(data["first_captain"]),
            scores=tuple(int(s) for s in data["scores"]),
            winners=tuple(int(w) for w in data["winners"]),
            rounds=int(data["rounds"]),
            actions=int(data["actions"]),
            moves=tuple(int(m) for m in data["moves"]),
            mutineers=tuple(int(m) for m in data["mutineers"]),
            mutinies_won=tuple(int(m) for m in data["mutinies_won"]),
        )


def format_for(path: str | os.PathLike[str]) -> Format:
    """``csv`` for a ``.csv`` file, ``jsonl`` (JSON lines) otherwise."""
    return "csv" if os.fspath(path).lower().endswith(".csv") else "jsonl"


_PER_SEAT = (("agent", "agents"), ("score", "scores"), ("moves", "moves"), ("mutineer", "mutineers"))


def _csv_row(result: GameResult) -> dict[str, object]:
    row: dict[str, object] = {
        "game": result.index,
        "seed": result.seed,
        "first_captain": result.first_captain,
        "rounds": result.rounds,
        "actions": result.actions,
        "winners": " ".join(map(str, result.winners)),
    }
    for name, values in (
        ("agent", result.agents),
        ("score", result.scores),
        ("moves", result.moves),
        ("mutineer", result.mutineers),
        ("mutinies_won", result.mutinies_won),
    ):
        row.update({f"{name}_{seat}": value for seat, value in enumerate(values)})
    return row


def _line(result: GameResult, fmt: Format, header: bool) -> str:
    """One result as text: a JSON line, or a CSV row (after the header if ``header``)."""
    if fmt == "jsonl":
        return json.dumps(result.data(), separators=(",", ":")) + "\n"
    row = _csv_row(result)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(row), lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerow(row)
    return out.getvalue()


def write_results(results: Iterable[GameResult], file: TextIO, fmt: Format = "jsonl") -> None:
    """Write per-game results as JSON lines or CSV (columns per seat: ``agent_0``, ``score_0``, ...).

    >>> import io
    >>> from meuterer.tournament import run_tournament
    >>> run = run_tournament(["greedy", "random", "random"], games=2, seed=3)
    >>> out = io.StringIO()
    >>> write_results(run.results, out, "csv")
    >>> out.getvalue().splitlines()[0]
    'game,seed,first_captain,rounds,actions,winners,agent_0,agent_1,agent_2,score_0,score_1,score_2,moves_0,moves_1,moves_2,mutineer_0,mutineer_1,mutineer_2,mutinies_won_0,mutinies_won_1,mutinies_won_2'
    """
    for count, result in enumerate(results):
        file.write(_line(result, fmt, header=count == 0))


def results_text(results: Iterable[GameResult], fmt: Format = "jsonl") -> str:
    """:func:`write_results` into a string."""
    out = io.StringIO()
    write_results(results, out, fmt)
    return out.getvalue()


def read_results(file: TextIO, fmt: Format = "jsonl") -> list[GameResult]:
    """The results of a file :func:`write_results` (or :class:`ResultsFile`) wrote. Raises
    :class:`~meuterer.errors.FormatError` on a line that is not a result."""
    results = []
    try:
        if fmt == "jsonl":
            for line in file:
                if line.strip():
                    results.append(GameResult.from_data(json.loads(line)))
            return results
        for row in csv.DictReader(file):
            seats = sum(1 for key in row if key.startswith("agent_"))
            data: dict[str, Any] = {key: row[key] for key in ("game", "seed", "first_captain", "rounds", "actions")}
            data["winners"] = [int(w) for w in row["winners"].split()]
            for name, key in (*_PER_SEAT, ("mutinies_won", "mutinies_won")):
                data[key] = [row[f"{name}_{seat}"] for seat in range(seats)]
            results.append(GameResult.from_data(data))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise FormatError("$", f"not a file of per-game results ({fmt}): {error!r}") from None
    return results


class ResultsFile:
    """A results file written as games finish: each result is one whole line (plus the
    CSV header before the first), written in one piece: a write that fails (a full disk)
    is cut back to the last whole line and the error passes on. With ``resume``, the
    results already in the file are kept (:attr:`done`) and new ones appended; a last line
    cut short by a crash is dropped. Without it, an existing file is refused
    (:class:`~meuterer.errors.SetupError`) unless ``overwrite``; then it is replaced.
    :meth:`close` waits for the disk (``fsync``)."""

    def __init__(self, path: str | os.PathLike[str], resume: bool = False, overwrite: bool = False) -> None:
        self.path = Path(path)
        self.format = format_for(path)
        self.done: list[GameResult] = []
        exists = self.path.exists()
        if exists and not resume and not overwrite:
            raise SetupError(f"{self.path} exists: continue it with --resume, or replace it with --force")
        if resume and exists:
            text = self.path.read_text(encoding="utf-8")
            whole = text[: text.rfind("\n") + 1]
            if whole != text:
                write_text_atomic(self.path, whole)
            self.done = read_results(io.StringIO(whole), self.format)
            self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - closed by close()
        else:
            self._file = open(self.path, "wb", buffering=0)  # noqa: SIM115 - closed by close()
        self._header = self.format == "csv" and self.path.stat().st_size == 0

    def write(self, result: GameResult) -> None:
        """Append ``result`` as one whole line, flushed; on an error (``OSError``) the
        file is cut back to its last whole line and the error passes on."""
        data = _line(result, self.format, self._header).encode("utf-8")
        size = self._file.tell()
        try:
            view = memoryview(data)
            while view:
                view = view[self._file.write(view) or 0 :]
        except OSError:
            with contextlib.suppress(OSError, ValueError):
                self._file.truncate(size)  # no half row (a device such as /dev/full cannot be cut)
            raise
        self._header = False

    def close(self) -> None:
        """Wait for the disk, then close the file (the file is closed even if that fails)."""
        try:
            if not self._file.closed:
                try:
                    os.fsync(self._file.fileno())
                except OSError as error:
                    if error.errno not in (errno.EINVAL, errno.EROFS):  # a device that cannot be synced
                        raise
        finally:
            with contextlib.suppress(OSError):
                self._file.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
