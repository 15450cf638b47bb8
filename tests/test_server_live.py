"""A live server under hostile use (issue 37, defects 1, 2 and 5): searching bots think off
the event loop with a bounded budget and start-up serves at once; a reader that never reads
is dropped instead of stalling its table; one browser holds one seat, and a seat left
during the game is kept for its player unless the host lets someone else in."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

import httpx
from starlette.testclient import TestClient

from meuterer.record import verify
from meuterer.server.app import create_app
from meuterer.server.store import Store
from meuterer.server.table import Seat, Table
from tests.test_server import ONE_DATABASE, _postgres_url

SRC = Path(__file__).parents[1] / "src"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _serve(url: str, port: int, within: float = 60.0) -> subprocess.Popen[bytes]:
    """A real ``meuterer serve`` on ``url``, once it answers HTTP (at most ``within`` seconds)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "meuterer", "serve", "--db", url, "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=1.0)
            return process
        except httpx.HTTPError:
            if process.poll() is not None:
                raise AssertionError("the server died") from None
            time.sleep(0.05)
    process.kill()
    process.wait()
    raise AssertionError(f"the server did not answer within {within} s")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'live.db'}")) as test_client:
        yield test_client


def _play_to_my_turn(ws: Any, frame: dict[str, Any], seconds: float = 30.0) -> dict[str, Any]:
    """Read frames until the game waits for this seat (or is over)."""
    deadline = time.monotonic() + seconds
    while not frame["state"]["legal"] and frame["state"]["winners"] is None:
        assert time.monotonic() < deadline, "the game did not come back to this seat"
        frame = json.loads(ws.recv())
    return frame


# Defect 1: bots -------------------------------------------------------------------------------


def test_a_search_budget_over_the_servers_largest_is_refused_when_the_table_is_opened(client: TestClient) -> None:
    for spec in ("ismcts:100000", "ismcts:3000:random"):
        answer = client.post("/api/tables", json={"players": 3, "bots": {"1": spec}, "name": "ann", "seat": 0})
        assert answer.status_code == 400 and "at most" in answer.json()["error"], answer.text
    stated = client.get("/api/tables").json()["bot_limits"]
    largest = f"ismcts:{stated['max_iterations']}"
    assert client.post("/api/tables", json={"players": 3, "bots": {"1": largest}, "name": "ann"}).status_code == 200
    over = f"ismcts:{stated['max_iterations'] + 1}"
    assert client.post("/api/tables", json={"players": 3, "bots": {"1": over}, "name": "ann"}).status_code == 400


def test_searching_bots_think_off_the_event_loop_and_start_up_serves_at_once(tmp_path: Path) -> None:
    """Four all-bot tables at the largest budget are stored; the server restarted on them
    answers at once (their games still to play), and while their bots think, the lobby answers and a player's
    table (with a quick bot) answers each action in well under a second."""
    url = f"sqlite:///{tmp_path / 'bots.db'}"
    store = Store(url)
    searching = []
    for k in range(4):
        table = Table(f"search{k}", players=3, seats=[Seat(name="s", bot="ismcts:400")] * 3)
        table.started = True
        store.add(table)
        searching.append(table.id)
    store.close()
    port = _free_port()
    started = time.monotonic()
    server = _serve(url, port, within=60.0)
    try:
        # the interpreter's start on a loaded machine, not the bots: at aa94876 the bots played
        # first, and these four games at 0.2 to 1 s a move took minutes
        assert time.monotonic() - started < 30.0
        first = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=30).json()["tables"]
        assert {t["table"] for t in first} >= set(searching)  # not over: start-up did not play them first
        base = f"127.0.0.1:{port}"
        lobby = []
        for _ in range(10):
            before = time.monotonic()
            assert httpx.get(f"http://{base}/api/tables", timeout=30).status_code == 200
            lobby.append(time.monotonic() - before)
            time.sleep(0.1)
        from websockets.sync.client import connect

        opened = httpx.post(
            f"http://{base}/api/tables", json={"players": 3, "bots": {"1": "greedy", "2": "random"}, "name": "ann"}
        ).json()
        waits = []
        with connect(f"ws://{base}/ws/{opened['table']}") as ws:
            ws.send(json.dumps({"token": opened["token"]}))
            frame = _play_to_my_turn(ws, json.loads(ws.recv()))
            for _ in range(10):
                if frame["state"]["winners"] is not None:
                    break
                before = time.monotonic()
                ws.send(json.dumps({"act": frame["state"]["legal"][0]["action"], "at": frame["at"]}))
                frame = json.loads(ws.recv())
                waits.append(time.monotonic() - before)
                frame = _play_to_my_turn(ws, frame)
        assert max(lobby) < 1.0, lobby
        assert max(waits) < 1.0, waits
        humans = Table("h", players=3)
        for p in range(3):
            humans.join(p, f"p{p}")
        deal = len(humans.propose_auto())  # the chance actions before the first decision
        deadline = time.monotonic() + 120  # one worker, four tables, and a machine maybe busy
        while time.monotonic() < deadline:
            played = {t["table"]: t["at"] for t in httpx.get(f"http://{base}/api/tables").json()["tables"]}
            if all(played.get(t, deal + 1) > deal for t in searching):
                break  # every searching table's bot has moved: the pool serves them in turn
            time.sleep(0.5)
        assert all(played.get(t, deal + 1) > deal for t in searching), played
        workers = _children(server.pid)
        assert workers  # the bots' worker processes
    finally:
        server.kill()  # SIGKILL: the workers follow the server out
        server.wait()
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_table_of_bots_opened_in_the_lobby_plays_at_once(client: TestClient) -> None:
    """At aa94876 a table opened with a bot in every seat never started (only a join started
    a game), until a restart; it now plays its game in the background."""
    bots = {"0": "random", "1": "greedy", "2": "random"}
    opened = client.post("/api/tables", json={"players": 3, "bots": bots, "rules": {"rounds": 2}}).json()
    table = client.app.state.hub.tables[opened["table"]]  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60
    while not table.over and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table.started and table.over


class _Liar(Executor):
    """A pool whose worker answers an action the bot may not take."""

    def __init__(self) -> None:
        self.asked = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        from meuterer.server.bots import Thought

        self.asked += 1
        future: Future[Any] = Future()
        future.set_result(Thought("p0 pass", 0.0))  # never a bot's own action at seat 1 or 2
        return future


def test_a_bots_move_goes_through_the_referee(tmp_path: Path) -> None:
    from meuterer.server.app import Hub
    from meuterer.server.bots import BotPool

    liar = _Liar()
    hub = Hub(Store("sqlite://"), bots=BotPool(executor=liar))
    table = Table("liar", players=3, seats=[Seat(bot="random"), Seat(bot="ismcts:5"), Seat(bot="ismcts:5")])
    table.started = True
    hub.tables[table.id] = table
    hub.store.add(table)

    async def play() -> None:
        await hub.resume()
        while not table.over:
            await asyncio.sleep(0.01)

    asyncio.run(asyncio.wait_for(play(), 60))
    assert liar.asked > 0 and table.over  # every answer refused, the greedy bot played instead
    assert verify(table.record()).ok


# Defect 2: a reader that never reads -----------------------------------------------------------


def test_a_spectator_who_never_reads_is_dropped_and_does_not_slow_the_moves(tmp_path: Path) -> None:
    """A spectator asks for a fresh snapshot 18 times a second (within the rate) and never
    reads one, through a tiny receive buffer and without compression (at aa94876 the
    buffers were full after about 7 s, and every action then waited 4.9 s for him). The
    player's actions are answered as fast as without him; he is dropped, and told why
    when he comes back."""
    from websockets.sync.client import connect

    url = f"sqlite:///{tmp_path / 'reader.db'}"
    port = _free_port()
    server = _serve(url, port)
    base = f"127.0.0.1:{port}"
    key = uuid.uuid4().hex
    try:
        bots = {"1": "random", "2": "random", "3": "random"}
        opened = httpx.post(f"http://{base}/api/tables", json={"players": 4, "bots": bots, "name": "ann"}).json()
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        raw.connect(("127.0.0.1", port))
        silent = connect(f"ws://{base}/ws/{opened['table']}", sock=raw, max_queue=1, compression=None)
        silent.send(json.dumps({"watch": True, "key": key}))
        waits = []
        with connect(f"ws://{base}/ws/{opened['table']}") as ws:
            ws.send(json.dumps({"token": opened["token"]}))
            frame = _play_to_my_turn(ws, json.loads(ws.recv()))
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and frame["state"]["winners"] is None:
                for _ in range(3):
                    try:
                        silent.send(json.dumps({"resync": True}))
                    except Exception:  # dropped: the server closed it
                        break
                    time.sleep(1 / 18)
                before = time.monotonic()
                ws.send(json.dumps({"act": frame["state"]["legal"][0]["action"], "at": frame["at"]}))
                frame = json.loads(ws.recv())
                waits.append(time.monotonic() - before)
                frame = _play_to_my_turn(ws, frame)
        silent.close_socket()
        assert len(waits) >= 10 and max(waits) < 1.0, waits
        with connect(f"ws://{base}/ws/{opened['table']}") as again:  # the spectator comes back
            again.send(json.dumps({"watch": True, "key": key}))
            snapshot = json.loads(again.recv())
        assert snapshot["type"] == "snapshot" and "did not keep up" in snapshot.get("dropped", ""), snapshot.keys()
    finally:
        server.kill()
        server.wait()


def test_a_full_send_queue_drops_its_socket_at_once() -> None:
    from meuterer.server.outbox import TOO_SLOW, Outbox

    class Never:
        def __init__(self) -> None:
            self.closed: tuple[int, str] | None = None

        async def send_text(self, text: str) -> None:
            await asyncio.sleep(3600)  # a reader who never reads

        async def close(self, code: int, reason: str) -> None:
            self.closed = (code, reason)

    async def main() -> tuple[Outbox, Never, float, list[str]]:
        told: list[str] = []
        reader = Never()
        box = Outbox(reader, on_drop=told.append, max_frames=4)
        box.start()
        before = time.monotonic()
        accepted = [box.put("x" * 100) for _ in range(10)]
        spent = time.monotonic() - before
        assert accepted[:4] == [True] * 4 and not any(accepted[5:])
        await box.finish()
        return box, reader, spent, told

    box, reader, spent, told = asyncio.run(main())
    assert spent < 0.1 and box.dropped is not None and told == [box.dropped]
    assert reader.closed is not None and reader.closed[0] == TOO_SLOW


# Defect 5: one person, one seat ----------------------------------------------------------------


def _join(client: TestClient, table: str, seat: int, name: str, key: str | None = None) -> httpx.Response:
    body: dict[str, Any] = {"seat": seat, "name": name}
    if key is not None:
        body["key"] = key
    answer: httpx.Response = client.post(f"/api/tables/{table}/join", json=body)
    return answer


def test_a_seat_left_during_the_game_is_not_taken_by_another_seats_holder(client: TestClient) -> None:
    """The trial's case: bob leaves seat 1 mid-game, seat 0's holder joins seat 1 (and would
    read both hands): refused, with or without a browser key; bob comes back from his browser."""
    ann_key, bob_key = uuid.uuid4().hex, uuid.uuid4().hex
    answer = client.post("/api/tables", json={"players": 3, "bots": {"2": "random"}, "name": "ann", "key": ann_key})
    ann = answer.json()
    bob = _join(client, ann["table"], 1, "bob", bob_key).json()
    assert client.post(f"/api/tables/{ann['table']}/leave", json={"token": bob["token"]}).status_code == 200
    for key in (ann_key, None, uuid.uuid4().hex):
        refused = _join(client, ann["table"], 1, "ann again", key)
        assert refused.status_code == 409, refused.text
        assert "one person, one seat" if key == ann_key else "left during the game" in refused.json()["error"]
    back = _join(client, ann["table"], 1, "bob", bob_key)
    assert back.status_code == 200
    assert client.post(f"/api/tables/{ann['table']}/leave", json={"token": back.json()["token"]}).status_code == 200
    # only the host (seat 0, who opened the table) may let someone else take it
    release = {"token": ann["token"], "seat": 1}
    assert client.post(f"/api/tables/{ann['table']}/release", json={"token": "x", "seat": 1}).status_code == 403
    assert client.post(f"/api/tables/{ann['table']}/release", json=release).status_code == 200
    refused = _join(client, ann["table"], 1, "ann again", ann_key)  # still: one browser, one seat
    assert refused.status_code == 409 and "one person, one seat" in refused.json()["error"]
    assert _join(client, ann["table"], 1, "carl", uuid.uuid4().hex).status_code == 200


def test_one_browser_holds_one_seat_at_a_table(client: TestClient) -> None:
    key = uuid.uuid4().hex
    ann = client.post("/api/tables", json={"players": 4, "name": "ann", "key": key}).json()
    second = _join(client, ann["table"], 2, "ann's friend", key)
    assert second.status_code == 409 and "one person, one seat" in second.json()["error"]
    assert _join(client, ann["table"], 2, "bob", uuid.uuid4().hex).status_code == 200
    assert _join(client, ann["table"], 3, "x", "short").status_code == 409  # not a browser key
    other = client.post("/api/tables", json={"players": 3, "name": "ann", "key": key})  # another table: fine
    assert other.status_code == 200


def test_only_the_host_lets_someone_else_take_a_left_seat() -> None:
    from meuterer.server.table import TableError

    table = Table("t", players=3)
    for p in range(3):
        table.join(p, f"p{p}")
    table.commit(table.propose_auto())
    table.leave(2)
    assert table.seats[2].public()["reserved"] and table.host() == 0
    with pytest.raises(TableError, match="only the host"):
        table.release(1, 2)
    with pytest.raises(TableError, match="not reserved"):
        table.release(0, 1)
    table.release(0, 2)
    table.join(2, "newcomer")
    table.leave(0)  # the host leaves: the next seat held by a person hosts
    assert table.host() == 1
    table.release(1, 0)


def test_a_reserved_seat_survives_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'seats.db'}"
    key = uuid.uuid4().hex
    with TestClient(create_app(url)) as client:
        ann = client.post("/api/tables", json={"players": 3, "bots": {"2": "random"}, "name": "ann"}).json()
        bob = _join(client, ann["table"], 1, "bob", key).json()
        client.post(f"/api/tables/{ann['table']}/leave", json={"token": bob["token"]})
    with TestClient(create_app(url)) as client:
        assert _join(client, ann["table"], 1, "eve", uuid.uuid4().hex).status_code == 409
        assert _join(client, ann["table"], 1, "bob", key).status_code == 200


def test_the_page_keeps_a_browser_key_and_sends_it() -> None:
    from importlib.resources import files

    static = files("meuterer.server") / "static"
    for page in ("lobby.js", "table.js"):
        text = (static / page).read_text(encoding="utf-8")
        assert "localStorage" in text and "meuterer-key" in text and "key" in text


# The soak, short ----------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=ONE_DATABASE)])
def soak_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'soak.db'}"
        return
    url = _postgres_url()
    yield url
    import sqlalchemy as sa

    from meuterer.server import schema

    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    schema.metadata.drop_all(engine)  # leave the database as found (every table, in dependency order)
    engine.dispose()


@pytest.mark.slow  # about a minute
def test_a_short_soak_with_hostile_clients_then_kill_9_loses_nothing(soak_url: str) -> None:
    """benchmarks/bench_soak.py at a small size: honest players, spectators, hostile sockets
    and a bot table at the largest budget; no table stalls (an action unanswered for 30 s),
    and after kill -9 the restarted server still has every acknowledged action."""
    import importlib.util

    path = Path(__file__).parents[1] / "benchmarks" / "bench_soak.py"
    spec = importlib.util.spec_from_file_location("bench_soak", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = bench.soak(
        soak_url, tables=6, bot_tables=1, sockets=24, hostile=4, seconds=20, think=0.3, stall=30, progress=False
    )
    assert figures["honest_actions"] > 10 and figures["acknowledged"] > 10
    assert figures["stalls"] == [] and figures["lost"] == []
    assert figures["hostile"]  # the hostile sockets were closed by the server, and came back


def _niceness() -> int:
    return os.nice(0)


def test_the_bots_workers_think_at_a_lower_priority_than_the_server() -> None:
    """A searching bot's worker yields the CPU to the event loop that answers the players
    (its move's budget is CPU time, so its moves do not change)."""
    from meuterer.server.bots import WORKER_NICENESS, BotPool

    pool = BotPool(workers=1)
    try:
        worker = pool.executor().submit(_niceness).result(timeout=60)
    finally:
        pool.close()
    assert worker == min(19, os.nice(0) + WORKER_NICENESS)
