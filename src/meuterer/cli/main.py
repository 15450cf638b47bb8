"""The ``meuterer`` command line.

- ``meuterer random-game [--seed S] [--players 3|4] [--first-captain K]`` plays a seeded
  game between random players and prints it round by round with the final scores.
- ``meuterer verify FILE...`` verifies game records (exit 0 when all are valid, 1 otherwise).
- ``meuterer replay FILE [--step K]`` prints a recorded game with the table after each phase.
- ``meuterer diagram`` prints the round's state machine as a Mermaid diagram.
- ``meuterer play`` plays a game in the terminal against bots.
- ``meuterer simulate -n N`` runs a tournament between bots and summarises it.
- ``meuterer bench [--games N]`` prints speed figures.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from meuterer._version import __version__
from meuterer.cli.play import register as register_play
from meuterer.cli.simulate import register as register_simulate
from meuterer.engine import random_game
from meuterer.errors import MeutererError
from meuterer.narrate import narrate, replay_lines
from meuterer.record import read_record, verify


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


def _verify(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        report = verify(Path(name))
        print(f"{name}: {report}")
        status = status or (0 if report.ok else 1)
    return status


def _replay(args: argparse.Namespace) -> int:
    try:
        record = read_record(Path(args.file))
        lines = replay_lines(
            record.actions, len(record.players), record.first_captain, record.rules, record.players, args.step
        )
    except MeutererError as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _diagram(args: argparse.Namespace) -> int:
    from meuterer.diagram import mermaid  # imports transitions' diagram extension

    print(mermaid(), end="")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from meuterer.bench import report

    for line in report(args.games):
        print(line, flush=True)
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
    check = commands.add_parser("verify", help="verify game records; exit 1 if any is invalid")
    check.add_argument("files", nargs="+", metavar="FILE", help="record files (JSON)")
    check.set_defaults(run=_verify)
    replay = commands.add_parser("replay", help="print a recorded game with the table after each phase")
    replay.add_argument("file", metavar="FILE", help="a record file (JSON)")
    replay.add_argument("--step", type=int, default=None, metavar="K", help="stop after the first K actions")
    replay.set_defaults(run=_replay)
    diagram = commands.add_parser("diagram", help="print the round's state machine as a Mermaid diagram")
    diagram.set_defaults(run=_diagram)
    register_play(commands)
    register_simulate(commands)
    bench = commands.add_parser("bench", help="measure the engine's and the services' speed on one core")
    bench.add_argument("--games", type=int, default=200, help="random games per player count (default 200)")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
