"""Bot speed and tournament throughput.

1. Time per decision (ms) of each bot, on the same positions: every decision with more
   than one legal action in seeded games between greedy players (4 seats).
2. Tournament throughput (games per second) with 1 and with ``--jobs`` processes, for
   four random players, four greedy players, and ISMCTS against three greedy players;
   per core and the speed-up.

    python benchmarks/bench_agents.py [--positions N] [--iterations N] [--games N] [--search-games N] [--jobs J]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

import meuterer
from meuterer.agents import GreedyAgent, ISMCTSAgent, RandomAgent, play_game
from meuterer.agents.base import Agent
from meuterer.tournament import run_tournament
from meuterer.views import PlayerView, view


def positions(count: int) -> list[tuple[PlayerView, tuple[meuterer.Action, ...]]]:
    """Up to ``count`` decision points (view, legal actions) spread over seeded greedy games."""
    found: list[tuple[PlayerView, tuple[meuterer.Action, ...]]] = []
    seed = 0
    while len(found) < count * 4:
        actions, _ = play_game([GreedyAgent()] * 4, seed=seed)
        state = meuterer.new_game(4)
        for action in actions:
            if not meuterer.is_chance_node(state):
                legal = tuple(meuterer.legal_actions(state))
                if len(legal) > 1:
                    found.append((view(state, state.to_act), legal))
            state = meuterer.apply(state, action)
        seed += 1
    return random.Random(0).sample(found, count)


def per_decision(agent: Agent, points: list[tuple[PlayerView, tuple[meuterer.Action, ...]]]) -> list[float]:
    """Milliseconds per decision over ``points``."""
    times = []
    rng = random.Random(1)
    for mine, legal in points:
        start = time.perf_counter()
        agent.act(mine, legal, rng)
        times.append(1000 * (time.perf_counter() - start))
    return times


def throughput(specs: list[str], games: int, jobs: int) -> float:
    """Games per second of a seeded tournament."""
    run = run_tournament(specs, games=games, seed=1, jobs=jobs)
    return games / run.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200, help="decision points timed (default 200)")
    parser.add_argument("--iterations", type=int, default=50, help="ISMCTS iterations (default 50)")
    parser.add_argument("--games", type=int, default=400, help="games per throughput run (default 400)")
    parser.add_argument("--search-games", type=int, default=16, help="games per ISMCTS run (default 16)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the parallel runs (default 2)")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, meuterer {meuterer.__version__}")

    points = positions(args.positions)
    print(f"\nTime per decision over {len(points)} positions (ms): mean, median, 90th percentile, max")
    bots: list[tuple[str, Agent]] = [
        ("random", RandomAgent()),
        ("greedy", GreedyAgent()),
        (f"ismcts:{args.iterations}", ISMCTSAgent(iterations=args.iterations)),
    ]
    for name, agent in bots:
        times = per_decision(agent, points)
        ninety = statistics.quantiles(times, n=10)[-1]
        print(
            f"  {name:<12} {statistics.fmean(times):8.3f} {statistics.median(times):8.3f} {ninety:8.3f} "
            f"{max(times):8.3f}"
        )

    print(f"\nThroughput (games/s), 1 process vs {args.jobs}")
    lineups = [
        (["random"], args.games),
        (["greedy"], args.games),
        ([f"ismcts:{args.iterations}", "greedy"], args.search_games),
    ]
    for specs, games in lineups:
        one = throughput(specs, games, 1)
        many = throughput(specs, games, args.jobs)
        label = " + ".join(specs) if len(specs) > 1 else f"4 x {specs[0]}"
        print(
            f"  {label:<22} {games:5d} games: {one:8.2f} with 1, {many:8.2f} with {args.jobs} "
            f"({many / args.jobs:.2f} per process, speed-up {many / one:.2f}x)"
        )


if __name__ == "__main__":
    main()
