"""The hub's lobby: opening a table (bounded per client and in all), taking, leaving and
releasing seats, the rematch, the tables' list and their records."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import deque
from typing import Any

import anyio

from meuterer.errors import MeutererError
from meuterer.record import Record
from meuterer.redact import RedactedRecord
from meuterer.rules import Rules
from meuterer.server.bots import check_spec
from meuterer.server.core import MINUTE, HubCore
from meuterer.server.invites import Invite, read_invite
from meuterer.server.rematch import answer_rematch, decline_late, rematch
from meuterer.server.requests import (
    Refused,
    read_rules,
    seat_number,
)
from meuterer.server.store import StoreError
from meuterer.server.table import Seat, Table

__all__ = ["Lobby"]


class Lobby(HubCore):
    """The hub's lobby requests (each answered as a JSON object, or :class:`.Refused`)."""

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
                check_spec(spec, players, rules)  # a bad spec, too large a search budget, rules it refuses
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

    async def accept(self, table_id: str, data: dict[str, Any]) -> dict[str, Any]:
        """A player asked at a rematch plays again (:func:`.rematch.answer_rematch`)."""
        return await answer_rematch(self, table_id, data, play=True)

    async def decline(self, table_id: str, data: dict[str, Any]) -> dict[str, Any]:
        """A player asked at a rematch does not play again (:func:`.rematch.answer_rematch`)."""
        return await answer_rematch(self, table_id, data, play=False)

    async def tick(self) -> None:
        """Stand in for the seats whose turn time ran out, and take the rematch's seats not
        answered in time as declined."""
        await super().tick()
        await decline_late(self)

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
