"""Every speed figure next to the yardstick, as a ratio, for 3 and 4 players.

The yardstick is ``../shared/bench/ref_sim.py`` (a hand-tuned mutable playout simulator,
imported by path; ``--yardstick PATH`` or ``$MEUTERER_YARDSTICK`` point elsewhere). Each
figure is measured in CPU time right before a run of the yardstick in the same process:
games/s as a ratio to the yardstick's games/s, times (ISMCTS per move, ``verify`` per
record) as the number of yardstick games that fit in them. ``meuterer bench`` prints the
same table.

    python benchmarks/bench_yardstick.py [--games N] [--warm-up N] [--yardstick PATH]
"""

from __future__ import annotations

import argparse

from meuterer import random_game
from meuterer.bench import yardstick_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="reference games per player count (default 200)")
    parser.add_argument("--warm-up", type=int, default=2000, help="games first, to fill the memos (default 2000)")
    parser.add_argument("--yardstick", help="path of ref_sim.py")
    args = parser.parse_args()
    for seed in range(args.warm_up):
        random_game(10**6 + seed, 3 + seed % 2)
    for line in yardstick_table(args.games, yardstick=args.yardstick):
        print(line, flush=True)


if __name__ == "__main__":
    main()
