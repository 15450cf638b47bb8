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

import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, TextIO

import attrs

from meuterer.errors import FormatError

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


def write_text_atomic(path: str | os.PathLike[str], text: str, durable: bool = True) -> None:
    """Write ``text`` to ``path`` so that it holds either its old content or all of
    ``text``, never a part: a temporary file in the same directory, then a rename.
    ``durable`` also waits for the disk before the rename (``fsync``)."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(temporary, _mode(target))
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode(target: Path) -> int:
    """The permissions of ``target`` if it exists, else those a new file gets (the umask's)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


class ResultsFile:
    """A results file written as games finish: each result is one whole line (plus the
    CSV header before the first), written and flushed at once. With ``resume``, the
    results already in the file are kept (:attr:`done`) and new ones appended; a last line
    cut short by a crash is dropped. Without it, an existing file is replaced."""

    def __init__(self, path: str | os.PathLike[str], resume: bool = False) -> None:
        self.path = Path(path)
        self.format = format_for(path)
        self.done: list[GameResult] = []
        if resume and self.path.exists():
            text = self.path.read_text(encoding="utf-8")
            whole = text[: text.rfind("\n") + 1]
            if whole != text:
                write_text_atomic(self.path, whole)
            self.done = read_results(io.StringIO(whole), self.format)
            self._file = open(self.path, "a", encoding="utf-8", newline="")  # noqa: SIM115 - closed by close()
        else:
            self._file = open(self.path, "w", encoding="utf-8", newline="")  # noqa: SIM115 - closed by close()
        self._header = self.format == "csv" and self.path.stat().st_size == 0

    def write(self, result: GameResult) -> None:
        """Append ``result`` as one whole line, flushed."""
        self._file.write(_line(result, self.format, self._header))
        self._file.flush()
        self._header = False

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
