"""What a legal action is about on the board, and whether it asks to be confirmed.

The table page lets its player click the things a move is about: a card of his panel, an
island, a role card. Each legal action in a frame says which, made here from the typed
action and the seat's own view, never from the notation: a list of *things*, each a dict
with some of ``card`` (and ``pile``, the row of the seat's panel it comes from: ``hand``,
``drawn``, ``face_up``, ``face_down``; and ``count``, how many), ``island`` and ``role``,
named as the board's ``data-card``, ``data-pile``, ``data-island`` and ``data-role`` name
them (see :mod:`meuterer.svg`). A move about nothing on the board (an offer, a pass, no
support) is about ``[]``. Every card named is one of the seat's own or face up: an action
is about what the seat chose it from.

>>> from meuterer.actions import parse_action
>>> from meuterer.engine import new_game
>>> from meuterer.views import view
>>> v = view(new_game(3), 1)
>>> about(v, parse_action("p1 play ruby")), about(v, parse_action("p1 role cabin_boy"))
([{'card': 'ruby', 'pile': 'hand', 'count': 1}], [{'role': 'cabin_boy'}])
>>> about(v, parse_action("p1 sell hochland:grain:2"))
[{'island': 'hochland', 'card': 'grain', 'pile': 'face_up', 'count': 2}]
>>> about(v, parse_action("p1 discard cloth cloth ruby")), about(v, parse_action("p1 offer 2"))
([{'card': 'ruby', 'pile': 'drawn', 'count': 1}, {'card': 'cloth', 'pile': 'drawn', 'count': 2}], [])
>>> confirm(v, parse_action("p1 role mate"))
'Take the role: mate? You keep it for the whole round.'
"""

from __future__ import annotations

from collections import Counter

from meuterer.actions import Action, ChooseRole, Discard, Pass, Play, Sell, Support
from meuterer.cards import Card
from meuterer.cli.play.render import cards, role_name
from meuterer.rules import DiscardPool
from meuterer.views import PlayerView

__all__ = ["Thing", "about", "confirm"]

Thing = dict[str, str | int]
"""One thing on the board a move is about (see the module's text)."""


def _cards(card: Card, pile: str, count: int = 1) -> Thing:
    return {"card": str(card), "pile": pile, "count": count}


def about(v: PlayerView, action: Action) -> list[Thing]:
    """The things on the board that ``action``, legal in ``v``, is about."""
    if isinstance(action, Play):
        return [_cards(action.card, "hand")]
    if isinstance(action, ChooseRole):
        return [{"role": str(action.role)}]
    if isinstance(action, Support):
        return [_cards(Card.SUPPORT, "face_down", action.count)] if action.count else []
    if isinstance(action, Sell):
        return [{"island": sale.island, **_cards(sale.card, "face_up", sale.count)} for sale in action.sales]
    if isinstance(action, Discard):
        pile = "drawn" if v.rules.discard_pool is DiscardPool.DRAWN else "hand"
        return [_cards(card, pile, count) for card, count in sorted(Counter(action.cards).items())]
    return []


def confirm(v: PlayerView, action: Action) -> str | None:
    """The question the page asks before it sends ``action``, for a move that gives up a
    choice for the round (passing while holding cards, taking a role); ``None`` for others."""
    if isinstance(action, Pass) and v.hand_sizes[action.player]:
        held = cards(v.hand_sizes[action.player])
        return f"Pass with {held} face down? You play no more cards this round."
    if isinstance(action, ChooseRole):
        return f"Take the role: {role_name(action.role)}? You keep it for the whole round."
    return None
