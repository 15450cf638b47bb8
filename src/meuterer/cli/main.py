"""The ``meuterer`` command line (also ``python -m meuterer``).

- ``meuterer random-game [--seed S] [--players 3|4] [--first-captain K]`` plays a seeded
  game between random players and prints it round by round with the final scores.
- ``meuterer verify FILE...`` verifies game records (exit 0 when all are valid, 1 otherwise).
- ``meuterer replay FILE [--step K]`` prints a recorded game with the table after each phase.
- ``meuterer diagram`` prints the round's state machine as a Mermaid diagram.
- ``meuterer play`` plays a game in the terminal against bots.
- ``meuterer simulate -n N`` runs a tournament between bots and summarises it.
- ``meuterer rate --agents A,B,...`` rates bots in a league (seats rotated, duplicate deals).
- ``meuterer bench [--games N]`` prints speed figures.
- ``meuterer serve [--db URL] [--host H] [--port P]`` runs the online game server.

No command prints a traceback when its output is closed early (``meuterer random-game |
head``) or when it is interrupted with Ctrl-C: it stops with status 141 (a closed pipe,
as a shell reports SIGPIPE) or 130 (Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from meuterer._version import __version__
from meuterer.cli.conform import register as register_conform
from meuterer.cli.play import register as register_play
from meuterer.cli.rate import register as register_rate
from meuterer.cli.simulate import register as register_simulate
from meuterer.engine import random_game
from meuterer.errors import MeutererError
from meuterer.narrate import narrate, replay_lines
from meuterer.record import display, verify
from meuterer.redact import RedactedRecord, replay_views
from meuterer.server.command import register as register_serve
from meuterer.viewer import read_any_record


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
    """``meuterer replay FILE [--step K] [--html OUT [--seat P]]``; everything replay does is here."""
    if args.html is not None:
        from meuterer.viewer import write_html  # the page embeds the SVG boards

        try:
            path = write_html(Path(args.file), args.html, perspective=args.seat)
        except MeutererError as error:
            print(f"{args.file}: {error}", file=sys.stderr)
            return 1
        print(f"wrote {path}")
        return 0
    if args.seat is not None:
        print("--seat needs --html (the text replay shows the whole table)", file=sys.stderr)
        return 2
    try:
        record = read_any_record(Path(args.file))
        if isinstance(record, RedactedRecord):
            lines = _redacted_lines(record, args.step)
        else:
            lines = replay_lines(
                record.actions, len(record.players), record.first_captain, record.rules, record.players, args.step
            )
    except MeutererError as error:
        notes = "".join(f" ({note})" for note in getattr(error, "__notes__", ()))
        print(f"{args.file}: {error}{notes}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _redacted_lines(record: RedactedRecord, stop: int | None) -> list[str]:
    """The text replay of a redacted record: whose side it shows, then each action as he saw it."""
    replay_views(record)  # refuses a record no game fits
    seat = "a spectator" if record.viewer is None else f"p{record.viewer} ({display(record.players[record.viewer])})"
    lines = [f"a redacted record: the game as {seat} saw it (others' draws and roles are '?')"]
    shown = record.actions if stop is None else record.actions[:stop]
    lines.extend(f"[{index + 1}] {seen}" for index, seen in enumerate(shown))
    return lines


def _diagram(args: argparse.Namespace) -> int:
    from meuterer.diagram import mermaid  # imports transitions' diagram extension

    print(mermaid(), end="")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from meuterer.bench import report

    for line in report(args.games):
        print(line, flush=True)
    return 0


def _steps(text: str) -> int:
    """A ``--step`` value: a number of actions, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of actions: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a number of actions is 0 or more, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``meuterer`` command."""
    parser = argparse.ArgumentParser(prog="meuterer", description="The Meuterer rules library.")
    parser.add_argument("--version", action="version", version=f"meuterer {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    game = commands.add_parser(
        "random-game",
        help="play a seeded game between random players and print it",
        description="Play a seeded game between random players and print it round by round, with the final "
        "scores; the same seed always gives the same game.",
    )
    game.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    game.add_argument("--players", type=int, choices=(3, 4), default=4, help="3 or 4 players (default 4)")
    game.add_argument("--first-captain", type=int, default=0, help="seat of the first captain (default 0)")
    game.add_argument("--actions", action="store_true", help="also print every action in canonical notation")
    game.set_defaults(run=_random_game)
    check = commands.add_parser(
        "verify",
        help="verify game records; exit 1 if any is invalid",
        description="Verify game records: replay every action under the recorded rules and check the digests "
        "and the result. Prints one verdict per file; exits with 0 if all are valid, 1 otherwise.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="record files (JSON)")
    check.set_defaults(run=_verify)
    replay = commands.add_parser(
        "replay",
        help="print a recorded game with the table after each phase",
        description="Print a recorded game: every action in canonical notation, the whole table after each "
        "phase, and the scores. --step K stops after the first K actions. --html OUT writes instead one "
        "self-contained HTML page stepping through the game (records and redacted records; --seat P shows a "
        "full record as seat P saw it).",
    )
    replay.add_argument("file", metavar="FILE", help="a record file (JSON)")
    replay.add_argument(
        "--step", type=_steps, default=None, metavar="K", help="stop after the first K actions (K >= 0)"
    )
    replay.add_argument("--html", metavar="OUT", default=None, help="write a self-contained HTML replay page to OUT")
    replay.add_argument(
        "--seat", type=int, default=None, metavar="P", help="with --html: show the game as seat P saw it"
    )
    replay.set_defaults(run=_replay)
    diagram = commands.add_parser(
        "diagram",
        help="print the round's state machine as a Mermaid diagram",
        description="Print the round's finite-state machine (phases, sub-steps and the actions between them) "
        "as a Mermaid state diagram.",
    )
    diagram.set_defaults(run=_diagram)
    register_play(commands)
    register_simulate(commands)
    register_rate(commands)
    register_serve(commands)
    register_conform(commands)
    bench = commands.add_parser(
        "bench",
        help="measure the engine's and the services' speed on one core",
        description="Measure, on one core, the engine's speed (games and steps per second with random players) "
        "and the services' (views, verification).",
    )
    bench.add_argument(
        "--games", type=_positive, default=200, help="random games per player count, at least 1 (default 200)"
    )
    bench.set_defaults(run=_bench)
    return parser


def _positive(text: str) -> int:
    """An argument that is a whole number of at least 1 (argparse reports anything else)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1, got {value}")
    return value


def _quiet_stdout() -> None:
    """Send what is left to print to nowhere (the reader of the pipe is gone)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - a stdout without a file descriptor
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (141 when the output was closed early,
    130 on Ctrl-C, without a traceback)."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return 141
    except KeyboardInterrupt:
        print("\nmeuterer: interrupted", file=sys.stderr)
        return 130
    except MeutererError as error:  # a bad argument the parser could not check (such as a seat)
        print(f"meuterer {args.command}: error: {error}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
