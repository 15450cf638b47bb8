"""The table's texts in words: every action button, log line and hint a seat is sent names
islands, cards and roles as a person reads them ("Karge Zunge", "cabin boy"), never in the
record's notation (``karge_zunge``, ``cabin_boy``, ``p2 sell hochland:ruby:1``).

The words are the terminal game's (:mod:`meuterer.cli.play.render` and its narrator) with
the islands' names as the board prints them (:func:`meuterer.svg.island_title`); each is
made from the seat's own view, so a seat learns nothing more from the words than from it.

>>> from meuterer.actions import parse_action
>>> from meuterer.engine import new_game
>>> from meuterer.views import view
>>> v = view(new_game(3), 0)
>>> label(v, parse_action("p0 offer 2")), label(v, parse_action("p1 sell hochland:ruby:1,karge_zunge:grain:2"))
('Offer 2 VP', 'Sell 1 ruby on Hochland and 2 grain on Karge Zunge')
>>> label(v, parse_action("p1 discard cloth cloth ruby")), label(v, parse_action("p1 role cabin_boy"))
('Discard cloth, cloth, ruby', 'Take the role: cabin boy')
>>> plain("the ship sails to karge_zunge; p1 is the cabin_boy")
'the ship sails to Karge Zunge; p1 is the cabin boy'
"""

from __future__ import annotations

import re
from typing import Final

from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sell, Support
from meuterer.cards import Role
from meuterer.cli.play.narrate import Narrator
from meuterer.cli.play.render import article, cards, role_name, sales_text
from meuterer.islands import ISLAND_NAMES
from meuterer.svg import island_title
from meuterer.views import PlayerView

__all__ = ["NOTATION", "WordsNarrator", "label", "plain"]

_NAMES: Final = re.compile(
    r"\b(" + "|".join(sorted((*ISLAND_NAMES, *(str(r) for r in Role if "_" in str(r))), key=len, reverse=True)) + r")\b"
)

NOTATION: Final = re.compile(
    r"\bp\d+ (offer|play|pass|role|support|sell|discard|draw) |\w+:\w+:\d|"
    + r"\b("
    + "|".join(ISLAND_NAMES)
    + r")\b|\b\w+_\w+\b"
)
"""What record notation looks like in a text: an action (``p2 sell ...``), a sale
(``hochland:ruby:1``), an island's notation name, or a name with an underscore (``cabin_boy``)."""


def _word(match: re.Match[str]) -> str:
    name = match.group(1)
    return name.replace("_", " ") if name in {str(r) for r in Role} else island_title(name)


def plain(text: str) -> str:
    """``text`` with every island's and role's notation name in words."""
    return _NAMES.sub(_word, text)


def label(v: PlayerView, action: Action) -> str:
    """The button of ``action`` for the seat whose view is ``v``: what it does, in a few words."""
    if isinstance(action, Offer):
        return f"Offer {action.amount} VP"
    if isinstance(action, Play):
        return f"Play {article(action.card)}"
    if isinstance(action, Pass):
        return f"Pass with {cards(v.hand_sizes[action.player])} face down"
    if isinstance(action, ChooseRole):
        return f"Take the role: {role_name(action.role)}"
    if isinstance(action, Support):
        return "Add no support" if not action.count else f"Turn {action.count} support card(s) face up"
    if isinstance(action, Sell):
        return "Sell " + plain(sales_text(action.sales))
    if isinstance(action, Discard):
        return "Discard " + (", ".join(map(str, action.cards)) or "nothing")
    return plain(str(action))


class WordsNarrator(Narrator):
    """The terminal game's narrator, telling islands and roles by their names in words and a
    loadmaster's discards as a list."""

    bot: str | None = None
    """While an action a bot made for a human seat is told: the bot's spec (the line then
    names the bot, never "You")."""
    _acting: int = -1

    def say(self, text: str, style: str | None = None) -> None:
        super().say(plain(text), style)

    def who(self, seat: int) -> str:
        if self.bot is not None and seat == self._acting:
            whose = "Your" if seat == self.me else f"p{seat}'s"
            return f"{whose} stand-in (bot: {self.bot})"
        return super().who(seat)

    def does(self, seat: int, verb: str, third: str | None = None) -> str:
        if self.bot is not None and seat == self._acting:
            return f"{self.who(seat)} {third or verb + 's'}"
        return super().does(seat, verb, third)

    def narrate(self, before: PlayerView, action: Action, after: PlayerView, bot: str | None = None) -> None:
        """Tell ``action``; ``bot``: the spec of the stand-in bot that made it for its human seat."""
        self.bot, self._acting = bot, action.player
        try:
            self._narrate(before, action, after)
        finally:
            self.bot = None

    def _narrate(self, before: PlayerView, action: Action, after: PlayerView) -> None:
        p = action.player
        if isinstance(action, ChooseRole) and p == self.me and self.bot is not None:
            self.say(f"{self.does(p, 'take')} the role: {role_name(action.role)}")
        elif not isinstance(action, Discard):
            super().narrate(before, action, after)
            return
        else:
            who = self.does(p, "discard") if p == self.me else f"p{p} (loadmaster) discards"
            self.say(f"{who} {', '.join(map(str, action.cards)) or 'nothing'}")
        self.events(before, action, after)
