"""Where the server keeps its tables: one small interface over SQLAlchemy 2.

A SQLite file by default (nothing to start), PostgreSQL (or any SQLAlchemy URL) for real
deployments. Per table: the rule set and options, the seats (names, bots, the SHA-256 of
each secret token, never the token) and an append-only log of its actions in the record
notation. :meth:`Store.append` returns only once the actions are committed, so the
server acknowledges an action only when a restart would find it; :meth:`Store.load`
replays every table to where its log ends.

>>> from meuterer.server.store import Store
>>> from meuterer.server.table import Seat, Table
>>> store = Store("sqlite://")
>>> ann = Seat(name="ann", token_hash="0" * 64)
>>> table = Table("t1", players=3, seats=[ann, Seat(bot="greedy"), Seat(bot="random")])
>>> store.add(table)
>>> new = table.propose_auto()
>>> store.append(table, new)
>>> table.commit(new)
>>> [t.game.actions for t in store.load()] == [table.game.actions]
True
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from meuterer.actions import Action
from meuterer.rules import Rules
from meuterer.serialize import converter, structure
from meuterer.server import DEFAULT_URL
from meuterer.server.table import Seat, Table

__all__ = ["DEFAULT_URL", "Store"]

metadata = sa.MetaData()

tables = sa.Table(
    "meuterer_tables",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("first_captain", sa.Integer, nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    sa.Column("turn_seconds", sa.Float, nullable=False),
    sa.Column("rematch", sa.String(40), nullable=True),
    sa.Column("created", sa.Float, nullable=False),
)

seats = sa.Table(
    "meuterer_seats",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("meuterer_tables.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("bot", sa.String(100), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("stand_in", sa.Boolean, nullable=False),
    sa.Column("key_hash", sa.String(64), nullable=True),
    sa.Column("reserved", sa.Boolean, nullable=True),
)

actions = sa.Table(
    "meuterer_actions",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("meuterer_tables.id"), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True),
    sa.Column("action", sa.String(200), nullable=False),
)


def _engine(url: str) -> sa.Engine:
    if url.startswith("sqlite"):
        engine = sa.create_engine(
            url, connect_args={"check_same_thread": False}, poolclass=sa.pool.StaticPool if url == "sqlite://" else None
        )

        @sa.event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _: object) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # WAL with NORMAL: a commit survives the process being killed (SIGKILL); only a
            # power loss may lose the last commits. FULL would add an fsync per action.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return sa.create_engine(url, pool_pre_ping=True)


class Store:
    """The tables in the database at ``url`` (a SQLAlchemy URL; ``postgresql://`` uses psycopg 3)."""

    def __init__(self, url: str = DEFAULT_URL) -> None:
        self.url = url
        self.engine = _engine(url)
        metadata.create_all(self.engine)
        with self.engine.begin() as connection:  # a database made before seats kept browser keys
            known = {column["name"] for column in sa.inspect(connection).get_columns("meuterer_seats")}
            for name, kind in (("key_hash", "VARCHAR(64)"), ("reserved", "BOOLEAN")):
                if name not in known:
                    connection.execute(sa.text(f"ALTER TABLE meuterer_seats ADD COLUMN {name} {kind}"))

    def close(self) -> None:
        self.engine.dispose()

    def add(self, table: Table) -> None:
        """Keep a new table: its options and seats (and any actions it already has)."""
        with self.engine.begin() as connection:
            connection.execute(
                tables.insert().values(
                    id=table.id,
                    players=table.players,
                    first_captain=table.game.first_captain,
                    rules=json.dumps(converter.unstructure(table.game.rules), sort_keys=True),
                    turn_seconds=table.turn_seconds,
                    rematch=None,
                    created=time.time(),
                )
            )
            connection.execute(seats.insert(), self._seat_rows(table))
            if len(table.game):
                connection.execute(actions.insert(), self._action_rows(table.id, 0, table.game.actions))

    @staticmethod
    def _seat_rows(table: Table) -> list[dict[str, Any]]:
        return [
            {
                "table_id": table.id,
                "seat": p,
                "name": seat.name,
                "bot": seat.bot,
                "token_hash": seat.token_hash,
                "stand_in": seat.stand_in,
                "key_hash": seat.key_hash,
                "reserved": seat.reserved,
            }
            for p, seat in enumerate(table.seats)
        ]

    @staticmethod
    def _action_rows(table_id: str, start: int, new: Sequence[Action]) -> list[dict[str, Any]]:
        return [{"table_id": table_id, "idx": start + k, "action": str(a)} for k, a in enumerate(new)]

    def save_seats(self, table: Table) -> None:
        """Keep the seats' current holders (after a join, a leave, a stand-in, a rematch)."""
        with self.engine.begin() as connection:
            for row in self._seat_rows(table):
                connection.execute(
                    seats.update()
                    .where(seats.c.table_id == row["table_id"], seats.c.seat == row["seat"])
                    .values({k: v for k, v in row.items() if k not in ("table_id", "seat")})
                )
            connection.execute(tables.update().where(tables.c.id == table.id).values(rematch=table.rematch))

    def append(self, table: Table, new: Sequence[Action]) -> None:
        """Append ``new`` (proposed, not yet committed to ``table``) to the table's log, and
        return once they are committed to the database. Appending at an index already
        written fails (the log is append-only)."""
        if not new:
            return
        with self.engine.begin() as connection:
            connection.execute(actions.insert(), self._action_rows(table.id, len(table.game), new))

    def load(self, clock: Any = time.monotonic) -> list[Table]:
        """Every stored table, replayed to the end of its log, oldest first."""
        found = []
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(tables).order_by(tables.c.created, tables.c.id)).all()
            for row in rows:
                held = connection.execute(
                    sa.select(seats).where(seats.c.table_id == row.id).order_by(seats.c.seat)
                ).all()
                log = connection.execute(
                    sa.select(actions.c.action).where(actions.c.table_id == row.id).order_by(actions.c.idx)
                ).all()
                table = Table(
                    row.id,
                    players=row.players,
                    seats=[Seat(s.name, s.bot, s.token_hash, s.stand_in, s.key_hash, bool(s.reserved)) for s in held],
                    rules=structure(json.loads(row.rules), Rules),
                    first_captain=row.first_captain,
                    actions=[a for (a,) in log],
                    turn_seconds=row.turn_seconds,
                    clock=clock,
                )
                table.started = table.started or not any(s.open for s in table.seats)
                table.rematch = row.rematch
                found.append(table)
        return found
