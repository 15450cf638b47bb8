"""Human-readable accounts of games, round by round.

>>> import meuterer
>>> from meuterer.narrate import narrate
>>> actions, final = meuterer.random_game(seed=7, players=3)
>>> lines = narrate(actions, players=3)
>>> lines[0]
'Round 1 — captain p0, ship at hochland, active: hochland'
>>> lines[-1].startswith("Winner")
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from meuterer.actions import Action, Offer, Pass, Sell, Support
from meuterer.cards import counts_str
from meuterer.engine import apply, new_game, winners
from meuterer.errors import MeutererError
from meuterer.record import display
from meuterer.rules import Rules
from meuterer.state import Phase, State


def _names(state: State, positions: Iterable[int]) -> str:
    return ", ".join(state.island_name(p) for p in positions)


def _scores(state: State) -> str:
    return "  ".join(f"p{p} {score}" for p, score in enumerate(state.scores))


def narrate(
    actions: Iterable[Action], players: int = 4, first_captain: int = 0, rules: Rules | None = None
) -> list[str]:
    """Replay ``actions`` from a new game and describe each round in a few lines."""
    state = new_game(players, first_captain, rules)
    lines: list[str] = []
    round_start = state
    for action in actions:
        before, state = state, apply(state, action)
        if isinstance(action, Offer):
            round_start = before
            lines.append(
                f"Round {before.round} — captain p{before.captain}, ship at {before.island_name(before.start)}, "
                f"active: {_names(before, before.active)}"
            )
            lines.append(f"  p{action.player} offers {action.amount} to a mate")
        elif isinstance(action, Pass):
            text = f"  p{action.player} passes with {sum(before.hands[action.player])} card(s) face down"
            if action.player == before.captain:
                assert state.captain_destination is not None
                text += f"; the captain's destination is {state.island_name(state.captain_destination)}"
            lines.append(text)
        if before.phase is Phase.PLAY and state.phase is not Phase.PLAY:
            lines.extend(_reveal(state))
        elif isinstance(action, Support) and action.count:
            lines.append(f"  p{action.player} adds {action.count} support card(s)")
        elif isinstance(action, Sell) and not before.queue:
            lines.extend(_round_end(round_start, before, action, state))
    return lines


def _reveal(state: State) -> list[str]:
    roles = ", ".join(f"p{p} {role}" for p, role in enumerate(state.roles) if role is not None)
    lines = [f"  Everyone has passed. Roles: {roles or 'none'}"]
    played = "; ".join(f"p{p} {counts_str(cards)}" for p, cards in enumerate(state.face_up))
    lines.append(f"  Face up: {played}")
    if state.mutineer_destination is not None:
        lines.append(f"  Mutiny! The mutineer's destination is {state.island_name(state.mutineer_destination)}")
    return lines


def _round_end(round_start: State, before: State, last: Sell, after: State) -> list[str]:
    lines = []
    if before.mutiny is not None:
        lines.append("  The mutiny " + ("succeeds" if before.mutiny else "fails"))
    sales = before.sales[: last.player] + (last.sales,) + before.sales[last.player + 1 :]
    declared = "; ".join(
        f"p{p} " + (", ".join(f"{s.count} {s.card} on {s.island}" for s in sale or ()) or "nothing")
        for p, sale in enumerate(sales)
    )
    lines.append(f"  Sales: {declared}")
    gained = "  ".join(
        f"p{p} {new - old:+d}" for p, (old, new) in enumerate(zip(round_start.scores, after.scores, strict=True))
    )
    lines.append(f"  Points this round: {gained}")
    lines.append(f"  Scores: {_scores(after)}")
    if after.phase is Phase.GAME_OVER:
        best = winners(after)
        label = "Winner" if len(best) == 1 else "Winners (tied)"
        lines.append(f"{label}: " + ", ".join(f"p{p}" for p in best) + f" with {after.scores[best[0]]} points")
    return lines


def table(state: State, names: Sequence[str] | None = None) -> list[str]:
    """The whole table of ``state`` in a few lines (every hand shown: for replays and referees)."""
    seats = [f"p{p}" for p in range(state.players)]
    if names is not None:
        shown = [display(name) for name in names]  # no terminal control in a seat name
        seats = [seat if name == seat else f"{seat} {name}" for seat, name in zip(seats, shown, strict=True)]
    offer = "no offer yet" if state.offer is None else f"offer {state.offer}"
    lines = [f"round {state.round}, phase {int(state.phase)} ({state.phase}) — captain p{state.captain}, {offer}"]
    islands = ", ".join(_island(state, p) for p in state.active)
    lines.append(f"  ship at {state.island_name(state.start)}; active: {islands}")
    destinations = [
        f"{who}'s destination {state.island_name(pos)}"
        for who, pos in (("captain", state.captain_destination), ("mutineer", state.mutineer_destination))
        if pos is not None
    ]
    if destinations:
        lines.append("  " + ", ".join(destinations))
    for p in range(state.players):
        role = state.roles[p]
        label = "captain" if p == state.captain else (str(role) if role is not None else "-")
        status = " (passed)" if state.passed[p] else ""
        lines.append(
            f"  {seats[p]}: score {state.scores[p]}, {label}{status}; hand {counts_str(state.hands[p])}; "
            f"face up {counts_str(state.face_up[p])}; face down {counts_str(state.face_down[p])}"
        )
    lines.append(f"  deck {sum(state.deck)} cards, discard pile {sum(state.discard)} cards")
    return lines


def _island(state: State, position: int) -> str:
    island = state.island(position)
    buys = "any good" if island.buys is None else str(island.buys)
    return f"{island.name} (buys {buys}, {'/'.join(map(str, island.values))}, ship {island.ship})"


def replay_lines(
    actions: Sequence[Action],
    players: int = 4,
    first_captain: int = 0,
    rules: Rules | None = None,
    names: Sequence[str] | None = None,
    stop: int | None = None,
) -> list[str]:
    """Every action of a game with the table after each phase (up to ``stop`` actions), then
    the scores: what ``meuterer replay`` prints."""
    state = new_game(players, first_captain, rules)
    lines = table(state, names)
    shown = actions if stop is None else actions[:stop]
    for index, action in enumerate(shown):
        before = state
        try:
            state = apply(state, action)
        except MeutererError as error:
            error.add_note(f"at action {index + 1} of the record")
            raise
        lines.append(f"[{index + 1}] {action}")  # actions are numbered from 1 everywhere
        if state.phase is not before.phase or index == len(shown) - 1:
            lines.extend(table(state, names))
    lines.append("scores: " + _scores(state))
    if state.phase is Phase.GAME_OVER:
        lines.append("winners: " + ", ".join(f"p{p}" for p in winners(state)))
    return lines
