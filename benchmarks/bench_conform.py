"""Conformance driver speed: the whole corpus over stdio, and fuzz games per second.

Runs ``meuterer conform -- meuterer engine`` in-process (the driver here, the engine as a
child process), both pinned to one core, and prints the wall time and the CPU time of both
processes for the whole corpus, then the fuzzing rate, and the yardstick's games/s measured
right after in the same process (``../shared/bench/ref_sim.py``; ``$MEUTERER_YARDSTICK``
points elsewhere) with each figure as a ratio to it.

    PYTHONPATH=src python benchmarks/bench_conform.py [--games N] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import meuterer
from meuterer.bench import find_yardstick, load_yardstick
from meuterer.conform.driver import Options, run


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="fuzz games (default 50)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N corpus games and refusals")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # the engine inherits the one core
    os.environ.setdefault("PYTHONPATH", str(Path(meuterer.__file__).parents[1]))
    command = [sys.executable, "-m", "meuterer", "engine"]
    out = Path(tempfile.mkdtemp())
    wall, cpu = time.perf_counter(), cpu_seconds()
    report = run(Options(command=command, games=0, limit=args.limit, out=out))
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    counts = report.counts()
    steps = sum(1 for r in report.results if r.kind == "game")
    print(f"meuterer {meuterer.__version__}, suite {report.suite_version}, one core (driver and engine)")
    print(f"corpus: {counts}; exit {report.exit_code}")
    print(f"corpus over stdio: {wall:.1f} s wall, {cpu:.1f} s CPU (driver + engine), {steps} games")
    fuzz_cpu = cpu_seconds()
    fuzz = run(Options(command=command, games=args.games, seed=1, limit=0, out=out))
    fuzz_cpu = cpu_seconds() - fuzz_cpu
    rate = fuzz.fuzz_games / fuzz.fuzz_seconds if fuzz.fuzz_seconds else 0.0
    print(
        f"fuzzing: {fuzz.fuzz_games} games in {fuzz.fuzz_seconds:.1f} s wall: {rate:.2f} games/s "
        f"({fuzz.fuzz_games / fuzz_cpu:.2f} games per CPU second, driver + engine); exit {fuzz.exit_code}"
    )
    path = find_yardstick()
    if path is None:
        print("yardstick not found (set MEUTERER_YARDSTICK): no ratios")
        return
    ref_sim, rng = load_yardstick(path), random.Random(4)
    start = time.process_time()
    for _ in range(300):
        ref_sim.play_game(rng, 4)
    yardstick = 300 / (time.process_time() - start)
    print(f"yardstick (ref_sim, 4 players): {yardstick:,.0f} games/s")
    print(f"corpus CPU time = {cpu * yardstick:,.0f} yardstick games; fuzz rate = {rate / yardstick:.5f} x yardstick")


if __name__ == "__main__":
    main()
