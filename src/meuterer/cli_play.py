"""``meuterer play``: a human plays Meuterer in the terminal against bots.

The human sees only his own :class:`~meuterer.views.PlayerView`: the board, the
narration of the other players' moves and the help are all made from his views, and
an action of another player is redacted before it is described (``p2 draws a card``,
``p3 passes ... and takes a role``). Chance draws and bot decisions are seeded: each
one draws from a generator made from the seed and the number of actions played so
far, so the same seed and the same answers give the same game, and ``undo`` followed by
the same answers replays the same cards.

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
import importlib
import inspect
import os
import random
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, TextIO

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from meuterer.actions import Action, ChooseRole, Discard, Draw, Offer, Pass, Play, Sale, Sell, Support, parse_action
from meuterer.agents.base import Agent, RandomAgent
from meuterer.cards import CARD_BY_NAME, Card, Role, counts_str
from meuterer.engine import current_player, is_chance_node, is_terminal, legal_actions, sample_chance, winners
from meuterer.errors import MeutererError
from meuterer.explain import why_illegal
from meuterer.game import Game
from meuterer.record import verify, write_record
from meuterer.rules import Rules
from meuterer.state import Step
from meuterer.views import PlayerView, view

__all__ = ["BOTS", "BotError", "make_bot", "make_bots", "play", "register", "run"]

BOTS: Final = ("random", "greedy", "ismcts")
"""The bot names ``--bots`` accepts (``ismcts:N`` sets the search's iterations)."""
DEFAULT_BOT: Final = "greedy"
DEFAULT_ISMCTS_ITERATIONS: Final = 200
"""Iterations of ``ismcts`` when neither ``ismcts:N`` nor the agent class gives a number."""

_BOT_CLASSES: Final = {
    "greedy": ("meuterer.agents.greedy", "GreedyAgent"),
    "ismcts": ("meuterer.agents.ismcts", "ISMCTSAgent"),
}
_NOT_DECISIONS: Final = frozenset({Step.RING, Step.DEAL, Step.DRAW, Step.GAME_OVER})

_ROLE_HELP: Final = {
    Role.MUTINEER: "seize the ship: your face-down cards set your own destination",
    Role.CABIN_BOY: "side with the mutineer: 2 VP if a mutiny succeeds",
    Role.MATE: "side with the captain (counts as 1 support): 1 VP + the offer if he keeps the ship",
    Role.MERCHANT: "a tie for the lead on an island still pays you value I",
    Role.LOADMASTER: "draw 3 extra cards in phase 8, then discard 3 of them",
}

_PHASE_HELP: Final = {
    Step.OFFER: (
        "Phase 1, the captain's offer: choose how many VP (0 to 3) you hand over to a mate. The mate scores "
        "1 + the offer, which you pay, if you keep the ship; with no mate you pay nothing."
    ),
    Step.PLAY: (
        "Phase 2, offering goods: play one card face up, or pass. Passing lays your whole hand face down; "
        "the number N of face-down cards is your destination, N islands clockwise from the ship (the 'steps' "
        "column of the island table). The captain's destination is fixed when he passes; anyone else takes a "
        "role at once. Face-up goods are sold in phase 5 on the active islands, where the players selling "
        "the most cards score I (alone), II (two tied) or III (three tied)."
    ),
    Step.CHOOSE_ROLE: (
        "Phase 2, taking a role: pick one of the roles still in the centre. Roles are secret until everyone "
        "has passed; a mutineer's destination is N islands clockwise from the ship, N being his face-down cards."
    ),
    Step.MUTINY: (
        "Phase 4, mutiny: turn any of your face-down support cards face up. The captain's side (captain, "
        "mate +1) faces the mutineer's side (mutineer, cabin boy); the stronger wins and a tie goes to the "
        "mutineer. Cards turned up here are lost at the clean-up."
    ),
    Step.SELL: (
        "Phase 5, sales: declare what you sell, one kind of good per active island. Hochland and Piratennest "
        "buy any good; the other islands only their own. Support and pirate cards never sell."
    ),
    Step.LOADMASTER_DISCARD: "Phase 8, the loadmaster's discard: choose three of the cards you have just drawn.",
}

_HELP: Final = """\
Commands:
  a number        play the move with that number
  a move's text   e.g. 'p0 play wine', 'play wine', 'pass', 'offer 2', 'sell hochland:wine:2'
  undo            take back your last decision (and the bots' moves and the draws after it)
  board           show the whole table again
  help            this text
  quit            stop (the game so far is saved as a record)"""


class BotError(ValueError):
    """A ``--bots`` name that is unknown or whose agent cannot be loaded."""


# Bots ----------------------------------------------------------------------------------------


def make_bot(spec: str, seed: int) -> Agent:
    """The agent a ``--bots`` name stands for: ``random``, ``greedy``, ``ismcts`` or ``ismcts:N``
    (N iterations). ``greedy`` and ``ismcts`` are imported only when asked for; raises
    :class:`BotError` saying which names exist when ``spec`` is none of them.

    >>> make_bot("random", 1).name
    'random'
    >>> make_bot("clever", 1)
    Traceback (most recent call last):
    ...
    meuterer.cli_play.BotError: unknown bot 'clever': choose from random, greedy, ismcts (or ismcts:ITERATIONS)
    """
    name, _, option = spec.strip().lower().partition(":")
    known = ", ".join(BOTS)
    if name not in BOTS:
        raise BotError(f"unknown bot {spec!r}: choose from {known} (or ismcts:ITERATIONS)")
    if option and (name != "ismcts" or not option.isdigit() or int(option) < 1):
        raise BotError(f"bad bot {spec!r}: only ismcts takes an option, a positive number of iterations (ismcts:500)")
    if name == "random":
        return RandomAgent()
    module_name, class_name = _BOT_CLASSES[name]
    try:
        factory = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise BotError(
            f"bot {name!r} is not available ({module_name}.{class_name} cannot be loaded: {error}); "
            "use 'random' instead"
        ) from None
    try:
        if name == "ismcts":
            iterations = int(option) if option else None
            if iterations is None:
                parameter = inspect.signature(factory).parameters.get("iterations")
                if parameter is None or parameter.default is inspect.Parameter.empty:
                    iterations = DEFAULT_ISMCTS_ITERATIONS
            agent = factory(seed=seed) if iterations is None else factory(iterations=iterations, seed=seed)
        else:
            agent = factory()
    except (TypeError, ValueError) as error:
        raise BotError(f"bot {spec!r} cannot be made: {error}") from None
    if not isinstance(agent, Agent):
        raise BotError(f"bot {spec!r}: {class_name} is not an agent (it needs a name and act(view, legal, rng))")
    return agent


def make_bots(specs: str | None, players: int, seat: int, seed: int) -> dict[int, tuple[str, Agent]]:
    """The bots of every seat but ``seat``, in seat order, from a comma-separated list of
    names (one name is used for every bot; ``None`` means greedy bots). Raises :class:`BotError`."""
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


# The session ---------------------------------------------------------------------------------


def _role_name(role: Role) -> str:
    return str(role).replace("_", " ")


def _article(card: Card) -> str:
    if card is Card.SUPPORT:
        return "a support card"
    if card is Card.PIRATE:
        return "the pirate card"
    return f"a {card}"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _cards(n: int) -> str:
    return _plural(n, "card")


def _sales_text(sales: Sequence[Sale]) -> str:
    return " and ".join(f"{sale.count} {sale.card} on {sale.island}" for sale in sales) or "nothing"


def _buys(v: PlayerView, position: int) -> str:
    buys = v.island(position).buys
    return "any good" if buys is None else str(buys)


def _steps(v: PlayerView, position: int) -> int:
    return (position - v.start) % len(v.ring)


def _destination(v: PlayerView, n: int) -> str:
    position = (v.start + n) % len(v.ring)
    return f"+{n} {v.island_name(position)} (ship value {v.island(position).ship})"


class _Session:
    """One game in the terminal: the loop, the narration and the board."""

    def __init__(
        self,
        console: Console,
        stdin: TextIO,
        game: Game,
        me: int,
        agents: dict[int, tuple[str, Agent]],
        seed: int,
    ) -> None:
        self.console = console
        self.stdin = stdin
        self.game = game
        self.me = me
        self.agents = agents
        self.seed = seed
        self.interactive = stdin is sys.stdin and stdin.isatty()
        self.decisions: list[int] = []
        """``len(game)`` at each decision the human made (undo goes back to these)."""
        self.shown_ring: tuple[object, ...] | None = None
        self.draws: tuple[int, list[Card | None]] | None = None
        """Consecutive draws of one player not yet told: (seat, the cards, ``None`` for another's)."""

    # Output -------------------------------------------------------------------------------

    def say(self, text: str, style: str | None = None) -> None:
        self.flush_draws()
        self.console.print(Text(text, style=style or ""))

    def who(self, seat: int) -> str:
        return "You" if seat == self.me else f"p{seat}"

    def does(self, seat: int, verb: str, third: str | None = None) -> str:
        """``You play`` or ``p2 plays``."""
        return f"{self.who(seat)} {verb if seat == self.me else third or verb + 's'}"

    def name(self, seat: int) -> str:
        return "you" if seat == self.me else self.agents[seat][0]

    def flush_draws(self) -> None:
        if self.draws is None:
            return
        seat, cards = self.draws
        self.draws = None
        if seat == self.me:
            text = f"You draw {', '.join(str(card) for card in cards)}"
        else:
            text = f"p{seat} draws {'a card' if len(cards) == 1 else _cards(len(cards))}"
        self.console.print(Text(text, style="dim"))

    # The loop -----------------------------------------------------------------------------

    def run(self) -> bool:
        """Play until the game ends (True) or the human quits (False)."""
        game = self.game
        rules = game.rules
        bots = ", ".join(f"p{p} {name}" for p, (name, _) in self.agents.items())
        variant = " with pirates" if rules.pirates else ""
        self.console.rule(Text(f"Meuterer{variant}: {game.players} players, {rules.rounds_for(game.players)} rounds"))
        self.say(f"You are p{self.me}; the bots are {bots}. Seed {self.seed}. Type 'help' at any prompt.")
        self.round_header(view(game.state, self.me))
        while not is_terminal(game.state):
            state = game.state
            seat = current_player(state)
            assert seat is not None
            if is_chance_node(state):
                action = sample_chance(state, self.rng("chance"))
            elif seat != self.me:
                _, agent = self.agents[seat]
                action = agent.act(view(state, seat), legal_actions(state), self.rng(f"bot/{seat}"))
            else:
                legal = tuple(legal_actions(state))
                if len(legal) == 1:
                    action = legal[0]
                    self.say(f"(Your only move: {action})", style="dim")
                else:
                    choice = self.decide(legal)
                    if choice is None:
                        return False
                    if choice == "undo":
                        continue
                    assert not isinstance(choice, str)
                    action = choice
                    self.decisions.append(len(game))
            self.push(action)
        self.flush_draws()
        self.final()
        return True

    def rng(self, purpose: str) -> random.Random:
        # A generator per step: undo and the same answers give the same cards and bot moves.
        return random.Random(f"{self.seed}/{len(self.game)}/{purpose}")

    def push(self, action: Action) -> None:
        before = view(self.game.state, self.me)
        self.game.push(action)
        after = view(self.game.state, self.me)
        self.narrate(before, action, after)

    # The human's decisions ------------------------------------------------------------------

    def decide(self, legal: tuple[Action, ...]) -> Action | str | None:
        """The human's move, ``"undo"`` after an undo, or ``None`` to quit."""
        self.flush_draws()
        v = view(self.game.state, self.me)
        self.board(v, full=False)
        self.moves(v, legal)
        while True:
            line = self.ask(f"Your move (1-{len(legal)}, a move, help, undo, board, quit): ")
            if line is None:
                self.say("End of input: leaving the game.")
                return None
            text = " ".join(line.lower().split())
            if not text:
                continue
            if text in ("quit", "exit", "q"):
                self.say("You leave the game.")
                return None
            if text in ("help", "?", "h"):
                self.help(v)
                continue
            if text in ("board", "table"):
                self.board(v, full=True)
                self.moves(v, legal)
                continue
            if text == "undo":
                if self.undo():
                    return "undo"
                continue
            found = self.match(text, legal)
            if isinstance(found, str):
                self.say(found, style="red")
                continue
            return found

    def ask(self, prompt: str) -> str | None:
        if self.interactive:
            try:
                return self.console.input(Text(prompt, style="bold"))
            except (EOFError, KeyboardInterrupt):
                self.console.print()
                return None
        self.console.print(Text(prompt, style="bold"), end="")
        line = self.stdin.readline()
        if not line:
            self.console.print()
            return None
        self.console.print(Text(line.rstrip("\r\n")))
        return line

    def match(self, text: str, legal: tuple[Action, ...]) -> Action | str:
        """The legal move ``text`` names (a number or an action's text), or why there is none."""
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(legal):
                return legal[number - 1]
            return f"There is no move {number}: choose a number from 1 to {len(legal)}."
        prefix = f"p{self.me} "
        tries = [text] if text.startswith(prefix) or text.startswith("draw ") else [prefix + text, text]
        parsed: Action | None = None
        for attempt in tries:
            try:
                action = parse_action(_canonical(attempt))
            except MeutererError:
                continue
            if action in legal:
                return legal[legal.index(action)]
            parsed = parsed or action
        if parsed is not None:
            return f"'{text}' is not a legal move now: {why_illegal(self.game.state, parsed)}. Type 'help' for help."
        return (
            f"Sorry, '{text}' is neither a move nor a command. Type a number from 1 to {len(legal)}, "
            "a move as listed (such as 'p0 pass' or just 'pass'), or help, undo, board, quit."
        )

    def undo(self) -> bool:
        """Take back the human's last decision and everything after it."""
        if not self.decisions:
            self.say("Nothing to undo: you have not decided anything yet.", style="red")
            return False
        self.draws = None
        target = self.decisions.pop()
        undone: list[Action] = []
        while len(self.game) > target:
            undone.append(self.game.pop())
        mine = undone[-1]
        others = len(undone) - 1
        extra = f" and the {_plural(others, 'action')} after it (other players' moves and draws)" if others else ""
        self.say(f"Undone: your move '{mine}'{extra}. You decide again.", style="yellow")
        self.shown_ring = None
        return True

    def help(self, v: PlayerView) -> None:
        self.say(_HELP)
        hint = _PHASE_HELP.get(v.step)
        if hint:
            self.say(hint)

    # Narration ------------------------------------------------------------------------------

    def narrate(self, before: PlayerView, action: Action, after: PlayerView) -> None:
        """Tell ``action`` and what followed from it, from the human's views only."""
        p = action.player
        if isinstance(action, Draw):
            if self.draws is not None and self.draws[0] != p:
                self.flush_draws()
            if self.draws is None:
                self.draws = (p, [])
            self.draws[1].append(action.card if p == self.me else None)  # another's card is secret
        elif isinstance(action, Offer):
            self.say(f"{self.does(p, 'offer')} {action.amount} VP to a mate")
        elif isinstance(action, Play):
            left = before.hand_sizes[p] - 1
            self.say(f"{self.does(p, 'play')} {_article(action.card)} ({_cards(left)} left in hand)")
            if action.card is Card.PIRATE and after.pirate is not None:
                if after.pirate != before.pirate:
                    self.say(f"The pirate ship sails counter-clockwise to {after.island_name(after.pirate)}")
                if not any(map(any, after.face_up)):
                    self.say("The pirates rob the merchant ship: every face-up card goes to the discard pile!")
        elif isinstance(action, Pass):
            n = before.hand_sizes[p]
            text = f"{self.does(p, 'pass', 'passes')} with {_cards(n)} face down"
            if p == before.captain:
                text += f": the captain's destination is {_destination(before, n)}"
            elif p != self.me:
                text += " and takes a role"
            self.say(text)
        elif isinstance(action, ChooseRole):
            if p == self.me:
                self.say(f"You take the role: {_role_name(action.role)}")
        elif isinstance(action, Support):
            if action.count:
                self.say(f"{self.does(p, 'turn')} {action.count} support card(s) face up")
            else:
                self.say(f"{self.does(p, 'add')} no support")
        elif isinstance(action, Sell):
            self.say(f"{self.does(p, 'declare')}: {_sales_text(action.sales)}")
        elif isinstance(action, Discard):
            who = "You discard" if p == self.me else f"p{p} (loadmaster) discards"
            self.say(f"{who} {' '.join(map(str, action.cards))}")
        self.events(before, action, after)

    def events(self, before: PlayerView, action: Action, after: PlayerView) -> None:
        """What happened by itself after ``action``: reveal, mutiny, points, sailing, a new round."""
        if not before.roles_revealed and after.roles_revealed:
            roles = ", ".join(f"p{p} {_role_name(role)}" for p, role in enumerate(after.roles) if role is not None)
            self.say(f"Everyone has passed. Roles: {roles} (p{after.captain} is the captain)", style="bold")
            if after.mutineer_destination is not None:
                mutineer = after.roles.index(Role.MUTINEER)
                steps = _steps(after, after.mutineer_destination)
                self.say(f"Mutiny! p{mutineer}'s destination is {_destination(after, steps)}", style="bold")
            else:
                self.say("Nobody mutinies: the captain keeps the ship.")
        if before.mutiny is None and after.mutiny is not None:
            captain_side, mutineer_side = _strengths(after)
            outcome = "succeeds" if after.mutiny else "fails"
            self.say(
                f"The mutiny {outcome}: the mutineer's side {mutineer_side}, the captain's side {captain_side}.",
                style="bold",
            )
        if after.captain != before.captain:
            self.say(f"p{after.captain} takes the captain cards.")
        delta = [new - old for old, new in zip(before.scores, after.scores, strict=True)]
        if isinstance(action, Sell) and before.step is Step.SELL and after.step is not Step.SELL:
            sales = list(before.sales)
            sales[action.player] = action.sales
            for position in before.active:
                name = before.island_name(position)
                sold = [
                    f"p{p} {sale.count} {sale.card}"
                    for p, declared in enumerate(sales)
                    for sale in declared or ()
                    if sale.island == name
                ]
                values = "/".join(map(str, before.island(position).values))
                self.say(f"  {name} ({values}): {', '.join(sold) or 'nothing sold'}")
            self.say("Sales: " + self.deltas(before, delta))
            self.say("Scores: " + "  ".join(f"p{p} {s}" for p, s in enumerate(after.scores)), style="bold")
        elif any(delta):
            self.say("Role points: " + self.deltas(after, delta))
        if after.start != before.start:
            self.say(f"The ship sails to {after.island_name(after.start)}.")
        if after.pirate != before.pirate and not isinstance(action, Play):
            assert after.pirate is not None
            self.say(f"The pirate ship returns to {after.island_name(after.pirate)}.")
        if after.deck_size > before.deck_size:
            self.say("The deck is empty: the discard pile is shuffled into a new deck.", style="dim")
        if after.round != before.round:
            self.round_header(after)

    def deltas(self, v: PlayerView, delta: list[int]) -> str:
        parts = []
        for p, d in enumerate(delta):
            if not d:
                continue
            role = v.roles[p]
            label = _role_name(role) if role is not None else "captain" if p == v.captain else ""
            parts.append(f"p{p}{' (' + label + ')' if label else ''} {d:+d}")
        return ", ".join(parts) or "nobody scores"

    def round_header(self, v: PlayerView) -> None:
        self.flush_draws()
        total = v.rules.rounds_for(v.players)
        active = ", ".join(
            f"{v.island_name(pos)} (buys {_buys(v, pos)}, {'/'.join(map(str, v.island(pos).values))})"
            for pos in v.active
        )
        self.console.rule(Text(f"Round {v.round} of {total}: captain p{v.captain}"))
        self.say(f"The ship lies at {v.island_name(v.start)}. Active islands: {active}")

    # The board ------------------------------------------------------------------------------

    def board(self, v: PlayerView, full: bool) -> None:
        """The table as the human sees it: islands (when they changed), players, his cards."""
        ring = (v.round, v.start, v.active, v.pirate, v.captain_destination, v.mutineer_destination)
        if full or ring != self.shown_ring:
            self.console.print(_ring_table(v))
            self.shown_ring = ring
        self.console.print(_players_table(v, self.name))
        lines = []
        if v.offer is not None:
            lines.append(f"Captain p{v.captain} offers {v.offer} VP to a mate.")
        if v.captain_destination is not None:
            lines.append(f"The captain's destination: {v.island_name(v.captain_destination)}.")
        if v.mutineer_destination is not None:
            lines.append(f"The mutineer's destination: {v.island_name(v.mutineer_destination)}.")
        if v.step is Step.MUTINY:
            captain_side, mutineer_side = _strengths(v)
            lines.append(
                f"Mutiny so far: the captain's side {captain_side}, the mutineer's side {mutineer_side} "
                "(a tie goes to the mutineer)."
            )
        lines.append(f"Deck {_cards(v.deck_size)}; discard pile: {counts_str(v.discard)}.")
        role = "captain" if v.captain == self.me else _role_name(v.role) if v.role is not None else "none yet"
        if v.role is not None and not v.roles_revealed:
            role += " (secret)"
        mine = f"Your hand: {counts_str(v.hand)}   face down: {counts_str(v.face_down)}   role: {role}"
        for line in lines:
            self.say(line)
        self.say(mine, style="bold")
        if v.drawn_count and v.step is Step.LOADMASTER_DISCARD:
            self.say(f"You have just drawn: {counts_str(v.drawn)}")

    def moves(self, v: PlayerView, legal: tuple[Action, ...]) -> None:
        table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, title_justify="left")
        table.title = "Your moves"
        table.add_column("#", justify="right")
        table.add_column("move")
        table.add_column("what it does")
        for number, action in enumerate(legal, 1):
            table.add_row(str(number), Text(str(action)), Text(_move_help(v, action)))
        self.console.print(table)

    # The end --------------------------------------------------------------------------------

    def final(self) -> None:
        state = self.game.state
        best = winners(state)
        table = Table(title="Final scores", box=box.SIMPLE, title_justify="left")
        table.add_column("seat")
        table.add_column("player")
        table.add_column("score", justify="right")
        table.add_column("")
        for p, score in enumerate(state.scores):
            table.add_row(f"p{p}", self.name(p), str(score), "winner" if p in best else "")
        self.console.rule(Text("Game over"))
        self.console.print(table)
        names = " and ".join(f"p{p} ({self.name(p)})" for p in best)
        if self.me in best:
            verdict = "You win!" if len(best) == 1 else f"You share the win: {names}."
        else:
            label = "Winner" if len(best) == 1 else "Winners (tied)"
            verdict = f"{label}: {names} with {state.scores[best[0]]} points."
        self.say(verdict, style="bold")

    def save(self, path: Path | None, finished: bool) -> int:
        if path is None or len(self.game) == 0:
            return 0
        names = [self.name(p) if p != self.me else "human" for p in range(self.game.players)]
        try:
            write_record(self.game, path, names=names)
        except OSError as error:
            self.say(f"Cannot save the record to {path}: {error.strerror}", style="red")
            return 1
        what = "The record" if finished else f"The unfinished game ({len(self.game)} actions)"
        check = "verified" if verify(path).ok else "NOT verified"
        self.say(f"{what} is saved to {path} ({check}); 'meuterer replay {path}' shows it.")
        return 0


# Tables and texts made from a view only -------------------------------------------------------


def _ring_table(v: PlayerView) -> Table:
    table = Table(
        title="Islands, clockwise from the merchant ship", box=box.SIMPLE, show_edge=False, title_justify="left"
    )
    table.add_column("steps", justify="right")
    table.add_column("island")
    table.add_column("buys")
    table.add_column("I/II/III")
    table.add_column("ship VP", justify="right")
    table.add_column("")
    n = len(v.ring)
    for k in range(n):
        position = (v.start + k) % n
        island = v.island(position)
        notes = []
        if position == v.start:
            notes.append("merchant ship")
        if position == v.pirate:
            notes.append("pirate ship")
        if position in v.active:
            notes.append("active")
        if position == v.captain_destination:
            notes.append("captain's destination")
        if position == v.mutineer_destination:
            notes.append("mutineer's destination")
        style = "bold" if position in v.active else ""
        table.add_row(
            f"+{k}",
            island.name,
            _buys(v, position),
            "/".join(map(str, island.values)),
            str(island.ship),
            ", ".join(notes),
            style=style,
        )
    return table


def _players_table(v: PlayerView, name: Callable[[int], str]) -> Table:
    table = Table(box=box.SIMPLE, show_edge=False)
    for column in ("seat", "player", "score", "hand", "face up", "face down", "role", ""):
        numeric = column in ("score", "hand", "face down")
        table.add_column(column, justify="right" if numeric else "left", no_wrap=column in ("seat", "player"))
    for p, known in enumerate(v.roles):
        if p == v.captain:
            role = "captain"
        elif known is not None:
            role = _role_name(known) + ("" if v.roles_revealed else " (secret)")
        elif p in v.role_order:
            role = "?"
        else:
            role = ""
        notes = []
        if v.to_act == p and v.step not in _NOT_DECISIONS:
            notes.append("to act")
        if v.passed[p]:
            notes.append("passed")
        sales = v.sales[p]
        if sales is not None:
            notes.append("declared " + _sales_text(sales))
        table.add_row(
            f"p{p}",
            name(p),
            str(v.scores[p]),
            str(v.hand_sizes[p]),
            counts_str(v.face_up[p]),
            str(v.face_down_sizes[p]) if v.passed[p] else "-",
            role,
            ", ".join(notes),
            style="bold" if p == v.player else None,
        )
    return table


def _strengths(v: PlayerView) -> tuple[int, int]:
    """The captain's and the mutineer's side strength from the face-up support cards."""
    captain = v.face_up[v.captain][Card.SUPPORT]
    mutineer = 0
    for p, role in enumerate(v.roles):
        if role is Role.MATE:
            captain += v.face_up[p][Card.SUPPORT] + 1
        elif role in (Role.MUTINEER, Role.CABIN_BOY):
            mutineer += v.face_up[p][Card.SUPPORT]
    return captain, mutineer


def _move_help(v: PlayerView, action: Action) -> str:
    """What ``action`` does, in words, for the human who may choose it."""
    if isinstance(action, Offer):
        return f"offer {action.amount} VP: a mate would score {1 + action.amount} if you keep the ship"
    if isinstance(action, Play):
        left = v.hand_sizes[action.player] - 1
        text = f"play {_article(action.card)} face up"
        if action.card is Card.PIRATE and v.pirate is not None:
            if not left:
                return text + ": the pirate ship does not move (no cards left in your hand)"
            target = (v.pirate - left) % len(v.ring)
            text += f": the pirate ship sails {left} island(s) counter-clockwise to {v.island_name(target)}"
            passed = {(v.pirate - k) % len(v.ring) for k in range(1, left + 1)}
            if v.start in passed or (v.pirate == v.start and v.rules.pirates_rob_at_start):
                text += " and robs every face-up card!"
        elif action.card is not Card.SUPPORT and not any(v.island(pos).buys_card(action.card) for pos in v.active):
            text += " (no active island buys it)"
        return text
    if isinstance(action, Pass):
        n = v.hand_sizes[action.player]
        if action.player == v.captain:
            return f"lay your {_cards(n)} face down: your destination is {_destination(v, n)}"
        return f"lay your {_cards(n)} face down and take a role; a mutineer would sail to {_destination(v, n)}"
    if isinstance(action, ChooseRole):
        text = _ROLE_HELP[action.role]
        if action.role is Role.MUTINEER:
            text += f": {_destination(v, v.face_down_sizes[action.player])}"
        elif action.role is Role.MATE and v.offer is not None:
            text += f" ({1 + v.offer} VP)"
        return text
    if isinstance(action, Support):
        captain, mutineer = _strengths(v)
        mine, theirs = (captain, mutineer) if v.roles[action.player] in (None, Role.MATE) else (mutineer, captain)
        text = "keep your support cards face down" if not action.count else f"turn {action.count} support card(s) up"
        return text + f": your side {mine + action.count} against {theirs} so far"
    if isinstance(action, Sell):
        return "sell nothing" if not action.sales else "sell " + _sales_text(action.sales)
    if isinstance(action, Discard):
        return "discard these three, keep the rest"
    return ""


def _canonical(text: str) -> str:
    """``text`` with a discard's cards put in canonical order (the notation asks for it)."""
    tokens = text.split(" ")
    if len(tokens) > 2 and tokens[1] == "discard" and all(t in CARD_BY_NAME for t in tokens[2:]):
        tokens[2:] = sorted(tokens[2:], key=lambda t: CARD_BY_NAME[t])
    return " ".join(tokens)
