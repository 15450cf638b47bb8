"""The reference engine against the yardstick, in one process: games/s of
``meuterer.random_game`` (4 and 3 players) as a ratio to ``../shared/bench/ref_sim.py``,
µs per decision for ``legal_actions`` + ``apply``, and ms per ``verify`` of a complete
4-player record with digests (issue 13 §1 targets: ratio ≥ 0.13, ≤ 5 µs, ≤ 5 ms).

The machine is shared and noisy: runs alternate library and yardstick, time is CPU time
of this process, and the best and median ratios are printed.

    python benchmarks/bench_reference.py [--rounds N] [--games N] [--yardstick PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

import meuterer
from meuterer import Game
from meuterer.bench import find_yardstick

# $MEUTERER_YARDSTICK, else ../shared/bench/ref_sim.py next to the repository (or next to a
# parent of a worktree, of the working directory or of the meuterer package imported)
YARDSTICK = find_yardstick() or next(
    (p / bench for p in Path(__file__).resolve().parents[1:] if (p / (bench := "shared/bench/ref_sim.py")).is_file()),
    Path("../shared/bench/ref_sim.py"),
)


def load(path: Path) -> ModuleType:
    """The yardstick module, imported by path."""
    spec = importlib.util.spec_from_file_location("ref_sim", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def library(games: int, players: int) -> float:
    """Games/s of ``meuterer.random_game`` (CPU time)."""
    start = time.process_time()
    for seed in range(games):
        meuterer.random_game(seed=seed, players=players, first_captain=seed % players)
    return games / (time.process_time() - start)


def yardstick(module: ModuleType, games: int, players: int) -> float:
    """Games/s of the yardstick's ``play_game`` (CPU time)."""
    rng = random.Random(1)
    start = time.process_time()
    for _ in range(games):
        module.play_game(rng, players)
    return games / (time.process_time() - start)


def per_decision(games: int, repeat: int = 3) -> float:
    """µs per decision of ``legal_actions`` followed by ``apply`` of a random legal action,
    timed in bulk over the decisions of seeded random 4-player games (caches warm)."""
    decisions = []
    for seed in range(games):
        rng = random.Random(seed)
        state = meuterer.new_game(4, seed % 4)
        while not meuterer.is_terminal(state):
            if meuterer.is_chance_node(state):
                state = meuterer.apply(state, meuterer.sample_chance(state, rng))
                continue
            legal = meuterer.legal_actions(state)
            action = legal[rng.randrange(len(legal))]
            decisions.append((state, action))
            state = meuterer.apply(state, action)
    legal_actions, apply = meuterer.legal_actions, meuterer.apply
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for state, action in decisions:
            legal_actions(state)
            apply(state, action)
        best = min(best, (time.process_time() - start) / len(decisions))
    return 1e6 * best


def verify_ms(records: int, repeat: int = 3) -> float:
    """Best ms per ``verify`` of a complete 4-player record with digests, from its text."""
    texts = []
    for seed in range(records):
        actions, _ = meuterer.random_game(seed=seed, players=4)
        texts.append(meuterer.write_record(Game.replay(actions, players=4)))
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for text in texts:
            assert meuterer.verify(text).ok
        best = min(best, (time.process_time() - start) / records)
    return 1e3 * best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternating library/yardstick runs (default 5)")
    parser.add_argument("--games", type=int, default=150, help="library games per run (default 150)")
    parser.add_argument("--yardstick", type=Path, default=YARDSTICK, help=f"default {YARDSTICK}")
    args = parser.parse_args()
    if not args.yardstick.is_file():
        sys.exit(f"bench_reference.py: no yardstick at {args.yardstick} (give --yardstick PATH or MEUTERER_YARDSTICK)")
    ref = load(args.yardstick)
    print(f"meuterer {meuterer.__version__}, Python {platform.python_version()}, {platform.machine()}, CPU time")
    for players in (4, 3):
        library(max(1, args.games // 10), players), yardstick(ref, args.games, players)  # warm-up
        ratios, ours, theirs = [], [], []
        for _ in range(args.rounds):
            ours.append(library(args.games, players))
            theirs.append(yardstick(ref, args.games * 10, players))
            ratios.append(ours[-1] / theirs[-1])
        print(
            f"{players} players: random_game {statistics.median(ours):,.0f} games/s, yardstick "
            f"{statistics.median(theirs):,.0f} games/s, ratio median {statistics.median(ratios):.3f} "
            f"(best {max(ratios):.3f})"
        )
    print(f"legal_actions + apply: {per_decision(max(1, args.games // 3)):.1f} µs per decision")
    print(f"verify: {verify_ms(10):.2f} ms per complete 4-player record with digests")


if __name__ == "__main__":
    main()
