"""A league of batched bots on both engines: ``meuterer rate``'s games per CPU second on the
batch engine and on the reference engine, each next to the yardstick's
(``../shared/bench/ref_sim.py``, random 4-player games) timed right after it in the same
process, and the two engines' win shares side by side (different games: the batch engine
draws its chance otherwise, so the figures agree within their intervals, not exactly).

    PYTHONPATH=src python benchmarks/bench_league.py [--agents random,greedy,policy] [--games 4000]
        [--reference-games 1000] [--batch 1024] [--seed 38]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from meuterer.bench import find_yardstick, load_yardstick
from meuterer.tournament.rate import Engine, League, run_league


def _yardstick_rate(path: Path | None, seconds: float) -> float | None:
    """The yardstick's random 4-player games per CPU second, or ``None`` without it."""
    if path is None:
        return None
    ref_sim = load_yardstick(path)
    rng = random.Random(4)
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        ref_sim.play_game(rng, 4)
        games += 1
    return games / (time.process_time() - start)


def timed(agents: list[str], games: int, engine: Engine, batch: int, seed: int) -> tuple[League, float]:
    """The league and its CPU seconds (every thread of this process)."""
    start = time.process_time()
    league = run_league(agents, games, players=4, seed=seed, engine=engine, batch=batch)
    return league, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="random,greedy,policy")
    parser.add_argument("--games", type=int, default=4000, help="games on the batch engine")
    parser.add_argument("--reference-games", type=int, default=1000, help="games on the reference engine")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    agents = args.agents.split(",")
    path = find_yardstick()
    print(f"yardstick: {path}")
    rates = {}
    runs: tuple[tuple[Engine, int], ...] = (("vector", args.games), ("reference", args.reference_games))
    for engine, games in runs:
        league, cpu = timed(agents, games, engine, args.batch, args.seed)
        rates[engine] = len(league.results) / cpu
        yard = _yardstick_rate(path, min(5.0, cpu))
        line = f"{engine:>9}: {len(league.results):,} games in {cpu:.1f} s CPU, {rates[engine]:,.1f} games/s"
        if yard is not None:
            line += f" ({rates[engine] / yard:.4f}x the yardstick's {yard:,.0f} games/s)"
        print(line)
        shares = ", ".join(f"{a.label} {100 * a.wins.mean:.1f}%" for a in league.ratings().agents)
        print(f"           win shares: {shares}")
    print(f"batch engine / reference engine: {rates['vector'] / rates['reference']:.1f}x games per CPU second")


if __name__ == "__main__":
    main()
