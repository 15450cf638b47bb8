"""The server's tables in the database (SQLAlchemy Core): a table's options, its seats, its
log of actions, its invite, its life and its chat. :class:`~meuterer.server.store.Store`
reads and writes them."""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["CHAT_COLUMNS", "actions", "chat", "create", "invites", "lifecycle", "metadata", "seats", "tables"]

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
    sa.Column("asked", sa.Boolean, nullable=True),
    sa.Column("fill", sa.String(100), nullable=True),
)
"""Each table's seats (:class:`~meuterer.server.seats.Seat`); a database made before a column
existed gets it added (``NULL`` in the rows it had)."""

actions = sa.Table(
    "meuterer_actions",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("meuterer_tables.id"), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True),
    sa.Column("action", sa.String(200), nullable=False),
)


invites = sa.Table(
    "meuterer_invites",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("meuterer_tables.id"), primary_key=True),
    sa.Column("title", sa.String(100), nullable=False),
    sa.Column("private", sa.Boolean, nullable=False),
    sa.Column("code", sa.String(20), nullable=False),
    sa.Column("turn_seconds", sa.Float, nullable=True),
)
"""A table's name, privacy, invite code and turn time (:mod:`.invites`)."""

lifecycle = sa.Table(
    "meuterer_lifecycle",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("meuterer_tables.id"), primary_key=True),
    sa.Column("opener", sa.String(64), nullable=True),
    sa.Column("ended", sa.Float, nullable=True),
    sa.Column("archived", sa.Boolean, nullable=False),
)
"""Where a table is in its life: who opened it (a hash of his address), when its game
ended, whether it is archived (not loaded any more). A table of an older database has no row."""

chat = sa.Table(
    "meuterer_chat",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("meuterer_tables.id"), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("text", sa.String(1000), nullable=False),
)
"""A table's chat: its last lines (:mod:`.chat`), numbered from 0 in the order they were said."""

CHAT_COLUMNS = ("seat", "name", "text")
"""The columns of a chat line as a page is sent it."""


def create(engine: sa.Engine) -> None:
    """Make the tables the database lacks, and the columns its seats lack (a database made
    before seats kept browser keys, or before a rematch asked its players)."""
    metadata.create_all(engine)
    with engine.begin() as connection:
        known = {column["name"] for column in sa.inspect(connection).get_columns("meuterer_seats")}
        added = (("key_hash", "VARCHAR(64)"), ("reserved", "BOOLEAN"), ("asked", "BOOLEAN"), ("fill", "VARCHAR(100)"))
        for name, kind in added:
            if name not in known:
                connection.execute(sa.text(f"ALTER TABLE meuterer_seats ADD COLUMN {name} {kind}"))
