"""The environments' observation writer's time per call, against the declared layout's path.

Plays seeded random games on the reference engine and, at every step, calls each writer
on the live state in turn, timing each call, for the seat to act (what the Gymnasium and
PettingZoo envs ask for) or for every seat and the spectator. "layout" is the declared
path, ``observation_layout(...).vector(view(state, player))`` (a view built, then read);
"writer" is what the environments use, :class:`meuterer.fast.observation.Writer` packing
the entries straight into an array (``meuterer.envcore.observer``: reordered for the int64
vector, encoded from the packed order for the float32 observation). Prints microseconds
per call (medians of the repeats, less the timer's own cost, measured as a writer that
does nothing) and the ratios.

    PYTHONPATH=src python benchmarks/bench_observation.py [--games N] [--repeats N] [--players N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from statistics import median

import numpy as np

import meuterer
from meuterer.envcore import ScalarEncoder, observer
from meuterer.fast.observation import observation_vector
from meuterer.rules import Rules
from meuterer.state import State
from meuterer.views import observation_layout, view

Writer = Callable[[State, "int | None"], object]


def timed(writers: list[Writer], games: int, players: int, every: bool) -> list[float]:
    """Each writer's microseconds per call over ``games`` seeded random games (default
    rules), called on the live state at every step, for the seat to act or (``every``)
    every seat and the spectator: the writers in turn, the first turn rotating."""
    clock = time.perf_counter_ns
    totals = [0] * len(writers)
    turn = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = meuterer.new_game(players, seed % players, Rules())
        while not meuterer.is_terminal(state):
            for player in (None, *range(players)) if every else (state.to_act,):
                for k in range(len(writers)):
                    i = (k + turn) % len(writers)
                    start = clock()
                    writers[i](state, player)
                    totals[i] += clock() - start
                turn += 1
            if meuterer.is_chance_node(state):
                state = meuterer.apply(state, meuterer.sample_chance(state, rng))
            else:
                legal = meuterer.legal_actions(state)
                state = meuterer.apply(state, legal[rng.randrange(len(legal))])
    return [t / turn / 1000 for t in totals]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    rules = Rules()
    layout = observation_layout(args.players, rules)
    encode = ScalarEncoder.of(layout)
    packed, encoded = observer(layout, "vector", rules), observer(layout, "encoded", rules)

    def layout_list(state: State, player: int | None) -> object:
        return layout.vector(view(state, player))

    def layout_array(state: State, player: int | None) -> object:
        return np.array(layout.vector(view(state, player)), np.int64)

    def layout_encoded(state: State, player: int | None) -> object:
        return np.array(layout.encode(view(state, player)), np.float32)

    def writer_list(state: State, player: int | None) -> object:
        return observation_vector(state, player)

    def writer_list_encoded(state: State, player: int | None) -> object:
        return encode(encode.vector(observation_vector(state, player)))

    def nothing(state: State, player: int | None) -> object:
        return None

    rows: dict[str, tuple[list[Writer], bool]] = {
        "list, seat to act": ([layout_list, writer_list, nothing], False),
        "list, every seat and None": ([layout_list, writer_list, nothing], True),
        "int64 array, seat to act": ([layout_array, packed, nothing], False),
        "float32 encoding, seat to act": ([layout_encoded, encoded, nothing], False),
        "float32: writer's list encoded -> packed": ([writer_list_encoded, encoded, nothing], False),
    }
    print(
        f"{args.games} games of {args.players} players, {layout.size} entries; "
        f"microseconds per call, medians of {args.repeats} (the timer's own cost taken off)"
    )
    for name, (writers, every) in rows.items():
        runs = [timed(writers, args.games, args.players, every) for _ in range(args.repeats)]
        empty = median(run[2] for run in runs)
        before = median(run[0] for run in runs) - empty
        after = median(run[1] for run in runs) - empty
        print(f"{name:44s} layout {before:6.2f}  writer {after:6.2f}  x{before / after:4.2f}")


if __name__ == "__main__":
    main()
