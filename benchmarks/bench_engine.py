"""Engine speed: complete random games per second, and steps per second.

Plays seeded random games on one core, enumerating the legal actions at every decision
(as ``meuterer.random_game`` does), and prints the figures for 3 and 4 players; then the
cost of one step, a chance draw and a decision apart, in µs on the reference
(``meuterer.apply``) and on the fast engine (``meuterer.fast.FastGame``), with the
yardstick's µs per game measured in the same process.

    python benchmarks/bench_engine.py [--games N]
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import meuterer
from meuterer.bench import engine_figures, find_yardstick, load_yardstick
from meuterer.fast import FastGame


def step_costs(players: int, games: int) -> dict[str, float]:
    """µs per chance draw and per decision: the reference, then the fast engine (same seeds)."""
    clock = time.perf_counter
    ref_chance = ref_decision = fast_chance = fast_decision = 0.0
    chances = decisions = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = meuterer.new_game(players=players, first_captain=seed % players)
        while not meuterer.is_terminal(state):
            if meuterer.is_chance_node(state):
                t0 = clock()
                state = meuterer.apply(state, meuterer.sample_chance(state, rng))
                ref_chance += clock() - t0
                chances += 1
            else:
                t0 = clock()
                state = meuterer.apply(state, rng.choice(meuterer.legal_actions(state)))
                ref_decision += clock() - t0
                decisions += 1
        rng = random.Random(seed)
        game = FastGame.new(players=players, first_captain=seed % players)
        while not game.is_terminal():
            if game.is_chance_node():
                t0 = clock()
                game.apply_chance(rng)
                fast_chance += clock() - t0
            else:
                t0 = clock()
                game.apply(rng.choice(game.legal_actions()))
                fast_decision += clock() - t0
    micro = 1e6
    return {
        "ref µs/draw": ref_chance / chances * micro,
        "fast µs/draw": fast_chance / chances * micro,
        "ref µs/decision": ref_decision / decisions * micro,
        "fast µs/decision": fast_decision / decisions * micro,
    }


def yardstick_game_us(players: int, games: int) -> float | None:
    """The yardstick's µs per whole random game, or ``None`` when it is not found."""
    path = find_yardstick()
    if path is None or not path.is_file():
        return None
    ref_sim = load_yardstick(path)
    rng = random.Random(0)
    start = time.perf_counter()
    for _ in range(games):
        ref_sim.play_game(rng, players)
    return (time.perf_counter() - start) / games * 1e6


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
    for players in (3, 4):
        games = max(1, args.games // 5)
        costs = step_costs(players, games)
        row = ", ".join(f"{name} {value:.2f}" for name, value in costs.items())
        ratios = (
            f"draw ref/fast {costs['ref µs/draw'] / costs['fast µs/draw']:.2f}x, "
            f"decision ref/fast {costs['ref µs/decision'] / costs['fast µs/decision']:.2f}x"
        )
        yard = yardstick_game_us(players, games)
        per_game = f", yardstick µs/game {yard:,.0f}" if yard is not None else ""
        print(f"{players} players, {games} games, per step: {row} ({ratios}){per_game}")


if __name__ == "__main__":
    main()
