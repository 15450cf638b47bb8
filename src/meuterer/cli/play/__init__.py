"""``meuterer play``: a human plays Meuterer in the terminal against bots.

The human sees only his own :class:`~meuterer.views.PlayerView`: the board, the
narration of the other players' moves and the help are all made from his views, and
an action of another player is redacted before it is described (``p2 draws a card``,
``p3 passes ... and takes a role``). Chance draws and bot decisions are seeded: each
one draws from a generator made from the seed and the number of actions played so
far, so the same seed and the same answers give the same game, and ``undo`` followed by
the same answers replays the same cards.

The package: :mod:`.session` (the loop, input, board, record), :mod:`.narrate` (telling
the moves), :mod:`.render` (tables and texts from a view).

>>> import io
>>> from rich.console import Console
>>> out = io.StringIO()
>>> console = Console(file=out, width=100, no_color=True)
>>> play(players=3, seat=0, bots="random", seed=1, stdin=io.StringIO("quit\\n"), console=console, save=False)
0
>>> text = out.getvalue()
>>> "p0 offer 3" in text, "You leave the game." in text
(True, True)
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sys
from pathlib import Path
from typing import Final, TextIO

from rich.console import Console

from meuterer.agents.base import Agent
from meuterer.agents.registry import AgentSpecError, make_agent
from meuterer.game import Game
from meuterer.rules import Rules

from .session import _Session

__all__ = ["BOTS", "BotError", "make_bot", "make_bots", "play", "register", "run"]

BOTS: Final = ("random", "greedy", "ismcts")
"""The built-in bot names ``--bots`` accepts (see :mod:`meuterer.agents.registry` for options)."""
DEFAULT_BOT: Final = "greedy"

BotError = AgentSpecError
"""A ``--bots`` name that is unknown or whose agent cannot be loaded (the registry's error)."""


# Bots ----------------------------------------------------------------------------------------


def make_bot(spec: str, seed: int) -> Agent:
    """The agent a ``--bots`` spec stands for; :func:`meuterer.agents.make_agent` with a seed.

    >>> make_bot("random", 1).name
    'random'
    >>> make_bot("clever", 1)
    Traceback (most recent call last):
    ...
    meuterer.agents.registry.AgentSpecError: unknown agent 'clever': use random, greedy, ismcts[:ITERATIONS[:ROLLOUT]]
    """
    return make_agent(spec, seed=seed)


def make_bots(specs: str | None, players: int, seat: int, seed: int) -> dict[int, tuple[str, Agent]]:
    """The bots of every seat but ``seat``, in seat order, from a comma-separated list of
    specs (one spec is used for every bot; ``None`` means greedy bots). Raises :class:`BotError`."""
    others = [p for p in range(players) if p != seat]
    names = [name.strip().lower() for name in (specs or DEFAULT_BOT).split(",")]
    if len(names) == 1:
        names *= len(others)
    if len(names) != len(others):
        raise BotError(
            f"--bots names {len(names)} bot(s), but {players} players need {len(others)} "
            f"(one for each of {', '.join(f'p{p}' for p in others)}), or a single name for all"
        )
    return {
        p: (name, make_bot(name, random.Random(f"{seed}/agent/{p}").getrandbits(32)))
        for p, name in zip(others, names, strict=True)
    }


# The command ---------------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``play`` subcommand to ``subparsers`` (its ``run`` default is :func:`run`)."""
    parser = subparsers.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description="Play Meuterer in the terminal against bots. Answer with a move's number or text, "
        "or help, undo, board, quit.",
    )
    parser.add_argument("--players", type=int, choices=(3, 4), default=4, help="3 or 4 players (default 4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0, the first captain)")
    parser.add_argument(
        "--bots",
        default=None,
        metavar="NAMES",
        help="bots for the other seats in seat order, comma-separated: random, greedy, ismcts or "
        "ismcts:ITERATIONS; a single name is used for every bot (default greedy)",
    )
    parser.add_argument("--seed", type=int, default=None, help="random seed for the cards and the bots (default: new)")
    parser.add_argument("--pirates", action="store_true", help="play the pirate variant")
    parser.add_argument(
        "--record", default=None, metavar="FILE", help="where to save the game record (default meuterer-game-SEED.json)"
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``meuterer play`` with parsed arguments, on the standard input and output."""
    return play(
        players=args.players,
        seat=args.seat,
        bots=args.bots,
        seed=args.seed,
        pirates=args.pirates,
        record=args.record,
    )


def play(
    players: int = 4,
    seat: int = 0,
    bots: str | None = None,
    seed: int | None = None,
    pirates: bool = False,
    record: str | os.PathLike[str] | None = None,
    stdin: TextIO | None = None,
    console: Console | None = None,
    save: bool = True,
) -> int:
    """Play one game, the human at ``seat`` answering on ``stdin`` (default: the standard
    input), the table drawn on ``console`` (default: the terminal).

    Returns the exit status: 0 when the game ends or the player quits, 1 if the record
    cannot be written, 2 for bad options. Unless ``save`` is false, the record (of the game
    so far, if he quits) is saved to ``record``, by default ``meuterer-game-<seed>.json`` in
    the current directory."""
    console = console if console is not None else Console(emoji=False, highlight=False)
    if players not in (3, 4):
        console.print(f"meuterer play: 3 or 4 players, not {players}", markup=False)
        return 2
    if not 0 <= seat < players:
        console.print(f"meuterer play: --seat is a seat from 0 to {players - 1}, not {seat}", markup=False)
        return 2
    if seed is None:
        seed = secrets.randbelow(1_000_000)
    try:
        agents = make_bots(bots, players, seat, seed)
    except BotError as error:
        console.print(f"meuterer play: {error}", markup=False)
        return 2
    path = Path(f"meuterer-game-{seed}.json") if record is None else Path(record)
    session = _Session(
        console=console,
        stdin=stdin if stdin is not None else sys.stdin,
        game=Game.new(players, 0, Rules(pirates=pirates)),
        me=seat,
        agents=agents,
        seed=seed,
    )
    try:
        finished = session.run()
    except KeyboardInterrupt:
        session.say("Interrupted: leaving the game.")
        finished = False
    return session.save(path, finished) if save else 0


