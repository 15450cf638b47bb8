"""``meuterer serve [--db URL] [--host H] [--port P] [limits]``: run the online game server.

A database it cannot use is one line on stderr and exit status 1, before anything is written.

Registered by :mod:`meuterer.cli.main`; importing this module needs nothing beyond the
library (uvicorn and the rest of the ``server`` extra are imported when the server starts).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from meuterer._install import install_hint
from meuterer.server import DEFAULT_URL, Limits

__all__ = ["DEFAULT_URL", "register"]


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from meuterer.server.app import MAX_MESSAGE, StoreError, create_app
    except ImportError as error:
        print(f"meuterer serve needs {install_hint('server')} ({error})", file=sys.stderr)
        return 2
    limits = Limits(**{name: getattr(args, name) for name in LIMITS})
    try:
        app = create_app(args.db, turn_seconds=args.turn_seconds, limits=limits, tend_heap=True)
    except StoreError as error:
        print(f"meuterer serve: {error}", file=sys.stderr)
        return 1
    shown = app.state.hub.store.shown
    print(f"meuterer serve: http://{args.host}:{args.port}/ (tables kept in {shown})", flush=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        ws_max_size=MAX_MESSAGE * 4,
        log_level=args.log_level,
        # a backstop: connections (HTTP and WebSocket) beyond the socket limit get 503 from uvicorn
        limit_concurrency=limits.sockets + SPARE_CONNECTIONS,
    )
    return 0


LOG_LEVELS = ["critical", "error", "warning", "info"]
"""The log levels ``serve`` offers: uvicorn's ``debug`` and ``trace`` would log every WebSocket
frame, the seats' tokens included."""

SPARE_CONNECTIONS = 100
"""Connections uvicorn accepts beyond ``--max-sockets`` (HTTP requests, sockets being refused)."""

LIMITS: dict[str, tuple[type, str]] = {
    "tables": (int, "most tables not over, in all (default %(default)s)"),
    "tables_per_client": (int, "most tables not over that one client (address) opened (default %(default)s)"),
    "tables_per_minute": (int, "most tables one client may open in a minute (default %(default)s)"),
    "table_wait": (float, "seconds a table waits for its players before it is removed (default %(default)s)"),
    "keep_finished": (float, "seconds a finished table stays in memory before it is archived (default %(default)s)"),
    "sockets": (int, "most WebSockets open on the server (default %(default)s)"),
    "sockets_per_table": (int, "most WebSockets open on one table (default %(default)s)"),
    "hello_seconds": (float, "seconds a new WebSocket has to send its first message (default %(default)s)"),
}
"""The flags that set :class:`meuterer.server.app.Limits`: ``--tables``, ``--tables-per-client``..."""


def _at_least_one(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0 or value != value or value == float("inf"):
            raise argparse.ArgumentTypeError(f"a number above 0, not {text}")
        return value

    return parse


def register(commands: Any) -> None:
    """Add ``serve`` to the ``meuterer`` command's subparsers."""
    serve = commands.add_parser(
        "serve",
        help="run the online game server (a lobby, tables and a browser client)",
        description="Run an online Meuterer server: open http://HOST:PORT/ in a browser to open a table, "
        "invite friends with its seats' links, fill seats with bots. Tables are kept in a database "
        "(SQLite file by default; a PostgreSQL URL such as postgresql://user:pass@host/db) and resume "
        "after a restart. Needs the server extra: pip install '.[server]' in a checkout.",
    )
    serve.add_argument("--db", default=DEFAULT_URL, help=f"SQLAlchemy database URL (default {DEFAULT_URL})")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--turn-seconds", type=float, default=120.0, help="time for a turn before a stand-in bot plays it (default 120)"
    )
    serve.add_argument(
        "--log-level",
        default="warning",
        choices=LOG_LEVELS,
        help="uvicorn's log level (default warning; info adds a line per request: address, method, path, status)",
    )
    limits = serve.add_argument_group("limits (see docs/server.md, Limits)")
    defaults = Limits()
    for name, (kind, help_text) in LIMITS.items():
        flag = "--" + name.replace("_", "-")
        limits.add_argument(flag, type=_at_least_one(kind), default=getattr(defaults, name), help=help_text)
    serve.set_defaults(run=_serve)
