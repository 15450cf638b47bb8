"""The narration of the terminal game: each action and what followed from it, told from
the human's views only (another player's draw is a card, not which one)."""

from __future__ import annotations

from collections.abc import Callable

import attrs
from rich.console import Console
from rich.text import Text

from meuterer.actions import Action, ChooseRole, Discard, Draw, Offer, Pass, Play, Sell, Support
from meuterer.cards import Card, Role
from meuterer.rulings import robbery, strengths
from meuterer.state import Step
from meuterer.views import PlayerView

from .render import article, buys, cards, destination, role_name, sales_text, steps

RESHUFFLED = "The deck is empty: the discard pile is shuffled into a new deck."


class Narrator:
    """Tells a game on ``console`` to the player in seat ``me``; ``name(seat)`` is the name
    of a seat's player."""

    def __init__(self, console: Console, me: int, name: Callable[[int], str]) -> None:
        self.console = console
        self.me = me
        self.name = name
        self.draws: tuple[int, list[Card | None]] | None = None
        """Consecutive draws of one player not yet told: (seat, the cards, ``None`` for another's)."""

    def say(self, text: str, style: str | None = None) -> None:
        self.flush_draws()
        self.console.print(Text(text, style=style or ""))

    def who(self, seat: int) -> str:
        return "You" if seat == self.me else f"p{seat}"

    def does(self, seat: int, verb: str, third: str | None = None) -> str:
        """``You play`` or ``p2 plays``."""
        return f"{self.who(seat)} {verb if seat == self.me else third or verb + 's'}"

    def draws_text(self) -> str | None:
        """The line that tells the draws not yet told (``p1 draws 5 cards``), or ``None``."""
        if self.draws is None:
            return None
        seat, drawn = self.draws
        if seat == self.me:
            return f"You draw {', '.join(str(card) for card in drawn)}"
        return f"p{seat} draws {'a card' if len(drawn) == 1 else cards(len(drawn))}"

    def flush_draws(self) -> None:
        text = self.draws_text()
        if text is None:
            return
        self.draws = None
        self.console.print(Text(text, style="dim"))

    # Narration ------------------------------------------------------------------------------

    def narrate(self, before: PlayerView, action: Action, after: PlayerView) -> None:
        """Tell ``action`` and what followed from it, from the human's views only."""
        p = action.player
        if isinstance(action, Draw):
            # Told in the record's order: a reshuffle before this draw (an empty deck) ends
            # the group of draws told so far; one right after it (rule "when_empty") follows it.
            if before.deck_size == 0:
                self.say(RESHUFFLED, style="dim")
            if self.draws is not None and self.draws[0] != p:
                self.flush_draws()
            if self.draws is None:
                self.draws = (p, [])
            self.draws[1].append(action.card if p == self.me else None)  # another's card is secret
            if before.deck_size and after.deck_size >= before.deck_size:
                self.say(RESHUFFLED, style="dim")
        elif isinstance(action, Offer):
            self.say(f"{self.does(p, 'offer')} {action.amount} VP to a mate")
        elif isinstance(action, Play):
            left = before.hand_sizes[p] - 1
            self.say(f"{self.does(p, 'play')} {article(action.card)} ({cards(left)} left in hand)")
            if action.card is Card.PIRATE and after.pirate is not None:
                if after.pirate != before.pirate:
                    self.say(f"The pirate ship sails counter-clockwise to {after.island_name(after.pirate)}")
                if robbery(before, left):
                    self.say("The pirates rob the merchant ship: every face-up card goes to the discard pile!")
        elif isinstance(action, Pass):
            n = before.hand_sizes[p]
            text = f"{self.does(p, 'pass', 'passes')} with {cards(n)} face down"
            if p == before.captain:
                text += f": the captain's destination is {destination(before, n)}"
            elif p != self.me:
                text += " and takes a role"
            self.say(text)
        elif isinstance(action, ChooseRole):
            if p == self.me:
                self.say(f"You take the role: {role_name(action.role)}")
        elif isinstance(action, Support):
            if action.count:
                self.say(f"{self.does(p, 'turn')} {action.count} support card(s) face up")
            else:
                self.say(f"{self.does(p, 'add')} no support")
        elif isinstance(action, Sell):
            self.say(f"{self.does(p, 'declare')}: {sales_text(action.sales)}")
        elif isinstance(action, Discard):
            who = "You discard" if p == self.me else f"p{p} (loadmaster) discards"
            self.say(f"{who} {' '.join(map(str, action.cards))}")
        self.events(before, action, after)

    def events(self, before: PlayerView, action: Action, after: PlayerView) -> None:
        """What happened by itself after ``action``: reveal, mutiny, points, sailing, a new round."""
        if not before.roles_revealed and after.roles_revealed:
            roles = ", ".join(f"p{p} {role_name(role)}" for p, role in enumerate(after.roles) if role is not None)
            self.say(f"Everyone has passed. Roles: {roles} (p{after.captain} is the captain)", style="bold")
            if after.mutineer_destination is not None:
                mutineer = after.roles.index(Role.MUTINEER)
                n = steps(after, after.mutineer_destination)
                self.say(f"Mutiny! p{mutineer}'s destination is {destination(after, n)}", style="bold")
            else:
                self.say("Nobody mutinies: the captain keeps the ship.")
        if before.mutiny is None and after.mutiny is not None:
            # The sides as they stood when the mutiny was decided: the round's captain
            # (the captain cards may have passed to the mutineer since).
            captain_side, mutineer_side = strengths(attrs.evolve(after, captain=before.captain))
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

        if after.round != before.round:
            self.round_header(after)

    def deltas(self, v: PlayerView, delta: list[int]) -> str:
        parts = []
        for p, d in enumerate(delta):
            if not d:
                continue
            role = v.roles[p]
            label = role_name(role) if role is not None else "captain" if p == v.captain else ""
            parts.append(f"p{p}{' (' + label + ')' if label else ''} {d:+d}")
        return ", ".join(parts) or "nobody scores"

    def round_header(self, v: PlayerView) -> None:
        self.flush_draws()
        total = v.rules.rounds_for(v.players)
        active = ", ".join(
            f"{v.island_name(pos)} (buys {buys(v, pos)}, {'/'.join(map(str, v.island(pos).values))})"
            for pos in v.active
        )
        self.console.rule(Text(f"Round {v.round} of {total}: captain p{v.captain}"))
        self.say(f"The ship lies at {v.island_name(v.start)}. Active islands: {active}")

    # The board ------------------------------------------------------------------------------
