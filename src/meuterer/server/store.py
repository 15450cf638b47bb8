"""Where the server keeps its tables: one small interface over SQLAlchemy 2.

A SQLite file by default (nothing to start), PostgreSQL (or any SQLAlchemy URL) for real
deployments. Per table: the rule set and options, the seats (names, bots, the SHA-256 of
each secret token, never the token), an append-only log of its actions in the record
notation and its chat's last lines (:meth:`Store.say`, :meth:`Store.chats`; the schema is
:mod:`.schema`). :meth:`Store.append` returns only once the actions are committed, so the
server acknowledges an action only when a restart would find it; :meth:`Store.load`
replays every table to where its log ends, except the archived ones (finished games whose
records :meth:`Store.record` still gives). A database the server cannot use (a corrupt or
read-only file, an unreachable server, a malformed URL) is refused at once with a
:class:`StoreError` of one line.

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
>>> Store("nowhere://")
Traceback (most recent call last):
...
meuterer.server.store.StoreError: the database URL 'nowhere://' names no database driver SQLAlchemy knows: nowhere
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import sqlalchemy as sa

from meuterer.actions import Action
from meuterer.engine import is_terminal
from meuterer.errors import MeutererError
from meuterer.game import Game
from meuterer.record import Record, make_record
from meuterer.rules import Rules
from meuterer.serialize import converter, structure
from meuterer.server import DEFAULT_URL
from meuterer.server.chat import KEPT, Chat
from meuterer.server.invites import Invite, Invites
from meuterer.server.schema import CHAT_COLUMNS, actions, chat, create, invites, lifecycle, seats, tables
from meuterer.server.table import Seat, Table

__all__ = ["DEFAULT_URL", "Store", "StoreError"]


class StoreError(MeutererError):
    """A database the server cannot use, or a stored table it cannot read back."""


@attrs.frozen
class Life:
    """A stored table's life: the hash of its opener's address, when it was opened and when
    its game ended (seconds since the epoch)."""

    opener: str | None
    created: float
    ended: float | None


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


def _seat_rows(table: Table) -> list[dict[str, Any]]:
    """The rows of the seats table for ``table``."""
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
            "asked": seat.asked,
            "fill": seat.fill,
        }
        for p, seat in enumerate(table.seats)
    ]


def _action_rows(table_id: str, start: int, new: Sequence[Action]) -> list[dict[str, Any]]:
    """The rows of the actions table for ``new``, the actions from index ``start`` of a table's game."""
    return [{"table_id": table_id, "idx": start + k, "action": str(a)} for k, a in enumerate(new)]


class Store:
    """The tables in the database at ``url`` (a SQLAlchemy URL; ``postgresql://`` uses psycopg 3).

    Opening checks that the database can be read and written (a write rolled back, so that
    nothing is written); raises :class:`StoreError` when it cannot.
    """

    def __init__(self, url: str = DEFAULT_URL) -> None:
        self.url = url
        self.shown = _shown(url)
        """The URL with its password hidden, to print."""
        try:
            self.engine = _engine(url)
        except (sa.exc.SQLAlchemyError, ImportError, ValueError, TypeError) as error:
            raise StoreError(_explain(url, error)) from None
        side = _side_files(self.engine)
        missing = [path for path in side if not path.exists()]
        try:
            create(self.engine)
            _probe(self.engine)
        except (sa.exc.SQLAlchemyError, ImportError, ValueError, OSError) as error:
            self.engine.dispose()
            if missing and missing[0].exists() and not missing[0].stat().st_size:
                for path in missing:  # SQLite's empty WAL and index of a database it could only read
                    path.unlink(missing_ok=True)
            raise StoreError(_explain(url, error)) from None

    def close(self) -> None:
        self.engine.dispose()

    def add(self, table: Table, opener: str | None = None, invite: Invite | None = None) -> None:
        """Keep a new table: its options and seats (and any actions it already has);
        ``opener``: a hash of the address of the client who opened it; ``invite``: its name,
        privacy, code and turn time."""
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
            connection.execute(seats.insert(), _seat_rows(table))
            connection.execute(lifecycle.insert().values(table_id=table.id, opener=opener, archived=False))
            if invite is not None:
                connection.execute(invites.insert().values(table_id=table.id, **attrs.asdict(invite)))
            if len(table.game):
                connection.execute(actions.insert(), _action_rows(table.id, 0, table.game.actions))

    def save_seats(self, table: Table) -> None:
        """Keep the seats' current holders (after a join, a leave, a stand-in, a rematch)."""
        with self.engine.begin() as connection:
            for row in _seat_rows(table):
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
            connection.execute(actions.insert(), _action_rows(table.id, len(table.game), new))

    def _set_life(self, connection: sa.Connection, table_id: str, **values: Any) -> None:
        done = connection.execute(lifecycle.update().where(lifecycle.c.table_id == table_id).values(**values))
        if not done.rowcount:  # a table kept by an older version of the server
            connection.execute(lifecycle.insert().values({"table_id": table_id, "archived": False, **values}))

    def ended(self, table_id: str, when: float) -> None:
        """Note that the table's game ended at ``when`` (seconds since the epoch)."""
        with self.engine.begin() as connection:
            self._set_life(connection, table_id, ended=when)

    def archive(self, table_id: str) -> None:
        """Archive the table: :meth:`load` leaves it out, :meth:`record` still gives its record."""
        with self.engine.begin() as connection:
            self._set_life(connection, table_id, archived=True)

    def delete(self, table_id: str) -> None:
        """Forget the table (a table nobody sat down at in time)."""
        with self.engine.begin() as connection:
            for table in (actions, seats, lifecycle, invites, chat):
                connection.execute(table.delete().where(table.c.table_id == table_id))
            connection.execute(tables.delete().where(tables.c.id == table_id))

    def say(self, table_id: str, idx: int, line: dict[str, Any]) -> None:
        """Keep the chat line ``line`` (``{"seat", "name", "text"}``), the table's ``idx``-th
        (from 0), and forget its lines older than the last :data:`~.chat.KEPT`."""
        with self.engine.begin() as connection:
            connection.execute(chat.insert().values(table_id=table_id, idx=idx, **line))
            connection.execute(chat.delete().where(chat.c.table_id == table_id, chat.c.idx <= idx - KEPT))

    def chats(self) -> dict[str, Chat]:
        """The chat of every table not archived that has one, by the table's id."""
        archived = sa.select(lifecycle.c.table_id).where(lifecycle.c.archived)
        query = sa.select(chat).where(chat.c.table_id.not_in(archived)).order_by(chat.c.table_id, chat.c.idx)
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        found: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for row in rows:
            found.setdefault(row.table_id, []).append((row.idx, {c: getattr(row, c) for c in CHAT_COLUMNS}))
        return {t: Chat.restore(said) for t, said in found.items()}

    def known(self, ids: Sequence[str]) -> set[str]:
        """Which of the tables ``ids`` are stored (archived ones included)."""
        with self.engine.connect() as connection:
            return set(connection.scalars(sa.select(tables.c.id).where(tables.c.id.in_(ids))))

    def invites(self) -> Invites:
        """The invites of the tables kept."""
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(invites)).all()
        return Invites((r.table_id, Invite(r.title, r.private, r.code, r.turn_seconds)) for r in rows)

    def lives(self) -> dict[str, Life]:
        """The life of every table not archived, by its id."""
        query = sa.select(tables.c.id, tables.c.created, lifecycle.c.opener, lifecycle.c.ended).outerjoin(
            lifecycle, lifecycle.c.table_id == tables.c.id
        )
        with self.engine.connect() as connection:
            rows = connection.execute(query.where(sa.or_(lifecycle.c.archived.is_(None), ~lifecycle.c.archived)))
            return {row.id: Life(row.opener, row.created, row.ended) for row in rows}

    def record(self, table_id: str) -> Record | None:
        """The record of the stored table ``table_id`` if its game is over (archived or not)."""
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(tables).where(tables.c.id == table_id)).first()
            if row is None:
                return None
            held, log = _rows(connection, row.id)
        try:
            game = Game.new(row.players, row.first_captain, structure(json.loads(row.rules), Rules))
            for (text,) in log:
                game.push(text)
        except (MeutererError, ValueError) as error:
            raise StoreError(f"the stored table {table_id} cannot be replayed: {error}") from None
        if not is_terminal(game.state):
            return None
        return make_record(game, [s.name or s.bot or "open" for s in held])

    def load(self, clock: Any = time.monotonic) -> list[Table]:
        """Every stored table not archived, replayed to the end of its log, oldest first.
        A table that cannot be read back raises :class:`StoreError`."""
        found = []
        live = sa.select(lifecycle.c.table_id).where(lifecycle.c.archived)
        query = sa.select(tables).where(tables.c.id.not_in(live)).order_by(tables.c.created, tables.c.id)
        try:
            with self.engine.connect() as connection:
                for row in connection.execute(query).all():
                    held, log = _rows(connection, row.id)
                    try:
                        table = Table(
                            row.id,
                            players=row.players,
                            seats=[
                                Seat(
                                    s.name,
                                    s.bot,
                                    s.token_hash,
                                    s.stand_in,
                                    s.key_hash,
                                    bool(s.reserved),
                                    fill=s.fill,
                                    asked=bool(s.asked),
                                )
                                for s in held
                            ],
                            rules=structure(json.loads(row.rules), Rules),
                            first_captain=row.first_captain,
                            actions=[a for (a,) in log],
                            turn_seconds=row.turn_seconds,
                            clock=clock,
                        )
                    except (MeutererError, ValueError) as error:
                        raise StoreError(f"the stored table {row.id} cannot be replayed: {error}") from None
                    table.started = table.started or all(s.ready for s in table.seats)
                    table.rematch = row.rematch
                    found.append(table)
        except sa.exc.SQLAlchemyError as error:
            raise StoreError(_explain(self.url, error)) from None
        return found


def _probe(engine: sa.Engine) -> None:
    """Write a row and roll it back: fails on a read-only database, writes nothing."""
    with engine.connect() as connection:
        transaction = connection.begin()
        try:
            connection.execute(
                tables.insert().values(
                    id="-probe-", players=3, first_captain=0, rules="{}", turn_seconds=0.0, created=0.0
                )
            )
        finally:
            transaction.rollback()


def _rows(connection: sa.Connection, table_id: str) -> tuple[Sequence[sa.Row[Any]], Sequence[sa.Row[Any]]]:
    """A stored table's seats and log."""
    held = connection.execute(sa.select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat)).all()
    log = connection.execute(
        sa.select(actions.c.action).where(actions.c.table_id == table_id).order_by(actions.c.idx)
    ).all()
    return held, log


def _side_files(engine: sa.Engine) -> list[Path]:
    """A SQLite file's WAL and shared-memory index (SQLite makes them even to read), or none."""
    name = engine.url.database
    if name and engine.url.query.get("uri") == "true":  # sqlite:///file:path?mode=ro&uri=true
        name = name.removeprefix("file:")
    if engine.url.get_backend_name() != "sqlite" or not name or name == ":memory:" or "mode=memory" in str(engine.url):
        return []
    return [Path(name + "-wal"), Path(name + "-shm")]


def _shown(url: str) -> str:
    """``url`` with its password hidden (from a URL SQLAlchemy cannot parse, what follows its last ``@``)."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.rsplit("@", 1)[-1]


def _explain(url: str, error: BaseException) -> str:
    """One line that says why the database at ``url`` cannot be used (no password shown)."""
    example = "such as sqlite:///meuterer-server.db or postgresql://user:password@host/db"
    shown = _shown(url)
    try:
        sa.engine.make_url(url)
    except Exception:
        return f"{shown!r} is not a database URL ({example}): {_first_line(error)}"
    if isinstance(error, sa.exc.NoSuchModuleError | ImportError):
        return f"the database URL {shown!r} names no database driver SQLAlchemy knows: {_first_line(error)}"
    if isinstance(error, sa.exc.ArgumentError):
        return f"{shown!r} is not a database URL ({example}): {_first_line(error)}"
    cause = getattr(error, "orig", None) or error
    return f"cannot use the database {shown!r}: {_first_line(cause)}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    text = text.split("\n", 1)[0].strip() if text else type(error).__name__
    return text.removeprefix("Can't load plugin: sqlalchemy.dialects:")
