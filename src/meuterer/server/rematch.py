"""A rematch that moves the group: the first player of a finished table to ask opens a new
table with the same rules and bots, seats there every person whose page is at the finished
table (each at his own seat number, with a new secret token), and tells each of their pages
where to go (a ``rematch`` frame; the token only to the seat's own sockets). A seat whose
player is not there stays open, unless the host asks for a bot in it (``{"bots": {"2":
"greedy"}}``); whoever does not want to play again leaves the new table.
"""

from __future__ import annotations

import hmac
import json
import secrets
from typing import Any

import attrs

from meuterer.errors import MeutererError
from meuterer.server.requests import Refused
from meuterer.server.table import Table, browser_key, hash_token

__all__ = ["rematch"]


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
        await hub.save_seats(new)
    return {"table": new.id, "seat": seat, "token": token}


def _present(hub: Any, table: Table, asker: int) -> list[int]:
    """The seats held by a person whose page is at ``table`` now (and the asker's)."""
    here = {c.seat for c in hub.connections.get(table.id, ()) if c.seat is not None}
    return [p for p, s in enumerate(table.seats) if s.bot is None and s.token_hash and (p in here or p == asker)]


async def _open(hub: Any, table: Table, asker: int, data: dict[str, Any]) -> dict[str, Any]:
    people = _present(hub, table, asker)
    bots = {str(p): s.bot for p, s in enumerate(table.seats) if s.bot is not None}
    wanted = data.get("bots") or {}
    if wanted and asker != table.host():
        raise Refused(403, f"only the host (seat {table.host()}) may put bots in the rematch's open seats")
    if not isinstance(wanted, dict):
        raise Refused(400, 'bots: an object from seat to agent spec, such as {"1": "greedy"}')
    for key, spec in wanted.items():
        if str(key) not in bots and str(key).isdigit() and int(key) not in people:
            bots[str(key)] = spec
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
        await hub.save_seats(new)
        await hub.advance(new, new.propose_auto(search=False))
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
