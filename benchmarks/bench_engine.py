"""Engine speed: complete random games per second, and steps per second.

Plays seeded random games on one core, enumerating the legal actions at every decision
(as ``meuterer.random_game`` does), and prints the figures for 3 and 4 players; then the
cost of one step, a chance draw and a decision apart, in µs through the reference's
functions (``meuterer.apply``, which checks the action) and through the cursor
(``meuterer.fast.FastGame``: the same step table, a listed action applied by its place,
unchecked) over the same steps (CPU time in bulk, the engines alternating, medians), with the yardstick's µs per
game measured in the same process.

    python benchmarks/bench_engine.py [--games N]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

import meuterer
from meuterer.bench import engine_figures, find_yardstick, load_yardstick
from meuterer.fast import FastGame
from meuterer.state import State


def _steps(players: int, games: int) -> tuple[list[State], list[tuple[State, int]]]:
    """The chance states and the (decision state, chosen index) pairs of seeded random games."""
    chances: list[State] = []
    decisions: list[tuple[State, int]] = []
    for seed in range(games):
        rng = random.Random(seed)
        state = meuterer.new_game(players=players, first_captain=seed % players)
        while not meuterer.is_terminal(state):
            if meuterer.is_chance_node(state):
                chances.append(state)
                state = meuterer.apply(state, meuterer.sample_chance(state, rng))
            else:
                legal = meuterer.legal_actions(state)
                index = rng.randrange(len(legal))
                decisions.append((state, index))
                state = meuterer.apply(state, legal[index])
    return chances, decisions


def _reference(chances: list[State], decisions: list[tuple[State, int]]) -> tuple[float, float]:
    """CPU µs per draw (``sample_chance`` + ``apply``) and per decision (``legal_actions`` +
    ``apply``) of the reference, in bulk over the steps."""
    sample, apply, legal_actions, rng = meuterer.sample_chance, meuterer.apply, meuterer.legal_actions, random.Random(1)
    start = time.process_time()
    for state in chances:
        apply(state, sample(state, rng))
    draw = time.process_time() - start
    start = time.process_time()
    for state, index in decisions:
        apply(state, legal_actions(state)[index])
    return 1e6 * draw / len(chances), 1e6 * (time.process_time() - start) / len(decisions)


def _fast(chances: list[FastGame], decisions: list[tuple[FastGame, int]]) -> tuple[float, float]:
    """The same through the cursor (``apply_chance``; ``apply_at``), on fresh cursors at the
    same steps (making them is not timed)."""
    rng = random.Random(1)
    games = [game.clone() for game in chances]
    start = time.process_time()
    for game in games:
        game.apply_chance(rng)
    draw = time.process_time() - start
    pairs = [(game.clone(), index) for game, index in decisions]
    start = time.process_time()
    for game, index in pairs:
        game.apply_at(index)
    return 1e6 * draw / len(chances), 1e6 * (time.process_time() - start) / len(decisions)


def step_costs(players: int, games: int, rounds: int = 5) -> dict[str, float]:
    """µs per chance draw and per decision, reference functions and cursor, over the same steps
    of seeded random games: CPU time in bulk, the engines alternating, medians of ``rounds``."""
    chances, decisions = _steps(players, games)
    fast_chances = [FastGame(state) for state in chances]
    fast_decisions = [(FastGame(state), index) for state, index in decisions]
    runs = []
    for _ in range(rounds + 1):  # the first is a warm-up
        runs.append((*_reference(chances, decisions), *_fast(fast_chances, fast_decisions)))
    names = ("ref µs/draw", "ref µs/decision", "cursor µs/draw", "cursor µs/decision")
    return {name: statistics.median(run[i] for run in runs[1:]) for i, name in enumerate(names)}


def yardstick_game_us(players: int, games: int) -> float | None:
    """The yardstick's µs per whole random game, or ``None`` when it is not found."""
    path = find_yardstick()
    if path is None or not path.is_file():
        return None
    ref_sim = load_yardstick(path)
    rng = random.Random(0)
    start = time.process_time()
    for _ in range(games):
        ref_sim.play_game(rng, players)
    return (time.process_time() - start) / games * 1e6


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
            f"draw ref/cursor {costs['ref µs/draw'] / costs['cursor µs/draw']:.2f}x, "
            f"decision ref/cursor {costs['ref µs/decision'] / costs['cursor µs/decision']:.2f}x"
        )
        yard = yardstick_game_us(players, games)
        per_game = f", yardstick µs/game {yard:,.0f}" if yard is not None else ""
        print(f"{players} players, {games} games, per step: {row} ({ratios}){per_game}")


if __name__ == "__main__":
    main()
