"""Throughput of every way to play Meuterer, in one run: decisions per second, and games per
second of random playouts next to the yardstick's.

Rows (4 players, uniformly random legal decisions; a "decision" is one seat's move, chance
steps are not counted; CPU time of this process):

- vector env loop, B = 4096: ``VectorGame``'s legal mask, the acting seat's observation
  (``meuterer.vector.observations``), a random legal choice and the step, every seat;
- ``MeutererVectorEnv``, B = 4096 (the Gymnasium vector env, random opponents inside its
  step, encoded observations; every seat's decisions counted);
- the Pgx-style API, B = 4096 (``init``/``step``: every seat's observation and the mask
  after each step, a copy of the batch per step);
- the single-game Gymnasium env ``meuterer/Meuterer-v0`` (the learner's steps), the
  PettingZoo AEC env, OpenSpiel's python game through pyspiel (random playouts) and its
  ``rl_environment`` (rows whose library is missing are skipped);
- random playouts on the vector engine (B = 16,384) and the yardstick
  (``../shared/bench/ref_sim.py``) in games per second, and their ratio.

    PYTHONPATH=src python benchmarks/bench_throughput.py [--quick] [--seconds S]

``--quick``: one second per row, smaller batches of playouts (a smoke run, not figures).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))  # the scalar adapters' runners

from bench_adapters import RUNNERS

from meuterer.bench import find_yardstick, load_yardstick
from meuterer.vector import VectorGame, random_playouts
from meuterer.vector.observation import observations

PLAYERS = 4
BATCH = 4096


def _timed(seconds: float, step: Callable[[], int]) -> float:
    """Decisions per CPU second of ``step`` (returns the decisions it made) repeated."""
    decisions = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        decisions += step()
    return decisions / elapsed


def _deciding(game: VectorGame, where: Any = None) -> int:
    moving = ~game.chance & ~game.terminal
    return int((moving if where is None else moving & where).sum())


def env_loop(seconds: float, batch: int = BATCH) -> float:
    random_playouts(16_384, PLAYERS, batch=batch, seed=0)  # the declaration tables warm
    g = VectorGame(batch, PLAYERS, seed=2)
    for _ in range(300):  # past the deals
        g.step(g.random_actions(), checked=False)
        g.reset(g.terminal)

    def one() -> int:
        deciding = _deciding(g)
        g.legal_mask()
        observations(g, g.to_act)
        g.step(g.random_actions(), checked=False)
        g.reset(g.terminal)
        return deciding

    return _timed(seconds, one)


def vector_env(seconds: float, batch: int = BATCH) -> float:
    from bench_vector import env_steps  # one way of counting the env's decisions, in both benchmarks

    return _timed(seconds, env_steps(batch))


def pgx(seconds: float, batch: int = BATCH) -> float:
    from bench_vector import pgx_steps

    return _timed(seconds, pgx_steps(batch))


def scalar(name: str) -> Callable[[float], float]:
    runner = RUNNERS[name]

    def run(seconds: float) -> float:
        runner(PLAYERS, 0)  # imports, caches
        games = 0

        def one() -> int:
            nonlocal games
            games += 1
            return runner(PLAYERS, games)

        return _timed(seconds, one)

    return run


ROWS: dict[str, Callable[[float], float]] = {
    f"vector env loop (mask + acting seat's observation + step), B={BATCH}": env_loop,
    f"MeutererVectorEnv (Gymnasium vector env, random opponents), B={BATCH}": vector_env,
    f"Pgx-style init/step (every seat's observation + mask), B={BATCH}": pgx,
    "Gymnasium meuterer/Meuterer-v0 (learner's steps)": scalar("gymnasium env (learner's steps)"),
    "PettingZoo AEC env (meuterer.pettingzoo)": scalar("pettingzoo AEC env"),
    "OpenSpiel python_meuterer via pyspiel (random playouts)": scalar("openspiel random playout"),
    "OpenSpiel rl_environment": scalar("openspiel rl_environment"),
}


def playouts(games: int, batch: int) -> tuple[float, float | None]:
    """Games/s of vector random playouts, and of the yardstick (None without it)."""
    random_playouts(batch, PLAYERS, batch=batch, seed=0)  # warm the declaration caches
    start = time.process_time()
    random_playouts(games, PLAYERS, batch=batch, seed=1)
    rate = games / (time.process_time() - start)
    path = find_yardstick()
    if path is None:
        return rate, None
    ref_sim = load_yardstick(path)
    rng = random.Random(PLAYERS)
    count = max(100, games // 8)
    start = time.process_time()
    for _ in range(count):
        ref_sim.play_game(rng, PLAYERS)
    return rate, count / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 s per row, few playouts")
    parser.add_argument("--seconds", type=float, default=None, help="CPU seconds per row (default 5, --quick 1)")
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (1.0 if args.quick else 5.0)
    games, batch = (4096, 4096) if args.quick else (65_536, 16_384)
    load = Path("/proc/loadavg").read_text().split()[:3] if os.path.exists("/proc/loadavg") else ["?"]
    print(f"{PLAYERS} players, {seconds:g} CPU s per row, one process; load average {' '.join(load)}")
    print(f"| {'what':72} | {'decisions/s':>12} |")
    print(f"|{'-' * 74}|{'-' * 13}:|")
    for name, run in ROWS.items():
        try:
            rate = run(seconds)
        except ImportError as error:
            print(f"| {name:72} | skipped ({error.name}) |")
            continue
        print(f"| {name:72} | {rate:12,.0f} |")
    rate, yard = playouts(games, batch)
    line = f"random playouts: vector engine, B={batch}: {rate:,.0f} games/s ({games:,} games)"
    if yard is not None:
        line += f"; yardstick {yard:,.0f} games/s; ratio {rate / yard:.2f}x"
    print(line)
    print(f"load average after: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    main()
