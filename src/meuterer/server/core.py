"""The core of the server's hub: its tables, their locks and connections, the store they
are kept in, and the changes it stores before it tells them (a table's moves, its draws and
bots, its stand-ins, its end). :mod:`.lobby` and :mod:`.sockets` build on it; :mod:`.app`
joins them into the :class:`~meuterer.server.app.Hub`."""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import time
from collections import deque
from typing import Any, Final

import anyio
import attrs
from starlette.websockets import WebSocket

from meuterer.agents.greedy import GreedyAgent
from meuterer.errors import MeutererError
from meuterer.server import Limits
from meuterer.server.bots import BotPool
from meuterer.server.chat import Chat
from meuterer.server.clock import turn_clock
from meuterer.server.invites import Invites
from meuterer.server.outbox import Outbox
from meuterer.server.requests import (
    Refused,
)
from meuterer.server.seats import mark_connected
from meuterer.server.store import Store
from meuterer.server.table import SECRET, StaleAction, Table

__all__ = ["BURST", "MAX_DROPPED", "MINUTE", "RATE", "Connection", "HubCore"]

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


class HubCore:
    """The server's tables, their locks and connections, and the store they are kept in."""

    def __init__(
        self, store: Store, turn_seconds: float = 120.0, bots: BotPool | None = None, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.turn_seconds = turn_seconds
        self.limits = limits or Limits()
        self.tables: dict[str, Table] = {table.id: table for table in store.load()}
        self.chats: dict[str, Chat] = {t: chat for t, chat in store.chats().items() if t in self.tables}
        """Each table's chat (its last lines, stored with the table)."""
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
                table.time_out(seat)
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

    def holder(self, table: Table, data: dict[str, Any]) -> int:
        try:
            return table.authenticate(data.get("token"))
        except MeutererError as error:
            raise Refused(403, str(error)) from None

    async def resume(self) -> None:
        """After a restart: let every table make the moves it owes (draws, bots, stand-ins
        whose seats were handed over just before the server stopped), in the background."""
        for table in list(self.tables.values()):
            self.wake(table)

    def attach(self, table: Table, connection: Connection) -> None:
        """Count ``connection`` among the table's and start its sender; a dropped one is
        forgotten, and why is remembered to tell its reader when he comes back."""
        connection.outbox.on_drop = lambda reason: self._dropped_now(table, connection, reason)
        connection.outbox.start()
        self.connections.setdefault(table.id, set()).add(connection)

    def present(self, table: Table, coming: int | None = None) -> bool:
        """Mark the seats whose holder has a page open at the table (or is opening one:
        ``coming``); whether any changed."""
        held = {c.seat for c in self.connections.get(table.id, ()) if not c.outbox.closing} | {coming}
        return mark_connected(table.seats, held)

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
