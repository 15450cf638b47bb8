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

import hashlib
import hmac
import random
import secrets
import time
import unicodedata
from collections.abc import Sequence
from typing import Any, Final, cast

import attrs
from rich.console import Console

from meuterer.actions import Action, ChooseRole, Draw, parse_action
from meuterer.agents import Agent, make_agent
from meuterer.cards import Card, Role
from meuterer.cli.play.render import move_help, phase_help
from meuterer.engine import apply, current_player, is_chance_node, is_terminal, sample_chance
from meuterer.errors import MeutererError
from meuterer.game import Game
from meuterer.record import Record, make_record
from meuterer.redact import RedactedRecord, redact
from meuterer.referee import check_as
from meuterer.rules import Rules
from meuterer.rulings import winners
from meuterer.server.bots import is_quick
from meuterer.server.words import WordsNarrator, label, plain
from meuterer.state import State, Step
from meuterer.svg import board
from meuterer.views import HiddenDraw, HiddenRole, PlayerView, Seen, seen, view

__all__ = [
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

SECRET: Final = random.SystemRandom()
"""The dealer's source of chance: the operating system's randomness, never seeded."""

MAX_NAME: Final = 40
"""Most characters in a player's name."""
AUTO_CHUNK: Final = 64
"""Most actions the table makes by itself in one proposal when it leaves searching bots to
a worker (``search=False``): the server's event loop gets a turn between two chunks."""


class TableError(MeutererError):
    """A request the table refuses (a taken seat, a bad token, a bot's seat...)."""


class StaleAction(TableError):
    """An action chosen at an earlier state of the game than the table's: resync."""


def hash_token(token: str) -> str:
    """The stored form of a seat's secret token (its SHA-256; the token itself is never kept)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def browser_key(key: object) -> str | None:
    """The stored form (SHA-256) of a browser key: the random text a page keeps in its
    browser's storage and sends when it joins, so that a table knows which browser holds
    which seat. ``None`` for no key; :class:`TableError` for anything but 16 to 100
    printable ASCII characters.

    >>> browser_key(None), browser_key("k" * 16) == hash_token("k" * 16)
    (None, True)
    """
    if key is None:
        return None
    if not isinstance(key, str) or not 16 <= len(key) <= 100 or not key.isascii() or not key.isprintable():
        raise TableError("a browser key is 16 to 100 printable ASCII characters")
    return hash_token(key)


@attrs.define
class Seat:
    """A seat: a human player's (``bot is None``) or a bot's (an agent spec such as ``greedy``)."""

    name: str = ""
    bot: str | None = None
    token_hash: str | None = None
    """SHA-256 of the seat's secret token; ``None`` while nobody holds the seat."""
    stand_in: bool = False
    """A stand-in bot plays this human seat (its player left or let his turn time run out)."""
    key_hash: str | None = None
    """SHA-256 of the browser key of the seat's holder (or of its last holder), if he gave one."""
    reserved: bool = False
    """The seat was left during the game: only its last holder's browser may take it (or
    whoever comes once the host releases it)."""

    @property
    def open(self) -> bool:
        """A human seat nobody holds."""
        return self.bot is None and self.token_hash is None

    def public(self) -> dict[str, Any]:
        """What everyone may know of the seat."""
        return {
            "name": self.name,
            "bot": self.bot,
            "open": self.open,
            "stand_in": self.stand_in,
            "reserved": self.reserved,
        }


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
    texts, whose turn it is, the scores and, at the end, the winners. A function of ``v`` only."""
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
        "legal": [{"action": str(a), "label": label(v, a), "help": plain(move_help(v, a))} for a in legal],
        "svg": str(board(v, names=names)),
    }


class SeatLog:
    """What one seat (or a spectator, ``seat is None``) has been told of a game: the actions
    as he saw them and their account in plain words, fed with his views and seen actions only."""

    def __init__(self, seat: int | None, first: PlayerView) -> None:
        self.seat = seat
        self.view = first
        self.seen: list[str] = []
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

    def add(self, shown: Seen, after: PlayerView) -> None:
        """One more action, as the seat saw it, and his view after it."""
        self.seen.append(str(shown))
        self._narrator.narrate(self.view, _stand_in_action(shown), after)
        self.view = after


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
        "state": state_frame(log.view, _frame_names(seats)) if state is None else state,
    }


def _frame_names(seats: list[dict[str, Any]]) -> list[str]:
    return [s["name"] or s["bot"] or "open" for s in seats]


class _Logs(dict[int | None, SeatLog]):
    """Every seat's log (and the spectator's, ``None``), brought up to date with the game
    when it is read: a log nobody reads (a bot's seat, a spectator-less table) costs nothing."""

    def __init__(self, game: Game) -> None:
        super().__init__((p, SeatLog(p, view(game.state, p))) for p in (*range(game.players), None))
        self.game = game

    def __getitem__(self, seat: int | None) -> SeatLog:
        log = super().__getitem__(seat)
        game = self.game
        for k in range(len(log.seen), len(game)):
            before, after = game.at(k), game.at(k + 1)
            log.add(seen(before, game.actions[k], after, seat), view(after, seat))
        return log


@attrs.define
class _Planned:
    """Actions proposed but not yet committed, and the state after them."""

    actions: list[Action]
    state: State


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
        if players not in (3, 4):
            raise TableError(f"a table has 3 or 4 players, not {players!r}")
        self.id = table_id
        self.seats = list(seats) if seats is not None else [Seat() for _ in range(players)]
        if len(self.seats) != players:
            raise TableError(f"a table of {players} players needs {players} seats, got {len(self.seats)}")
        for seat in self.seats:
            if seat.bot is not None:
                make_agent(seat.bot)  # refuse a bad spec now (AgentSpecError)
        self.game = Game.new(players, first_captain, rules)
        self.logs: dict[int | None, SeatLog] = _Logs(self.game)
        self._frames: dict[int | None, tuple[tuple[int, tuple[str, ...]], dict[str, Any]]] = {}
        self.turn_seconds = turn_seconds
        self.stand_in_bot = stand_in_bot
        self.clock = clock
        self.started = not any(seat.open for seat in self.seats)  # a table of bots starts at once
        self.turn_started = clock()
        self._agents: dict[int, tuple[str, Agent]] = {}
        self.rematch: str | None = None
        self.commit([parse_action(a) if isinstance(a, str) else a for a in actions])

    # Seats ----------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.game.players

    def names(self) -> list[str]:
        return [seat.name or seat.bot or "open" for seat in self.seats]

    def join(self, seat: int, name: str, key: object = None) -> str:
        """Take the open seat ``seat`` as ``name``; the secret token that identifies its holder.

        ``key``: the joining browser's key (see :func:`browser_key`). One person, one seat: a
        browser that holds a seat at this table is refused another. A seat left during the
        game is *reserved*: only the browser that left it may take it again, until the host
        releases it (:meth:`release`) to anyone.
        """
        self._check_seat(seat)
        held = self.seats[seat]
        if not held.open:
            raise TableError(f"seat {seat} is taken")
        name = " ".join(str(name).split())[:MAX_NAME] or f"p{seat}"
        if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in name):
            raise TableError("a name is printable text (no control, format, private or lone surrogate characters)")
        key_hash = browser_key(key)
        mine = [p for p, s in enumerate(self.seats) if key_hash is not None and s.token_hash and s.key_hash == key_hash]
        if mine:
            raise TableError(f"this browser holds seat {mine[0]} at this table already: one person, one seat")
        if held.reserved and (key_hash is None or not hmac.compare_digest(held.key_hash or "", key_hash)):
            raise TableError(
                f"seat {seat} was left during the game: only its player may take it back (from the same "
                "browser), unless the host lets someone else take it"
            )
        token = secrets.token_urlsafe(24)
        held.token_hash = hash_token(token)
        held.key_hash = key_hash
        held.reserved = False
        held.name = name
        held.stand_in = False
        self.started = self.started or not any(s.open for s in self.seats)
        self.turn_started = self.clock()
        return token

    def authenticate(self, token: object) -> int:
        """The seat whose secret token ``token`` is (compared in constant time), or raise."""
        if isinstance(token, str) and 0 < len(token) <= 100:
            wanted = hash_token(token)
            found = [p for p, s in enumerate(self.seats) if hmac.compare_digest(s.token_hash or "", wanted)]
            if found:
                return found[0]
        raise TableError("no seat at this table has that token")

    def leave(self, seat: int) -> None:
        """The holder of ``seat`` leaves. Before the game starts anyone may take the seat; during
        the game a stand-in bot plays it and it is reserved for its player's browser until the
        host releases it (:meth:`release`)."""
        self._check_seat(seat)
        if self.seats[seat].bot is not None:
            raise TableError(f"seat {seat} is a bot's")
        self.seats[seat].token_hash = None
        self.seats[seat].stand_in = self.started
        self.seats[seat].reserved = self.started and not self.over

    def host(self) -> int | None:
        """The host: the person in the lowest-numbered seat held (who opened the table, unless
        he left it)."""
        return next((p for p, s in enumerate(self.seats) if s.token_hash is not None), None)

    def release(self, by: int, seat: int) -> None:
        """The host (seat ``by``) lets anyone take the reserved seat ``seat`` (one that was
        left during the game)."""
        self._check_seat(seat)
        if by != self.host():
            raise TableError(f"only the host (seat {self.host()}) may let someone else take a seat")
        if not self.seats[seat].reserved:
            raise TableError(f"seat {seat} is not reserved for a player who left")
        self.seats[seat].reserved = False
        self.seats[seat].key_hash = None

    def take_back(self, seat: int) -> None:
        """The seat's player plays his seat again himself."""
        self._check_seat(seat)
        self.seats[seat].stand_in = False
        self.turn_started = self.clock()

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.players:
            raise TableError(f"a seat is a number from 0 to {self.players - 1}, not {seat!r}")

    # Play -----------------------------------------------------------------------------------

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
        planned = _Planned([action], apply(self.game.state, action))
        return self._autoplay(planned, search)

    def _check_fresh(self, at: object) -> None:
        if type(at) is not int or at != self.at:
            raise StaleAction(f"the action was chosen at state {at!r}, the game is at state {self.at}")

    def propose_auto(self, *, search: bool = True) -> list[Action]:
        """The draws and bot moves the game makes by itself from now on (none before it starts);
        ``search=False``: up to a searching bot's decision, at most :data:`AUTO_CHUNK` actions."""
        if not self.started:
            return []
        return self._autoplay(_Planned([], self.game.state), search)

    def _bot_spec(self, seat: int) -> str | None:
        """The spec of the bot that plays ``seat`` now (its own, or the stand-in's), if any."""
        held = self.seats[seat]
        return held.bot if held.bot is not None else self.stand_in_bot if held.stand_in else None

    def _bot_to_move(self) -> tuple[int, str] | None:
        """The seat whose bot (its own or a stand-in) the game waits for, and the bot's spec."""
        state = self.game.state
        if not self.started or is_terminal(state) or is_chance_node(state):
            return None
        p = current_player(state)
        spec = None if p is None else self._bot_spec(p)
        return None if p is None or spec is None else (p, spec)

    def thinking(self) -> tuple[int, str, PlayerView] | None:
        """The searching bot the game waits for, if any: its seat, spec and view (a worker
        thinks for it; :meth:`propose_bot` then checks and plays its move)."""
        bot = self._bot_to_move()
        if bot is None or is_quick(bot[1]):
            return None
        return bot[0], bot[1], view(self.game.state, bot[0])

    def owes(self) -> bool:
        """Whether the game waits for a draw or a bot (its own move, or a searching bot's)."""
        state = self.game.state
        if self.started and not is_terminal(state) and is_chance_node(state):
            return True
        return self._bot_to_move() is not None

    def propose_bot(self, seat: int, text: str, at: int) -> list[Action]:
        """The actions that follow the searching bot of ``seat`` choosing ``text`` at state id
        ``at`` (see :meth:`thinking`): checked by the referee as a player's action is, then
        the draws and quick bots' moves as :meth:`propose` with ``search=False``."""
        self._check_fresh(at)
        waiting = self.thinking()
        if waiting is None or waiting[0] != seat:
            raise StaleAction(f"the game does not wait for seat {seat}'s bot")
        action = check_as(self.game.state, text, seat)
        return self._autoplay(_Planned([action], apply(self.game.state, action)), False)

    def _autoplay(self, planned: _Planned, search: bool = True) -> list[Action]:
        state = planned.state
        while not is_terminal(state) and (search or len(planned.actions) < AUTO_CHUNK):
            if is_chance_node(state):
                action = sample_chance(state, SECRET)
            else:
                p = current_player(state)
                assert p is not None
                spec = self._bot_spec(p)
                if spec is None or not (search or is_quick(spec)):
                    break
                v = view(state, p)
                action = self._agent(p).act(v, v.legal_actions(), SECRET)
            planned.actions.append(action)
            state = apply(state, action)
        return planned.actions

    def _agent(self, seat: int) -> Agent:
        spec = self._bot_spec(seat) or self.stand_in_bot
        known = self._agents.get(seat)
        if known is None or known[0] != spec:
            known = (spec, make_agent(spec, seed=SECRET.getrandbits(63)))
            self._agents[seat] = known
        return known[1]

    def commit(self, actions: Sequence[Action]) -> None:
        """Apply ``actions`` (as proposed, and stored); every seat's log hears of them when it is read."""
        for action in actions:
            self.game.push(action)
        if actions:
            self.started = True
            self.turn_started = self.clock()

    # Frames ---------------------------------------------------------------------------------

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (``None``: a spectator) may know, in one frame: for a reconnect."""
        log = self.logs[seat]
        seats = [s.public() for s in self.seats]
        return seat_frame(self.id, log, seats, self.started, self._state_frame(seat, log, seats))

    def _state_frame(self, seat: int | None, log: SeatLog, seats: list[dict[str, Any]]) -> dict[str, Any]:
        """``state_frame`` of the seat's log, made (and its board drawn) once per action and
        seats' names, for every socket, reconnect and update of that seat (or of all spectators)."""
        names = _frame_names(seats)
        key = (len(log.seen), tuple(names))
        made = self._frames.get(seat)
        if made is None or made[0] != key:
            made = (key, state_frame(log.view, names))
            self._frames[seat] = made
        return made[1]

    def update(self, seat: int | None, since: int, lines_since: int) -> dict[str, Any]:
        """What ``seat`` learns from the actions after state ``since`` (his log's lines after
        ``lines_since``), as an ``update`` frame."""
        log = self.logs[seat]
        seats = [s.public() for s in self.seats]
        return {
            "type": "update",
            "table": self.id,
            "seat": seat,
            "at": len(log.seen),
            "seats": seats,
            "started": self.started,
            "seen": log.seen[since:],
            "lines": log.lines[lines_since:],
            "pending": log.pending(),
            "state": self._state_frame(seat, log, seats),
            "from": since,
            "lines_from": lines_since,
        }

    # Records --------------------------------------------------------------------------------

    def record(self) -> Record:
        """The whole game's record (give it out only once the game is over)."""
        return make_record(self.game, self.names())

    def redacted(self, seat: int | None) -> RedactedRecord:
        """The game as ``seat`` (``None``: a spectator) saw it."""
        return redact(self.record(), seat)
