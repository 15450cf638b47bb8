"""``meuterer simulate --vector``: games on the vector engine (``meuterer[vector]``).

Thousands of games in lockstep between the players that play over a batch: random
(:func:`meuterer.vector.random_playouts`), greedy and the learned policy
(:func:`meuterer.vector.playouts.agent_playouts`, the same moves as their agents); the
summary gives, per agent (when there are several) and per seat, the win share (ties
shared) with its 95% Wilson interval and the mean and spread of the scores, then the
speed. Only what the summary needs is kept (no per-game results, records or resuming).

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
from typing import Any

from rich.console import Console
from rich.table import Table

from meuterer._install import install_hint
from meuterer.errors import MeutererError
from meuterer.rules import Rules
from meuterer.tournament import lineup, wilson

BATCH = 4096
"""Games in lockstep (at most)."""


def run_vector(args: argparse.Namespace) -> int:
    """Run ``simulate --vector``; returns the exit status."""
    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=120)
    err = Console(stderr=True, highlight=False)
    specs = [name.strip() for name in str(args.agents).split(",") if name.strip()]
    refused = [
        (
            not specs or len(specs) > args.players or not set(specs) <= {"random", "greedy", "policy"},
            f"--vector plays random, greedy and policy players, at most one a seat (--agents), got {args.agents}",
        ),
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
        from meuterer.vector.playouts import agent_playouts
    except ImportError:  # pragma: no cover - without numpy
        err.print(f"meuterer simulate: error: --vector needs numpy ({install_hint('vector')})", markup=False)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rules = Rules(pirates=True) if args.pirates else None
    batch = min(BATCH, args.games)
    seated = [str(spec) for spec in lineup(specs, args.players)]
    start = time.perf_counter()
    try:
        if set(seated) == {"random"}:
            played = random_playouts(args.games, args.players, rules, batch=batch, seed=seed)
            who = "random"
        else:
            rotate = not args.fixed_seats
            played = agent_playouts(args.games, seated, args.players, rules, rotate=rotate, batch=batch, seed=seed)
            who = f"{', '.join(seated)} ({'seats rotate' if rotate else 'fixed seats'})"
    except MeutererError as error:
        err.print(f"meuterer simulate: error: {error}")
        return 2
    seconds = time.perf_counter() - start
    out.print(f"{args.games} games, {args.players} players: {who} (vector engine, {batch} in lockstep); seed {seed}")
    if played.seating is not None:
        out.print(_agents_table(played, seated))
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


def _agents_table(played: Any, seated: list[str]) -> Table:
    """Per agent: its seats' games, wins (ties shared) with the 95% interval, mean score and
    its spread (``played``: what :func:`~meuterer.vector.playouts.agent_playouts` returned)."""
    import numpy as np

    table = Table(title="Per agent (wins: ties shared)", title_justify="left")
    for name in ("agent", "games", "wins", "95% interval", "score", "sd"):
        table.add_column(name, justify="left" if name == "agent" else "right")
    names = np.array(seated)[played.seating]  # (games, seats): the agent in each seat
    for label in dict.fromkeys(seated):
        mine = names == label
        n = int(mine.sum())
        wins = float(played.wins[mine].sum())
        low, high = wilson(wins, n)
        scores = played.scores[mine]
        table.add_row(
            label,
            str(n),
            f"{100 * wins / n:.1f}%",
            f"{100 * low:.1f}-{100 * high:.1f}%",
            f"{scores.mean():.1f}",
            f"{scores.std(ddof=1) if n > 1 else 0.0:.1f}",
        )
    return table
