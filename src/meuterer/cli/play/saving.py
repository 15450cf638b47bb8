"""Saving the terminal game: after every action, atomically, never over another game.

The record is rewritten after every action through a temporary file and a rename, so the
file on disk always holds a whole record of the game so far, whatever stops the program.
State digests are computed once per state and kept, so a save costs about a millisecond.
When the record's path cannot be written, the game is saved in the temporary directory
instead (and the player told so); if that fails too, the actions are printed at the end.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from meuterer.engine import is_terminal, winners
from meuterer.game import Game
from meuterer.record import Record, Result, dumps_record
from meuterer.serialize import state_digest
from meuterer.tournament.results import write_text_atomic

__all__ = ["Saver", "free_path"]


def free_path(path: Path) -> Path:
    """``path`` if nothing is there, else the first of ``NAME-2.json``, ``NAME-3.json``, ...
    that is free.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "game.json").write_text("{}")
    2
    >>> free_path(folder / "game.json").name, free_path(folder / "other.json").name
    ('game-2.json', 'other.json')
    """
    if not path.exists():
        return path
    stem = path.stem
    n = 2
    while (candidate := path.with_name(f"{stem}-{n}{path.suffix}")).exists():
        n += 1
    return candidate


class Saver:
    """Writes the record of a game to ``path`` (or, if that fails, to a file of the same
    name in the temporary directory); :attr:`where` is the file last written, ``None``
    before the first save or when nothing could be written."""

    def __init__(self, path: Path, names: Sequence[str]) -> None:
        self.path = path
        self.names = tuple(names)
        self.where: Path | None = None
        self.problem: str | None = None
        """Why the last save did not reach :attr:`path`, if it did not."""
        self._digests: list[str] = []
        self._fallback: Path | None = None

    def record(self, game: Game) -> Record:
        """The record of ``game`` (digests of new states computed, those undone dropped)."""
        states = game.states
        # states[k] follows the first k actions; digests[k - 1] is its digest.
        del self._digests[len(states) - 1 :]
        self._digests.extend(state_digest(state) for state in states[1 + len(self._digests) :])
        final = game.state
        result = Result(final.scores, winners(final)) if is_terminal(final) else None
        return Record(
            rules=game.rules,
            players=self.names,
            first_captain=game.first_captain,
            actions=game.actions,
            digests=tuple(self._digests),
            result=result,
        )

    def forget(self, length: int) -> None:
        """Drop the digests of states after the first ``length`` actions (after an undo)."""
        del self._digests[length:]

    def save(self, game: Game, durable: bool = False) -> Path | None:
        """Write the record; returns where (``None`` if nowhere). ``durable`` also waits
        for the disk (at the end of a session)."""
        text = dumps_record(self.record(game))
        for target in (self.path, None):
            if target is None:  # the fallback: a free name in the temporary directory, kept once chosen
                if self._fallback is None:
                    self._fallback = free_path(Path(tempfile.gettempdir()) / self.path.name)
                target = self._fallback
            try:
                write_text_atomic(target, text, durable=durable)
            except OSError as error:
                self.problem = self.problem if target != self.path else f"{self.path}: {error.strerror or error}"
                continue
            if target == self.path:
                self.problem = None
            self.where = target
            return target
        self.where = None
        return None
