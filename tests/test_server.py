"""The server with real parts: the store on SQLite (and PostgreSQL when
``MEUTERER_TEST_POSTGRES_URL`` names one), the ASGI app through Starlette's TestClient, and
a real ``meuterer serve`` (uvicorn) killed with SIGKILL mid-game and restarted."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

import sqlalchemy as sa
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from meuterer.record import read_record, verify
from meuterer.redact import loads_redacted
from meuterer.server import schema
from meuterer.server.app import MAX_MESSAGE, create_app
from meuterer.server.store import Store
from meuterer.server.table import Seat, Table

POSTGRES = os.environ.get("MEUTERER_TEST_POSTGRES_URL")
ONE_DATABASE = pytest.mark.xdist_group("postgresql")
"""The PostgreSQL tests share one database: pytest-xdist (CI runs ``-n 2 --dist loadgroup``)
runs them all on one worker, one after another."""


def _postgres_url() -> str:
    if not POSTGRES:
        pytest.skip("PostgreSQL tests: set MEUTERER_TEST_POSTGRES_URL (postgresql://user:pass@host/db)")
    try:
        engine = sa.create_engine(POSTGRES.replace("postgresql://", "postgresql+psycopg://", 1))
        with engine.connect():
            pass
        engine.dispose()
    except Exception as error:  # the server named is not reachable
        pytest.skip(f"PostgreSQL tests: no server at MEUTERER_TEST_POSTGRES_URL ({type(error).__name__})")
    return POSTGRES


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=ONE_DATABASE)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'server.db'}"
        return
    url = _postgres_url()
    yield url
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    schema.metadata.drop_all(engine)  # leave the database as found (every table, in dependency order)
    engine.dispose()


# The store ------------------------------------------------------------------------------------


def test_the_store_resumes_every_table_and_its_log_is_append_only(db_url: str) -> None:
    store = Store(db_url)
    tables = []
    for k in range(3):
        table = Table(f"t{k}-{uuid.uuid4().hex[:6]}", players=3 + k % 2, seats=[Seat(bot="random")] * (3 + k % 2))
        table.started = True
        store.add(table)
        new = table.propose_auto()[: 50 + k]
        store.append(table, new)
        if k == 0:
            with pytest.raises(sa.exc.IntegrityError):  # the same indices twice: refused
                store.append(table, new)
        table.commit(new)
        tables.append(table)
    store.close()
    again = {t.id: t for t in Store(db_url).load()}
    for table in tables:
        assert again[table.id].game.actions == table.game.actions
        assert again[table.id].seats == table.seats


def test_the_chat_is_stored_with_its_table_bounded_and_survives_a_restart(db_url: str) -> None:
    from meuterer.server.chat import KEPT

    with TestClient(create_app(db_url)) as client:
        opened = _open(client, {"1": "random", "2": "random"}, players=3)
        other = _open(client, {"1": "random", "2": "random"}, players=3, name="bob")
        with client.websocket_connect(f"/ws/{opened['table']}") as ws:
            ws.send_json({"token": opened["token"]})
            ws.receive_json()
            for text in ("<b>hi</b>", "second"):
                ws.send_json({"chat": text})
                assert ws.receive_json()["text"] == text
    store = Store(db_url)  # a table keeps its last lines only
    for k in range(KEPT + 5):
        store.say(other["table"], k, {"seat": 0, "name": "bob", "text": f"line {k}"})
    store.close()
    with TestClient(create_app(db_url)) as client:  # a restarted server
        for table, token, said in ((opened, "token", ["<b>hi</b>", "second"]), (other, "token", None)):
            with client.websocket_connect(f"/ws/{table['table']}") as ws:
                ws.send_json({token: table[token]})
                lines = ws.receive_json()["chat"]
            if said is not None:
                assert lines == [{"seat": 0, "name": "ann", "text": t} for t in said]
            else:
                assert [line["text"] for line in lines] == [f"line {k}" for k in range(5, KEPT + 5)]
        with client.websocket_connect(f"/ws/{other['table']}") as ws:  # the numbering goes on after a restart
            ws.send_json({"token": other["token"]})
            ws.receive_json()
            ws.send_json({"chat": "after"})
            assert ws.receive_json()["text"] == "after"
    store = Store(db_url)
    chats = store.chats()
    store.close()
    assert len(chats[other["table"]].lines) == KEPT and chats[other["table"]].lines[-1]["text"] == "after"
    assert chats[other["table"]].said == KEPT + 6


# The app ---------------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'app.db'}")) as test_client:
        yield test_client


def _open(client: TestClient, bots: dict[str, str], players: int = 4, name: str = "ann") -> dict[str, Any]:
    response = client.post("/api/tables", json={"players": players, "bots": bots, "name": name, "seat": 0})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_the_lobby_opens_lists_and_joins_tables(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/lobby.js"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/table.js").status_code == 200
    opened = _open(client, {"1": "greedy"}, players=3, name="<b>ann</b>")
    listed = client.get("/api/tables").json()
    assert "greedy" in listed["bots"]
    entry = next(t for t in listed["tables"] if t["table"] == opened["table"])
    assert not entry["started"] and [s["open"] for s in entry["seats"]] == [False, False, True]
    joined = client.post(f"/api/tables/{opened['table']}/join", json={"seat": 2, "name": "bob"}).json()
    assert joined["seat"] == 2 and joined["token"] != opened["token"]
    assert client.post(f"/api/tables/{opened['table']}/join", json={"seat": 2, "name": "eve"}).status_code == 409
    assert client.get("/api/tables").json()["tables"][0]["started"]
    with client.websocket_connect(f"/ws/{opened['table']}") as ws:
        ws.send_json({"watch": True})
        frame = ws.receive_json()
        assert frame["seats"][0]["name"] == "<b>ann</b>"  # data, not markup: the page sets it as text
        assert "<b>ann</b>" not in frame["state"]["svg"] and "&lt;b&gt;ann" in frame["state"]["svg"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"players": 5}, 400),
        ({"players": 4, "rules": {"rounds": -1}}, 400),
        ({"players": 4, "rules": "pirates"}, 400),
        ({"players": 4, "bots": {"7": "greedy"}}, 400),
        ({"players": 4, "bots": {"1": "nonsense"}}, 400),
        ({"players": 4, "bots": ["greedy"]}, 400),
        ({"players": 4, "name": 5}, 400),
    ],
)
def test_bad_requests_are_refused(client: TestClient, body: dict[str, Any], status: int) -> None:
    response = client.post("/api/tables", json=body)
    assert response.status_code == status and response.json()["error"]


def _flood(ws: Any) -> None:
    for _ in range(400):  # far beyond the rate
        ws.send_json({"resync": True})
        ws.receive_json()


def _drain(ws: Any) -> None:
    while True:
        ws.receive_json()


def test_bodies_and_messages_are_bounded(client: TestClient) -> None:
    assert client.post("/api/tables", content=b"{" + b" " * 5000 + b"}").status_code == 413
    assert client.post("/api/tables", content=b"[1]").status_code == 400
    assert client.post("/api/tables", content=b"\xff").status_code == 400
    assert client.post("/api/tables/nope/join", json={}).status_code == 404
    opened = _open(client, {"1": "random", "2": "random", "3": "random"})
    assert client.post(f"/api/tables/{opened['table']}/dance", json={}).status_code == 404
    with client.websocket_connect(f"/ws/{opened['table']}") as ws:
        ws.send_json({"token": opened["token"]})
        ws.receive_json()
        ws.send_text("x" * (MAX_MESSAGE + 1))
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1009
    with client.websocket_connect(f"/ws/{opened['table']}") as ws:
        ws.send_json({"token": opened["token"]})
        ws.receive_json()
        with pytest.raises(WebSocketDisconnect) as closed:
            _flood(ws)
        assert closed.value.code == 1008
    with client.websocket_connect(f"/ws/{opened['table']}") as ws:
        ws.send_json({"token": "wrong"})
        assert ws.receive_json()["type"] == "error"
    with client.websocket_connect("/ws/nope") as ws, pytest.raises(WebSocketDisconnect):
        ws.receive_json()


def test_the_sockets_of_a_table_are_bounded(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client.app.state.hub.limits, "sockets_per_table", 1)  # type: ignore[attr-defined]
    opened = _open(client, {"1": "random", "2": "random", "3": "random"})
    with client.websocket_connect(f"/ws/{opened['table']}") as first:
        first.send_json({"watch": True})
        assert first.receive_json()["type"] == "snapshot"
        with client.websocket_connect(f"/ws/{opened['table']}") as second:
            second.send_json({"watch": True})
            with pytest.raises(WebSocketDisconnect) as closed:
                second.receive_json()
            assert closed.value.code == 1013


def test_a_whole_game_over_the_socket_with_stale_actions_reconnects_and_records(client: TestClient) -> None:
    opened = _open(client, {"1": "random", "2": "greedy", "3": "random"})
    table = opened["table"]
    with client.websocket_connect(f"/ws/{table}") as watcher:
        watcher.send_json({"watch": True})
        assert watcher.receive_json()["seat"] is None
        watcher.send_json({"act": "p0 pass", "at": 0})
        assert watcher.receive_json()["reason"] == "a spectator takes no action"
    during = loads_redacted(client.post(f"/api/tables/{table}/record", json={"token": opened["token"]}).text)
    assert during.viewer == 0
    watched = client.get(f"/api/tables/{table}/replay")  # a spectator's replay during the game
    assert watched.status_code == 200 and "spectator" in watched.text
    assert client.post(f"/api/tables/{table}/record", json={"token": "wrong"}).status_code == 403
    moves = 0
    while True:
        with client.websocket_connect(f"/ws/{table}") as ws:  # a reconnect every few moves
            ws.send_json({"token": opened["token"]})
            frame = ws.receive_json()
            assert frame["type"] == "snapshot" and frame["seat"] == 0
            for _ in range(5):
                if frame["state"]["winners"] is not None:
                    break
                legal = frame["state"]["legal"]
                assert legal, frame["state"]
                ws.send_json({"act": legal[0]["action"], "at": frame["at"] - 1})  # stale
                stale = ws.receive_json()
                assert stale["type"] == "snapshot" and stale["stale"] and stale["at"] == frame["at"]
                ws.send_json({"act": "p1 pass", "at": frame["at"]})  # not his seat
                assert ws.receive_json() == {
                    "type": "refused",
                    "reason": "illegal action 'p1 pass': p0 may act only for p0, not for p1",
                    "action": "p1 pass",
                }
                ws.send_json({"act": legal[-1]["action"], "at": frame["at"]})
                update = ws.receive_json()
                assert update["type"] == "update" and update["from"] == frame["at"] and update["at"] > frame["at"]
                assert update["seen"][0].split(";")[0] == legal[-1]["action"]
                frame = update
                moves += 1
        if frame["state"]["winners"] is not None:
            break
    assert moves > 10
    text = client.get(f"/api/tables/{table}/record").text
    assert verify(read_record(text)).ok and read_record(text).players[0] == "ann"
    replay = client.get(f"/api/tables/{table}/replay")
    assert replay.status_code == 200 and "<html" in replay.text and "default-src 'none'" in str(replay.headers)
    assert client.post(f"/api/tables/{table}/rematch", json={"token": "x"}).status_code == 403
    again = client.post(f"/api/tables/{table}/rematch", json={"token": opened["token"]}).json()
    assert again["table"] != table and again["seat"] == 0
    assert client.post(f"/api/tables/{table}/rematch", json={"token": opened["token"]}).status_code == 409


def test_leaving_hands_the_seat_to_a_stand_in_and_a_newcomer_takes_it(client: TestClient) -> None:
    opened = _open(client, {"1": "random", "2": "random"})
    table = opened["table"]
    assert client.post(f"/api/tables/{table}/rematch", json={"token": opened["token"]}).status_code == 409
    bob = client.post(f"/api/tables/{table}/join", json={"seat": 3, "name": "bob"}).json()
    with client.websocket_connect(f"/ws/{table}") as ws:
        ws.send_json({"token": bob["token"]})
        ws.receive_json()
        assert client.post(f"/api/tables/{table}/leave", json={"token": bob["token"]}).json()["left"]
        with pytest.raises(WebSocketDisconnect) as closed:
            _drain(ws)
        assert closed.value.code == 4001
    seats = next(t for t in client.get("/api/tables").json()["tables"] if t["table"] == table)["seats"]
    assert seats[3]["open"] and seats[3]["stand_in"] and seats[3]["reserved"]
    assert client.post(f"/api/tables/{table}/join", json={"seat": 3, "name": "carl"}).status_code == 409
    release = {"token": opened["token"], "seat": 3}  # the host lets someone else take it
    assert client.post(f"/api/tables/{table}/release", json=release).json()["released"]
    carl = client.post(f"/api/tables/{table}/join", json={"seat": 3, "name": "carl"}).json()
    with client.websocket_connect(f"/ws/{table}") as ws:
        ws.send_json({"token": carl["token"]})
        assert ws.receive_json()["seats"][3] == {
            "name": "carl",
            "bot": None,
            "open": False,
            "stand_in": False,
            "reserved": False,
            "asked": False,
            "presence": "connected",
            "label": "carl (connected)",
        }
        held = client.app.state.hub.tables[table]  # type: ignore[attr-defined]
        held.leave(3)  # carl leaves and dee sits down, while carl's old socket is still open
        held.release(0, 3)
        held.join(3, "dee")
        ws.send_json({"resync": True})
        ws.receive_json()
        ws.send_json({"act": "p3 pass", "at": 0})  # the socket no longer speaks for seat 3
        with pytest.raises(WebSocketDisconnect) as closed:
            _drain(ws)
        assert closed.value.code == 4001


def test_a_turn_that_times_out_is_played_by_a_stand_in_and_taken_back(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'timer.db'}", turn_seconds=0.0, tick_seconds=0.05)
    with TestClient(app) as client:
        opened = _open(client, {"1": "random", "2": "random", "3": "random"})
        with client.websocket_connect(f"/ws/{opened['table']}") as ws:
            ws.send_json({"token": opened["token"]})
            frame = ws.receive_json()
            while not frame["seats"][0]["stand_in"]:
                frame = ws.receive_json()
            ws.send_json({"take_back": True})
            while frame["seats"][0]["stand_in"]:
                frame = ws.receive_json()
            assert frame["type"] == "update"


# A real server, killed with SIGKILL ----------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start(url: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    command = [sys.executable, "-m", "meuterer", "serve", "--db", url, "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            if process.poll() is not None:
                raise AssertionError(process.stderr.read().decode() if process.stderr else "server died") from None
            time.sleep(0.1)
    process.kill()
    raise AssertionError("the server did not start")


def test_a_server_killed_mid_game_loses_no_acknowledged_action(db_url: str) -> None:
    """kill -9 right after sending an action, three times, restarting each time: the table
    resumes at the last acknowledged action or at the one sent unacknowledged (stored just
    before the kill), never earlier; the game goes on to its end and its record holds every
    acknowledged action at its place."""
    import httpx
    from websockets.sync.client import connect

    port = _free_port()
    server = _start(db_url, port)
    base = f"127.0.0.1:{port}"
    try:
        bots = {"1": "random", "2": "random", "3": "random"}
        opened = httpx.post(
            f"http://{base}/api/tables", json={"players": 4, "rules": {"rounds": 3}, "name": "ann", "bots": bots}
        ).json()
        acknowledged: dict[int, str] = {}  # state id -> the action acknowledged there
        unacknowledged: tuple[int, str] | None = None
        for _ in range(3):
            with connect(f"ws://{base}/ws/{opened['table']}") as ws:
                ws.send(json.dumps({"token": opened["token"]}))
                frame = json.loads(ws.recv())
                last = max(acknowledged, default=-1)
                if unacknowledged is not None:  # resumed where it was acknowledged, or just after the lost answer
                    assert frame["at"] == unacknowledged[0] or frame["at"] > last
                for _ in range(4):
                    action = frame["state"]["legal"][0]["action"]
                    ws.send(json.dumps({"act": action, "at": frame["at"]}))
                    answer = json.loads(ws.recv())
                    assert answer["type"] == "update"
                    acknowledged[frame["at"]] = action
                    frame = answer
                unacknowledged = (frame["at"], frame["state"]["legal"][0]["action"])
                ws.send(json.dumps({"act": unacknowledged[1], "at": frame["at"]}))
                os.kill(server.pid, signal.SIGKILL)  # maybe before, maybe after this one was stored
            server.wait()
            server = _start(db_url, port)
        with connect(f"ws://{base}/ws/{opened['table']}") as ws:
            ws.send(json.dumps({"token": opened["token"]}))
            frame = json.loads(ws.recv())
            assert unacknowledged is not None and frame["at"] >= unacknowledged[0]
            while frame["state"]["winners"] is None:
                time.sleep(0.05)  # within the rate a connection may send at
                ws.send(json.dumps({"act": frame["state"]["legal"][0]["action"], "at": frame["at"]}))
                frame = json.loads(ws.recv())
        record = read_record(httpx.get(f"http://{base}/api/tables/{opened['table']}/record").text)
        assert verify(record).ok and len(record.actions) == frame["at"]
        assert all(str(record.actions[at]) == action for at, action in acknowledged.items())
    finally:
        server.kill()
        server.wait()


def test_a_restart_makes_the_moves_a_table_owes(tmp_path: Path) -> None:
    """A stand-in stored just before the server stopped, without its moves: a restart plays them."""
    url = f"sqlite:///{tmp_path / 'owed.db'}"
    store = Store(url)
    table = Table("owed", players=3, seats=[Seat(), Seat(bot="random"), Seat(bot="random")])
    table.join(0, "ann")
    store.add(table)
    new = table.propose_auto()
    store.append(table, new)
    table.commit(new)
    table.seats[table.waiting_for() or 0].stand_in = True
    store.save_seats(table)
    store.close()
    with TestClient(create_app(url)) as client:
        resumed = client.app.state.hub.tables["owed"]  # type: ignore[attr-defined]
        deadline = time.monotonic() + 30  # the moves are made in the background, after start-up
        while not resumed.over and time.monotonic() < deadline:
            time.sleep(0.02)
        assert resumed.at > table.at and resumed.over


def test_bot_specs_and_the_table_limit_are_checked(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "agent spec" in client.post("/api/tables", json={"bots": {"1": 5}}).json()["error"]
    assert client.post("/api/tables", json={"bots": {"1": "greedy"}, "name": "ann", "seat": 1}).status_code == 409
    monkeypatch.setattr(client.app.state.hub.limits, "tables", 0)  # type: ignore[attr-defined]
    assert client.post("/api/tables", json={}).status_code == 503


def test_meuterer_serve_runs_uvicorn_on_the_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import uvicorn

    from meuterer.cli.main import main

    calls: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: calls.append((app, options)))
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["serve", "--db", url, "--port", "8123", "--turn-seconds", "30"]) == 0
    ((app, options),) = calls
    assert options["port"] == 8123 and options["host"] == "127.0.0.1" and options["ws_max_size"] >= MAX_MESSAGE
    assert app.state.hub.turn_seconds == 30 and app.state.hub.store.url == url


def test_a_socket_that_cannot_be_sent_to_is_dropped() -> None:
    import asyncio

    from meuterer.server.app import Connection, Hub

    class Stuck:
        async def send_text(self, text: str) -> None:
            raise OSError("the reader is gone")

    hub = Hub(Store("sqlite://"))
    table = Table("stuck", players=3, seats=[Seat(bot="random")] * 3)
    connection = Connection(Stuck(), None)  # type: ignore[arg-type]

    async def send() -> None:
        hub.attach(table, connection)
        await hub.send(connection, table, "{}")
        for _ in range(500):  # the sender task tries, fails and drops the socket
            if connection.outbox.dropped:
                break
            await asyncio.sleep(0.01)
        await connection.outbox.finish()

    asyncio.run(send())
    assert hub.connections[table.id] == set()
