"""``meuterer serve``: an authoritative online game server with a browser client.

:mod:`.table` holds one game and words every frame from a seat's view; :mod:`.store`
keeps the tables in a database (SQLite by default, PostgreSQL by URL); :mod:`.app` is the
ASGI application (the lobby, a WebSocket per seat, the browser client). Needs the
``server`` extra: ``pip install "meuterer[server]"``.
"""

DEFAULT_URL = "sqlite:///meuterer-server.db"
"""The database ``meuterer serve`` uses unless told otherwise: a file in the working directory."""
