"""Issue 37, defects 3, 4, 8, 9 and 10: the server's limits, its depth-bounded JSON, its
start-up on a database it cannot use, and the seat token kept out of every URL.

The lobby's limits and the archive run through Starlette's TestClient; the sockets' limits,
the start-up errors and the access log against a real ``meuterer serve`` (uvicorn)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import meuterer

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from meuterer.record import read_record, verify
from meuterer.redact import loads_redacted
from meuterer.server.app import create_app
from meuterer.server.store import Store
from tests import test_server
from tests.test_server import _free_port

SRC = str(Path(meuterer.__file__).parents[1])
"""Where the meuterer under test is: the servers started here run the same code."""
BOTS = {"1": "random", "2": "random"}
"""Bots for seats 1 and 2 of a three-player table."""
db_url = test_server.db_url  # the fixture: a SQLite file, and PostgreSQL when MEUTERER_TEST_POSTGRES_URL names one


def _serve(url: str, port: int, *flags: str, log: Path | None = None) -> subprocess.Popen[bytes]:
    """A real ``meuterer serve`` on ``port``, once it accepts connections (its output in ``log``)."""
    import socket

    env = {**os.environ, "PYTHONPATH": SRC}
    command = [sys.executable, "-m", "meuterer", "serve", "--db", url, "--port", str(port), *flags]
    out = open(log, "wb") if log is not None else subprocess.DEVNULL  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT if log else subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            if process.poll() is not None:
                raise AssertionError(f"the server did not start: rc {process.returncode}") from None
            time.sleep(0.1)
    process.kill()
    raise AssertionError("the server did not start")


@contextlib.contextmanager
def _server(url: str, *flags: str, log: Path | None = None) -> Iterator[str]:
    port = _free_port()
    process = _serve(url, port, *flags, log=log)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait()


# Defect 3: the lobby ---------------------------------------------------------------------------


def test_one_client_cannot_fill_the_lobby(tmp_path: Path) -> None:
    """With the default limits one address gets at most a handful of tables, then 429 with
    the reason; another address still opens one."""
    url = f"sqlite:///{tmp_path / 'lobby.db'}"
    with TestClient(create_app(url), client=("192.0.2.1", 50000)) as flooder:
        answers = [flooder.post("/api/tables", json={"players": 3}) for _ in range(40)]
        opened = [a for a in answers if a.status_code == 200]
        refused = [a for a in answers if a.status_code != 200]
        assert 1 <= len(opened) <= 10, [a.status_code for a in answers]
        assert refused and all(a.status_code == 429 for a in refused)
        assert "a client may" in refused[0].json()["error"]
        assert len(flooder.get("/api/tables").json()["tables"]) == len(opened)
    with TestClient(create_app(url), client=("192.0.2.2", 50000)) as other:
        assert other.post("/api/tables", json={"players": 3}).status_code == 200


def test_the_tables_per_client_and_per_minute_are_flags_and_survive_a_restart(db_url: str) -> None:
    from meuterer.server import Limits

    url = db_url
    limits = Limits(tables_per_client=100, tables_per_minute=3)
    with TestClient(create_app(url, limits=limits)) as client:
        bad = [client.post("/api/tables", json={"players": 5}).status_code for _ in range(4)]
        codes = [client.post("/api/tables", json={}).status_code for _ in range(4)]
        assert bad == [400] * 4 and codes == [200, 200, 200, 429]  # a refused request opens nothing
    with TestClient(create_app(url, limits=limits)) as client:  # restarted: the minute is remembered
        refused = client.post("/api/tables", json={})
        assert refused.status_code == 429 and "3 tables a minute: try again in" in refused.json()["error"]
    limits = Limits(tables_per_client=3, tables_per_minute=100)
    with TestClient(create_app(url, limits=limits)) as client:  # and so are the tables each client opened
        assert "at most 3 tables open at once" in client.post("/api/tables", json={}).json()["error"]


def _wait(condition: Any, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_waiting_tables_expire_and_finished_tables_are_archived(db_url: str) -> None:
    """A table nobody completes is removed (its socket told why); a finished table leaves
    memory after a while, its record stays downloadable, and a restart does not load it."""
    from meuterer.server import Limits

    url = db_url
    limits = Limits(table_wait=0.5, keep_finished=0.5)
    with TestClient(create_app(url, tick_seconds=0.05, limits=limits)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        waiting = client.post("/api/tables", json={"players": 4, "name": "ann"}).json()
        game = client.post("/api/tables", json={"players": 3, "name": "ann", "bots": BOTS, "rules": {"rounds": 1}})
        finished = game.json()
        with client.websocket_connect(f"/ws/{waiting['table']}") as ws:
            ws.send_json({"token": waiting["token"]})
            assert ws.receive_json()["type"] == "snapshot"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == 4004 and "expired" in closed.value.reason
        assert waiting["table"] not in hub.tables
        assert client.post(f"/api/tables/{waiting['table']}/join", json={"seat": 1}).status_code == 404
        leave = client.post(f"/api/tables/{finished['table']}/leave", json={"token": finished["token"]})
        assert leave.status_code == 200  # a stand-in plays ann's seat to the end
        _wait(lambda: finished["table"] not in hub.tables)
        record = read_record(client.get(f"/api/tables/{finished['table']}/record").text)
        assert verify(record).ok and record.players[0] == "ann"
        assert "<html" in client.get(f"/api/tables/{finished['table']}/replay").text
    store = Store(url)
    assert [t.id for t in store.load()] == []  # neither the expired table nor the archived one
    assert store.record(waiting["table"]) is None and store.record(finished["table"]) == record
    store.close()
    with TestClient(create_app(url)) as client:
        assert client.app.state.hub.tables == {}  # type: ignore[attr-defined]
        assert read_record(client.get(f"/api/tables/{finished['table']}/record").text) == record


# Defect 4: sockets -----------------------------------------------------------------------------


def _closed(ws: Any, seconds: float = 5.0) -> tuple[int | None, str | None]:
    """The close code and reason of ``ws`` (a websockets client), waiting at most ``seconds``."""
    from websockets.exceptions import ConnectionClosed

    try:
        while True:
            ws.recv(timeout=seconds)
    except ConnectionClosed as error:
        return (error.rcvd.code, error.rcvd.reason) if error.rcvd else (None, None)
    except TimeoutError:
        return (None, "still open")


def test_silent_sockets_count_from_the_handshake_and_are_timed_out(tmp_path: Path) -> None:
    """Default limits: 64 silent sockets on a table fill it (the 65th is refused with 1013
    before it says anything); a socket that says nothing within --hello-seconds is closed."""
    import httpx
    from websockets.sync.client import connect

    with _server(f"sqlite:///{tmp_path / 'sockets.db'}") as base:
        table = httpx.post(f"http://{base}/api/tables", json={"players": 3, "name": "ann", "bots": BOTS}).json()
        with contextlib.ExitStack() as silent:
            for _ in range(64):
                silent.enter_context(connect(f"ws://{base}/ws/{table['table']}"))
            with connect(f"ws://{base}/ws/{table['table']}") as extra:
                assert _closed(extra) == (1013, "too many connections to this table")
    with _server(f"sqlite:///{tmp_path / 'hello.db'}", "--hello-seconds", "1") as base:
        table = httpx.post(f"http://{base}/api/tables", json={"players": 3}).json()
        with connect(f"ws://{base}/ws/{table['table']}") as ws:
            started = time.monotonic()
            assert _closed(ws) == (4008, "no first message within 1 s")
            assert time.monotonic() - started < 4


def test_the_server_bounds_its_sockets_in_all(tmp_path: Path) -> None:
    import httpx
    from websockets.sync.client import connect

    with _server(f"sqlite:///{tmp_path / 'total.db'}", "--sockets", "3") as base:
        tables = [httpx.post(f"http://{base}/api/tables", json={"players": 3}).json()["table"] for _ in range(2)]
        with contextlib.ExitStack() as held:
            for k in range(2):
                held.enter_context(connect(f"ws://{base}/ws/{tables[k]}"))
            with connect(f"ws://{base}/ws/{tables[0]}"), connect(f"ws://{base}/ws/{tables[1]}") as extra:
                code, reason = _closed(extra)
                assert code == 1013 and reason is not None and "as many connections as it may" in reason
            time.sleep(0.3)
            with connect(f"ws://{base}/ws/{tables[1]}") as again:  # a place came free
                again.send(json.dumps({"watch": True}))
                assert json.loads(again.recv(timeout=5))["type"] == "snapshot"


# Defect 8: nested JSON ---------------------------------------------------------------------------


def test_nested_json_is_refused_with_a_reason(tmp_path: Path) -> None:
    """Arrays nested 1,000 deep fit in a body (4 KiB) and a message (2,048 characters): they
    are refused with 400 and a WebSocket error, not parsed into a RecursionError."""
    deep = "[" * 1000 + "]" * 1000
    app = create_app(f"sqlite:///{tmp_path / 'deep.db'}")
    with TestClient(app, raise_server_exceptions=False) as client:
        for body in ('{"rules": ' + deep + "}", deep):
            answer = client.post("/api/tables", content=body, headers={"Content-Type": "application/json"})
            assert answer.status_code == 400 and "at most 8 deep" in answer.json()["error"]
        assert client.post("/api/tables", json={"rules": {"rounds": 2}}).status_code == 200  # shallow: fine
        opened = client.post("/api/tables", json={"players": 3, "name": "ann", "bots": BOTS}).json()
        with client.websocket_connect(f"/ws/{opened['table']}") as ws:
            ws.send_text('{"token": ' + deep + "}")
            error = ws.receive_json()
            assert error["type"] == "error" and "at most 8 deep" in error["reason"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4003
        with client.websocket_connect(f"/ws/{opened['table']}") as ws:
            ws.send_json({"token": opened["token"]})
            assert ws.receive_json()["type"] == "snapshot"
            ws.send_text('{"act": ' + deep + "}")
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1003 and "at most 8 deep" in closed.value.reason


# Defect 9: start-up on a database the server cannot use ------------------------------------------


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """``path`` made read-only even for root (``chattr +i``), or the test skips."""
    path.chmod(0o555 if path.is_dir() else 0o444)
    immutable = False
    try:
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
            if done.returncode:
                pytest.skip("running as root without chattr +i: cannot make a file read-only")
            immutable = True
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o755 if path.is_dir() else 0o644)


def _start_up(url: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "meuterer", "serve", "--db", url, "--port", str(_free_port())]
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


def _one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert done.stderr.startswith("meuterer serve: ") and "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_corrupt_sqlite_file_is_one_line_and_left_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "corrupt.db").write_bytes(b"this is not a database, " * 300)
    before = _files(tmp_path)
    _one_line_error(_start_up(f"sqlite:///{tmp_path / 'corrupt.db'}"), "file is not a database")
    assert _files(tmp_path) == before


@pytest.mark.parametrize("what", ["file", "folder", "opened read-only"])
def test_a_read_only_database_is_refused_at_start_up(tmp_path: Path, what: str) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    Store(f"sqlite:///{folder / 'server.db'}").close()  # a good database, then made read-only
    before = _files(folder)
    if what == "opened read-only":
        done = _start_up(f"sqlite:///file:{folder / 'server.db'}?mode=ro&uri=true")
    else:
        with _read_only(folder / "server.db" if what == "file" else folder):
            done = _start_up(f"sqlite:///{folder / 'server.db'}")
    _one_line_error(done, "cannot use the database")
    assert _files(folder) == before


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("postgresql://meuterer:secret@127.0.0.1:1/nothing", ["Connection refused", "meuterer:***@"]),
        ("postgresql://meuterer:secret@127.0.0.1:port/nothing", ["is not a database URL"]),
        ("no such url", ["is not a database URL"]),
        ("nosuchdb://somewhere/db", ["names no database driver"]),
        ("sqlite:////no/such/folder/server.db", ["unable to open database file"]),
    ],
)
def test_an_unreachable_or_malformed_database_url_is_one_line(url: str, words: list[str]) -> None:
    done = _start_up(url)
    _one_line_error(done, *words)
    assert "secret" not in done.stderr


def test_a_postgresql_database_that_refuses_the_password_is_one_line() -> None:
    from tests.test_server import _postgres_url

    url = _postgres_url()
    import sqlalchemy as sa

    wrong = sa.engine.make_url(url).set(password="certainly-wrong")
    done = _start_up(wrong.render_as_string(hide_password=False))
    _one_line_error(done, "cannot use the database")
    assert "certainly-wrong" not in done.stderr


# Defect 10: the token never in a URL -----------------------------------------------------------


def test_a_token_in_a_url_is_refused_and_a_post_gives_the_seats_record(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'token.db'}")) as client:
        opened = client.post("/api/tables", json={"players": 3, "name": "ann", "bots": BOTS}).json()
        table, token = opened["table"], opened["token"]
        for action in ("record", "replay"):
            answer = client.get(f"/api/tables/{table}/{action}", params={"token": token})
            assert answer.status_code == 400 and "never in a URL" in answer.json()["error"]
        mine = loads_redacted(client.post(f"/api/tables/{table}/record", json={"token": token}).text)
        assert mine.viewer == 0
        form = client.post(f"/api/tables/{table}/record", data={"token": token})  # the page's form
        assert loads_redacted(form.text).viewer == 0
        replay = client.post(f"/api/tables/{table}/replay", data={"token": token})
        assert replay.status_code == 200 and "the game as p0 (ann) saw it" in replay.text
        assert client.post(f"/api/tables/{table}/record", data={"token": "wrong"}).status_code == 403
        assert loads_redacted(client.get(f"/api/tables/{table}/record").text).viewer is None


@pytest.mark.browser
def test_the_table_page_never_puts_the_token_in_a_url_the_server_logs(tmp_path: Path) -> None:
    """A seat's page, at uvicorn's info level (every request line logged): its record
    download and its replay page reach the seat's record, and the token is in no log line."""
    from tests.browser import chromium_path

    executable = chromium_path()
    import httpx
    from playwright.sync_api import sync_playwright

    log = tmp_path / "server.log"
    with _server(f"sqlite:///{tmp_path / 'page.db'}", "--log-level", "info", log=log) as base:
        opened = httpx.post(f"http://{base}/api/tables", json={"players": 3, "name": "ann", "bots": BOTS}).json()
        token = opened["token"]
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
            try:
                context = browser.new_context(bypass_csp=True, accept_downloads=True)
                page = context.new_page()
                page.goto(f"http://{base}/table/{opened['table']}#token={token}")
                page.wait_for_function("Number(document.body.dataset.at) > 0")
                with page.expect_download() as download:
                    page.click("#record")
                mine = loads_redacted(Path(download.value.path()).read_text(encoding="utf-8"))
                assert mine.viewer == 0
                with context.expect_page() as opened_page:
                    page.click("#replay")
                replay = opened_page.value
                replay.wait_for_load_state()
                assert "the game as p0 (ann) saw it" in replay.content()
            finally:
                browser.close()
        time.sleep(0.3)
    logged = log.read_text(encoding="utf-8")
    assert f"/table/{opened['table']}" in logged and "/record" in logged and "/replay" in logged
    assert token not in logged and "token" not in logged
