"""``meuterer simulate``: many games between bots, with a progress bar and a summary table.

``meuterer simulate -n N [--players 3|4] [--agents random,greedy,...] [--seed S] [--jobs J]
[--out FILE [--resume]] [--records DIR] [--backend local|ray] [--vector]`` plays ``N`` games with
:func:`meuterer.tournament.run_tournament` and prints, per agent and per seat, the win
share with its 95% interval, the mean and spread of the scores and the mutinies led, then
the mutiny frequency and success rate, the game length and the speed. ``--out`` receives
the per-game results as the games finish, one whole line each (CSV for a ``.csv`` name,
JSON lines otherwise); they are the same for a given seed whatever ``--jobs`` or
``--backend``. Ctrl-C stops the run cleanly: the results of the games finished so far are
in ``--out`` and summarised. ``--resume`` (with ``--out`` and ``--seed``) plays only the
games whose results are not in ``--out`` yet, so an interrupted run resumed gives the
results of an uninterrupted one. Random players only are played on the vector engine,
thousands of games in lockstep (:mod:`meuterer.cli.simulate_vector`), when numpy is
installed and no option needs the game-by-game path (``--out``, ``--records``,
``--resume``, ``--jobs``, ``--backend ray``); ``--scalar`` asks for that path anyway,
``--vector`` refuses to fall back, and plays greedy and policy players there too.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="meuterer")
>>> _ = register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["simulate", "-n", "8", "--agents", "greedy,random", "--seed", "1", "--no-progress"])
>>> args.run(args)  # doctest: +ELLIPSIS
8 games, 4 players: greedy, random, random, random (seats rotate); seed 1
...
0
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from importlib.util import find_spec
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from meuterer._install import install_hint
from meuterer.errors import MeutererError
from meuterer.rules import Rules
from meuterer.tournament import (
    Backend,
    GameResult,
    Group,
    ResultsFile,
    Summary,
    Tournament,
    agent_label,
    lineup,
    run_tournament,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand to ``subparsers``; returns its parser."""
    parser = subparsers.add_parser(
        "simulate",
        help="play many games between bots and summarise them",
        description="Play N seeded games between bots and print win rates, scores and mutiny statistics.",
    )
    parser.add_argument("-n", "--games", type=int, default=100, metavar="N", help="games to play (default 100)")
    parser.add_argument("--players", type=int, choices=(3, 4), default=4, help="3 or 4 players (default 4)")
    parser.add_argument(
        "--agents",
        default="random",
        metavar="LIST",
        help="comma-separated agents, one per seat, the last repeated to fill the table: random, greedy, "
        "ismcts or ismcts:ITERATIONS[:ROLLOUT[:OPPONENTS]], policy (default random)",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the run (default: random, printed)")
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="processes (or Ray CPUs) to use; 0 for all cores (default 1)"
    )
    parser.add_argument(
        "--out", metavar="FILE", help="write per-game results as games finish: CSV for *.csv, else JSON lines"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the results already in --out and play only the missing games (needs --seed)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing --out file (without --resume)")
    parser.add_argument("--records", metavar="DIR", help="write every game's record into DIR (atomically)")
    parser.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="local processes or Ray (meuterer[ray])"
    )
    parser.add_argument("--ray-address", default=None, metavar="ADDR", help="a Ray cluster to join (default: local)")
    parser.add_argument("--pirates", action="store_true", help="play the pirate variant")
    parser.add_argument("--fixed-seats", action="store_true", help="do not rotate the agents between seats")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--vector",
        action="store_true",
        help="random, greedy and policy players: thousands of games in lockstep (meuterer[vector]); the default "
        "for random players when numpy is installed and no option needs the game-by-game path",
    )
    parser.add_argument(
        "--scalar", action="store_true", help="play the games one at a time even with random players only"
    )
    parser.set_defaults(run=run_simulate)
    return parser


def _on_the_vector_engine(args: argparse.Namespace) -> bool:
    """Whether the run goes to the vector engine: asked with ``--vector``, else by default
    for random players only with no option the vector path lacks, when numpy is there (if
    not, a one-line note says the games are played one at a time)."""
    if args.vector or args.scalar:
        return bool(args.vector)
    specs = {name.strip() for name in str(args.agents).split(",") if name.strip()}
    lacking = args.out or args.records or args.resume or args.jobs != 1 or args.backend != "local"
    if specs != {"random"} or lacking or args.games < 1:
        return False
    if find_spec("numpy") is None:
        note = f"note: numpy is not installed: the games are played one at a time ({install_hint('vector')})"
        Console(stderr=True, highlight=False).print(note, markup=False, soft_wrap=True)
        return False
    return True


def run_simulate(args: argparse.Namespace) -> int:
    """Run the ``simulate`` subcommand; returns the exit status (130 after Ctrl-C)."""
    if args.vector and args.scalar:
        Console(stderr=True, highlight=False).print("meuterer simulate: error: --vector or --scalar, not both")
        return 2
    if _on_the_vector_engine(args):  # random players on the vector engine (meuterer.cli.simulate_vector)
        from meuterer.cli.simulate_vector import run_vector

        return run_vector(args)
    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=120)
    err = Console(stderr=True, highlight=False)
    specs = [name.strip() for name in str(args.agents).split(",") if name.strip()]
    jobs = args.jobs if args.jobs > 0 else os.cpu_count() or 1
    backend: Backend = args.backend
    rules = Rules(pirates=True) if args.pirates else None
    if args.games < 1:
        err.print("meuterer simulate: error: -n must be at least 1")
        return 2
    if args.resume and (args.out is None or args.seed is None):
        err.print("meuterer simulate: error: --resume needs --out (the results so far) and --seed (the run's seed)")
        return 2
    progress = Progress(
        TextColumn("games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=args.no_progress,
    )
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    finished: list[GameResult] = []
    interrupted = False
    failed: OSError | None = None
    start = time.perf_counter()
    try:
        results = ResultsFile(args.out, resume=args.resume, overwrite=args.force) if args.out else None
    except OSError as error:
        err.print(f"meuterer simulate: error: cannot use --out {args.out}: {error.strerror or error}")
        return 2
    except MeutererError as error:
        err.print(f"meuterer simulate: error: cannot use --out {args.out}: {error}")
        return 2
    done = results.done if results is not None else []

    # Rows go out in game order as soon as every earlier game is in (after Ctrl-C, the rest too).
    known = {result.index for result in done}
    todo = iter([index for index in range(args.games) if index not in known])
    waiting: dict[int, GameResult] = {}
    wanted = [next(todo, None)]

    def keep(result: GameResult) -> None:
        finished.append(result)
        waiting[result.index] = result
        while wanted[0] is not None and wanted[0] in waiting:
            if results is not None:
                results.write(waiting.pop(wanted[0]))
            wanted[0] = next(todo, None)

    try:
        with progress:
            task = progress.add_task("games", total=args.games, completed=len(done))
            run = run_tournament(
                specs,
                args.games,
                players=args.players,
                seed=seed,
                jobs=jobs,
                rules=rules,
                records=args.records,
                backend=backend,
                rotate=not args.fixed_seats,
                progress=lambda count: progress.advance(task, count),
                ray_address=args.ray_address,
                done=done,
                on_result=keep,
            )
    except MeutererError as error:
        err.print(f"meuterer simulate: error: {error}")
        return 2
    except OSError as error:  # a full disk, a read-only directory: what is written is whole
        failed = error
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if results is not None:
            try:
                for index in sorted(waiting):
                    results.write(waiting[index])
                results.close()
            except OSError as error:
                failed = error
    if failed is not None:
        where = f" {failed.filename}" if failed.filename else ""
        err.print(f"meuterer simulate: error: cannot write{where}: {failed.strerror or failed}")
        if args.out:
            err.print(f"the results written so far are whole; finish the run with --seed {seed} --resume")
        return 1
    if interrupted:
        run = Tournament(
            specs=tuple(agent_label(spec) for spec in lineup(specs, args.players)),
            players=args.players,
            seed=seed,
            results=tuple(sorted([*done, *finished], key=lambda r: r.index)),
            seconds=time.perf_counter() - start,
            jobs=max(1, jobs),
            backend=backend,
        )
    seats = ", ".join(run.specs)
    rotation = "fixed seats" if args.fixed_seats else "seats rotate"
    games = len(run.results)
    if interrupted:
        out.print(f"Interrupted: {games} of {args.games} games finished.")
    elif done:
        out.print(f"Resumed: {len(done)} games were already in {args.out}.")
    out.print(f"{games} games, {run.players} players: {seats} ({rotation}); seed {run.seed}")
    if games:
        print_summary(out, run, run.summary(), played=len(finished))
    if args.out:
        out.print(f"per-game results: {args.out}")
        if interrupted:
            again = "--resume" if args.seed is not None else f"--seed {seed} --resume"
            out.print(f"To finish the run: the same command with {again}")
    if args.records:
        out.print(f"records: {Path(args.records) / 'game-NNNNNN.json'}")
    return 130 if interrupted else 0


def _group_row(group: Group) -> list[str]:
    won = f"{100 * group.mutinies_won.rate:.0f}%" if group.mutinies else "-"
    return [
        group.label,
        str(group.games),
        f"{100 * group.wins.rate:.1f}%",
        f"{100 * group.wins.low:.1f}-{100 * group.wins.high:.1f}%",
        f"{group.mean_score:.1f}",
        f"{group.sd_score:.1f}",
        str(group.mutinies),
        won,
        f"{group.ms_per_move:.2f}",
    ]


def _group_table(title: str, first: str, groups: tuple[Group, ...]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(first)
    for name in ("games", "wins", "95% interval", "score", "sd", "mutinies", "won", "ms/move"):
        table.add_column(name, justify="right")
    for group in groups:
        table.add_row(*_group_row(group))
    return table


def print_summary(console: Console, run: Tournament, summary: Summary, played: int | None = None) -> None:
    """Print the summary tables of ``run``; ``played``: how many of its games were played now
    (``None``: all)."""
    console.print(_group_table("Per agent (wins: ties shared)", "agent", summary.agents))
    console.print(_group_table("Per seat (p0 is the first captain)", "seat", summary.seats))
    if len(summary.agents) > 1:
        table = Table(title="Wins per agent and seat", title_justify="left")
        table.add_column("agent")
        for seat in range(summary.players):
            table.add_column(f"p{seat}", justify="right")
        for group in summary.agents:
            cells = {seat: rate for label, seat, rate in summary.agent_seats if label == group.label}
            table.add_row(
                group.label,
                *(
                    f"{100 * cells[seat].rate:.1f}% ±{50 * (cells[seat].high - cells[seat].low):.1f}"
                    if seat in cells
                    else "-"
                    for seat in range(summary.players)
                ),
            )
        console.print(table)
    timed = summary.games_timed
    per_game = summary.cpu_seconds / timed if timed else 0.0
    now = "" if timed == summary.games else f" ({timed} games played now)"
    if timed and played != 0:
        time_line = (
            f"Time{now}: {run.seconds:.1f} s with {run.jobs} {'process' if run.jobs == 1 else 'processes'} "
            f"({run.backend}), {summary.games_per_second:.1f} games/s; {1000 * per_game:.1f} ms of play per game"
        )
    else:  # a resumed run that was already complete: no speed to state
        time_line = "Time: no game played now (every result was already there)"
    console.print(
        f"Mutinies: {summary.mutinies} of {summary.rounds} rounds; successful: {summary.mutinies_won}\n"
        f"Game length: {summary.mean_actions:.1f} actions, {summary.mean_moves:.1f} decisions\n"
        f"{time_line}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run ``simulate`` alone (``python -m meuterer.cli.simulate -n 100``)."""
    parser = argparse.ArgumentParser(prog="meuterer")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["simulate", *(sys.argv[1:] if argv is None else argv)])
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
