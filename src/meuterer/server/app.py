"""The ASGI application of ``meuterer serve`` (Starlette): the lobby, the tables' WebSockets
and the browser client.

HTTP (JSON bodies of at most :data:`MAX_BODY` bytes):

- ``GET /`` the lobby page; ``GET /table/{id}`` the table page (a seat's secret token
  travels in the page's fragment, ``#token=...``, never in a URL the server logs);
- ``GET /api/tables`` the tables not over; ``POST /api/tables`` creates one
  (``{"players": 4, "rules": {...}, "bots": {"1": "greedy"}, "name": "ann", "seat": 0}``);
- ``POST /api/tables/{id}/join`` (``{"seat": 2, "name": "bob"}``) gives a seat's token;
  ``.../leave`` and ``.../rematch`` take ``{"token": ...}``;
- ``GET /api/tables/{id}/record`` the game's record once it is over (archived tables
  included); during the game a spectator's redacted record, or ``POST`` with the seat's
  ``{"token": ...}`` (JSON or a form's ``token=...``) its seat's; ``.../replay`` the same
  record as the replay page (``meuterer.viewer``). A token in a URL's query is refused:
  URLs reach access logs.

WebSocket ``/ws/{id}``: the first message is ``{"token": ...}`` (a seat) or ``{"watch":
true}`` (a spectator); the answer is a ``snapshot`` frame, then ``update`` frames as the
game goes on. A seat sends ``{"act": "p0 offer 2", "at": 17}``, ``{"take_back": true}``
or ``{"resync": true}``; a refused action is answered with a ``refused`` frame (the
referee's words), a stale one with a new ``snapshot`` that says ``"stale": true``.
Messages longer than :data:`MAX_MESSAGE` characters, nested deeper than :data:`MAX_DEPTH`,
or more than :data:`RATE` per second on average, close the socket.

:class:`Limits` bounds the lobby (tables per client and per minute, a waiting table's
life, how long a finished table stays in memory) and the sockets (per table, counted from
the handshake, in all, and the wait for a socket's first message).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator
from importlib.resources import files
from typing import Any, Final

import anyio
import attrs
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from meuterer.agents.greedy import GreedyAgent
from meuterer.agents.registry import agent_names
from meuterer.errors import MeutererError
from meuterer.record import Record, dumps_record
from meuterer.redact import RedactedRecord, dumps_redacted
from meuterer.rules import Rules
from meuterer.server import Limits
from meuterer.server.bots import MAX_ITERATIONS, BotPool, check_spec
from meuterer.server.chat import Chat
from meuterer.server.clock import turn_clock
from meuterer.server.invites import Invite, Invites, read_invite
from meuterer.server.outbox import Outbox
from meuterer.server.rematch import rematch
from meuterer.server.requests import (
    MAX_BODY,
    MAX_DEPTH,
    MAX_MESSAGE,
    Refused,
    read_body,
    read_message,
    read_rules,
    seat_number,
)
from meuterer.server.store import DEFAULT_URL, Store, StoreError
from meuterer.server.table import SECRET, Seat, StaleAction, Table, TableError, browser_key
from meuterer.viewer import replay_html

__all__ = ["MAX_BODY", "MAX_DEPTH", "MAX_MESSAGE", "RATE", "Hub", "Limits", "StoreError", "create_app"]

RATE: Final = 20.0
"""Messages per second a connection may send on average (a burst of :data:`BURST` is allowed)."""
BURST: Final = 40.0
MAX_SOCKETS: Final = Limits().sockets_per_table
"""Most WebSockets open on one table by default (:attr:`Limits.sockets_per_table`)."""
MAX_TABLES: Final = Limits().tables
"""Most tables the server holds that are not over, by default (:attr:`Limits.tables`)."""
MINUTE: Final = 60.0
MAX_DROPPED: Final = 4096
"""Most dropped readers the server remembers, to tell them why when they come back."""

STATIC = files("meuterer.server") / "static"


@attrs.define(eq=False)
class Connection:
    """One WebSocket: its seat (``None``: a spectator), what it has been sent, its rate budget."""

    socket: WebSocket
    seat: int | None
    token_hash: str | None = None
    """The stored hash of the token the seat's socket was opened with."""
    at: int = 0
    lines: int = 0
    budget: float = BURST
    last: float = attrs.field(factory=time.monotonic)
    key_hash: str | None = None
    """The hash of the browser key the socket was opened with, if any."""
    outbox: Outbox = attrs.field(init=False)
    """The frames waiting to be sent: nothing is sent while a table is locked."""

    def __attrs_post_init__(self) -> None:
        self.outbox = Outbox(self.socket)

    def allow(self) -> bool:
        """Spend one message of the rate budget; ``False`` when there is none left."""
        now = time.monotonic()
        self.budget = min(BURST, self.budget + (now - self.last) * RATE)
        self.last = now
        self.budget -= 1
        return self.budget >= 0


class Hub:
    """The server's tables, their locks and connections, and the store they are kept in."""

    def __init__(
        self, store: Store, turn_seconds: float = 120.0, bots: BotPool | None = None, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.turn_seconds = turn_seconds
        self.limits = limits or Limits()
        self.tables: dict[str, Table] = {table.id: table for table in store.load()}
        self.chats: dict[str, Chat] = {}
        """Each table's chat (kept in memory only)."""
        self.invites = Invites((t, i) for t, i in store.invites().items() if t in self.tables)
        self.locks: dict[str, asyncio.Lock] = {}
        self.connections: dict[str, set[Connection]] = {}
        self.bots = bots or BotPool()
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self.dropped: collections.OrderedDict[str, str] = collections.OrderedDict()
        """Why a reader's socket was dropped, by its token's or browser key's hash (told when it comes back)."""
        lives = store.lives()
        now = time.time()
        self.opener: dict[str, str | None] = {t: lives[t].opener if t in lives else None for t in self.tables}
        """The hash of the address of the client who opened each table held (``None``: unknown)."""
        self.created: dict[str, float] = {t: lives[t].created if t in lives else now for t in self.tables}
        self.ended: dict[str, float] = {t: e for t in self.tables if t in lives and (e := lives[t].ended) is not None}
        self.recent: dict[str, deque[float]] = {}
        """When each client opened its tables of the last minute."""
        for life in sorted(lives.values(), key=lambda life: life.created):
            if life.opener is not None and now - life.created < MINUTE:
                self.recent.setdefault(life.opener, deque()).append(life.created)
        self.sockets = 0
        """WebSockets open (from their handshake on)."""
        self.table_sockets: dict[str, int] = {}
        """WebSockets open on each table (from their handshake on)."""
        self.opening = 0
        """Tables being opened (counted against the limits before they are stored)."""

    def lock(self, table_id: str) -> asyncio.Lock:
        return self.locks.setdefault(table_id, asyncio.Lock())

    def table(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise Refused(404, "no such table")
        return table

    # Changes, stored before they are told --------------------------------------------------

    async def advance(self, table: Table, new: list[Any]) -> None:
        """Store ``new`` (committed to the database first), then apply and broadcast them."""
        if new:
            await anyio.to_thread.run_sync(self.store.append, table, new)
            table.commit(new)
        await self.broadcast(table)
        self.wake(table)

    def wake(self, table: Table) -> None:
        """Start the table's driver if the game owes draws or bots' moves and none runs."""
        if not table.owes():
            return
        task = self.drivers.get(table.id)
        if task is None or task.done():
            self.drivers[table.id] = asyncio.get_running_loop().create_task(self.drive(table))

    async def drive(self, table: Table) -> None:
        """Make the moves the game owes, one chunk of draws and quick bots' moves, or one
        searching bot's move thought in a worker (without the table's lock), at a time."""
        try:
            while True:
                async with self.lock(table.id):
                    waiting = table.thinking()
                    if waiting is None and not table.owes():
                        return
                    if waiting is None:
                        await self.advance(table, table.propose_auto(search=False))
                    at = table.at
                if waiting is None:
                    await asyncio.sleep(0)  # another table's turn
                    continue
                seat, spec, v = waiting
                thought = await self.bots.think(spec, v, SECRET.getrandbits(63))
                async with self.lock(table.id):
                    try:  # the referee checks the bot's move as it would a player's
                        new = table.propose_bot(seat, thought.action, at)
                    except StaleAction:
                        continue  # the game moved on meanwhile: think again
                    except MeutererError as error:  # refused: the greedy bot's move instead
                        logging.getLogger("meuterer.server").error("table %s: bot %r: %s", table.id, spec, error)
                        new = table.propose_bot(seat, str(GreedyAgent().act(v, v.legal_actions(), SECRET)), at)
                    await self.advance(table, new)
        except Exception:  # pragma: no cover - logged, and tried again in 5 s (a database that was down)
            logging.getLogger("meuterer.server").exception("table %s: its bots stopped", table.id)
            asyncio.get_running_loop().call_later(5.0, self.wake, table)
        finally:
            if self.drivers.get(table.id) is asyncio.current_task():
                del self.drivers[table.id]

    async def save_seats(self, table: Table) -> None:
        await anyio.to_thread.run_sync(self.store.save_seats, table)

    async def broadcast(self, table: Table) -> None:
        made: dict[tuple[int | None, int, int], str] = {}
        for connection in list(self.connections.get(table.id, ())):
            key = (connection.seat, connection.at, connection.lines)
            if key not in made:
                made[key] = json.dumps(
                    table.update(connection.seat, connection.at, connection.lines) | turn_clock(table)
                )
            await self.send(connection, table, made[key])

    async def send(self, connection: Connection, table: Table, text: str) -> None:
        """Queue ``text`` for the socket's sender, without waiting: a socket whose reader does
        not keep up (see :mod:`.outbox`) is dropped,
        so that it cannot hold up its table."""
        if not connection.outbox.put(text):
            self.connections.get(table.id, set()).discard(connection)
        connection.at = table.at
        connection.lines = len(table.logs[connection.seat].lines)

    async def snapshot(self, connection: Connection, table: Table, **extra: Any) -> None:
        frame = table.snapshot(connection.seat)
        chat = list(self.chats.get(table.id, Chat()).lines)
        frame.update(extra, rematch=table.rematch, chat=chat, **self.invites.told(table.id, connection.seat))
        frame.update(turn_clock(table))
        await self.send(connection, table, json.dumps(frame))

    async def tick(self) -> None:
        """Stand in for every seat whose turn time has run out."""
        for table in list(self.tables.values()):
            seat = table.expired()
            if seat is None:
                continue
            async with self.lock(table.id):
                if table.expired() != seat:
                    continue
                table.seats[seat].stand_in = True
                await self.save_seats(table)
                await self.advance(table, table.propose_auto(search=False))

    async def sweep(self) -> None:
        """Remove the tables that waited too long for their players; note when games end;
        archive the tables finished for longer than :attr:`Limits.keep_finished`."""
        now = time.time()
        for table in list(self.tables.values()):
            if not table.started and now - self.created.get(table.id, now) >= self.limits.table_wait:
                await self._retire(table, "the table expired: its game did not start in time", archive=False)
            elif table.over and table.id not in self.ended:
                self.ended[table.id] = now
                await anyio.to_thread.run_sync(self.store.ended, table.id, now)
            elif table.over and now - self.ended[table.id] >= self.limits.keep_finished:
                await self._retire(table, "the game is over and archived: its record stays downloadable", archive=True)

    async def _retire(self, table: Table, reason: str, *, archive: bool) -> None:
        """Take ``table`` out of memory (archived, or deleted from the store), closing its sockets."""
        async with self.lock(table.id):
            if self.tables.get(table.id) is not table or (not archive and table.started):
                return  # gone meanwhile, or its game started while we waited for the lock
            await anyio.to_thread.run_sync(self.store.archive if archive else self.store.delete, table.id)
            del self.tables[table.id]
            for connection in list(self.connections.pop(table.id, ())):
                connection.outbox.close(4004, reason)
        for held in (self.opener, self.created, self.ended, self.locks, self.invites, self.chats):
            held.pop(table.id, None)

    # Lobby ----------------------------------------------------------------------------------

    def _admit(self, client: str | None) -> str | None:
        """Refuse a new table when the server or the client ``client`` (an address; ``None``:
        the server itself, for a rematch) holds as many as it may; the client's hash. (The
        caller counts the table in :attr:`recent` once the request is found valid.)"""
        held = [t for t, table in self.tables.items() if not table.over]
        if len(held) + self.opening >= self.limits.tables:
            raise Refused(503, "the server holds as many tables as it may")
        if client is None:
            return None
        opener = hashlib.sha256(client.encode("utf-8", "replace")).hexdigest()
        mine = sum(o == opener and (t not in self.tables or not self.tables[t].over) for t, o in self.opener.items())
        if mine >= self.limits.tables_per_client:
            raise Refused(429, f"a client may have at most {self.limits.tables_per_client} tables open at once")
        now = time.time()
        recent = self.recent.setdefault(opener, deque())
        while recent and now - recent[0] >= MINUTE:
            recent.popleft()
        if len(recent) >= self.limits.tables_per_minute:
            wait = max(1, int(MINUTE - (now - recent[0]) + 0.999))
            raise Refused(
                429, f"a client may open at most {self.limits.tables_per_minute} tables a minute: try again in {wait} s"
            )
        return opener

    async def create(
        self, data: dict[str, Any], rules: Rules | None = None, client: str | None = None
    ) -> dict[str, Any]:
        """Open a table for ``client`` (an address; ``None``: the server, for a rematch)."""
        opener = self._admit(client)
        players = data.get("players", 4)
        if players not in (3, 4) or type(players) is not int:
            raise Refused(400, "players: 3 or 4")
        rules = rules or read_rules(data.get("rules"))
        bots = data.get("bots") or {}
        if not isinstance(bots, dict) or len(bots) > players:
            raise Refused(400, 'bots: an object from seat to agent spec, such as {"1": "greedy"}')
        seats = [Seat() for _ in range(players)]
        for key, spec in bots.items():
            seat = seat_number(key, players)
            if not isinstance(spec, str) or len(spec) > 60:
                raise Refused(400, f"bots: seat {seat} needs an agent spec such as 'greedy'")
            try:
                check_spec(spec)  # a bad spec, or a search budget over the server's largest
            except MeutererError as error:
                raise Refused(400, str(error)) from None
            seats[seat].bot = spec
            seats[seat].name = spec
        table_id = secrets.token_urlsafe(9)
        try:
            invite = read_invite(data, self.turn_seconds)
            table = Table(
                table_id,
                players=players,
                seats=seats,
                rules=rules,
                first_captain=secrets.randbelow(players),
                turn_seconds=invite.seconds,
            )
        except MeutererError as error:
            raise Refused(400, str(error)) from None
        answer: dict[str, Any] = {"table": table_id, "code": invite.code}
        name = data.get("name")
        if name is not None:
            seat = seat_number(data.get("seat", next((p for p, s in enumerate(seats) if s.open), 0)), players)
            answer.update(seat=seat, token=self._join(table, seat, name, data.get("key")))
        if opener is not None:  # no await since _admit: two requests of one client get no extra table
            self.recent[opener].append(time.time())
        self.opening += 1
        self.opener[table_id] = opener
        try:
            async with self.lock(table_id):
                new = table.propose_auto(search=False)
                await anyio.to_thread.run_sync(self.store.add, table, opener, invite)
                self.invites[table_id] = invite
                self.created[table_id] = time.time()
                self.tables[table_id] = table
                await self.advance(table, new)
        except BaseException:
            if table_id not in self.tables:
                self.opener.pop(table_id, None)
            raise
        finally:
            self.opening -= 1
        return answer

    def _join(self, table: Table, seat: int, name: object, key: object = None) -> str:
        if not isinstance(name, str):
            raise Refused(400, "name: a text")
        try:
            return table.join(seat, name, key)
        except MeutererError as error:
            raise Refused(409, str(error)) from None

    async def join(self, table_id: str, data: dict[str, Any]) -> dict[str, Any]:
        table = self.table(table_id)
        async with self.lock(table_id):
            seat = seat_number(data.get("seat"), table.players)
            try:
                self.invites.check(table_id, data.get("code"))
            except MeutererError as error:
                raise Refused(403, str(error)) from None
            token = self._join(table, seat, data.get("name", ""), data.get("key"))
            await self.save_seats(table)
            await self.advance(table, table.propose_auto(search=False))
        return {"table": table_id, "seat": seat, "token": token}

    def holder(self, table: Table, data: dict[str, Any]) -> int:
        try:
            return table.authenticate(data.get("token"))
        except MeutererError as error:
            raise Refused(403, str(error)) from None

    async def leave(self, table_id: str, data: dict[str, Any]) -> dict[str, Any]:
        table = self.table(table_id)
        async with self.lock(table_id):
            seat = self.holder(table, data)
            table.leave(seat)
            await self.save_seats(table)
            for connection in list(self.connections.get(table_id, ())):
                if connection.seat == seat:
                    connection.outbox.close(4001, "left the table")
            await self.advance(table, table.propose_auto(search=False))
        return {"table": table_id, "seat": seat, "left": True}

    async def rematch(self, table_id: str, data: dict[str, Any]) -> dict[str, Any]:
        """The group's rematch (:func:`.rematch.rematch`)."""
        return await rematch(self, table_id, data)

    async def release(self, table_id: str, data: dict[str, Any]) -> dict[str, Any]:
        """The host lets anyone take a seat left during the game (``{"token": ..., "seat": 1}``)."""
        table = self.table(table_id)
        async with self.lock(table_id):
            host = self.holder(table, data)
            seat = seat_number(data.get("seat"), table.players)
            try:
                table.release(host, seat)
            except MeutererError as error:
                raise Refused(403 if "host" in str(error) else 409, str(error)) from None
            await self.save_seats(table)
            await self.broadcast(table)
        return {"table": table_id, "seat": seat, "released": True}

    async def resume(self) -> None:
        """After a restart: let every table make the moves it owes (draws, bots, stand-ins
        whose seats were handed over just before the server stopped), in the background."""
        for table in list(self.tables.values()):
            self.wake(table)

    def listing(self, code: str | None = None) -> list[dict[str, Any]]:
        """The public tables not over (with ``code``: the table of that invite code, even private)."""
        found = self.invites.find(code) if code is not None else None
        return [
            {
                "table": t.id,
                "players": t.players,
                "started": t.started,
                "at": t.at,
                "seats": [s.public() for s in t.seats],
                "host": None if (host := t.host()) is None else t.seats[host].name,
                **self.invites.get(t.id, Invite(turn_seconds=None)).public(),
            }
            for t in self.tables.values()
            if not t.over and (t.id == found if code is not None else not self.invites.get(t.id, Invite()).private)
        ]

    async def record(self, table_id: str, token: str | None) -> Record | RedactedRecord:
        """The whole record once the game is over (an archived table's from the store);
        before, the redacted record of the token's seat, or a spectator's without a token."""
        if table_id not in self.tables and len(table_id) <= 40:
            try:
                stored = await anyio.to_thread.run_sync(self.store.record, table_id)
            except StoreError as error:
                raise Refused(500, str(error)) from None
            if stored is not None:
                return stored
        table = self.table(table_id)
        if table.over:
            return table.record()
        seat = None if token is None else self.holder(table, {"token": token})
        return table.redacted(seat)

    # The table's socket ----------------------------------------------------------------------

    async def serve_socket(self, socket: WebSocket, table_id: str) -> None:
        """Serve one WebSocket, counted against the limits from its handshake to its end."""
        table = self.tables.get(table_id)
        limits = self.limits
        if self.sockets >= limits.sockets:
            await _refuse(socket, 1013, "the server holds as many connections as it may: try again later")
            return
        if table is None:
            await _refuse(socket, 4004, "no such table")
            return
        if self.table_sockets.get(table_id, 0) >= limits.sockets_per_table:
            await _refuse(socket, 1013, "too many connections to this table")
            return
        self.sockets += 1
        self.table_sockets[table_id] = self.table_sockets.get(table_id, 0) + 1
        try:
            await socket.accept()
            await self._serve_socket(socket, table)
        finally:
            self.sockets -= 1
            self.table_sockets[table_id] -= 1
            if not self.table_sockets[table_id]:
                del self.table_sockets[table_id]

    async def _serve_socket(self, socket: WebSocket, table: Table) -> None:
        table_id = table.id
        try:
            hello = read_message(await asyncio.wait_for(socket.receive_text(), self.limits.hello_seconds))
            seat = None if hello.get("watch") is True else self.holder(table, hello)
        except TimeoutError:
            await socket.close(4008, f"no first message within {self.limits.hello_seconds:g} s")
            return
        except WebSocketDisconnect:
            return
        except (Refused, ValueError, KeyError) as error:
            reason = "a message is text" if isinstance(error, KeyError) else str(error)
            await socket.send_text(json.dumps({"type": "error", "reason": reason}))
            await socket.close(4003, "who are you?")
            return
        try:
            key_hash = browser_key(hello.get("key"))
        except TableError:
            key_hash = None
        token_hash = None if seat is None else table.seats[seat].token_hash
        connection = Connection(socket, seat, token_hash, key_hash=key_hash)
        told = {"dropped": why} if (why := self._dropped_before(connection)) else {}
        async with self.lock(table_id):
            if self.tables.get(table_id) is not table:  # retired while the first message came
                await socket.close(4004, "no such table")
                return
            self.attach(table, connection)
            await self.snapshot(connection, table, **told)
        try:
            while True:
                text = await socket.receive_text()
                if connection.outbox.closing:  # dropped (or being closed): nothing more is answered
                    return
                if not connection.allow():
                    connection.outbox.close(1008, "too many messages")
                    return
                try:
                    message = read_message(text)
                except ValueError as error:
                    connection.outbox.close(1009 if len(text) > MAX_MESSAGE else 1003, str(error))
                    return
                if not await self.handle(connection, table, message):
                    return
        except WebSocketDisconnect:
            pass
        except RuntimeError:  # the socket was closed by this side (dropped): nothing more to read
            if not connection.outbox.closing:
                raise
        finally:
            self.connections.get(table_id, set()).discard(connection)
            await connection.outbox.finish()

    def attach(self, table: Table, connection: Connection) -> None:
        """Count ``connection`` among the table's and start its sender; a dropped one is
        forgotten, and why is remembered to tell its reader when he comes back."""
        connection.outbox.on_drop = lambda reason: self._dropped_now(table, connection, reason)
        connection.outbox.start()
        self.connections.setdefault(table.id, set()).add(connection)

    def _dropped_now(self, table: Table, connection: Connection, reason: str) -> None:
        self.connections.get(table.id, set()).discard(connection)
        for key in (connection.token_hash, connection.key_hash):
            if key is not None:
                self.dropped[key] = reason
                self.dropped.move_to_end(key)
        while len(self.dropped) > MAX_DROPPED:
            self.dropped.popitem(last=False)

    def _dropped_before(self, connection: Connection) -> str | None:
        """Why this reader's last socket was dropped, if it was (told once)."""
        found = [self.dropped.pop(key, None) for key in (connection.token_hash, connection.key_hash) if key]
        return next((why for why in found if why), None)

    async def chat(self, table: Table, seat: int, text: object, connection: Connection) -> None:
        """Tell everyone at the table the seat's chat line (or the seat why it is refused)."""
        try:
            line = self.chats.setdefault(table.id, Chat()).say(seat, table.seats[seat].name, text)
        except MeutererError as error:
            await self.send(connection, table, json.dumps({"type": "refused", "reason": str(error)}))
            return
        frame = json.dumps({"type": "chat", **line})
        for other in list(self.connections.get(table.id, ())):
            await self.send(other, table, frame)

    async def handle(self, connection: Connection, table: Table, message: dict[str, Any]) -> bool:
        """Answer one message; ``False`` once the socket is closed."""
        async with self.lock(table.id):
            if message.get("resync") is True:
                await self.snapshot(connection, table)
                return True
            seat = connection.seat
            if seat is None:
                refused = {"type": "refused", "reason": "a spectator takes no action"}
                await self.send(connection, table, json.dumps(refused))
                return True
            if not hmac.compare_digest(table.seats[seat].token_hash or "", connection.token_hash or "-"):
                connection.outbox.close(4001, "left the table")  # the seat was left (and maybe taken since)
                return False
            if "chat" in message:
                await self.chat(table, seat, message["chat"], connection)
                return True
            if message.get("take_back") is True:
                table.take_back(seat)
                await self.save_seats(table)
                await self.broadcast(table)
                return True
            try:
                new = table.propose(seat, message.get("act"), message.get("at"), search=False)
            except StaleAction as error:
                await self.snapshot(connection, table, stale=True, reason=str(error))
                return True
            except MeutererError as error:
                frame = {"type": "refused", "reason": str(error), "action": str(message.get("act"))[:200]}
                await self.send(connection, table, json.dumps(frame))
                return True
            await self.advance(table, new)
            return True


async def _refuse(socket: WebSocket, code: int, reason: str) -> None:
    """Accept ``socket`` only to close it with ``code`` and ``reason`` (a client learns why)."""
    with contextlib.suppress(Exception):
        await socket.accept()
        await socket.close(code, reason)


def _page(name: str) -> HTMLResponse:
    return HTMLResponse((STATIC / name).read_text(encoding="utf-8"), headers=_SECURITY)


_REPLAY_SECURITY: Final = {
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
_SECURITY: Final = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def create_app(
    url: str = DEFAULT_URL,
    turn_seconds: float = 120.0,
    tick_seconds: float = 1.0,
    bot_workers: int | None = None,
    limits: Limits | None = None,
) -> Starlette:
    """The server's ASGI application, keeping its tables in the database at ``url``
    (:class:`StoreError` at once if it cannot be used), bounded by ``limits``;
    ``bot_workers``: processes thinking for the searching bots (default: the cores less one)."""
    hub = Hub(Store(url), turn_seconds, BotPool(bot_workers), limits)

    async def api(request: Request) -> Response:
        try:
            table_id = request.path_params.get("table_id", "")
            action = request.path_params.get("action")
            if request.method == "GET" and not table_id:
                limits = {"max_iterations": MAX_ITERATIONS, "move_cpu_seconds": hub.bots.cpu_seconds}
                listed = hub.listing(request.query_params.get("code"))
                return JSONResponse({"tables": listed, "bots": list(agent_names()), "bot_limits": limits})
            if action in ("record", "replay"):
                if "token" in request.query_params:
                    raise Refused(400, "a seat's token goes in a POST body, never in a URL (URLs are logged)")
                token = (await read_body(request)).get("token") if request.method == "POST" else None
                if token is not None and not isinstance(token, str):
                    raise Refused(400, "token: a text")
                record = await hub.record(table_id, token)
                if action == "replay":  # the replay page (its own inline script and boards, nothing else)
                    return HTMLResponse(replay_html(record), headers=_REPLAY_SECURITY)
                text = dumps_record(record) if isinstance(record, Record) else dumps_redacted(record)
                return Response(text, media_type="application/json", headers={"Content-Disposition": "attachment"})
            data = await read_body(request)
            if not table_id:
                return JSONResponse(await hub.create(data, client=request.client.host if request.client else None))
            handlers = {"join": hub.join, "leave": hub.leave, "rematch": hub.rematch, "release": hub.release}
            if action not in handlers:
                raise Refused(404, "no such request")
            return JSONResponse(await handlers[action](table_id, data))
        except Refused as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)

    async def lobby(request: Request) -> Response:
        return _page("lobby.html")

    async def table_page(request: Request) -> Response:
        return _page("table.html")

    async def socket(websocket: WebSocket) -> None:
        await hub.serve_socket(websocket, websocket.path_params["table_id"])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def ticker() -> None:
            while True:
                await asyncio.sleep(tick_seconds)
                try:
                    await hub.tick()
                except Exception:  # pragma: no cover - logged, and the ticker goes on
                    logging.getLogger("meuterer.server").exception("standing in failed")
                try:
                    await hub.sweep()
                except Exception:  # pragma: no cover - logged, and the ticker goes on
                    logging.getLogger("meuterer.server").exception("expiring or archiving tables failed")

        await hub.resume()
        task = asyncio.create_task(ticker())
        try:
            yield
        finally:
            task.cancel()
            for driver in list(hub.drivers.values()):
                driver.cancel()
            hub.bots.close()
            hub.store.close()

    app = Starlette(
        routes=[
            Route("/", lobby),
            Route("/table/{table_id}", table_page),
            Route("/api/tables", api, methods=["GET", "POST"]),
            Route("/api/tables/{table_id}/{action}", api, methods=["GET", "POST"]),
            WebSocketRoute("/ws/{table_id}", socket),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.hub = hub
    return app
