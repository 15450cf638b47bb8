"""What the tables a browser remembers have become (``GET /api/status?tables=ID,ID``): the
lobby's "Back to your seat" and "Your games" ask it for the tables where the browser held a
seat. Table ids are public (a spectator's link holds one); no token is asked or told.

>>> read_ids("a,b,,a," + "x" * 41)
['a', 'b']
"""

from __future__ import annotations

from typing import Any, Final

import anyio

__all__ = ["MAX_IDS", "read_ids", "status"]

MAX_IDS: Final = 50
"""Most tables one request asks about."""


def read_ids(text: str | None) -> list[str]:
    """The table ids of a comma-separated list (each at most 40 characters, at most
    :data:`MAX_IDS`, each once)."""
    found: list[str] = []
    for table_id in (text or "").split(","):
        if 0 < len(table_id) <= 40 and table_id not in found:
            found.append(table_id)
    return found[:MAX_IDS]


async def status(hub: Any, text: str | None) -> dict[str, dict[str, Any]]:
    """Each table of ``text`` (see :func:`read_ids`) that exists, by its id: its ``state``,
    ``waiting`` (for players), ``playing``, ``over`` (its page shows the standings) or
    ``archived`` (over, its replay only), and its ``rematch`` if one was opened. A table the
    server forgot (expired before its game started) is left out."""
    found: dict[str, dict[str, Any]] = {}
    missing = []
    for table_id in read_ids(text):
        table = hub.tables.get(table_id)
        if table is None:
            missing.append(table_id)
            continue
        state = "over" if table.over else "playing" if table.started else "waiting"
        found[table_id] = {"state": state, "rematch": table.rematch}
    if missing:
        for table_id in await anyio.to_thread.run_sync(hub.store.known, missing):
            found[table_id] = {"state": "archived", "rematch": None}
    return found
