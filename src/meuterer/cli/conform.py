"""``meuterer conform`` (check an engine over the protocol) and ``meuterer engine`` (the
reference over the protocol)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from meuterer._install import install_hint
from meuterer.conform.client import EngineFailure
from meuterer.conform.engine import serve

if TYPE_CHECKING:
    from meuterer.conform.driver import Options

EXIT_USAGE = 2
"""The exit status for bad arguments or an engine that cannot be started (as the driver's)."""


def register(commands: Any) -> None:
    """Add the ``conform`` and ``engine`` commands to the ``meuterer`` parser."""
    conform = commands.add_parser(
        "conform",
        help="check an engine in any language against the reference, over the engine protocol",
        description="Start COMMAND ARGS... as an engine speaking the protocol of docs/protocol.md, run the "
        "conformance suite on it (games step by step, refused actions, clone), then differential games drawn "
        "by hypothesis. Exit status: 0 all passed, 1 a failure, 2 usage or an engine that cannot start, "
        "3 an --expect-fail entry passed.",
        usage="meuterer conform [options] -- COMMAND [ARGS...]",
    )
    conform.add_argument("--json", action="store_true", help="print the report as JSON (for CI)")
    conform.add_argument(
        "--timeout",
        type=float,
        default=2.0,
        help="seconds allowed per reply (default 2); an engine still using CPU time then gets up to 10 times as long",
    )
    conform.add_argument("--games", type=int, default=100, help="differential games to draw (default 100; 0: none)")
    conform.add_argument("--seed", type=int, default=None, help="seed of the drawn games (default: derandomized)")
    conform.add_argument(
        "--expect-fail", type=Path, default=None, metavar="FILE", help="ids of known failures, one per line"
    )
    conform.add_argument(
        "--out", type=Path, default=Path("conform-out"), help="where counterexamples go (default conform-out/)"
    )
    conform.add_argument("--limit", type=int, default=None, help="run only the first N games and refused actions")
    conform.add_argument(
        "--only", action="append", default=[], metavar="ID", help="run only this game or refused action (repeatable)"
    )
    conform.add_argument(
        "--fixtures", type=Path, action="append", default=[], metavar="FILE", help="also run these fixture files"
    )
    conform.add_argument(
        "--shrink-seconds", type=float, default=60.0, help="time bound for shrinking a counterexample (default 60)"
    )
    conform.add_argument("--no-progress", action="store_true", help="no progress bar")
    conform.add_argument("command", nargs=argparse.REMAINDER, help="the engine's command line, after --")
    conform.set_defaults(run=_conform)
    engine = commands.add_parser(
        "engine",
        help="run the reference engine over stdin/stdout (the engine protocol)",
        description="Answer the engine protocol of docs/protocol.md on stdin/stdout with this library: "
        "`meuterer conform -- meuterer engine` checks the reference against its own suite.",
    )
    engine.set_defaults(run=_engine)


def _engine(args: argparse.Namespace) -> int:
    return serve(sys.stdin.buffer, sys.stdout.buffer)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _conform(args: argparse.Namespace) -> int:
    try:  # the driver draws games with hypothesis: the conform extra
        from meuterer.conform.driver import Options, read_expect_fail
    except ImportError as error:  # pragma: no cover - the extra is installed where tests run
        need = f"meuterer conform needs hypothesis ({install_hint('conform')})"
        print(f"{need} ({error})", file=sys.stderr)
        return EXIT_USAGE
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print(
            "meuterer conform: give the engine's command after --, e.g. meuterer conform -- node engine.js",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.timeout <= 0 or args.games < 0:
        print("meuterer conform: --timeout must be above 0 and --games 0 or more", file=sys.stderr)
        return EXIT_USAGE
    try:
        expect_fail = read_expect_fail(args.expect_fail) if args.expect_fail else set()
    except OSError as error:
        print(f"meuterer conform: cannot read --expect-fail: {error}", file=sys.stderr)
        return EXIT_USAGE
    options = Options(
        command=command,
        timeout=args.timeout,
        games=args.games,
        seed=args.seed,
        expect_fail=expect_fail,
        out=args.out,
        limit=args.limit,
        only=set(args.only),
        fixtures=list(args.fixtures),
        shrink_seconds=args.shrink_seconds,
    )
    show = not args.no_progress and sys.stderr.isatty()
    # The engine runs in a process group of its own (a terminal's Ctrl-C does not reach it):
    # a driver told to stop unwinds, and the run's `finally` ends that group.
    before = {signum: signal.signal(signum, _stop) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return _report(args, options, command, show)
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _report(args: argparse.Namespace, options: Options, command: list[str], show: bool) -> int:
    from meuterer.conform.driver import run, summary

    try:
        if show:
            from rich.progress import Progress

            with Progress(transient=True) as bar:

                def progress(label: str, total: int) -> Any:
                    task = bar.add_task(label, total=total)
                    return lambda: bar.advance(task)

                report = run(options, progress)
        else:
            report = run(options)
    except EngineFailure as failure:
        message = f"meuterer conform: the engine could not be used ({failure.kind}): {failure.message}"
        if args.json:
            print(json.dumps({"exit_code": EXIT_USAGE, "error": message, "stderr": failure.stderr[-4000:]}))
        else:
            print(message, file=sys.stderr)
            if failure.stderr.strip():
                print("engine stderr (end):\n" + failure.stderr[-4000:], file=sys.stderr)
        return EXIT_USAGE
    except (OSError, ValueError) as error:
        print(f"meuterer conform: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(report.as_json(), indent=1))
    else:
        print(summary(report, command))
    return report.exit_code
