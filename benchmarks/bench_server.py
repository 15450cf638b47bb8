"""Load on ``meuterer serve``: concurrent 4-seat tables on loopback, action-to-broadcast latency.

Starts a real server (uvicorn, a SQLite file in a temporary directory), opens ``--tables``
tables (default 100), each with three bots and one scripted client that answers every
``update`` with its first legal action after a think time drawn uniformly between half and
one and a half ``--think`` seconds (default 1 s; 0 floods the server: the figures then measure
its queue). The latency of an action is the time from
sending it to receiving the ``update`` that answers it (the stored and broadcast move, with
the bots' moves and the draws after it). Bounded: ``--seconds`` of play (default 20), on
127.0.0.1 only. Prints p50/p95/max latency, actions per second, the server's CPU time per
action and, for scale, the yardstick's random games per second measured in this process.

    python benchmarks/bench_server.py [--tables N] [--seconds S] [--think S]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

YARDSTICK = next(
    (p / "shared" / "bench" / "ref_sim.py" for p in Path(__file__).resolve().parents[1:] if (p / "shared").is_dir()),
    Path("../shared/bench/ref_sim.py"),
)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def yardstick_games_per_second(games: int = 200) -> float | None:
    if not YARDSTICK.exists():
        return None
    spec = importlib.util.spec_from_file_location("ref_sim", YARDSTICK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(1)
    start = time.process_time()
    for _ in range(games):
        module.play_game(rng, 4)
    return games / (time.process_time() - start)


async def client(base: str, table: str, token: str, stop: float, think: float, latencies: list[float]) -> int:
    """Play seat 0 of ``table`` until ``stop`` (a monotonic time) or the game's end."""
    moves = 0
    rng = random.Random(table)
    async with connect(f"ws://{base}/ws/{table}", max_size=2**22, ping_interval=None, open_timeout=120) as ws:
        await ws.send(json.dumps({"token": token}))
        frame = json.loads(await ws.recv())
        while time.monotonic() < stop and frame["state"]["winners"] is None:
            legal = frame["state"]["legal"]
            if not legal:
                frame = json.loads(await ws.recv())
                continue
            await asyncio.sleep(max(0.06, think * rng.uniform(0.5, 1.5)))  # 0.06: within the per-connection rate
            sent = time.perf_counter()
            await ws.send(json.dumps({"act": legal[0]["action"], "at": frame["at"]}))
            frame = json.loads(await ws.recv())
            latencies.append(time.perf_counter() - sent)
            moves += 1
    return moves


async def run(base: str, tables: int, seconds: float, think: float) -> tuple[list[float], int, float]:
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=60) as http:
        opened = []
        for _ in range(tables):
            answer = await http.post(
                "/api/tables",
                json={"players": 4, "name": "bench", "bots": {"1": "greedy", "2": "greedy", "3": "random"}},
            )
            opened.append(answer.json())
    latencies: list[float] = []
    start = time.monotonic()
    stop = start + seconds
    moves = await asyncio.gather(*(client(base, o["table"], o["token"], stop, think, latencies) for o in opened))
    return latencies, sum(moves), time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=1.0, help="a client's mean think time in seconds (default 1)")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'bench.db'}"
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
        command = [sys.executable, "-m", "meuterer", "serve", "--db", url, "--port", str(port)]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        try:
            for _ in range(600):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            before = cpu_seconds(server.pid)
            latencies, moves, wall = asyncio.run(run(f"127.0.0.1:{port}", args.tables, args.seconds, args.think))
            cpu = cpu_seconds(server.pid) - before
        finally:
            server.kill()
            server.wait()
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p95 = latencies[int(0.95 * (len(latencies) - 1))] * 1000
    print(
        f"tables {args.tables} (4 seats: 1 scripted client thinking ~{args.think:g} s, 3 bots), "
        f"{wall:.1f} s of play on loopback; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"client actions: {moves} ({moves / wall:.0f}/s), each answered with the bots' moves and draws after it")
    print(f"action-to-broadcast latency: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
    print(
        f"server CPU: {cpu:.1f} s ({cpu / wall:.0%} of one core), {cpu / max(moves, 1) * 1000:.1f} ms per client action"
    )
    games = yardstick_games_per_second()
    if games is not None:
        print(f"yardstick (ref_sim, this process): {games:.0f} random 4-player games/s")


if __name__ == "__main__":
    main()
