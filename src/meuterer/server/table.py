"""One table of the online game, independent of any web framework.

The server holds the game (:class:`Table`) and is the only one who draws cards, from a
secret source (:data:`SECRET`, the operating system's randomness: there is no seed a
player could see). A player's action arrives as notation with the number of actions the
game had when he chose it (``at``); a stale one is refused (:class:`StaleAction`) and the
seat is sent a fresh snapshot. Every frame sent to a seat is made by :class:`SeatLog`
from that seat's views (``view(state, seat)``) and the actions as that seat saw them
(``views.seen``), nothing else; a seat's frames are therefore a function of its
redacted record.

Actions are *proposed* (computed, nothing changes) and *committed* (applied) in two
steps, so that the server can store them in between and acknowledge an action only once
it is stored.

>>> from meuterer.server.table import Seat, Table
>>> table = Table("t1", players=3, seats=[Seat(name="ann"), Seat(bot="greedy"), Seat(bot="random")])
>>> token = table.join(0, "ann")
>>> table.authenticate(token)
0
>>> table.commit(table.propose_auto())  # the deal, up to ann's first decision
>>> frame = table.snapshot(0)
>>> frame["type"], frame["seat"], frame["at"] == len(table.game), frame["state"]["legal"][0]["action"]
('snapshot', 0, True, 'p0 offer 0')
>>> table.propose(0, "p0 offer 9", at=frame["at"])
Traceback (most recent call last):
...
meuterer.errors.IllegalActionError: illegal action 'p0 offer 9': the offer is a number from 0 to 3, not 9
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from meuterer.actions import Action, parse_action
from meuterer.engine import apply, current_player, is_chance_node, is_terminal
from meuterer.game import Game
from meuterer.record import Record, make_record
from meuterer.redact import RedactedRecord, redact
from meuterer.referee import check_as
from meuterer.rules import Rules
from meuterer.server.autoplay import AUTO_CHUNK, SECRET, Autopilot
from meuterer.server.bots import is_quick
from meuterer.server.frames import Frames, Logs, SeatLog, seat_frame, state_frame
from meuterer.server.seats import (
    MAX_NAME,
    Seat,
    TableError,
    browser_key,
    check_seat,
    claim,
    hash_token,
    holder,
    host,
    release,
    seat_list,
    vacate,
)
from meuterer.views import PlayerView, view

__all__ = [
    "AUTO_CHUNK",
    "MAX_NAME",
    "SECRET",
    "Seat",
    "SeatLog",
    "StaleAction",
    "Table",
    "TableError",
    "browser_key",
    "hash_token",
    "seat_frame",
    "state_frame",
]


class StaleAction(TableError):
    """An action chosen at an earlier state of the game than the table's: resync."""


class Table:
    """A game at a table: its seats, its history, and every seat's log.

    ``actions`` replays a stored game. ``turn_seconds``: how long a human seat may take
    before a stand-in bot (``stand_in_bot``) plays for it.
    """

    def __init__(
        self,
        table_id: str,
        *,
        players: int = 4,
        seats: Sequence[Seat] | None = None,
        rules: Rules | None = None,
        first_captain: int = 0,
        actions: Sequence[Action | str] = (),
        turn_seconds: float = 120.0,
        stand_in_bot: str = "greedy",
        clock: Any = time.monotonic,
    ) -> None:
        self.id = table_id
        self.seats = seat_list(players, seats)
        self.game = Game.new(players, first_captain, rules)
        self.logs = Logs(self.game)
        self._frames = Frames(table_id, self.logs)
        self.turn_seconds = turn_seconds
        self.bots = Autopilot(stand_in_bot)
        self.clock = clock
        self.started = all(seat.ready for seat in self.seats)  # a table of bots starts at once
        self.turn_started = clock()
        self.rematch: str | None = None
        self.commit([parse_action(a) if isinstance(a, str) else a for a in actions])

    @property
    def players(self) -> int:
        return self.game.players

    def names(self) -> list[str]:
        return [seat.name or seat.bot or "open" for seat in self.seats]

    def join(self, seat: int, name: str, key: object = None) -> str:
        """Take the open seat ``seat`` as ``name`` (``key``: the browser's key): the secret token
        that identifies its holder (see :func:`meuterer.server.seats.claim`)."""
        back = self.started and self.seats[seat].stand_in
        token = claim(self.seats, seat, name, key)
        if back:
            self.logs.note(f"{self.seats[seat].name} came back to p{seat}")
        self.started = self.started or all(s.ready for s in self.seats)
        self.turn_started = self.clock()
        return token

    def authenticate(self, token: object) -> int:
        """The seat whose secret token ``token`` is (compared in constant time), or raise."""
        return holder(self.seats, token)

    def leave(self, seat: int) -> None:
        """The holder of ``seat`` leaves. Before the game starts anyone may take the seat; during
        the game a stand-in bot plays it and it is reserved for its player's browser until the
        host releases it (:meth:`release`)."""
        vacate(self.seats, seat, stand_in=self.started, reserve=self.started and not self.over)
        if self.started and not self.over:
            self.logs.note(f"{self.seats[seat].name} left the table: a bot ({self.stand_in_bot}) plays p{seat}")

    def host(self) -> int | None:
        """The host: the person in the lowest-numbered seat held (the opener, unless he left)."""
        return host(self.seats)

    def release(self, by: int, seat: int) -> None:
        """The host (seat ``by``) lets anyone take the reserved seat ``seat`` (one that was
        left during the game)."""
        release(self.seats, by, seat)

    def take_back(self, seat: int) -> None:
        """The seat's player plays his seat again himself."""
        check_seat(self.seats, seat)
        if self.seats[seat].stand_in and not self.over:
            self.logs.note(f"{self.seats[seat].name} is back and plays p{seat} again")
        self.seats[seat].stand_in = False
        self.turn_started = self.clock()

    def time_out(self, seat: int) -> None:
        """The seat's turn time ran out: a stand-in bot plays it until its player takes it back."""
        self.seats[seat].stand_in = True
        self.logs.note(f"{self.seats[seat].name}'s turn time ran out: a bot ({self.stand_in_bot}) plays p{seat}")

    @property
    def at(self) -> int:
        """The state id: how many actions the game has."""
        return len(self.game)

    @property
    def over(self) -> bool:
        return is_terminal(self.game.state)

    def waiting_for(self) -> int | None:
        """The human seat whose decision the game waits for, if any."""
        state = self.game.state
        if not self.started or is_terminal(state) or is_chance_node(state):
            return None
        p = current_player(state)
        if p is None or self.seats[p].bot is not None or self.seats[p].stand_in:
            return None
        return p

    def expired(self) -> int | None:
        """The seat whose turn time has run out, if any (the server then stands in for it)."""
        p = self.waiting_for()
        if p is not None and self.clock() - self.turn_started > self.turn_seconds:
            return p
        return None

    def propose(self, seat: int, text: object, at: object, *, search: bool = True) -> list[Action]:
        """The actions that follow seat ``seat`` choosing ``text`` (notation) at state id ``at``:
        his action, then the draws and the bots' moves up to the next human decision (with
        ``search=False``: up to a searching bot's decision too, see :meth:`thinking`, and
        at most :data:`AUTO_CHUNK` actions).

        Raises :class:`StaleAction` when ``at`` is not the current state id, and the
        referee's errors (worded from the seat's view) for an action he may not take.
        Changes nothing: :meth:`commit` the actions once they are stored.
        """
        self._check_fresh(at)
        if not isinstance(text, str) or len(text) > 200:
            raise TableError("an action is notation text of at most 200 characters")
        if not self.started:
            raise TableError("the game starts when every seat is taken")
        if self.seats[seat].stand_in:
            raise TableError(f"a stand-in bot plays seat {seat}: take it back first")
        action = check_as(self.game.state, text, seat)
        return self.bots.play(apply(self.game.state, action), self.seats, [action], search)

    def _check_fresh(self, at: object) -> None:
        if type(at) is not int or at != self.at:
            raise StaleAction(f"the action was chosen at state {at!r}, the game is at state {self.at}")

    def propose_auto(self, *, search: bool = True) -> list[Action]:
        """The draws and bot moves the game makes by itself from now on (none before it starts);
        ``search=False``: up to a searching bot's decision, at most :data:`AUTO_CHUNK` actions."""
        if not self.started:
            return []
        return self.bots.play(self.game.state, self.seats, [], search)

    @property
    def stand_in_bot(self) -> str:
        """The spec of the bot that plays for a human seat's player while he is away."""
        return self.bots.stand_in_bot

    def thinking(self) -> tuple[int, str, PlayerView] | None:
        """The searching bot the game waits for, if any: its seat, spec and view (a worker
        thinks for it; :meth:`propose_bot` then checks and plays its move)."""
        bot = self.bots.to_move(self.game.state, self.seats, self.started)
        if bot is None or is_quick(bot[1]):
            return None
        return bot[0], bot[1], view(self.game.state, bot[0])

    def owes(self) -> bool:
        """Whether the game waits for a draw or a bot (its own move, or a searching bot's)."""
        state = self.game.state
        if self.started and not is_terminal(state) and is_chance_node(state):
            return True
        return self.bots.to_move(self.game.state, self.seats, self.started) is not None

    def propose_bot(self, seat: int, text: str, at: int) -> list[Action]:
        """The actions that follow the searching bot of ``seat`` choosing ``text`` at state id
        ``at`` (see :meth:`thinking`): checked by the referee as a player's action is, then
        the draws and quick bots' moves as :meth:`propose` with ``search=False``."""
        self._check_fresh(at)
        waiting = self.thinking()
        if waiting is None or waiting[0] != seat:
            raise StaleAction(f"the game does not wait for seat {seat}'s bot")
        action = check_as(self.game.state, text, seat)
        return self.bots.play(apply(self.game.state, action), self.seats, [action], False)

    def commit(self, actions: Sequence[Action]) -> None:
        """Apply ``actions`` (as proposed, and stored); every seat's log hears of them when it is read."""
        for action in actions:
            p = action.player
            if self.seats[p].bot is None and self.seats[p].stand_in and action.kind != "draw":
                self.logs.bots[len(self.game)] = self.stand_in_bot
            self.game.push(action)
        if actions:
            self.started = True
            self.turn_started = self.clock()

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (``None``: a spectator) may know, in one frame: for a reconnect."""
        return self._frames.snapshot(seat, [s.public() for s in self.seats], self.started)

    def update(self, seat: int | None, since: int, lines_since: int) -> dict[str, Any]:
        """What ``seat`` learns from the actions after state ``since`` (his log's lines after
        ``lines_since``), as an ``update`` frame."""
        return self._frames.update(seat, since, lines_since, [s.public() for s in self.seats], self.started)

    def record(self) -> Record:
        """The whole game's record (give it out only once the game is over)."""
        return make_record(self.game, self.names())

    def redacted(self, seat: int | None) -> RedactedRecord:
        """The game as ``seat`` (``None``: a spectator) saw it."""
        return redact(self.record(), seat)
