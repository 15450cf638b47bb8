"""``meuterer rate``: a league of bots over rotated seats and duplicate deals, rated.

``meuterer rate --agents A,B,C,... [-n GAMES] [--players 3|4] [--seed S] [--jobs J]
[--backend local|ray] [--engine auto|reference|vector [--batch B]] [--out FILE [--resume]]
[--table FILE] [--plot FILE] [--baseline N]`` plays a league
(:func:`meuterer.tournament.rate.run_league`: every choice of ``players`` agents at a
table, each deal played in every rotation of the seats; on the batch engine when every
agent is one it plays, ``B`` games at a time) and prints per agent
the win share (ties shared) and the mean score margin with 95 % intervals over deals, the
win share in each seat and the OpenSkill rating; then each seat's win share in the league
and among random players (``--baseline`` games on the vector engine). ``--out`` receives the
per-game results as games finish (as ``meuterer simulate --out``: Ctrl-C keeps them, and
``--resume`` plays only the missing games); ``--table`` the per-agent table (CSV for
``*.csv``, else JSON with everything); ``--plot`` an image (PNG, SVG or PDF by its suffix).
Needs the extra ``meuterer[rate]`` (openskill, matplotlib).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="meuterer")
>>> _ = register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["rate", "--agents", "greedy,random", "-n", "3", "--players", "3"])
>>> args.games, args.agents, args.baseline, args.engine
(3, 'greedy,random', None, 'auto')
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import sys
import time
from importlib.util import find_spec

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from meuterer._install import install_hint
from meuterer.errors import MeutererError
from meuterer.rules import Rules
from meuterer.tournament import GameResult, ResultsFile, agent_label, write_text_atomic
from meuterer.tournament.rate import (
    ENGINES,
    Interval,
    League,
    Ratings,
    league_engine,
    league_games,
    league_tables,
    plot_ratings,
    rate_results,
    run_league,
    seat_baseline,
)
from meuterer.tournament.statistics import Rate

DEFAULT_BASELINE = 20_000
"""Games of random players for the per-seat baseline, when numpy is installed."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``rate`` subcommand to ``subparsers``; returns its parser."""
    parser = subparsers.add_parser(
        "rate",
        help="rate bots in a league over rotated seats and duplicate deals",
        description="Play a league of bots (every table in every rotation, the same deal in each rotation) "
        "and print win shares and score margins with 95%% intervals, per-seat baselines and OpenSkill ratings.",
    )
    parser.add_argument(
        "--agents",
        default="random,greedy,ismcts:10,ismcts",
        metavar="LIST",
        help="comma-separated agents, each once: random, greedy, ismcts[:ITERATIONS[:ROLLOUT[:OPPONENTS]]], "
        "policy, ... (default random,greedy,ismcts:10,ismcts)",
    )
    parser.add_argument(
        "-n", "--games", type=int, default=400, metavar="N", help="games, rounded up to whole rounds (default 400)"
    )
    parser.add_argument("--players", type=int, choices=(3, 4), default=4, help="3 or 4 players (default 4)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the league (default: random, printed)")
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="processes (or Ray CPUs) to use; 0 for all cores (default 1)"
    )
    parser.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="local processes or Ray (meuterer[ray])"
    )
    parser.add_argument("--ray-address", default=None, metavar="ADDR", help="a Ray cluster to join (default: local)")
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="the engine: the batch engine (vector) plays random, greedy and policy only; auto: it when "
        "every agent is one of those, else the reference (default auto)",
    )
    parser.add_argument(
        "--batch", type=int, default=1024, metavar="B", help="games in lockstep on the batch engine (default 1024)"
    )
    parser.add_argument(
        "--out", metavar="FILE", help="write per-game results as games finish: CSV for *.csv, else JSON lines"
    )
    parser.add_argument(
        "--resume", action="store_true", help="keep the results already in --out, play the rest (needs --seed)"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing --out file (without --resume)")
    parser.add_argument("--table", metavar="FILE", help="write the ratings: CSV for *.csv, else JSON")
    parser.add_argument("--plot", metavar="FILE", help="draw win shares and seat baselines (PNG, SVG, PDF)")
    parser.add_argument(
        "--baseline",
        type=int,
        default=None,
        metavar="N",
        help=f"games of random players for the seat baseline, on the vector engine; 0: none "
        f"(default {DEFAULT_BASELINE} when numpy is installed)",
    )
    parser.add_argument("--pirates", action="store_true", help="play the pirate variant")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_rate)
    return parser


def _interval(interval: Interval, percent: bool = True) -> str:
    scale, unit = (100, "%") if percent else (1, "")
    if interval.n < 2 and not percent:
        return f"{interval.mean:+.1f}"
    low, high = scale * interval.low, scale * interval.high
    if percent:
        return f"{scale * interval.mean:.1f}% [{low:.1f}, {high:.1f}]"
    return f"{interval.mean:+.1f} [{low:+.1f}, {high:+.1f}]{unit}"


def ratings_table(ratings: Ratings) -> Table:
    """The per-agent table, best rated first."""
    table = Table(title="Per agent, best rated first (wins: ties shared; [95% interval] over deals)")
    table.title_justify = "left"
    table.add_column("agent")
    for name in ("seats", "wins", "margin", *(f"p{s}" for s in range(ratings.players))):
        table.add_column(name, justify="right")
    for name in ("mu", "sigma", "mu-3sigma", "ms/move"):
        table.add_column(name, justify="right")
    for agent in ratings.agents:
        table.add_row(
            agent.label,
            str(agent.games),
            _interval(agent.wins),
            _interval(agent.margin, percent=False),
            *(f"{100 * seat.mean:.1f}%" for seat in agent.seats),
            f"{agent.mu:.1f}",
            f"{agent.sigma:.1f}",
            f"{agent.ordinal:.1f}",
            "-" if agent.ms_per_move is None else f"{agent.ms_per_move:.2f}",
        )
    return table


def seats_table(ratings: Ratings) -> Table:
    """Each seat's win share in the league and among random players."""
    table = Table(title="Per seat (p0 is the first captain; par 1/players)", title_justify="left")
    table.add_column("seat")
    table.add_column("this league", justify="right")
    if ratings.baseline:
        table.add_column(f"random players ({ratings.baseline[0].n} games)", justify="right")
    for seat, interval in enumerate(ratings.seats):
        row = [f"p{seat}", _interval(interval)]
        if ratings.baseline:
            row.append(str(ratings.baseline[seat]))
        table.add_row(*row)
    return table


def table_text(ratings: Ratings, fmt: str) -> str:
    """The ratings as CSV (one row per agent) or JSON (everything)."""
    if fmt == "json":
        return json.dumps(ratings.data(), indent=2) + "\n"
    rows = ratings.rows()
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["agent"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _cpu() -> float:
    """CPU seconds of this process and of its ended child processes (local workers)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def run_rate(args: argparse.Namespace) -> int:
    """Run the ``rate`` subcommand; returns the exit status (130 after Ctrl-C)."""
    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=160)
    err = Console(stderr=True, highlight=False)
    specs = [name.strip() for name in str(args.agents).split(",") if name.strip()]
    jobs = args.jobs if args.jobs > 0 else os.cpu_count() or 1
    rules = Rules(pirates=True) if args.pirates else None

    def fail(message: str) -> int:
        err.print(f"meuterer rate: error: {message}", markup=False, soft_wrap=True)
        return 2

    if args.games < 1:
        return fail("-n must be at least 1")
    if args.batch < 1:
        return fail("--batch must be at least 1")
    if args.resume and (args.out is None or args.seed is None):
        return fail("--resume needs --out (the results so far) and --seed (the league's seed)")
    if find_spec("openskill") is None:
        return fail(f"ratings need openskill ({install_hint('rate')})")
    if args.plot and find_spec("matplotlib") is None:
        return fail(f"--plot needs matplotlib ({install_hint('rate')})")
    baseline_games = args.baseline
    if baseline_games is None:
        baseline_games = DEFAULT_BASELINE if find_spec("numpy") is not None else 0
    try:
        tables = league_tables(specs, args.players)
        engine = league_engine(specs, args.engine)
    except MeutererError as error:
        return fail(str(error))
    games = league_games(args.games, args.players, len(tables))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    try:
        results = ResultsFile(args.out, resume=args.resume, overwrite=args.force) if args.out else None
    except (OSError, MeutererError) as error:
        return fail(f"cannot use --out {args.out}: {getattr(error, 'strerror', None) or error}")
    done = results.done if results is not None else []
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
    finished: list[GameResult] = []
    interrupted = False
    failed: OSError | None = None
    start, cpu = time.perf_counter(), _cpu()

    def keep(result: GameResult) -> None:  # written as each game finishes: Ctrl-C loses nothing
        finished.append(result)
        if results is not None:
            results.write(result)

    league: League | None = None
    try:
        with progress:
            task = progress.add_task("games", total=games, completed=min(len(done), games))
            league = run_league(
                specs,
                games,
                players=args.players,
                seed=seed,
                jobs=jobs,
                rules=rules,
                backend=args.backend,
                progress=lambda count: progress.advance(task, count),
                ray_address=args.ray_address,
                done=done,
                on_result=keep,
                engine=engine,
                batch=args.batch,
            )
    except MeutererError as error:
        return fail(str(error))
    except OSError as error:
        failed = error
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if results is not None:
            try:
                results.close()
            except OSError as error:
                failed = error
    if failed is not None:
        where = f" {failed.filename}" if failed.filename else ""
        err.print(
            f"meuterer rate: error: cannot write{where}: {failed.strerror or failed}", markup=False, soft_wrap=True
        )
        return 1
    seconds = time.perf_counter() - start
    everything = league.results if league is not None else tuple(sorted([*done, *finished], key=lambda r: r.index))
    baseline: tuple[Rate, ...] = ()
    if baseline_games > 0 and not interrupted:
        try:
            baseline = seat_baseline(baseline_games, args.players, rules, seed)
        except MeutererError as error:
            return fail(str(error))
    labels = [agent_label(spec) for spec in specs]
    ratings = rate_results(everything, args.players, labels, baseline, seconds)
    if interrupted:
        out.print(f"Interrupted: {len(everything)} of {games} games finished.")
    elif done:
        kept = sum(1 for result in done if result.index < games)
        out.print(f"Resumed: {kept} games of this league were already in {args.out}.")
    where = "" if len(tables) == 1 else f" at {len(tables)} tables"
    out.print(
        f"League of {len(specs)} agents{where}, {args.players} players: {ratings.games} games "
        f"({ratings.deals} deals x {args.players} rotations); seed {seed}"
    )
    if ratings.left_out:
        games_of = "1 game of a deal" if ratings.left_out == 1 else f"{ratings.left_out} games of deals"
        out.print(f"Left out: {games_of} not played in every rotation.")
    if ratings.games:
        out.print(ratings_table(ratings))
        out.print(seats_table(ratings))
    cpu_used = _cpu() - cpu
    on = f"batch engine, {args.batch} games in lockstep" if engine == "vector" else "reference engine"
    out.print(
        f"Time: {seconds:.1f} s with {jobs} {'process' if jobs == 1 else 'processes'} ({args.backend}, {on}); "
        f"{cpu_used:.1f} s CPU (this process and its workers), "
        f"{ratings.cpu_seconds:.1f} s of game time summed over the games (wall clock)"
    )
    if args.table:
        fmt = "csv" if args.table.lower().endswith(".csv") else "json"
        write_text_atomic(args.table, table_text(ratings, fmt))
        out.print(f"ratings: {args.table}")
    if args.plot and ratings.games:
        title = f"meuterer rate: {ratings.games} games, {args.players} players, seed {seed}"
        plot_ratings(ratings, args.plot, title)
        out.print(f"plot: {args.plot}")
    if args.out:
        out.print(f"per-game results: {args.out}")
        if interrupted:
            again = "--resume" if args.seed is not None else f"--seed {seed} --resume"
            out.print(f"To finish the league: the same command with {again}")
    return 130 if interrupted else 0


def main(argv: list[str] | None = None) -> int:
    """Run ``rate`` alone (``python -m meuterer.cli.rate --agents greedy,random``)."""
    parser = argparse.ArgumentParser(prog="meuterer")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["rate", *(sys.argv[1:] if argv is None else argv)])
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
