"""What the terminal game shows and reads, apart from the loop: the human's prompt, the
legal move a line of input names, and the board's, the moves' and the end's texts and
tables (worked out from the player's view or the finished state only).

>>> from meuterer.engine import legal_actions, new_game
>>> from meuterer.views import view
>>> state = new_game(3)
>>> v, legal = view(state, 0), tuple(legal_actions(state))
>>> match_move("1", legal, v) == legal[0], match_move("dance", legal, v)[:12]
(True, "Sorry, 'danc")
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from meuterer.actions import Action, parse_action
from meuterer.cards import counts_str
from meuterer.engine import winners
from meuterer.errors import MeutererError
from meuterer.referee import refusal
from meuterer.rulings import strengths
from meuterer.state import State, Step
from meuterer.views import PlayerView

from .render import canonical, cards, move_help, round_captain, seat_role


class Prompt:
    """Lines typed by the player on ``stdin``, each asked on ``console`` (echoed there when
    the input is not a terminal, so a transcript reads as a dialogue)."""

    def __init__(self, console: Console, stdin: TextIO) -> None:
        self.console = console
        self.stdin = stdin
        self.interactive = stdin is sys.stdin and stdin.isatty()

    def ask(self, prompt: str) -> str | None:
        """A line from the player; ``None`` at the end of the input. Ctrl-C is not the end of
        the input: :class:`KeyboardInterrupt` goes on to the caller."""
        if self.interactive:
            try:
                return self.console.input(Text(prompt, style="bold"))
            except EOFError:
                self.console.print()
                return None
        self.console.print(Text(prompt, style="bold"), end="")
        line = self.stdin.readline()
        if not line:
            self.console.print()
            return None
        self.console.print(Text(line.rstrip("\r\n")))
        return line

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question; anything but yes (or no answer) is no."""
        answer = self.ask(f"{question} [y/N] ")
        return answer is not None and answer.strip().lower() in ("y", "yes")


def match_move(text: str, legal: tuple[Action, ...], v: PlayerView) -> Action | str:
    """The legal move ``text`` names (a number or an action's text), or why there is none,
    for the player whose view ``v`` is."""
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1]
        return f"There is no move {number}: choose a number from 1 to {len(legal)}."
    prefix = f"p{v.player} "
    tries = [text] if text.startswith(prefix) or text.startswith("draw ") else [prefix + text, text]
    parsed: Action | None = None
    for attempt in tries:
        try:
            action = parse_action(canonical(attempt))
        except MeutererError:
            continue
        if action in legal:
            return legal[legal.index(action)]
        parsed = parsed or action
    if parsed is not None:
        # worded from the player's view only (the referee's): never from hidden cards
        return f"'{text}' is not a legal move now: {refusal(v, parsed)}. Type 'help' for help."
    return (
        f"Sorry, '{text}' is neither a move nor a command. Type a number from 1 to {len(legal)}, "
        "a move as listed (such as 'p0 pass' or just 'pass'), or help, why, undo, board, quit."
    )


def table_lines(v: PlayerView) -> list[str]:
    """The board's lines under the tables: the offer, the destinations, the mutiny so far,
    the deck and the discard pile."""
    lines = []
    captain = round_captain(v)
    deposed = captain != v.captain
    if v.offer is not None:
        if deposed:
            lines.append(
                f"p{captain} offered {v.offer} VP to a mate as captain; the mutiny deposed him, "
                f"and p{v.captain} holds the captain cards now."
            )
        else:
            lines.append(f"Captain p{captain} offers {v.offer} VP to a mate.")
    if v.captain_destination is not None:
        whose = f"The deposed captain p{captain}'s destination" if deposed else "The captain's destination"
        lines.append(f"{whose}: {v.island_name(v.captain_destination)}.")
    if v.mutineer_destination is not None:
        sails = " (the ship sails there)" if v.mutiny else ""
        lines.append(f"The mutineer's destination: {v.island_name(v.mutineer_destination)}{sails}.")
    if v.step is Step.MUTINY:
        captain_side, mutineer_side = strengths(v)
        lines.append(
            f"Mutiny so far: the captain's side {captain_side}, the mutineer's side {mutineer_side} "
            "(a tie goes to the mutineer)."
        )
    lines.append(f"Deck {cards(v.deck_size)}; discard pile: {counts_str(v.discard)}.")
    return lines


def hand_line(v: PlayerView, me: int) -> str:
    """The cards and role of the player in seat ``me`` (whose view ``v`` is), as the board ends."""
    role = seat_role(v, me) or "none yet"
    return f"Your hand: {counts_str(v.hand)}   face down: {counts_str(v.face_down)}   role: {role}"


def moves_table(v: PlayerView, legal: tuple[Action, ...]) -> Table:
    """The numbered legal moves, each with what it does."""
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, title_justify="left")
    table.title = "Your moves"
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("what it does")
    for number, action in enumerate(legal, 1):
        table.add_row(str(number), Text(str(action)), Text(move_help(v, action)))
    return table


def final_table(state: State, name: Callable[[int], str]) -> Table:
    """The final scores, the winners marked."""
    best = winners(state)
    table = Table(title="Final scores", box=box.SIMPLE, title_justify="left")
    table.add_column("seat")
    table.add_column("player")
    table.add_column("score", justify="right")
    table.add_column("")
    for p, score in enumerate(state.scores):
        table.add_row(f"p{p}", name(p), str(score), "winner" if p in best else "")
    return table


def verdict(state: State, me: int, name: Callable[[int], str]) -> str:
    """Who won, told to the player in seat ``me``."""
    best = winners(state)
    names = " and ".join(f"p{p} ({name(p)})" for p in best)
    if me in best:
        return "You win!" if len(best) == 1 else f"You share the win: {names}."
    label = "Winner" if len(best) == 1 else "Winners (tied)"
    return f"{label}: {names} with {state.scores[best[0]]} points."
