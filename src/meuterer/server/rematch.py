"""A rematch that moves the group: the first player of a finished table to ask opens a new
table with the same rules and bots, seats there every person whose page is at the finished
table (each at his own seat number, with a new secret token), and tells each of their pages
where to go (a ``rematch`` frame; the token only to the seat's own sockets). A seat whose
player is not there stays open, unless the host asks for a bot in it (``{"bots": {"2":
"greedy"}}``).

The players moved there are *asked* whether they play again (the asker is not: he asked);
the game waits for their answers. One who says no (``POST .../decline``), or does not answer
within the table's turn time, leaves his seat open to anyone with the table's link, unless
the host chose a bot for such seats when he asked for the rematch (``{"if_declined":
"greedy"}``: that bot then takes the seats of the players not there too).
"""

from __future__ import annotations

import hmac
import json
import secrets
from typing import Any

import attrs

from meuterer.errors import MeutererError
from meuterer.server.bots import check_spec
from meuterer.server.requests import Refused
from meuterer.server.seats import answer
from meuterer.server.table import Table, TableError, browser_key, hash_token

__all__ = ["answer_rematch", "decline_late", "rematch"]


async def rematch(hub: Any, table_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """Answer ``POST /api/tables/ID/rematch`` (``{"token": ...}``): the asker's seat and token at
    the rematch, made by the first to ask (see the module's text). Later askers whose seat
    there is open take it; one whose browser key holds it gets a fresh token for it."""
    table = hub.table(table_id)
    seat = hub.holder(table, data)
    if not table.over:
        raise Refused(409, "a rematch starts once the game is over")
    async with hub.lock(table_id):  # two players asking at once get one rematch
        if table.rematch is None:
            return await _open(hub, table, seat, data)
    new = hub.table(table.rematch)
    held = new.seats[seat]
    if held.open:
        asked = {"seat": seat, "name": table.seats[seat].name, "key": data.get("key"), "code": hub.invites[new.id].code}
        joined: dict[str, Any] = await hub.join(new.id, asked)
        return joined
    try:
        key_hash = browser_key(data.get("key"))
    except MeutererError as error:
        raise Refused(400, str(error)) from None
    if held.bot is not None or key_hash is None or not hmac.compare_digest(held.key_hash or "", key_hash):
        raise Refused(409, f"seat {seat} at the rematch is taken")
    async with hub.lock(new.id):  # this browser's seat there: a fresh token (its page lost the last)
        token = secrets.token_urlsafe(24)
        held.token_hash = hash_token(token)
        if held.asked:  # asking for the rematch is saying yes
            answer(new.seats, seat, play=True)
        await _start(hub, new)
    return {"table": new.id, "seat": seat, "token": token}


async def _start(hub: Any, table: Table) -> None:
    """Store the rematch's seats and start its game once every seat is played."""
    table.started = table.started or all(s.ready for s in table.seats)
    await hub.save_seats(table)
    await hub.advance(table, table.propose_auto(search=False))


async def _answer(hub: Any, table: Table, seat: int, play: bool, why: str) -> None:
    """Seat ``seat``'s answer (under the table's lock); a seat that does not play again is
    closed on its pages (``why``)."""
    try:
        answer(table.seats, seat, play)
    except TableError as error:
        raise Refused(409, str(error)) from None
    if not play:
        for connection in list(hub.connections.get(table.id, ())):
            if connection.seat == seat:
                connection.outbox.close(4001, why)


async def answer_rematch(hub: Any, table_id: str, data: dict[str, Any], play: bool) -> dict[str, Any]:
    """Answer ``POST /api/tables/ID/accept`` or ``.../decline`` (``{"token": ...}``) at a
    rematch: the asked player plays again, or leaves his seat (see the module's text)."""
    table = hub.table(table_id)
    async with hub.lock(table_id):
        seat = hub.holder(table, data)
        await _answer(hub, table, seat, play, "you do not play again: your seat is given up")
        await _start(hub, table)
    return {"table": table_id, "seat": seat, "plays": play}


async def decline_late(hub: Any) -> None:
    """Take every asked seat whose player has not answered within the table's turn time as
    declined."""
    for table in list(hub.tables.values()):
        if table.started or not any(s.asked for s in table.seats):
            continue
        async with hub.lock(table.id):
            if table.started or table.clock() - table.turn_started <= table.turn_seconds:
                continue
            for seat in [p for p, s in enumerate(table.seats) if s.asked]:
                await _answer(hub, table, seat, False, "you did not answer in time: your seat is given up")
            await _start(hub, table)


def _present(hub: Any, table: Table, asker: int) -> list[int]:
    """The seats held by a person whose page is at ``table`` now (and the asker's)."""
    here = {c.seat for c in hub.connections.get(table.id, ()) if c.seat is not None}
    return [p for p, s in enumerate(table.seats) if s.bot is None and s.token_hash and (p in here or p == asker)]


async def _open(hub: Any, table: Table, asker: int, data: dict[str, Any]) -> dict[str, Any]:
    people = _present(hub, table, asker)
    bots = {str(p): s.bot for p, s in enumerate(table.seats) if s.bot is not None}
    wanted = data.get("bots") or {}
    fill = data.get("if_declined")
    if (wanted or fill is not None) and asker != table.host():
        raise Refused(403, f"only the host (seat {table.host()}) may put bots in the rematch's open seats")
    if not isinstance(wanted, dict):
        raise Refused(400, 'bots: an object from seat to agent spec, such as {"1": "greedy"}')
    if fill is not None:
        try:
            check_spec(
                fill if isinstance(fill, str) and len(fill) <= 60 else "-", table.players, table.game.state.rules
            )
        except MeutererError:
            raise Refused(400, "if_declined: the spec of the bot for a declined seat, such as 'greedy'") from None
    for key, spec in wanted.items():
        if str(key) not in bots and str(key).isdigit() and int(key) not in people:
            bots[str(key)] = spec
    for p in range(table.players):  # the host's bot for a declined seat takes an absent player's too
        if fill is not None and str(p) not in bots and p not in people:
            bots[str(p)] = fill
    invite = hub.invites.get(table.id)  # the same name, privacy and turn time
    same = {} if invite is None else attrs.asdict(invite, filter=lambda field, _: field.name != "code")
    created = await hub.create({"players": table.players, "bots": bots, **same}, table.game.rules)
    new = hub.table(created["table"])
    tokens: dict[int, str] = {}
    async with hub.lock(new.id):
        for p in people:
            if new.seats[p].open:
                tokens[p] = new.join(p, table.seats[p].name)
                new.seats[p].key_hash = table.seats[p].key_hash
                if p != asker:  # asked whether he plays again
                    new.seats[p].asked, new.seats[p].fill = True, fill
        new.started = False
        await _start(hub, new)
    table.rematch = new.id
    await hub.save_seats(table)
    for connection in list(hub.connections.get(table.id, ())):
        frame: dict[str, Any] = {"type": "rematch", "table": new.id}
        mine = connection.seat
        if mine in tokens and hmac.compare_digest(table.seats[mine].token_hash or "", connection.token_hash or "-"):
            frame.update(seat=mine, token=tokens[mine])
        await hub.send(connection, table, json.dumps(frame))
    if asker not in tokens:
        raise Refused(409, f"seat {asker} at the rematch is taken")
    return {"table": new.id, "seat": asker, "token": tokens[asker]}
