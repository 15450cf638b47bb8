"""``meuterer serve [--db URL] [--host H] [--port P]``: run the online game server.

Registered by :mod:`meuterer.cli.main`; importing this module needs nothing beyond the
library (uvicorn and the rest of the ``server`` extra are imported when the server starts).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from meuterer.server import DEFAULT_URL

__all__ = ["DEFAULT_URL", "register"]


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from meuterer.server.app import MAX_MESSAGE, create_app
    except ImportError as error:
        print(f"meuterer serve needs the server extra (pip install 'meuterer[server]'): {error}", file=sys.stderr)
        return 2
    app = create_app(args.db, turn_seconds=args.turn_seconds)
    print(f"meuterer serve: http://{args.host}:{args.port}/ (tables kept in {args.db})", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=MAX_MESSAGE * 4, log_level=args.log_level)
    return 0


def register(commands: Any) -> None:
    """Add ``serve`` to the ``meuterer`` command's subparsers."""
    serve = commands.add_parser(
        "serve",
        help="run the online game server (a lobby, tables and a browser client)",
        description="Run an online Meuterer server: open http://HOST:PORT/ in a browser to open a table, "
        "invite friends with its seats' links, fill seats with bots. Tables are kept in a database "
        "(SQLite file by default; a PostgreSQL URL such as postgresql://user:pass@host/db) and resume "
        "after a restart. Needs the server extra: pip install 'meuterer[server]'.",
    )
    serve.add_argument("--db", default=DEFAULT_URL, help=f"SQLAlchemy database URL (default {DEFAULT_URL})")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--turn-seconds", type=float, default=120.0, help="time for a turn before a stand-in bot plays it (default 120)"
    )
    serve.add_argument("--log-level", default="warning", help="uvicorn's log level (default warning)")
    serve.set_defaults(run=_serve)
