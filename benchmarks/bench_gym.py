"""The single-game Gymnasium env's learner steps per second, next to the yardstick's games.

Plays seeded episodes of ``meuterer/Meuterer-v0`` (``MeutererEnv``, opponents ``random``, the
learner choosing uniformly among his legal ids) and counts the learner's steps per second of
CPU time, for the encoded and the vector observation. The learner's choice is one function,
``choose`` (a uniform pick among the mask's ids with a ``random.Random``), the same code in
every row, the "before" row included. For comparison, in the same process: the
design the env had before issue 22 (the reference engine, a ``view()`` built for every
opponent's move and the learner's observation encoded from his view), and the yardstick
(``../shared/bench/ref_sim.py``) in games per second; and the floor, the same episodes
stepped without observations, rewards or infos (what the engine and the harness cost).

    PYTHONPATH=src python benchmarks/bench_gym.py [--episodes N] [--repeats N] [--players N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Mapping
from functools import partial
from statistics import median
from typing import TypeVar

import numpy as np

from meuterer import engine
from meuterer.bench import find_yardstick, load_yardstick
from meuterer.encoding import action_ids
from meuterer.gym import MeutererEnv
from meuterer.views import observation_layout, view

K = TypeVar("K")


def choose(mask: np.ndarray, rng: random.Random) -> int:
    """The learner's policy in every row: a uniformly random id among the mask's true entries."""
    legal = mask.nonzero()[0]
    return int(legal[rng.randrange(len(legal))])


def _env(players: int, episodes: int, observation: str) -> int:
    env = MeutererEnv(players=players, opponents="random", observation=observation)
    steps = 0
    for seed in range(episodes):
        env.reset(seed=seed)
        rng = random.Random(seed)
        done = False
        while not done:
            action = choose(env.action_masks(), rng)
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            steps += 1
    return steps


def _floor(players: int, episodes: int, observation: str) -> int:
    """The same episodes without observations, rewards or infos: the fast engine playing the
    opponents and chance, the legal ids and the learner's choice (no env can step faster)."""
    env = MeutererEnv(players=players, opponents="random", observation=observation)
    steps = 0
    for seed in range(episodes):
        env.reset(seed=seed)
        rng = random.Random(seed)
        game = env._game
        while not game.is_terminal():
            moves = env._legal()
            mask = env._mask
            assert mask is not None
            action = choose(mask, rng)
            game.apply_at(moves[action])
            env._advance()
            steps += 1
    return steps


def _before(players: int, episodes: int, observation: str) -> int:
    """The env's loop as it was: the reference engine and a view for every opponent's move."""
    initial = engine.new_game(players)
    ids = action_ids(initial.rules)
    layout = observation_layout(players, initial.rules)
    steps = 0
    for seed in range(episodes):
        rng, opponents, learner = random.Random(seed), random.Random(f"{seed}/o"), random.Random(seed)
        state = initial
        while True:
            while (player := engine.current_player(state)) not in (None, 0):
                if player == engine.CHANCE:
                    state = engine.apply(state, engine.sample_chance(state, rng))
                else:
                    legal = engine.legal_actions(state)
                    view(state, player)  # built, and read by no one (a random opponent)
                    state = engine.apply(state, legal[opponents.randrange(len(legal))])
            v = view(state, 0)
            np.array(layout.vector(v), np.int64) if observation == "vector" else np.array(layout.encode(v), np.float32)
            if player is None:
                break
            mask = np.zeros(ids.num_actions, np.bool_)
            mask[list(ids.legal_ids(state))] = True
            number = choose(mask, learner)
            state = engine.apply(state, ids.action(state, number))
            steps += 1
    return steps


def interleaved(runs: Mapping[K, Callable[[], int]], repeats: int) -> dict[K, list[float]]:
    """Steps per second of CPU time of each run, ``repeats`` times, the runs interleaved (so
    that the shared machine's load falls on every run alike)."""
    rates: dict[K, list[float]] = {key: [] for key in runs}
    for _ in range(repeats):
        for key, work in runs.items():
            start = time.process_time()
            steps = work()
            rates[key].append(steps / (time.process_time() - start))
    return rates


def ratio(now: list[float], before: list[float]) -> str:
    """The ratio of the medians, and the range of the ratios per repetition."""
    each = sorted(a / b for a, b in zip(now, before, strict=True))
    return f"{median(now) / median(before):.2f}x (per repetition {each[0]:.2f}x to {each[-1]:.2f}x)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20, help="episodes per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved measurements per row (medians shown)")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    n, episodes = args.players, args.episodes
    for observation in ("encoded", "vector"):  # warm-up (imports, caches)
        _env(n, 5, observation)
        _before(n, 2, observation)
    path = find_yardstick()
    yard = None
    if path is not None:
        ref_sim = load_yardstick(path)
        rng = random.Random(n)
        start = time.process_time()
        for _ in range(300):
            ref_sim.play_game(rng, n)
        yard = 300 / (time.process_time() - start)
    runs: dict[tuple[str, str], Callable[[], int]] = {}
    for observation in ("encoded", "vector"):
        runs["now", observation] = partial(_env, n, episodes, observation)
        runs["before", observation] = partial(_before, n, episodes, observation)
    runs["floor", "vector"] = partial(_floor, n, episodes, "vector")
    rates = interleaved(runs, args.repeats)
    print(f"{n} players, {episodes} episodes per measurement, medians of {args.repeats} (CPU time)")
    print("the learner's policy in every row, 'before' included: bench_gym.choose (mask.nonzero, Random.randrange)")
    for observation in ("encoded", "vector"):
        now, before = rates["now", observation], rates["before", observation]
        line = f"{observation}: {median(now):,.0f} learner steps/s; before (a view per move) {median(before):,.0f}"
        line += f"; {ratio(now, before)}"
        if yard is not None:
            line += f"; yardstick {yard:,.0f} games/s, {median(now) / yard:.2f} learner steps per yardstick game"
        print(line)
    floor = rates["floor", "vector"]
    print(
        f"floor (engine, legal ids and the learner's choice; no observation, reward or info): {median(floor):,.0f}"
        f" learner steps/s, {ratio(floor, rates['before', 'vector'])} the vector row's before"
    )


if __name__ == "__main__":
    main()
