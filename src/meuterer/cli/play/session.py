"""One game in the terminal: the loop, the human's input, the board and the saved record."""

from __future__ import annotations

import random
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.text import Text

from meuterer.actions import Action, ChooseRole
from meuterer.agents.base import Agent, choose
from meuterer.cards import counts_str
from meuterer.engine import current_player, is_chance_node, is_terminal, legal_actions, sample_chance
from meuterer.game import Game
from meuterer.record import verify
from meuterer.state import Step
from meuterer.views import PlayerView, view

from .narrate import Narrator
from .render import (
    HELP,
    phase_help,
    players_table,
    plural,
    ring_table,
)
from .saving import Saver, Secret, secret_path
from .screens import Prompt, final_table, hand_line, match_move, moves_table, table_lines, verdict


class _Shown(Narrator):
    """What the terminal game shows the human: the board, his moves, help, the bots' moves
    (``why``) and the end; :class:`_Session` plays the game around it."""

    game: Game
    secret: Secret
    draw_seeds: list[int]
    shown_ring: tuple[object, ...] | None
    reasons: list[tuple[int, Action, str | None]]
    asked: dict[int, tuple[Action, str | None]]

    def why(self) -> None:
        """The bots' moves since the human's last decision (a role taken stays secret until
        the roles are revealed). A bot's reasons are worked out from its own cards, which
        the human may not see, so they are told when the game is over: :meth:`final`
        tells those he asked about. What ``why`` shows depends on his view only."""
        if not self.reasons:
            self.say("No bot has moved since your last move.")
            return
        revealed = view(self.game.state, self.me).roles_revealed
        for step, action, reason in self.reasons:
            if isinstance(action, ChooseRole) and not revealed:
                self.say(f"p{action.player} takes a role")
            else:
                self.say(str(action))
            self.asked[step] = (action, reason)
        self.say("The bots' reasons draw on cards you cannot see: they are told when the game is over.")

    def help(self, v: PlayerView) -> None:
        self.say(HELP)
        hint = phase_help(v)
        if hint:
            self.say(hint)

    # The board ------------------------------------------------------------------------------

    def board(self, v: PlayerView, full: bool) -> None:
        """The table as the human sees it: islands (when they changed), players, his cards."""
        ring = (v.round, v.start, v.active, v.pirate, v.captain_destination, v.mutineer_destination)
        if full or ring != self.shown_ring:
            self.console.print(ring_table(v))
            self.shown_ring = ring
        self.console.print(players_table(v, self.name))
        for line in table_lines(v):
            self.say(line)
        self.say(hand_line(v, self.me), style="bold")
        if v.drawn_count and v.step is Step.LOADMASTER_DISCARD:
            self.say(f"You have just drawn: {counts_str(v.drawn)}")

    def moves(self, v: PlayerView, legal: tuple[Action, ...]) -> None:
        self.console.print(moves_table(v, legal))

    # The end --------------------------------------------------------------------------------

    def final(self) -> None:
        state = self.game.state
        self.console.rule(Text("Game over"))
        self.console.print(final_table(state, self.name))
        self.say(verdict(state, self.me, self.name), style="bold")
        if self.asked:
            self.say("The bots' reasons for the moves you asked about:")
            for _, (action, reason) in sorted(self.asked.items(), key=lambda item: item[0]):
                self.say(f"{action}: {reason or 'this bot gives no reasons'}")
        if not self.secret.shown:
            seed = self.secret.seed
            later = [draws for draws in self.draw_seeds if draws != seed]
            if later:
                again = "; after undos, from the secret seeds " + ", ".join(map(str, later))
            else:
                again = f": 'meuterer play --seed {seed}' with the same options and answers plays it again"
            self.say(f"The cards came from the secret seed {seed}{again}.")


class _Session(_Shown):
    """One game in the terminal: the loop, the human's input, the board and the record."""

    def __init__(
        self,
        console: Console,
        stdin: TextIO,
        game: Game,
        me: int,
        agents: dict[int, tuple[str, Agent]],
        secret: Secret,
    ) -> None:
        super().__init__(console, me, self.seat_name)
        self.prompt = Prompt(console, stdin)
        self.game = game
        self.agents = agents
        self.secret = secret
        """What the draws and the bots' moves come from (never shown before the game is over
        unless the player chose it with ``--seed``)."""
        self.draw_seeds = [secret.draws]
        """Each seed the draws came from in this session (an undo in a secret game adds one)."""
        self.decisions: list[int] = []
        """``len(game)`` at each decision the human made (undo goes back to these)."""
        self.shown_ring: tuple[object, ...] | None = None
        self.saver: Saver | None = None
        """Saves the record after every action (``None``: not saved)."""
        self.told: Path | str | None = "nothing yet"
        """Where the player was last told the game is saved."""
        self.reasons: list[tuple[int, Action, str | None]] = []
        """Each bot move since the human's last decision: (step, action, the bot's reason)."""
        self.asked: dict[int, tuple[Action, str | None]] = {}
        """The bot moves the human asked ``why`` about, by step: their reasons are told at the end."""

    def seat_name(self, seat: int) -> str:
        """``you`` or the bot's name."""
        return "you" if seat == self.me else self.agents[seat][0]

    # The loop -----------------------------------------------------------------------------

    def run(self) -> bool:
        """Play until the game ends (True) or the human quits (False)."""
        game = self.game
        title, welcome = _intro(game, self.me, self.agents, self.secret)
        self.console.rule(Text(title))
        self.say(welcome)
        if len(game):
            self.say(f"Resuming the saved game after {plural(len(game), 'action')}.", style="bold")
        self.round_header(view(game.state, self.me))
        while not is_terminal(game.state):
            state = game.state
            seat = current_player(state)
            assert seat is not None
            if is_chance_node(state):
                action = sample_chance(state, self.rng("chance"))
            elif seat != self.me:
                _, agent = self.agents[seat]
                decision = choose(agent, view(state, seat), legal_actions(state), self.rng(f"bot/{seat}"))
                action = decision.action
                self.reasons.append((len(game), action, decision.reason))
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
                    self.reasons.clear()
            self.push(action)
        self.flush_draws()
        self.final()
        return True

    def rng(self, purpose: str) -> random.Random:
        # A generator per step, from the secret's draws seed: with a chosen seed, undo and the
        # same answers give the same cards and bot moves; a secret game redraws it at an undo.
        return random.Random(f"{self.secret.draws}/{len(self.game)}/{purpose}")

    def push(self, action: Action) -> None:
        before = view(self.game.state, self.me)
        self.game.push(action)
        after = view(self.game.state, self.me)
        self.narrate(before, action, after)
        self.autosave()

    # Saving ------------------------------------------------------------------------------

    def autosave(self, durable: bool = False) -> None:
        """Save the game so far; tell the player when where it goes changes."""
        if self.saver is None:
            return
        where = self.saver.save(self.game, durable)
        if where == self.told:
            return
        self.told = where
        problem = self.saver.problem
        if where is None:
            self.say(
                f"Cannot save the record ({problem}); the game goes on and its actions will be shown at the end.",
                style="red",
            )
        elif where != self.saver.path:
            self.say(f"Cannot save the record ({problem}): saving it to {where} instead.", style="red")

    def finish(self, finished: bool) -> int:
        """The last save and what became of the record; the exit status (1: not saved)."""
        if self.saver is None or len(self.game) == 0:
            return 0
        self.flush_draws()
        self.autosave(durable=True)
        where = self.saver.where
        if where is None:
            self.say("The record could not be written anywhere. Its actions, to replay with Game.replay:", style="red")
            self.console.print(" ".join(f"'{action}'" for action in self.game.actions), markup=False, soft_wrap=True)
            return 1
        what = "The record" if finished else f"The unfinished game ({len(self.game)} actions)"
        check = "verified" if verify(where).ok else "NOT verified"
        kept = f" (with {secret_path(where).name}, kept beside it)" if self.saver.secret is not None else ""
        resume = "" if finished else f" 'meuterer play --resume {where}' goes on with it{kept};"
        self.say(f"{what} is saved to {where} ({check});{resume} 'meuterer replay {where}' shows it.")
        return 0

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question; anything but yes (or no answer) is no."""
        return self.prompt.confirm(question)

    # The human's decisions ------------------------------------------------------------------

    def decide(self, legal: tuple[Action, ...]) -> Action | str | None:
        """The human's move, ``"undo"`` after an undo, or ``None`` to quit."""
        self.flush_draws()
        v = view(self.game.state, self.me)
        self.board(v, full=False)
        self.moves(v, legal)
        while True:
            line = self.prompt.ask(f"Your move (1-{len(legal)}, a move, help, why, undo, board, quit): ")
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
            if text == "why":
                self.why()
                continue
            if text in ("board", "table"):
                self.board(v, full=True)
                self.moves(v, legal)
                continue
            if text == "undo":
                if self.undo():
                    return "undo"
                continue
            found = match_move(text, legal, v)
            if isinstance(found, str):
                self.say(found, style="red")
                continue
            return found

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
        self.reasons.clear()
        self.asked = {step: asked for step, asked in self.asked.items() if step < target}
        if not self.secret.shown:  # the cards to come are drawn afresh: undo cannot peek at them
            self.secret = self.secret.redrawn()
            self.draw_seeds.append(self.secret.draws)
        if self.saver is not None:
            self.saver.secret = self.secret
            self.saver.forget(target)
            self.autosave()
        mine = undone[-1]
        others = len(undone) - 1
        extra = f" and the {plural(others, 'action')} after it (other players' moves and draws)" if others else ""
        self.say(f"Undone: your move '{mine}'{extra}. You decide again.", style="yellow")
        self.shown_ring = None
        return True


def _intro(game: Game, me: int, agents: dict[int, tuple[str, Agent]], secret: Secret) -> tuple[str, str]:
    """The game's title line, and the welcome that says who plays and where the cards come from."""
    rules = game.rules
    bots = ", ".join(f"p{p} {name}" for p, (name, _) in agents.items())
    variant = " with pirates" if rules.pirates else ""
    title = f"Meuterer{variant}: {game.players} players, {rules.rounds_for(game.players)} rounds"
    if secret.shown:
        seed = (
            f"Seed {secret.seed}: it decides every card, so whoever knows it knows every hand "
            "(without --seed the cards come from a secret seed)."
        )
    else:
        seed = "The cards and the bots draw from a secret seed, shown when the game is over."
    return title, f"You are p{me}; the bots are {bots}. {seed} Type 'help' at any prompt."
