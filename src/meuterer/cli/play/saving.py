"""Saving the terminal game: after every action, atomically, never over another game.

The record is rewritten after every action through a temporary file and a rename, so the
file on disk always holds a whole record of the game so far, whatever stops the program.
State digests are computed once per state and kept, so a save costs about a millisecond.
When the record's path cannot be written, the game is saved in the temporary directory
instead (and the player told so); if that fails too, the actions are printed at the end.

Beside the record, in ``NAME.json.secret``, the :class:`Secret` the cards and the bots
draw from is saved too (before the record, so that the pair never mixes an undone past
with an old secret): resuming reads it and goes on exactly as the game would have. Like
the record, which holds every card dealt so far, it is never shown during the game.
"""

from __future__ import annotations

import json
import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path

import attrs

from meuterer.engine import is_terminal, winners
from meuterer.errors import FormatError
from meuterer.game import Game
from meuterer.record import Record, Result, dumps_record
from meuterer.serialize import parse_json, state_digest
from meuterer.tournament.results import write_text_atomic

__all__ = ["SECRET_FORMAT", "Saver", "Secret", "free_path", "read_secret", "secret_path"]

SECRET_FORMAT = "meuterer-play-secret"  # noqa: S105 - a format name, not a password
SECRET_BITS = 128
"""The size of a secret seed: far too many to try them all against the cards one sees."""
_MAX_SECRET_CHARS = 1_000
MAX_SEED = 10**100
"""A seed (chosen or secret) is a number of at most 100 digits, either sign."""


@attrs.frozen
class Secret:
    """What the cards and the bots of a terminal game are drawn from.

    ``seed`` makes the bots (each gets a seed made from it); ``draws`` is the seed of the
    generators of the draws and of the bots' moves (one per step: ``f"{draws}/{step}/..."``).
    Both are the ``--seed`` of a reproducible game (``shown``: the player knows it), else
    secret numbers of :data:`SECRET_BITS` bits; an undo in a secret game draws a new
    ``draws``, so that taking a move back never shows a card still to come."""

    seed: int
    draws: int
    shown: bool
    """Whether the player chose the seed (``--seed``): then it reveals the whole game."""

    @classmethod
    def chosen(cls, seed: int) -> Secret:
        """The secret of ``--seed SEED``: known to the player.

        >>> Secret.chosen(4)
        Secret(seed=4, draws=4, shown=True)
        """
        return cls(seed, seed, True)

    @classmethod
    def new(cls) -> Secret:
        """A new secret, from the operating system's randomness.

        >>> a, b = Secret.new(), Secret.new()
        >>> a != b and a.seed == a.draws and not a.shown
        True
        """
        seed = new_secret_number()
        return cls(seed, seed, False)

    def redrawn(self) -> Secret:
        """After an undo: a secret game draws on from a new secret; a chosen seed stays."""
        return self if self.shown else attrs.evolve(self, draws=new_secret_number())

    def text(self) -> str:
        """As saved beside the record (JSON)."""
        data = {
            "format": {"name": SECRET_FORMAT, "version": 1},
            "seed": self.seed,
            "draws": self.draws,
            "shown": self.shown,
        }
        return json.dumps(data, indent=2) + "\n"


def new_secret_number() -> int:
    """A secret seed: :data:`SECRET_BITS` bits from :mod:`secrets`."""
    return secrets.randbits(SECRET_BITS)


def secret_path(record: Path) -> Path:
    """Where the secret of the game saved in ``record`` is kept: ``NAME.json.secret``.

    >>> secret_path(Path("games/meuterer-game.json")).as_posix()
    'games/meuterer-game.json.secret'
    """
    return record.with_name(record.name + ".secret")


def read_secret(record: Path) -> Secret | None:
    """The secret saved beside ``record`` (``None`` if there is no such file); raises
    :class:`~meuterer.errors.FormatError` if it cannot be read or is malformed.

    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = secret_path(folder / "g.json").write_text(Secret.chosen(7).text())
    >>> read_secret(folder / "g.json"), read_secret(folder / "other.json")
    (Secret(seed=7, draws=7, shown=True), None)
    """
    path = secret_path(record)
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read(_MAX_SECRET_CHARS + 1)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError("$", f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    if len(text) > _MAX_SECRET_CHARS:
        raise FormatError("$", f"{path} is at most {_MAX_SECRET_CHARS} characters")
    data = parse_json(text)
    if not isinstance(data, dict) or data.get("format") != {"name": SECRET_FORMAT, "version": 1}:
        raise FormatError("$.format", f"{path} is not a {SECRET_FORMAT}, version 1")
    if set(data) != {"format", "seed", "draws", "shown"}:
        raise FormatError("$", f"{path}: expected the keys format, seed, draws, shown")
    for key in ("seed", "draws"):
        value = data[key]
        if type(value) is not int or not -MAX_SEED < value < MAX_SEED:
            raise FormatError(f"$.{key}", f"{path}: expected a whole number of at most 100 digits")
    if type(data["shown"]) is not bool:
        raise FormatError("$.shown", f"{path}: expected true or false")
    return Secret(data["seed"], data["draws"], data["shown"])


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
    name in the temporary directory), its :attr:`secret` beside it (see :func:`secret_path`);
    :attr:`where` is the record last written, ``None`` before the first save or when
    nothing could be written."""

    def __init__(self, path: Path, names: Sequence[str], secret: Secret | None = None) -> None:
        self.path = path
        self.names = tuple(names)
        self.secret = secret
        """Saved beside the record (first) when not ``None``; the session updates it after an undo."""
        self.where: Path | None = None
        self.problem: str | None = None
        """Why the last save did not reach :attr:`path`, if it did not."""
        self._digests: list[str] = []
        self._fallback: Path | None = None
        self._secret_saved: dict[Path, Secret] = {}
        """The secret last written beside each record file (written again only when it changes)."""

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
                if self.secret is not None and self._secret_saved.get(target) != self.secret:
                    write_text_atomic(secret_path(target), self.secret.text(), durable=durable)
                    self._secret_saved[target] = self.secret
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
