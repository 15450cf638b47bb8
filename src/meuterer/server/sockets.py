"""The hub's WebSockets: each counted against the limits from its handshake on, its first
message (a seat's token or a spectator's wish to watch), then the seat's actions, take-backs,
resyncs and chat lines, each answered under the table's lock."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
from typing import Any

import anyio
from starlette.websockets import WebSocket, WebSocketDisconnect

from meuterer.errors import MeutererError
from meuterer.server.chat import Chat
from meuterer.server.core import Connection, HubCore
from meuterer.server.requests import (
    MAX_MESSAGE,
    Refused,
    read_message,
)
from meuterer.server.table import StaleAction, Table, TableError, browser_key

__all__ = ["Sockets"]


class Sockets(HubCore):
    """The hub's sockets: :meth:`serve_socket` serves one from its handshake to its end."""

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
            if self.present(table, connection.seat):
                await self.broadcast(table)  # the others learn the seat is connected
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
            async with self.lock(table_id):
                if self.tables.get(table_id) is table and self.present(table):
                    await self.broadcast(table)  # the seat is away

    async def chat(self, table: Table, seat: int, text: object, connection: Connection) -> None:
        """Tell everyone at the table the seat's chat line (or the seat why it is refused)."""
        chat = self.chats.setdefault(table.id, Chat())
        try:
            line = chat.say(seat, table.seats[seat].name, text)
        except MeutererError as error:
            await self.send(connection, table, json.dumps({"type": "refused", "reason": str(error)}))
            return
        await anyio.to_thread.run_sync(self.store.say, table.id, chat.said - 1, line)  # kept before it is told
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
