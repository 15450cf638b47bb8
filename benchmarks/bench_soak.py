"""Soak ``meuterer serve`` with honest and hostile clients, then kill it and restart it.

Starts a real server (uvicorn; a SQLite file in a temporary directory, or ``--db URL``, e.g.
PostgreSQL) on 127.0.0.1 and opens ``--tables`` tables (default 50): ``--bot-tables`` of
them (default 5) have three bots at the largest search budget the server accepts
(``ismcts:400``), the others one scripted player (thinking about ``--think`` seconds, then
playing his first legal action; at the end of a game he asks for a rematch and plays on)
and three quick bots. ``--sockets`` sockets (default 200) are open for ``--seconds``
(default 600): one per player, ``--hostile`` hostile ones (default 20, in turn: silent after
the handshake, never reading while asking for snapshots, flooding beyond the rate, sending
deeply nested JSON; each moves on to its table's rematch once the game is over) and spectators
for the rest, who read everything.

Reported: the honest players' action-to-broadcast latency (p50/p95/max; from sending an action
to receiving the update that answers it), whether any table stalled (an honest action not
answered within ``--stall`` seconds, or a bot table that made no move for 60 s), the hostile
sockets' fate, the server's memory (RSS) after the warm-up (the first fifth) and at the end,
and then ``kill -9``: how long the restarted server takes to answer, and whether every
action the players saw acknowledged is still there. Also the CPU time of this process, which
plays the honest players: its latencies include the time an answer waits for it. The
spectators and hostile sockets (the crowd) run in a process of their own, as they would on
other machines (``--one-process`` puts them in the players' process, where a flooding
client's burst of sends holds up the players' event loop and shows in their latencies).

The server runs with ``--keep-finished 60`` by default (a finished table is archived out of
memory a minute after its game ends; the server's own default is ten minutes), so that the
memory reaches its steady state within a ten-minute soak.

    python benchmarks/bench_soak.py [--tables 50] [--sockets 200] [--hostile 20] [--seconds 600] [--db URL]
        [--keep-finished 60]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

SRC = Path(__file__).resolve().parents[1] / "src"
BOT = "ismcts:400"


YARDSTICK = next(
    (p / "shared" / "bench" / "ref_sim.py" for p in Path(__file__).resolve().parents[1:] if (p / "shared").is_dir()),
    Path("../shared/bench/ref_sim.py"),
)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and its children that ended (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")


def yardstick_games_per_second(games: int = 200) -> float | None:
    """The yardstick's random 4-player games per CPU second in this process, if it is there."""
    if not YARDSTICK.exists():
        return None
    import importlib.util

    spec = importlib.util.spec_from_file_location("ref_sim", YARDSTICK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(1)
    start = time.process_time()
    for _ in range(games):
        module.play_game(rng, 4)
    return games / (time.process_time() - start)


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_server(
    url: str, port: int, within: float = 120.0, keep_finished: float | None = None
) -> tuple[subprocess.Popen[bytes], float]:
    """A real ``meuterer serve``, and the seconds it took to answer ``GET /api/tables``;
    ``keep_finished``: its ``--keep-finished`` (seconds a finished table stays in memory)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    # Every simulated person comes from 127.0.0.1, so the per-client limits on opening tables
    # (meant for one person) are raised; the hostile sockets still meet every other limit.
    command = [sys.executable, "-m", "meuterer", "serve", "--db", url, "--port", str(port)]
    command += ["--tables-per-client", "100000", "--tables-per-minute", "100000"]
    if keep_finished is not None:
        command += ["--keep-finished", f"{keep_finished:g}"]
    started = time.monotonic()
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while time.monotonic() - started < within:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=2.0).raise_for_status()
            return server, time.monotonic() - started
        except httpx.HTTPError:
            if server.poll() is not None:
                raise SystemExit("the server died at start-up") from None
            time.sleep(0.02)
    server.kill()
    raise SystemExit(f"the server did not answer within {within:g} s")


class Soak:
    """What the clients saw."""

    def __init__(self, base: str, port: int, stop: float, think: float, stall: float) -> None:
        self.base = base
        self.port = port
        self.stop = stop
        self.think = think
        self.stall = stall
        self.latencies: list[float] = []
        self.stalls: list[str] = []
        self.acknowledged: dict[str, tuple[str, dict[int, str]]] = {}  # table -> (token, at -> action)
        self.frames = 0
        self.hostile: dict[str, int] = {}
        self.games = 0
        self.crowd_cpu = 0.0
        """The CPU seconds of the crowd's own process (spectators and hostile sockets), if apart."""
        self.rematches: dict[str, str] = {}  # a finished table -> its rematch's table
        self.live: list[str] | None = None
        """The lobby's tables with a person at them, not over (watched in the crowd's process)."""

    def count(self, what: str) -> None:
        self.hostile[what] = self.hostile.get(what, 0) + 1

    # Honest clients ---------------------------------------------------------------------------

    async def player(self, http: httpx.AsyncClient, table: str, token: str) -> None:
        rng = random.Random(table)
        key = uuid.uuid4().hex
        while time.monotonic() < self.stop:
            acknowledged = self.acknowledged.setdefault(table, (token, {}))[1]
            try:
                over = await self._play(table, token, rng, acknowledged)
            except Exception:  # a drop or a refused socket: come back
                await asyncio.sleep(0.5)
                continue
            if over:
                self.games += 1
                for _ in range(10):  # a keep-alive connection the server had just closed: again
                    try:
                        answer = await http.post(f"/api/tables/{table}/rematch", json={"token": token, "key": key})
                        break
                    except httpx.HTTPError:
                        await asyncio.sleep(1.0)
                else:
                    return
                if answer.status_code != 200:
                    return
                self.rematches[table] = answer.json()["table"]
                table, token = answer.json()["table"], answer.json()["token"]

    async def _play(self, table: str, token: str, rng: random.Random, acknowledged: dict[int, str]) -> bool:
        async with connect(f"ws://{self.base}/ws/{table}", max_size=2**22, open_timeout=60) as ws:
            await ws.send(json.dumps({"token": token}))
            frame = json.loads(await ws.recv())
            while time.monotonic() < self.stop:
                if frame["state"]["winners"] is not None:
                    return True
                legal = frame["state"]["legal"]
                if not legal:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 120))
                    continue
                await asyncio.sleep(max(0.06, self.think * rng.uniform(0.5, 1.5)))
                action, at = legal[0]["action"], frame["at"]
                sent = time.perf_counter()
                await ws.send(json.dumps({"act": action, "at": at}))
                while True:
                    try:
                        frame = json.loads(await asyncio.wait_for(ws.recv(), self.stall))
                    except TimeoutError:
                        self.stalls.append(f"{table}: no answer to {action!r} within {self.stall:g} s")
                        raise
                    if frame["type"] == "update" and frame["from"] == at:
                        break
                self.latencies.append(time.perf_counter() - sent)
                acknowledged[at] = action
        return False

    async def spectator(self, table: str) -> None:
        while time.monotonic() < self.stop:
            try:
                async with connect(f"ws://{self.base}/ws/{table}", max_size=2**22, open_timeout=60) as ws:
                    await ws.send(json.dumps({"watch": True, "key": uuid.uuid4().hex}))
                    while time.monotonic() < self.stop:
                        frame = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, self.stop - time.monotonic())))
                        self.frames += 1
                        if frame.get("state", {}).get("winners") is not None:
                            break
            except Exception:  # closed, or the game is over: watch another table
                pass
            await asyncio.sleep(1.0)
            table = await self._some_table() or table

    async def _some_table(self) -> str | None:
        async with httpx.AsyncClient(base_url=f"http://{self.base}", timeout=30) as http:
            with contextlib.suppress(httpx.HTTPError):
                tables = (await http.get("/api/tables")).json()["tables"]
                return str(random.choice(tables)["table"]) if tables else None
        return None

    async def bot_table(self, http: httpx.AsyncClient, table: str) -> None:
        """Watch a bot table's progress through the lobby: 60 s without a move is a stall."""
        last, seen = -1, time.monotonic()
        while time.monotonic() < self.stop:
            await asyncio.sleep(5)
            with contextlib.suppress(httpx.HTTPError, ValueError):
                listed = {t["table"]: t["at"] for t in (await http.get("/api/tables")).json()["tables"]}
                if table not in listed:  # over
                    return
                if listed[table] != last:
                    last, seen = listed[table], time.monotonic()
                elif time.monotonic() - seen > 60:
                    self.stalls.append(f"bot table {table}: no move for {time.monotonic() - seen:.0f} s")
                    return

    # Hostile clients --------------------------------------------------------------------------

    async def hostile_client(self, kind: str, table: str) -> None:
        while time.monotonic() < self.stop:
            try:
                await getattr(self, "_" + kind)(table)
            except Exception as error:
                self.count(f"{kind} closed ({type(error).__name__})")
            await asyncio.sleep(0.5)
            while table in self.rematches:  # its game is over: on to the rematch's table
                table = self.rematches[table]
            if self.live and table not in self.live:  # over (seen from the lobby): another game
                table = random.choice(self.live)

    async def watch_lobby(self) -> None:
        """Keep :attr:`live` (the crowd's process cannot see the players' rematches)."""
        async with httpx.AsyncClient(base_url=f"http://{self.base}", timeout=30) as http:
            while time.monotonic() < self.stop:
                with contextlib.suppress(httpx.HTTPError, ValueError, KeyError):
                    tables = (await http.get("/api/tables")).json()["tables"]
                    live = [t["table"] for t in tables if any(seat["name"] for seat in t["seats"])]
                    self.live = live or self.live
                await asyncio.sleep(2.0)

    async def _silent(self, table: str) -> None:
        async with connect(f"ws://{self.base}/ws/{table}", open_timeout=60) as ws:
            await asyncio.wait_for(ws.wait_closed(), max(0.1, self.stop - time.monotonic()))
            self.count(f"silent closed by the server ({ws.close_code})")

    async def _never_reading(self, table: str) -> None:
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        raw.setblocking(False)
        await asyncio.get_running_loop().sock_connect(raw, ("127.0.0.1", self.port))
        key = uuid.uuid4().hex
        async with connect(f"ws://{self.base}/ws/{table}", sock=raw, max_queue=1, compression=None) as ws:
            await ws.send(json.dumps({"watch": True, "key": key}))
            while time.monotonic() < self.stop:
                await ws.send(json.dumps({"resync": True}))
                await asyncio.sleep(1 / 18)

    async def _flooding(self, table: str) -> None:
        async with connect(f"ws://{self.base}/ws/{table}", open_timeout=60) as ws:
            await ws.send(json.dumps({"watch": True}))
            for _ in range(200):
                await ws.send(json.dumps({"resync": True}))
            await asyncio.wait_for(ws.wait_closed(), 30)
            self.count(f"flooding closed by the server ({ws.close_code})")

    async def _nested(self, table: str) -> None:
        async with httpx.AsyncClient(base_url=f"http://{self.base}", timeout=30) as http:
            answer = await http.post("/api/tables", content=b"[" * 2000 + b"]" * 2000)
            self.count(f"nested body answered {answer.status_code}")
        async with connect(f"ws://{self.base}/ws/{table}", open_timeout=60) as ws:
            await ws.send(json.dumps({"watch": True}))
            await ws.recv()
            await ws.send("[" * 1000 + "]" * 1000)
            await asyncio.wait_for(ws.wait_closed(), 30)
            self.count(f"nested message closed by the server ({ws.close_code})")


async def soak_clients(
    soak: Soak, tables: int, bot_tables: int, sockets: int, hostile: int, crowd_apart: bool = True
) -> None:
    """Open the tables and play them; the spectators and hostile sockets (the crowd) run in a
    process of their own with ``crowd_apart`` (as they would on other machines: a hostile
    client's work must not delay the honest players' own event loop), else in this one."""
    async with httpx.AsyncClient(base_url=f"http://{soak.base}", timeout=120) as http:
        players: list[tuple[str, str]] = []
        bots: list[str] = []
        for k in range(tables):
            if k < bot_tables:
                body: dict[str, Any] = {"players": 3, "bots": {"0": BOT, "1": BOT, "2": BOT}}
            else:
                body = {"players": 4, "name": f"p{k}", "bots": {"1": "greedy", "2": "greedy", "3": "random"}}
            answer = (await http.post("/api/tables", json=body)).json()
            if k < bot_tables:
                bots.append(answer["table"])
            else:
                players.append((answer["table"], answer["token"]))
        honest_tables = [t for t, _ in players]
        spectators = max(0, sockets - len(players) - hostile)
        tasks = [soak.player(http, t, token) for t, token in players]
        tasks += [soak.bot_table(http, t) for t in bots]
        crowd = {
            "base": soak.base,
            "port": soak.port,
            "seconds": soak.stop - time.monotonic(),
            "honest_tables": honest_tables,
            "bot_tables": bots,
            "spectators": spectators,
            "hostile": hostile,
        }
        process = None
        if crowd_apart:
            process = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).resolve()), "--crowd", json.dumps(crowd), stdout=subprocess.PIPE
            )
        else:
            tasks.append(crowd_clients(soak, honest_tables, bots, spectators, hostile))
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(outcome, Exception):  # a client that gave up: counted, the others go on
                soak.count(f"client error ({type(outcome).__name__})")
        if process is not None:
            out, _ = await process.communicate()
            told = json.loads(out.decode().strip().splitlines()[-1])
            soak.frames += told["frames"]
            for what, n in told["hostile"].items():
                soak.hostile[what] = soak.hostile.get(what, 0) + n
            soak.crowd_cpu = told["cpu"]


async def crowd_clients(soak: Soak, honest_tables: list[str], bots: list[str], spectators: int, hostile: int) -> None:
    """The hostile sockets (in turn silent, never reading, flooding, nesting) and the spectators."""
    kinds = ["silent", "never_reading", "flooding", "nested"]
    tasks = [soak.hostile_client(kinds[k % len(kinds)], honest_tables[k % len(honest_tables)]) for k in range(hostile)]
    watched = honest_tables + bots
    tasks += [soak.spectator(watched[k % len(watched)]) for k in range(spectators)]
    if soak.live is not None:  # apart from the players: rematches are seen in the lobby
        tasks.append(soak.watch_lobby())
    for outcome in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(outcome, Exception):
            soak.count(f"client error ({type(outcome).__name__})")


def crowd(
    base: str, port: int, seconds: float, honest_tables: list[str], bot_tables: list[str], spectators: int, hostile: int
) -> dict[str, Any]:
    """Run the crowd (:func:`crowd_clients`) for ``seconds``, in this process: what it saw."""
    soak = Soak(base, port, time.monotonic() + seconds, 1.0, 10.0)
    soak.live = []
    cpu = time.process_time()
    asyncio.run(crowd_clients(soak, honest_tables, bot_tables, spectators, hostile))
    return {"frames": soak.frames, "hostile": soak.hostile, "cpu": time.process_time() - cpu}


def soak(
    url: str | None = None,
    *,
    tables: int = 50,
    bot_tables: int = 5,
    sockets: int = 200,
    hostile: int = 20,
    seconds: float = 600.0,
    think: float = 1.0,
    stall: float = 10.0,
    progress: bool = True,
    keep_finished: float | None = None,
    crowd_apart: bool = True,
) -> dict[str, Any]:
    """Run the soak and the kill -9 restart; the figures (see the module's docstring);
    ``crowd_apart``: the spectators and hostile sockets in a process of their own."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as directory:
        url = url or f"sqlite:///{Path(directory) / 'soak.db'}"
        server, _ = start_server(url, port, keep_finished=keep_finished)
        memory: list[tuple[float, float]] = []
        base = f"127.0.0.1:{port}"
        started = time.monotonic()
        state = Soak(base, port, started + seconds, think, stall)

        async def sample() -> None:
            while time.monotonic() < state.stop:
                memory.append((time.monotonic() - started, rss_mb(server.pid)))
                if progress:
                    p95 = sorted(state.latencies)[int(0.95 * (len(state.latencies) - 1))] if state.latencies else 0
                    print(
                        f"  {memory[-1][0]:5.0f} s: RSS {memory[-1][1]:.0f} MB, {len(state.latencies)} honest actions "
                        f"(p95 so far {p95 * 1000:.0f} ms), {len(state.stalls)} stalls",
                        file=sys.stderr,
                        flush=True,
                    )
                await asyncio.sleep(max(1.0, seconds / 30))

        lags: list[float] = []

        async def lag() -> None:
            # how late this process's own event loop wakes up: the share of a latency that is
            # the clients' waiting, not the server's
            while time.monotonic() < state.stop:
                asked = time.perf_counter()
                await asyncio.sleep(0.01)
                lags.append(time.perf_counter() - asked - 0.01)

        async def both() -> None:
            await asyncio.gather(
                soak_clients(state, tables, bot_tables, sockets, hostile, crowd_apart), sample(), lag()
            )

        try:
            cpu_before, clients_before = cpu_seconds(server.pid), time.process_time()
            asyncio.run(both())
            server_cpu = cpu_seconds(server.pid) - cpu_before
            clients_cpu = time.process_time() - clients_before
            os.kill(server.pid, signal.SIGKILL)
            server.wait()
            server, restart = start_server(url, port, keep_finished=keep_finished)
            lost = []
            for table, (token, acknowledged) in state.acknowledged.items():
                if not acknowledged:
                    continue
                seen = asyncio.run(_actions(base, table, token))
                for at, action in acknowledged.items():
                    if at >= len(seen) or seen[at] != action:
                        lost.append(f"{table}@{at}")
        finally:
            server.kill()
            server.wait()
        # for scale: the same start on an empty database, now (the interpreter's start on this machine)
        empty, empty_start = start_server(f"sqlite:///{Path(directory) / 'empty.db'}", port)
        empty.kill()
        empty.wait()
    latencies = sorted(state.latencies)
    warm = [m for t, m in memory if t >= seconds / 5]
    return {
        "url": url.split("@")[-1],
        "honest_actions": len(latencies),
        "games": state.games,
        "p50_ms": 1000 * latencies[len(latencies) // 2] if latencies else None,
        "p95_ms": 1000 * latencies[int(0.95 * (len(latencies) - 1))] if latencies else None,
        "max_ms": 1000 * latencies[-1] if latencies else None,
        "stalls": state.stalls,
        "spectator_frames": state.frames,
        "hostile": dict(sorted(state.hostile.items())),
        "rss_after_warmup_mb": warm[0] if warm else None,
        "rss_end_mb": warm[-1] if warm else None,
        "rss_max_mb": max(warm) if warm else None,
        "restart_s": restart,
        "empty_start_s": empty_start,
        "acknowledged": sum(len(a) for _, a in state.acknowledged.values()),
        "lost": lost,
        "load_average": os.getloadavg()[0],
        "server_cpu_s": server_cpu,
        "clients_cpu_s": clients_cpu,
        "crowd_cpu_s": state.crowd_cpu if crowd_apart else None,
        "clients_lag_p50_ms": 1000 * sorted(lags)[len(lags) // 2] if lags else None,
        "clients_lag_p95_ms": 1000 * sorted(lags)[int(0.95 * (len(lags) - 1))] if lags else None,
        "yardstick_games_per_s": yardstick_games_per_second(),
    }


async def _actions(base: str, table: str, token: str) -> list[str]:
    """The table's actions as its seat saw them (his snapshot's), or, for a table archived
    since (its game over), its whole record's."""
    try:
        async with connect(f"ws://{base}/ws/{table}", max_size=2**22) as ws:
            await ws.send(json.dumps({"token": token}))
            frame: dict[str, Any] = json.loads(await ws.recv())
            return [seen.split(";")[0] for seen in frame["seen"]]
    except ConnectionClosed as closed:
        if closed.rcvd is None or closed.rcvd.code != 4004:  # 4004, "no such table": archived since
            raise
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=30) as http:
        answer = await http.get(f"/api/tables/{table}/record")
        answer.raise_for_status()
        return [str(action) for action in answer.json()["actions"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--bot-tables", type=int, default=5, help=f"tables of three {BOT} bots (default 5)")
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--hostile", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--think", type=float, default=1.0, help="a player's mean think time in seconds (default 1)")
    parser.add_argument("--stall", type=float, default=10.0, help="an action unanswered this long is a stall")
    parser.add_argument("--db", default=None, help="database URL (default: a SQLite file in a temporary directory)")
    parser.add_argument(
        "--keep-finished",
        type=float,
        default=60.0,
        help="the server's --keep-finished: seconds a finished table stays in memory before it is archived "
        "(default 60, so that a 10-minute soak reaches the steady state; the server's own default is 600)",
    )
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="run the spectators and hostile sockets in the players' process (by default they run in "
        "their own: a hostile client's work would otherwise delay the honest players' event loop)",
    )
    parser.add_argument("--crowd", help=argparse.SUPPRESS)  # JSON: run the crowd only (the soak starts it)
    args = parser.parse_args(argv)
    if args.crowd:
        print(json.dumps(crowd(**json.loads(args.crowd))))
        return 0
    figures = soak(
        args.db,
        tables=args.tables,
        bot_tables=args.bot_tables,
        sockets=args.sockets,
        hostile=args.hostile,
        seconds=args.seconds,
        think=args.think,
        stall=args.stall,
        keep_finished=args.keep_finished,
        crowd_apart=not args.one_process,
    )
    print(
        f"{args.tables} tables ({args.bot_tables} of {BOT} bots), {args.sockets} sockets ({args.hostile} hostile), "
        f"{args.seconds:g} s on loopback, {figures['url']}; load average {figures['load_average']:.1f} "
        f"on {os.cpu_count()} cores"
    )
    print(
        f"honest actions {figures['honest_actions']} ({figures['games']} games finished): action-to-broadcast "
        f"p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms, max {figures['max_ms']:.1f} ms"
    )
    cpu = figures["server_cpu_s"]
    per_action = cpu / max(1, figures["honest_actions"])
    print(
        f"server CPU (its event loop; the bots' workers apart): {cpu:.1f} s ({cpu / args.seconds:.0%} of one core), "
        f"{per_action * 1000:.1f} ms per honest action"
        + (
            f" = {per_action * figures['yardstick_games_per_s']:.2f} yardstick games (ref_sim, "
            f"{figures['yardstick_games_per_s']:.0f} random 4-player games per CPU second here)"
            if figures["yardstick_games_per_s"]
            else ""
        )
    )
    clients = figures["clients_cpu_s"]
    print(
        f"the players' CPU (this process; their latencies include waiting for it): {clients:.1f} s "
        f"({clients / args.seconds:.0%} of one core); its event loop wakes late by p50 "
        f"{figures['clients_lag_p50_ms']:.1f} ms, p95 {figures['clients_lag_p95_ms']:.1f} ms"
        + ("" if args.one_process else "; the crowd's (spectators, hostile sockets; a process of its own): ")
        + ("" if args.one_process else f"{figures['crowd_cpu_s']:.1f} s")
    )
    print(f"stalls: {len(figures['stalls'])} {figures['stalls'][:5]}")
    print(f"spectators read {figures['spectator_frames']} frames; hostile sockets: {figures['hostile']}")
    print(
        f"server RSS: {figures['rss_after_warmup_mb']:.0f} MB after the warm-up, {figures['rss_end_mb']:.0f} MB at "
        f"the end (max {figures['rss_max_mb']:.0f} MB)"
    )
    print(
        f"kill -9, restart: answered in {figures['restart_s']:.2f} s (an empty database's start, just after: "
        f"{figures['empty_start_s']:.2f} s); acknowledged actions "
        f"{figures['acknowledged']}, lost {len(figures['lost'])}"
    )
    return 0 if not figures["stalls"] and not figures["lost"] else 1


if __name__ == "__main__":
    sys.exit(main())
