"""The vector engine against the reference, step by step, over many games.

Plays ``--games`` random games for each rule set of ``meuterer.vector.align.RULE_SETS`` (every
value of every rule option) and each player count, on the vector engine and on the
reference in lockstep, and checks at every step the legal mask, the chance outcomes and
probabilities, the scores and utilities, the terminal flags, the states and the
observation of the seat to act (every seat's in ``--every-seat`` further games per set). The
first disagreement stops it with the game, step and values; otherwise it prints the totals.

    PYTHONPATH=src python scripts/vector_align.py [--games 720] [--every-seat 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

from meuterer.vector.align import RULE_SETS, align


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=720, help="games per rule set and player count")
    parser.add_argument("--every-seat", type=int, default=20, help="more games comparing every seat's observation")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    totals = [0, 0, 0, 0, 0]
    start = time.perf_counter()
    for number, rules in enumerate(RULE_SETS):
        for players in (3, 4):
            for games, every_seat in ((args.games, False), (args.every_seat, True)):
                if not games:
                    continue
                seed = args.seed + 1000 * number + 10 * players + every_seat
                found = align(games, players, rules, seed=seed, every_seat=every_seat)
                for k, value in enumerate(
                    (found.games, found.steps, found.decisions, found.chance, found.observations)
                ):
                    totals[k] += value
            print(f"rule set {number}, {players} players: equal ({time.perf_counter() - start:.0f} s)", flush=True)
    games, steps, decisions, chance, observations = totals
    print(
        f"{games:,} games equal to the reference at every one of {steps:,} steps ({decisions:,} decisions, "
        f"{chance:,} chance outcomes), {observations:,} observation vectors, "
        f"{len(RULE_SETS)} rule sets x 3 and 4 players, in {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
