"""``meuterer serve``: an authoritative online game server with a browser client.

:mod:`.table` holds one game and words every frame from a seat's view; :mod:`.store`
keeps the tables in a database (SQLite by default, PostgreSQL by URL); :mod:`.app` is the
ASGI application (the lobby, a WebSocket per seat, the browser client). Needs the
``server`` extra (``pip install ".[server]"`` in a checkout); this module itself (the defaults and
:class:`Limits`) needs only the library.

>>> Limits().tables_per_minute, Limits(sockets=10).sockets
(5, 10)
"""

from __future__ import annotations

import attrs

__all__ = ["DEFAULT_URL", "Limits"]

DEFAULT_URL = "sqlite:///meuterer-server.db"
"""The database ``meuterer serve`` uses unless told otherwise: a file in the working directory."""


@attrs.define
class Limits:
    """The numbers that bound what clients can make the server hold (``meuterer serve``'s
    flags of the same names set them: ``--tables-per-client`` and so on). A client is a
    remote address."""

    tables: int = 1000
    """Most tables not over, in all."""
    tables_per_client: int = 10
    """Most tables not over that one client has opened."""
    tables_per_minute: int = 5
    """Most tables one client may open in a minute."""
    table_wait: float = 1800.0
    """Seconds a table may wait for its players; a table whose game has not started by then
    is removed (its sockets are told so)."""
    keep_finished: float = 600.0
    """Seconds a finished table stays in memory (for a last look and the rematch); then it
    is archived: its record stays downloadable."""
    sockets: int = 1000
    """Most WebSockets open on the server, counted from the handshake."""
    sockets_per_table: int = 64
    """Most WebSockets open on one table, counted from the handshake."""
    hello_seconds: float = 10.0
    """Seconds a new WebSocket has to send its first message (its token, or that it watches)."""
