"""The ASGI application of ``meuterer serve`` (Starlette): the lobby, the tables' WebSockets
and the browser client.

HTTP (JSON bodies of at most :data:`MAX_BODY` bytes):

- ``GET /`` the lobby page; ``GET /table/{id}`` the table page (a seat's secret token
  travels in the page's fragment, ``#token=...``, never in a URL the server logs);
- ``GET /api/status?tables=ID,ID`` what those tables have become (:mod:`.status`);
- ``GET /api/tables`` the tables not over, with the bot menu (``"bot_menu"``, :mod:`.menu`):
  every entry, or with ``?players=3&rules={...}`` (the rules as JSON) those offered at such a
  table; ``POST /api/tables`` creates one
  (``{"players": 4, "rules": {...}, "bots": {"1": "greedy"}, "name": "ann", "seat": 0}``);
- ``POST /api/tables/{id}/join`` (``{"seat": 2, "name": "bob"}``) gives a seat's token;
  ``.../leave``, ``.../rematch`` and, at a rematch, ``.../accept`` and ``.../decline`` take
  ``{"token": ...}``;
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
import contextlib
import logging
from collections.abc import AsyncIterator
from importlib.resources import files
from typing import Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from meuterer.agents.registry import agent_names
from meuterer.record import Record, dumps_record
from meuterer.redact import dumps_redacted
from meuterer.rules import Rules
from meuterer.server import Limits
from meuterer.server.bots import MAX_ITERATIONS, BotPool
from meuterer.server.core import MAX_SOCKETS, MAX_TABLES, RATE, Connection, HubCore
from meuterer.server.heap import Heap
from meuterer.server.lobby import Lobby
from meuterer.server.menu import menu_json
from meuterer.server.requests import MAX_BODY, MAX_DEPTH, MAX_MESSAGE, Refused, read_body, read_table_kind
from meuterer.server.rules_page import rules_html
from meuterer.server.sockets import Sockets
from meuterer.server.status import status
from meuterer.server.store import DEFAULT_URL, Store, StoreError
from meuterer.viewer import replay_html

__all__ = [
    "MAX_BODY",
    "MAX_DEPTH",
    "MAX_MESSAGE",
    "MAX_SOCKETS",
    "MAX_TABLES",
    "RATE",
    "Connection",
    "Hub",
    "HubCore",
    "Limits",
    "StoreError",
    "create_app",
]

STATIC = files("meuterer.server") / "static"


class Hub(Lobby, Sockets):
    """The server's tables, their locks and connections, and the store they are kept in: the
    lobby's requests (:class:`.Lobby`) and the tables' sockets (:class:`.Sockets`) over one
    :class:`.HubCore`."""


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
    tend_heap: bool = False,
) -> Starlette:
    """The server's ASGI application, keeping its tables in the database at ``url``
    (:class:`StoreError` at once if it cannot be used), bounded by ``limits``;
    ``bot_workers``: processes thinking for the searching bots (default: the cores less one);
    ``tend_heap``: keep the garbage collector's pauses short (see :mod:`.heap`; what
    ``meuterer serve`` does: it changes the collector of the whole process)."""
    hub = Hub(Store(url), turn_seconds, BotPool(bot_workers), limits)
    heap = Heap() if tend_heap else None

    async def api(request: Request) -> Response:
        try:
            table_id = request.path_params.get("table_id", "")
            action = request.path_params.get("action")
            if request.method == "GET" and not table_id:
                limits = {"max_iterations": MAX_ITERATIONS, "move_cpu_seconds": hub.bots.cpu_seconds}
                listed = hub.listing(request.query_params.get("code"))
                menu = menu_json(*read_table_kind(request.query_params))
                answer = {"tables": listed, "bots": list(agent_names()), "bot_menu": menu, "bot_limits": limits}
                return JSONResponse(answer)
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
            handlers.update(accept=hub.accept, decline=hub.decline)
            if action not in handlers:
                raise Refused(404, "no such request")
            return JSONResponse(await handlers[action](table_id, data))
        except Refused as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)

    async def tables_status(request: Request) -> Response:
        return JSONResponse(await status(hub, request.query_params.get("tables")))

    async def lobby(request: Request) -> Response:
        return _page("lobby.html")

    async def table_page(request: Request) -> Response:
        return _page("table.html")

    async def rules_page(request: Request) -> Response:
        """The rules at a table (its rule set, the steps from its merchant ship), or the default ones."""
        table_id = request.path_params.get("table_id")
        table = hub.tables.get(table_id) if table_id else None
        if table_id and table is None:
            return HTMLResponse("no such table", status_code=404, headers=_SECURITY)
        if table is None:
            return HTMLResponse(rules_html(Rules(), 4), headers=_SECURITY)
        seen = table.logs[None].view  # a spectator's view: only public facts
        return HTMLResponse(rules_html(seen.rules, seen.players, seen.start), headers=_SECURITY)

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
                if heap is not None:
                    heap.tend()

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
            Route("/rules", rules_page),
            Route("/rules/{table_id}", rules_page),
            Route("/api/tables", api, methods=["GET", "POST"]),
            Route("/api/status", tables_status),
            Route("/api/tables/{table_id}/{action}", api, methods=["GET", "POST"]),
            WebSocketRoute("/ws/{table_id}", socket),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.hub = hub
    return app
