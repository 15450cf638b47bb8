"""The vector engine's speed next to the yardstick's, measured in the same process.

Random playouts (``meuterer.vector.random_playouts``: whole games, uniformly random legal
decisions, ``--batch`` games in lockstep, finished games replaced) in games per second, as a
ratio to the yardstick (``../shared/bench/ref_sim.py``) timed right after; decisions per
second at B = 4096, every seat's decisions counted (the engine alone, an env's hot loop:
legal mask, the acting seat's observation or every seat's, step; ``MeutererVectorEnv.step``
with random opponents; the Pgx-style ``step``); the memory of one game in the batch, and
of B = 65,536. ``--greedy`` measures ``MeutererVectorEnv.step`` with greedy opponents
(``opponents="greedy"``) instead, at ``--greedy-batch`` games, as decisions/s and as a ratio
to the yardstick's decisions/s, both in CPU time; ``--policy`` the same with the learned
policy's opponents (``opponents="policy"``).

    PYTHONPATH=src python benchmarks/bench_vector.py [--games N] [--batch B] [--players N] [--seconds S] [--repeats R]
    PYTHONPATH=src python benchmarks/bench_vector.py --greedy|--policy [--greedy-batch B] [--seconds S] [--repeats R]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any

from meuterer.bench import find_yardstick, load_yardstick
from meuterer.vector import VectorGame, random_playouts
from meuterer.vector.arrays import IntArray
from meuterer.vector.env import MeutererVectorEnv, init, step
from meuterer.vector.observation import observations


def _cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def _yardstick(ref_sim: ModuleType, rng: random.Random, players: int, count: int) -> None:
    for _ in range(count):
        ref_sim.play_game(rng, players)


def _steady(players: int, batch: int, count: int) -> float:
    """Games/s with ``batch`` games always in flight (each finished game replaced at once)."""
    g = VectorGame(batch, players, seed=players)
    for _ in range(300):  # past the first deals
        g.step(g.random_actions(), checked=False)
        g.reset(g.terminal)
    done = 0
    start = time.process_time()
    while done < count:
        g.step(g.random_actions(), checked=False)
        over = g.terminal
        done += int(over.sum())
        g.reset(over)
    return done / (time.process_time() - start)


def _tick(g: VectorGame, every: bool | None) -> int:
    """One step of every game (finished ones restarted): the decisions taken."""
    deciding = int((~g.chance & ~g.terminal).sum())
    if every is not None:
        g.legal_mask()
        observations(g) if every else observations(g, g.to_act)
    g.step(g.random_actions(), checked=False)
    g.reset(g.terminal)
    return deciding


def env_steps(batch: int, opponents: str = "random", warm: int = 300) -> Callable[[], int]:
    """One MeutererVectorEnv.step per call: the decisions of every seat it took (counted
    where every move of its batch is applied)."""
    env = MeutererVectorEnv(num_envs=batch, players=4, opponents=opponents)
    env.reset(seed=1)
    game = env.game
    counted = [0]
    plain_apply = game._apply

    def counting_apply(idx: IntArray, actions: IntArray, *rest: Any) -> None:
        counted[0] += int((~game.chance[idx]).sum())
        plain_apply(idx, actions, *rest)

    game._apply = counting_apply  # type: ignore[method-assign,assignment]
    for _ in range(warm):  # past the first deals, and the sale and discard tables filled (a start-up cost)
        env.step(env.random_actions())

    def one() -> int:
        counted[0] = 0
        env.step(env.random_actions())
        return counted[0]

    return one


def pgx_steps(batch: int) -> Callable[[], int]:
    """One Pgx-style step per call (a new batch once every game is over): its decisions."""
    state = init(batch, 4, seed=3)
    seed = [4]

    def one() -> int:
        nonlocal state
        if state.terminated.all():
            state = init(batch, 4, seed=seed[0])
            seed[0] += 1
        deciding = int((~state.game.chance & ~state.game.terminal).sum())
        state = step(state, state.game.random_actions())
        return deciding

    return one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=65_536, help="random playouts per player count")
    parser.add_argument("--batch", type=int, default=16_384, help="games in lockstep")
    parser.add_argument("--players", type=int, nargs="*", default=[4, 3])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds of each decisions/s loop")
    parser.add_argument("--repeats", type=int, default=1, help="runs of the loops, alternating; medians printed")
    parser.add_argument("--greedy", action="store_true", help="only the env with greedy opponents")
    parser.add_argument("--policy", action="store_true", help="only the env with the learned policy's opponents")
    parser.add_argument("--greedy-batch", type=int, default=4096, help="their games in lockstep (default 4096)")
    args = parser.parse_args()
    path = find_yardstick()
    ref_sim = load_yardstick(path) if path is not None else None
    print(f"yardstick: {path}")
    if args.greedy or args.policy:
        against(ref_sim, "greedy" if args.greedy else "policy", args.greedy_batch, args.seconds, args.repeats)
        return
    for n in args.players:
        random_playouts(args.batch, n, batch=args.batch, seed=0)  # warm the declaration caches
        seconds = _cpu(partial(random_playouts, args.games, n, batch=args.batch, seed=1))
        rate = args.games / seconds
        steady = _steady(n, args.batch, args.games)
        line = (
            f"{n} players: vector random playouts, B={args.batch}: {rate:,.0f} games/s "
            f"({args.games:,} games, the last batch's tail included), {steady:,.0f} games/s at steady state"
        )
        if ref_sim is not None:
            rng = random.Random(n)
            count = max(200, args.games // 4)
            yard = count / _cpu(partial(_yardstick, ref_sim, rng, n, count))
            line += f"; yardstick {yard:,.0f} games/s; ratios {rate / yard:.2f}x, {steady / yard:.2f}x"
        print(line)
    # Decisions per second at B = 4096 (every seat's decisions counted, chance steps not),
    # the engine alone (a random legal choice and the step), then as an env's hot loop
    # (also the full legal mask and the acting seat's observation, or every seat's), then
    # the environments: MeutererVectorEnv.step (the learner's action, random opponents and
    # chance inside, encoded observations, auto-reset) and the Pgx-style step.
    random_playouts(16_384, 4, batch=4096, seed=0)  # the declaration tables warm
    g = VectorGame(4096, 4, seed=2)
    for _ in range(600):  # past the deal
        g.step(g.random_actions(), checked=False)
        g.reset(g.terminal)
    loops: list[tuple[str, Callable[[], int]]] = [
        ("random choice + step", partial(_tick, g, None)),
        ("mask + acting seat's observation + random choice + step", partial(_tick, g, False)),
        ("mask + every seat's observation + random choice + step", partial(_tick, g, True)),
        ("MeutererVectorEnv.step: random opponents, encoded observations, auto-reset", env_steps(4096)),
        ("Pgx-style step: every seat's observation, mask, rewards", pgx_steps(4096)),
    ]
    rates: list[list[float]] = [[] for _ in loops]
    for _ in range(args.repeats):  # the loops alternate: each gets its share of the machine's load
        for (_, tick), found in zip(loops, rates, strict=True):
            decisions = 0
            start = time.process_time()
            while time.process_time() - start < args.seconds:
                decisions += tick()
            found.append(decisions / (time.process_time() - start))
    for (label, _), found in zip(loops, rates, strict=True):
        # Each loop next to the engine alone timed right before it: a figure that moves less
        # with the machine's load than either rate.
        share = [rate / alone for rate, alone in zip(found, rates[0], strict=True)]
        spread = f" (median of {len(found)}: {min(found):,.0f} to {max(found):,.0f})" if len(found) > 1 else ""
        versus = f", {statistics.median(share):.2f}x the engine alone" if found is not rates[0] else ""
        print(f"4 players, B=4096: {statistics.median(found):,.0f} decisions/s{spread} (all seats; {label}{versus})")
    print(f"memory: {g.nbytes() / g.batch:,.0f} bytes of state per game (+ {g.ids.num_actions} bytes of mask)")
    big = VectorGame(65_536, 4, seed=3)
    print(f"B=65,536: {big.nbytes() / 2**20:,.0f} MiB of state, {big.legal_mask().nbytes / 2**20:,.0f} MiB of mask")


def _yardstick_decisions(ref_sim: ModuleType, seconds: float) -> float:
    """The yardstick's decisions per CPU second (4 players, random games)."""
    rng = random.Random(4)
    decisions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        decisions += ref_sim.play_game(rng, 4)[1]
    return decisions / (time.process_time() - start)


def against(ref_sim: ModuleType | None, opponents: str, batch: int, seconds: float, repeats: int) -> None:
    """``MeutererVectorEnv.step`` with ``opponents`` (``"greedy"`` or ``"policy"``; the learner
    random), every seat's decisions per CPU second, each run followed by the yardstick's for
    the ratio."""
    random_playouts(16_384, 4, batch=4096, seed=0)  # the declaration tables warm
    tick = env_steps(batch, opponents, warm=20)
    rates: list[float] = []
    ratios: list[float] = []
    for _ in range(repeats):
        decisions = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            decisions += tick()
        rates.append(decisions / (time.process_time() - start))
        if ref_sim is not None:
            ratios.append(rates[-1] / _yardstick_decisions(ref_sim, seconds))
    spread = f" (median of {len(rates)}: {min(rates):,.0f} to {max(rates):,.0f})" if len(rates) > 1 else ""
    line = f"4 players, B={batch}: {statistics.median(rates):,.0f} decisions/s{spread} (all seats; "
    line += f"MeutererVectorEnv.step: {opponents} opponents, a random learner, encoded observations, auto-reset)"
    if ratios:
        line += f"; {statistics.median(ratios):.2f}x the yardstick's decisions/s (CPU time)"
    print(line)


if __name__ == "__main__":
    main()
