"""``meuterer play``: a human plays Meuterer in the terminal against bots.

The human sees only his own :class:`~meuterer.views.PlayerView`: the board, the
narration of the other players' moves and the help are all made from his views, and
an action of another player is redacted before it is described (``p2 draws a card``,
``p3 passes ... and takes a role``), and the bots' reasons (``why``), worked out from
their own cards, are told when the game is over.

Chance draws and bot decisions come from a :class:`~.saving.Secret`: each draws from a
generator made from its seed and the number of actions played so far. Without
``--seed`` the seed is a secret 128-bit number, shown when the game is over, and an
``undo`` draws a new one (taking a move back never shows a card still to come); with
``--seed`` the player knows it, and so every card: the same seed and the same answers
give the same game, ``undo`` included. The secret is saved beside the record, so that
``--resume`` goes on as the game would have.

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
import contextlib
import os
import random
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Final, TextIO

from rich.console import Console

from meuterer.agents.base import Agent
from meuterer.agents.registry import AgentSpecError, make_agent
from meuterer.errors import MeutererError, SetupError
from meuterer.game import Game
from meuterer.record import Record, read_record
from meuterer.rules import Rules

from .saving import MAX_SEED, Saver, Secret, free_path, read_secret, secret_path
from .session import _Session

__all__ = ["DEFAULT_BOT", "make_bots", "play", "register", "resume_seed", "run"]

DEFAULT_BOT: Final = "greedy"
"""The bot of every other seat unless ``--bots`` names others."""


# Bots ----------------------------------------------------------------------------------------


def make_bots(
    specs: str | None, players: int, seat: int, seed: int, rules: Rules | None = None
) -> dict[int, tuple[str, Agent]]:
    """The bots of every seat but ``seat``, in seat order, from a comma-separated list of
    specs (one spec is used for every bot; ``None`` means greedy bots). Raises
    :class:`~meuterer.agents.registry.AgentSpecError`; with ``rules``, a bot that plays only
    some games (``check(players, rules)``, as the learned ``policy``) raises its own
    :class:`~meuterer.errors.SetupError` for a game it does not play.

    >>> sorted((seat, name) for seat, (name, _) in make_bots("random", 3, 1, seed=1).items())
    [(0, 'random'), (2, 'random')]
    >>> make_bots("clever", 3, 1, seed=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    meuterer.agents.registry.AgentSpecError: unknown agent 'clever': use random, greedy, ...
    """
    others = [p for p in range(players) if p != seat]
    names = [name.strip().lower() for name in (specs or DEFAULT_BOT).split(",")]
    if len(names) == 1:
        names *= len(others)
    if len(names) != len(others):
        raise AgentSpecError(
            f"--bots names {len(names)} bot(s), but {players} players need {len(others)} "
            f"(one for each of {', '.join(f'p{p}' for p in others)}), or a single name for all"
        )
    bots = {
        p: (name, make_agent(name, seed=random.Random(f"{seed}/agent/{p}").getrandbits(32)))
        for p, name in zip(others, names, strict=True)
    }
    for _, agent in bots.values():
        check = getattr(agent, "check", None)
        if rules is not None and callable(check):
            check(players, rules)
    return bots


# The command ---------------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``play`` subcommand to ``subparsers`` (its ``run`` default is :func:`run`)."""
    parser = subparsers.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description="Play Meuterer in the terminal against bots. Answer with a move's number or text, "
        "or help, why, undo, board, quit. The game is saved after every action; --resume FILE goes on "
        "with a saved game.",
    )
    parser.add_argument("--players", type=int, choices=(3, 4), default=4, help="3 or 4 players (default 4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0, the first captain)")
    parser.add_argument(
        "--bots",
        default=None,
        metavar="NAMES",
        help="bots for the other seats in seat order, comma-separated: random, greedy, ismcts, "
        "ismcts:ITERATIONS[:ROLLOUT[:OPPONENTS]] or policy; a single name is used for every bot (default greedy)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for the cards and the bots, for a game to replay: it reveals every card (default: a secret "
        "seed, shown when the game is over)",
    )
    parser.add_argument("--pirates", action="store_true", help="play the pirate variant")
    parser.add_argument(
        "--record",
        default=None,
        metavar="FILE",
        help="where to save the game record, after every action (default meuterer-game-SEED.json, or "
        "meuterer-game-DATE.json without --seed; an existing file is replaced only if you say so); its "
        "secret seed goes beside it in FILE.secret",
    )
    parser.add_argument(
        "--resume",
        default=None,
        metavar="FILE",
        help="go on with the saved game in FILE (your seat is the one named 'human'; the bots are those "
        "named in the record unless --bots is given) and keep saving it there",
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
        resume=args.resume,
    )


class _Hangup(BaseException):
    """SIGTERM or SIGHUP arrived (the terminal was closed, or the program asked to stop)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_hangup(signum: int, frame: FrameType | None) -> None:
    raise _Hangup(signum)


@contextlib.contextmanager
def _hangups_raise() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into :class:`_Hangup` (in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {name: signal.signal(getattr(signal, name), _raise_hangup) for name in names}
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def resume_seed(path: Path, record: Record) -> int | None:
    """The seed of a saved game that has no secret beside it (saved by an earlier version):
    the one in a default record name (``meuterer-game-SEED.json``; that seed was shown),
    else ``None`` (the rest of the game is then drawn from a new secret).

    >>> from meuterer.record import Record
    >>> from meuterer.rules import Rules
    >>> record = Record(Rules(), ("human", "greedy", "greedy"), 0, ())
    >>> resume_seed(Path("meuterer-game-42.json"), record), resume_seed(Path("mine.json"), record)
    (42, None)
    """
    found = re.fullmatch(r"meuterer-game-(\d+)(-\d+)?\.json", path.name)
    return int(found.group(1)) if found else None


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
    resume: str | os.PathLike[str] | None = None,
) -> int:
    """Play one game, the human at ``seat`` answering on ``stdin`` (default: the standard
    input), the table drawn on ``console`` (default: the terminal).

    ``seed`` makes a reproducible game (the player knows every card); without it the
    cards come from a secret seed (see :class:`~.saving.Secret`). Unless ``save`` is false
    the record is saved after every action (atomically) to ``record``, by default
    ``meuterer-game-<seed>.json`` (``meuterer-game-<date and time>.json`` without a seed)
    in the current directory, and the secret beside it (``<record>.secret``); an existing
    file there is replaced only if the player says so (else the game goes to
    ``...-2.json``). ``resume`` names a saved game to go on with: it goes on with the saved
    secret (a ``seed`` given replaces it; see :func:`resume_seed` for a record without one).

    Returns the exit status: 0 when the game ends or the player quits, 1 if the record
    could not be written anywhere (its actions are then printed), 2 for bad options, 130
    on Ctrl-C, 128 + the signal's number on SIGTERM or SIGHUP (the game is saved in every case)."""
    console = console if console is not None else Console(emoji=False, highlight=False)
    earlier: Record | None = None
    if seed is not None and not -MAX_SEED < seed < MAX_SEED:
        console.print("meuterer play: --seed is a whole number of at most 100 digits", markup=False)
        return 2
    secret = Secret.chosen(seed) if seed is not None else None
    note: str | None = None
    if resume is not None:
        try:
            earlier = read_record(Path(resume))
            game = Game.from_record(earlier)
        except MeutererError as error:
            console.print(f"meuterer play: cannot resume {resume}: {error}", markup=False)
            return 2
        players = game.players
        humans = [p for p, name in enumerate(earlier.players) if name == "human"]
        if len(humans) != 1:
            console.print(f"meuterer play: {resume} has no single seat named 'human' to play", markup=False)
            return 2
        seat = humans[0]
        if bots is None:
            bots = ",".join(name for p, name in enumerate(earlier.players) if p != seat)
        if secret is None:
            try:
                secret = read_secret(Path(resume))
            except MeutererError as error:
                console.print(f"meuterer play: cannot resume {resume}: {error}", markup=False)
                return 2
            if secret is None:
                legacy = resume_seed(Path(resume), earlier)
                if legacy is not None:
                    secret = Secret.chosen(legacy)
                else:
                    note = f"{secret_path(Path(resume))} is missing: the rest of the game is drawn from a new secret."
    else:
        if players not in (3, 4):
            console.print(f"meuterer play: 3 or 4 players, not {players}", markup=False)
            return 2
        if not 0 <= seat < players:
            console.print(f"meuterer play: --seat is a seat from 0 to {players - 1}, not {seat}", markup=False)
            return 2
        game = Game.new(players, 0, Rules(pirates=pirates))
    if secret is None:
        secret = Secret.new()
    try:
        agents = make_bots(bots, players, seat, secret.seed, game.state.rules)
    except SetupError as error:  # a bad spec (AgentSpecError), or a bot that does not play this game
        hint = " (name the bots with --bots)" if earlier is not None else ""
        console.print(f"meuterer play: {error}{hint}", markup=False)
        return 2
    if record is not None:
        path = Path(record)
    elif resume is not None:
        path = Path(resume)
    elif secret.shown:
        path = Path(f"meuterer-game-{secret.seed}.json")
    else:  # never a name that tells the secret (nor one an earlier version read a seed from)
        path = Path(time.strftime("meuterer-game-%Y%m%dT%H%M%S.json"))
    names = [agents[p][0] if p != seat else "human" for p in range(players)]
    session = _Session(
        console=console,
        stdin=stdin if stdin is not None else sys.stdin,
        game=game,
        me=seat,
        agents=agents,
        secret=secret,
    )
    if note is not None:
        session.say(note, style="yellow")
    status = 0
    with _hangups_raise():
        try:
            if save:
                same = resume is not None and path.resolve() == Path(resume).resolve()
                if path.exists() and not same and not session.confirm(f"{path} exists: replace it with this game?"):
                    path = free_path(path)
                    session.say(f"This game is saved to {path} instead.")
                session.saver = Saver(path, names, secret)
            finished = session.run()
        except KeyboardInterrupt:
            session.say("Interrupted: leaving the game.")
            finished, status = False, 130
        except _Hangup as hangup:
            finished, status = False, 128 + hangup.signum
            with contextlib.suppress(OSError, ValueError):  # the terminal may be gone
                session.say("Stopped by a signal: leaving the game.")
        except EOFError:  # pragma: no cover - end of input while asking
            finished = False
    if not save:
        return status
    try:
        return session.finish(finished) or status
    except OSError:  # the terminal is gone (SIGHUP): the record is written before anything is said
        return status or 1
