"""Engine speed: complete random games per second, and steps per second.

Plays seeded random games on one core, enumerating the legal actions at every decision
(as ``meuterer.random_game`` does), and prints the figures for 3 and 4 players.

    python benchmarks/bench_engine.py [--games N]
"""

from __future__ import annotations

import argparse
import platform

import meuterer
from meuterer.bench import engine_figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per player count (default 500)")
    args = parser.parse_args()
    print(f"meuterer {meuterer.__version__}, Python {platform.python_version()}, {platform.machine()}, one core")
    for players in (3, 4):
        engine_figures(players, max(1, args.games // 20))  # warm-up
        figures = engine_figures(players, args.games)
        row = ", ".join(f"{name} {value:,.0f}" for name, value in figures.items())
        print(f"{players} players, {args.games} games: {row}")


if __name__ == "__main__":
    main()
