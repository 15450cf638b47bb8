"""Adapter speed next to the engine's, in one run: steps per second (and games per second).

Plays seeded games with uniformly random legal actions through the engine
(``meuterer.random_game``), the OpenSpiel game (``python_meuterer``: random playouts as
``random_sim_test`` plays them, and ``rl_environment.Environment`` with its
information-state tensors), the PettingZoo AEC env and the Gymnasium env (opponents
``random``). A "step" is one decision (chance steps are not counted); adapters whose extra
is missing are skipped.

    PYTHONPATH=src python benchmarks/bench_adapters.py [--seconds S] [--players N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import meuterer


def _engine(players: int, seed: int) -> int:
    actions, _ = meuterer.random_game(seed=seed, players=players)
    return sum(1 for action in actions if not str(action).startswith(("draw", "ring")))


def _openspiel(players: int, seed: int) -> int:
    import pyspiel

    import meuterer.openspiel  # noqa: F401

    game = pyspiel.load_game("python_meuterer", {"players": players})
    rng = random.Random(seed)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probabilities)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps


def _rl_environment(players: int, seed: int) -> int:
    from open_spiel.python import rl_environment

    import meuterer.openspiel  # noqa: F401

    env = rl_environment.Environment("python_meuterer", players=players)
    env.seed(seed)
    rng = random.Random(seed)
    time_step = env.reset()
    steps = 0
    while not time_step.last():
        player = time_step.observations["current_player"]
        time_step = env.step([rng.choice(time_step.observations["legal_actions"][player])])
        steps += 1
    return steps


_ENVIRONMENTS: dict[int, Any] = {}


def _pettingzoo(players: int, seed: int) -> int:
    import numpy as np

    from meuterer.pettingzoo import env

    # One environment per player count, reset for each game, as training loops use it.
    environment = _ENVIRONMENTS.get(players) or _ENVIRONMENTS.setdefault(players, env(players=players))
    environment.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in environment.agent_iter():
        observation, _, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            environment.step(None)
            continue
        environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
        del agent
    return steps


def _gym(players: int, seed: int) -> int:
    import numpy as np

    from meuterer.gym import MeutererEnv

    environment = MeutererEnv(players=players, opponents="random")
    environment.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, done = 0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(environment.action_masks())))
        _, _, terminated, truncated, _ = environment.step(action)
        done = terminated or truncated
        steps += 1
    return steps


RUNNERS: dict[str, Callable[[int, int], int]] = {
    "engine (random_game)": _engine,
    "openspiel random playout": _openspiel,
    "openspiel rl_environment": _rl_environment,
    "pettingzoo AEC env": _pettingzoo,
    "gymnasium env (learner's steps)": _gym,
}


def measure(runner: Callable[[int, int], int], players: int, seconds: float) -> tuple[float, float]:
    """Games per second and steps per second over about ``seconds`` of play."""
    runner(players, 0)  # warm-up (imports, caches)
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += runner(players, games + 1)
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of play per row (default 5)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--only", default="", help="rows whose name contains this text (default all)")
    args = parser.parse_args()
    print(f"{args.players} players, {args.seconds:g} s per row, one core")
    base = None
    for name, runner in RUNNERS.items():
        if args.only not in name and not name.startswith("engine"):
            continue
        try:
            games, steps = measure(runner, args.players, args.seconds)
        except ImportError as error:
            print(f"{name:34} skipped ({error})")
            continue
        base = base or steps
        print(f"{name:34} {games:8.1f} games/s {steps:10,.0f} steps/s  {steps / base:5.2f}x the engine")


if __name__ == "__main__":
    main()
