"""``meuterer simulate --vector``: random players on the vector engine (``meuterer[vector]``).

Thousands of games in lockstep (:func:`meuterer.vector.random_playouts`); the summary gives,
per seat, the win share (ties shared) with its 95% Wilson interval and the mean and spread
of the scores, then the speed. Only random players are played this way, and only what the
summary needs is kept (no per-game results, records or resuming).

>>> import argparse
>>> from meuterer.cli.simulate import register
>>> parser = argparse.ArgumentParser(prog="meuterer")
>>> _ = register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["simulate", "-n", "40", "--vector", "--seed", "1", "--players", "3"])
>>> args.run(args)  # doctest: +ELLIPSIS
40 games, 3 players: random (vector engine, 40 in lockstep); seed 1
...
0
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.table import Table

from meuterer._install import install_hint
from meuterer.rules import Rules
from meuterer.tournament import wilson

BATCH = 4096
"""Games in lockstep (at most)."""


def run_vector(args: argparse.Namespace) -> int:
    """Run ``simulate --vector``; returns the exit status."""
    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=120)
    err = Console(stderr=True, highlight=False)
    specs = {name.strip() for name in str(args.agents).split(",") if name.strip()}
    refused = [
        (specs != {"random"}, "--vector plays random players only (--agents random)"),
        (bool(args.out or args.records or args.resume), "--vector keeps no per-game results (--out, --records)"),
        (args.backend != "local" or args.jobs != 1, "--vector runs in this process (no --jobs, --backend)"),
        (args.games < 1, "-n must be at least 1"),
    ]
    for wrong, message in refused:
        if wrong:
            err.print(f"meuterer simulate: error: {message}")
            return 2
    try:
        from meuterer.vector import random_playouts
    except ImportError:  # pragma: no cover - without numpy
        err.print(f"meuterer simulate: error: --vector needs numpy ({install_hint('vector')})", markup=False)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rules = Rules(pirates=True) if args.pirates else None
    batch = min(BATCH, args.games)
    start = time.perf_counter()
    played = random_playouts(args.games, args.players, rules, batch=batch, seed=seed)
    seconds = time.perf_counter() - start
    out.print(f"{args.games} games, {args.players} players: random (vector engine, {batch} in lockstep); seed {seed}")
    table = Table(title="Per seat (p0 is the first captain; wins: ties shared)", title_justify="left")
    for name in ("seat", "games", "wins", "95% interval", "score", "sd"):
        table.add_column(name, justify="left" if name == "seat" else "right")
    n = len(played.scores)
    for seat in range(args.players):
        wins = float(played.wins[:, seat].sum())
        low, high = wilson(wins, n)
        scores = played.scores[:, seat]
        table.add_row(
            f"p{seat}",
            str(n),
            f"{100 * wins / n:.1f}%",
            f"{100 * low:.1f}-{100 * high:.1f}%",
            f"{scores.mean():.1f}",
            f"{scores.std(ddof=1) if n > 1 else 0.0:.1f}",
        )
    out.print(table)
    out.print(
        f"Game length: {played.decisions / n:.1f} decisions\n"
        f"Time: {seconds:.1f} s in one process, {n / seconds:,.0f} games/s"
    )
    return 0
