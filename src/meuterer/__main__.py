"""The ``meuterer`` command line.

``meuterer random-game [--seed S] [--players 3|4] [--first-captain K]`` plays a seeded
game between random players and prints it round by round with the final scores.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from meuterer import __version__
from meuterer.engine import random_game
from meuterer.narrate import narrate


def _random_game(args: argparse.Namespace) -> int:
    actions, _ = random_game(seed=args.seed, players=args.players, first_captain=args.first_captain)
    print(f"A game of Meuterer between {args.players} random players (seed {args.seed}), {len(actions)} actions")
    for line in narrate(actions, players=args.players, first_captain=args.first_captain):
        print(line)
    if args.actions:
        print("Actions:")
        for action in actions:
            print(f"  {action}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``meuterer`` command."""
    parser = argparse.ArgumentParser(prog="meuterer", description="The Meuterer rules library.")
    parser.add_argument("--version", action="version", version=f"meuterer {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    game = commands.add_parser("random-game", help="play a seeded game between random players and print it")
    game.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    game.add_argument("--players", type=int, choices=(3, 4), default=4, help="3 or 4 players (default 4)")
    game.add_argument("--first-captain", type=int, default=0, help="seat of the first captain (default 0)")
    game.add_argument("--actions", action="store_true", help="also print every action in canonical notation")
    game.set_defaults(run=_random_game)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
