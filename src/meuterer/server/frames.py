"""What a seat is told: its log of the game in plain words and the frames made from it.

Every frame sent to a seat is made from that seat's views (``view(state, seat)``) and the
actions as that seat saw them (``views.seen``), nothing else (:class:`SeatLog`), so a
seat's frames are a function of its redacted record.

>>> from meuterer.game import Game
>>> from meuterer.server.frames import Logs
>>> logs = Logs(Game.new(3, 0))
>>> logs[0].seat, logs[None].seat, logs[0].lines[0].startswith("—")
(0, None, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from rich.console import Console

from meuterer.actions import Action, ChooseRole, Draw
from meuterer.cards import Card, Role
from meuterer.cli.play.render import move_help, phase_help
from meuterer.game import Game
from meuterer.rulings import winners
from meuterer.server.about import about, confirm
from meuterer.server.standings import Book
from meuterer.server.words import WordsNarrator, label, plain
from meuterer.state import Step
from meuterer.svg import board
from meuterer.views import HiddenDraw, HiddenRole, PlayerView, Seen, seen, view

__all__ = ["Frames", "Logs", "SeatLog", "frame_names", "seat_frame", "state_frame"]


class _Lines:
    """Stands for the terminal's console: keeps the narrator's lines as plain text."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, text: object, **_: object) -> None:
        self.lines.append(str(text))

    def rule(self, text: object, **_: object) -> None:
        self.lines.append(f"— {text} —")


def _stand_in_action(shown: Seen) -> Action:
    """The action the narrator is told for ``shown``: another's hidden draw or role becomes a
    placeholder (the narrator tells another player's draw and role without the card or role)."""
    action = shown.action
    if isinstance(action, HiddenDraw):
        return Draw(action.player, Card.RUBY)
    if isinstance(action, HiddenRole):
        return ChooseRole(action.player, Role.MATE)
    return action


def state_frame(v: PlayerView, names: Sequence[str]) -> dict[str, Any]:
    """The table as the viewer of ``v`` sees it: the board, his legal actions with their help
    texts (and what each is about on the board, and the question to confirm it, if any: see
    :mod:`meuterer.server.about`), whose turn it is, the scores and, at the end, the winners.
    A function of ``v`` only."""
    legal = v.legal_actions()
    over = v.step is Step.GAME_OVER
    return {
        "round": v.round,
        "rounds": v.rules.rounds_for(v.players),
        "step": v.step.value,
        "to_act": None if over else v.to_act,
        "scores": list(v.scores),
        "winners": list(winners(v)) if over else None,
        "hint": plain(phase_help(v)) if legal else "",
        "legal": [
            {
                "action": str(a),
                "label": label(v, a),
                "help": plain(move_help(v, a)),
                "about": about(v, a),
                "confirm": confirm(v, a),
            }
            for a in legal
        ],
        "svg": str(board(v, names=names)),
    }


class SeatLog:
    """What one seat (or a spectator, ``seat is None``) has been told of a game: the actions
    as he saw them and their account in plain words, fed with his views and seen actions only."""

    def __init__(self, seat: int | None, first: PlayerView) -> None:
        self.seat = seat
        self.view = first
        self.seen: list[str] = []
        self.noted = 0
        self.book = Book()
        """How many of the table's public notes the log tells."""
        self._console = _Lines()
        me = -1 if seat is None else seat
        self._narrator = WordsNarrator(cast(Console, self._console), me, lambda p: f"p{p}")
        self._narrator.round_header(first)

    @property
    def lines(self) -> list[str]:
        """The account so far, one line per event."""
        return self._console.lines

    def pending(self) -> str | None:
        """The draws not yet told (they are told as one line when something else happens)."""
        return self._narrator.draws_text()

    def add(self, shown: Seen, after: PlayerView, bot: str | None = None) -> None:
        """One more action, as the seat saw it, and his view after it; ``bot``: the spec of the
        stand-in bot that made it for a human seat (a public fact), if one did."""
        self.seen.append(str(shown))
        self.book.add(self.view, after)
        self._narrator.narrate(self.view, _stand_in_action(shown), after, bot)
        self.view = after

    def note(self, text: str) -> None:
        """One more public note (someone left, came back...), told as it stands."""
        self._narrator.say(text, style="dim")
        self.noted += 1


def seat_frame(
    table_id: str, log: SeatLog, seats: list[dict[str, Any]], started: bool, state: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The snapshot frame of a seat: made from its log (its views and the actions as it saw
    them) and the public facts of the table (``seats``: who sits where; ``started``).
    ``state``: ``state_frame`` of the log's last view with these seats' names, if already made."""
    return {
        "type": "snapshot",
        "table": table_id,
        "seat": log.seat,
        "at": len(log.seen),
        "seats": seats,
        "started": started,
        "seen": list(log.seen),
        "lines": list(log.lines),
        "pending": log.pending(),
        "noted": log.noted,
        "state": log_state(log, frame_names(seats)) if state is None else state,
    }


def log_state(log: SeatLog, names: list[str]) -> dict[str, Any]:
    """``state_frame`` of the log's last view, with the game's ``standings`` once it is over
    (see :class:`~meuterer.server.standings.Book`; ``None`` before)."""
    over = log.view.step is Step.GAME_OVER
    return state_frame(log.view, names) | {"standings": log.book.standings(log.view, names) if over else None}


def frame_names(seats: list[dict[str, Any]]) -> list[str]:
    """The seats' names on the board (beside their numbers ``p0``, ``p1``...)."""
    return [s["name"] or s["bot"] or "open" for s in seats]


class Logs(dict[int | None, SeatLog]):
    """Every seat's log (and the spectator's, ``None``), brought up to date with the game
    when it is read: a log nobody reads (a bot's seat, a spectator-less table) costs nothing.

    ``notes``: the table's public notes, each with the number of actions the game had then;
    ``bots``: the spec of the stand-in bot that made action ``k`` for a human seat."""

    def __init__(self, game: Game) -> None:
        super().__init__((p, SeatLog(p, view(game.state, p))) for p in (*range(game.players), None))
        self.game = game
        self.notes: list[tuple[int, str]] = []
        self.bots: dict[int, str] = {}

    def note(self, text: str) -> None:
        """A public note for every log, told after the actions so far."""
        self.notes.append((len(self.game), text))

    def __getitem__(self, seat: int | None) -> SeatLog:
        log = super().__getitem__(seat)
        game = self.game
        for k in range(len(log.seen), len(game) + 1):
            while log.noted < len(self.notes) and self.notes[log.noted][0] <= k:
                log.note(self.notes[log.noted][1])
            if k < len(game):
                before, after = game.at(k), game.at(k + 1)
                log.add(seen(before, game.actions[k], after, seat), view(after, seat), self.bots.get(k))
        return log


class Frames:
    """The ``snapshot`` and ``update`` frames of a table's seats, each seat's ``state_frame``
    made (and its board drawn) once per action and seats' names, for every socket,
    reconnect and update of that seat (or of all spectators)."""

    def __init__(self, table_id: str, logs: dict[int | None, SeatLog]) -> None:
        self.table_id = table_id
        self.logs = logs
        self._made: dict[int | None, tuple[tuple[int, tuple[str, ...]], dict[str, Any]]] = {}

    def state(self, seat: int | None, log: SeatLog, seats: list[dict[str, Any]]) -> dict[str, Any]:
        """``state_frame`` of the seat's log with these seats' names."""
        names = frame_names(seats)
        key = (len(log.seen), tuple(names))
        made = self._made.get(seat)
        if made is None or made[0] != key:
            made = (key, log_state(log, names))
            self._made[seat] = made
        return made[1]

    def snapshot(self, seat: int | None, seats: list[dict[str, Any]], started: bool) -> dict[str, Any]:
        """Everything ``seat`` may know, in one frame."""
        log = self.logs[seat]
        return seat_frame(self.table_id, log, seats, started, self.state(seat, log, seats))

    def update(
        self, seat: int | None, since: int, lines_since: int, seats: list[dict[str, Any]], started: bool
    ) -> dict[str, Any]:
        """What ``seat`` learns from the actions after state ``since`` (his log's lines after
        ``lines_since``), as an ``update`` frame."""
        log = self.logs[seat]
        return {
            "type": "update",
            "table": self.table_id,
            "seat": seat,
            "at": len(log.seen),
            "seats": seats,
            "started": started,
            "seen": log.seen[since:],
            "lines": log.lines[lines_since:],
            "pending": log.pending(),
            "noted": log.noted,
            "state": self.state(seat, log, seats),
            "from": since,
            "lines_from": lines_since,
        }
