"""Engine speed: complete random games per second, and steps per second.

Plays seeded random games on one core, enumerating the legal actions at every decision
(as ``meuterer.random_game`` does), and prints the figures for 3 and 4 players.

    python benchmarks/bench_engine.py [--games N]
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import meuterer


def bench(players: int, games: int) -> dict[str, float]:
    """Play ``games`` random games; return throughput figures."""
    decisions = chances = 0
    decision_time = chance_time = 0.0
    clock = time.perf_counter
    start = clock()
    for seed in range(games):
        rng = random.Random(seed)
        state = meuterer.new_game(players=players, first_captain=seed % players)
        while not meuterer.is_terminal(state):
            t0 = clock()
            if meuterer.is_chance_node(state):
                state = meuterer.apply(state, meuterer.sample_chance(state, rng))
                chance_time += clock() - t0
                chances += 1
            else:
                state = meuterer.apply(state, rng.choice(meuterer.legal_actions(state)))
                decision_time += clock() - t0
                decisions += 1
    elapsed = clock() - start
    return {
        "games/s": games / elapsed,
        "steps/s": (decisions + chances) / elapsed,
        "decision steps/s": decisions / decision_time,
        "chance steps/s": chances / chance_time,
        "steps/game": (decisions + chances) / games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per player count (default 500)")
    args = parser.parse_args()
    print(f"meuterer {meuterer.__version__}, Python {platform.python_version()}, {platform.machine()}, one core")
    for players in (3, 4):
        bench(players, max(1, args.games // 20))  # warm-up
        figures = bench(players, args.games)
        row = ", ".join(f"{name} {value:,.0f}" for name, value in figures.items())
        print(f"{players} players, {args.games} games: {row}")


if __name__ == "__main__":
    main()
