"""Plain-words reasons why an action is illegal.

Legality itself is decided only by :func:`meuterer.legal_actions`; this module is
consulted after an action was found illegal, to say why as precisely as it can.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from meuterer.actions import (
    ACTION_TYPES,
    Action,
    ArrangeRing,
    ChooseRole,
    Discard,
    Draw,
    Offer,
    Play,
    Sell,
    Support,
)
from meuterer.cards import CARDS, GOODS, Card, counts_of
from meuterer.machine import STEPS
from meuterer.phases.scoring import sale_declarations
from meuterer.phases.voyage import discard_pool, draw_pool
from meuterer.state import State, Step

# What each step waits for and the action types it takes: from the machine's step specs.
_STEP_EXPECTS: dict[Step, str] = {step: spec.expects for step, spec in STEPS.items() if spec.takes}
_STEP_TAKES: dict[Step, tuple[type[Action], ...]] = {step: spec.takes for step, spec in STEPS.items() if spec.takes}


def why_illegal(state: State, action: object) -> str:
    """Why ``action`` is not legal in ``state`` (assuming it is not)."""
    return refusal(state, action)[1]


def refusal(state: State, action: object) -> tuple[str, str]:
    """The stable refusal code (a key of :data:`meuterer.errors.REFUSAL_CODES`) and the
    plain-words reason why ``action`` is not legal in ``state`` (assuming it is not).

    The code is the first that applies, in the order ``docs/protocol.md`` lists.

    >>> import meuterer
    >>> state = meuterer.new_game(players=3)
    >>> refusal(state, meuterer.parse_action("draw p1 ruby"))
    ('not-your-turn', 'the game expects the deal: a card drawn for p0')
    """
    if not isinstance(action, ACTION_TYPES):
        return "malformed", f"not an action but a {type(action).__name__} (parse text with meuterer.parse_action)"
    if state.step is Step.GAME_OVER:
        return "game-over", "the game is over"
    expected = _STEP_EXPECTS.get(state.step, state.step.value).format(p=state.to_act)
    if action.player >= state.players:
        return "no-such-seat", f"there is no seat p{action.player} in a {state.players}-player game"
    wanted = _STEP_TAKES.get(state.step, ())
    if isinstance(action, ArrangeRing) and isinstance(action, wanted):
        return "not-an-arrangement", "not an arrangement of the ring: Hochland first, then each other island once"
    if not isinstance(action, wanted):
        return "wrong-step", f"the game expects {expected}"
    if action.player != state.to_act:
        return "not-your-turn", f"the game expects {expected}"
    detail = _DETAILS.get(type(action))
    found = detail(state, action) if detail is not None else None
    return found or ("not-legal", f"not one of the legal actions in {expected}")


def _draw(state: State, action: Draw) -> tuple[str, str] | None:
    where = "deck" if any(state.deck) else "discard pile (the deck is empty and is reshuffled from it)"
    if not draw_pool(state)[action.card]:
        return "not-in-deck", f"no {action.card} is left in the {where}"
    return None


def _offer(state: State, action: Offer) -> tuple[str, str]:
    return "out-of-range", f"the offer is a number from 0 to {state.rules.max_offer}, not {action.amount}"


def _play(state: State, action: Play) -> tuple[str, str]:
    return "not-in-hand", f"p{action.player} cannot play {action.card}: no {action.card} in hand"


def _role(state: State, action: ChooseRole) -> tuple[str, str]:
    return "role-taken", f"the {action.role} role is already taken this round"


def _support(state: State, action: Support) -> tuple[str, str]:
    have = state.face_down[action.player][Card.SUPPORT]
    return "out-of-range", f"p{action.player} has {have} support card(s) face down and cannot add {action.count}"


def _sell(state: State, action: Sell) -> tuple[str, str] | None:
    positions = []
    for sale in action.sales:
        position = state.position_of(sale.island)
        if position is None:
            return "no-such-island", f"there is no island {sale.island!r}"
        if position not in state.active:
            return "island-inactive", f"{sale.island} is not active this round"
        if not state.island(position).buys_card(sale.card):
            return "not-bought", f"{sale.island} does not buy {sale.card}"
        if sale.count < 1:
            return "out-of-range", "each sale sells at least one card"
        positions.append(position)
    if positions != sorted(set(positions)):
        return "bad-order", "name each island once, in ascending ring position (one kind of good per island)"
    goods = state.face_up[action.player]
    islands = tuple((state.island_name(position), state.island(position)) for position in state.active)
    if action.sales not in sale_declarations(goods, islands, True):  # the rule: at most the goods shown
        sold = counts_of(sale.card for sale in action.sales for _ in range(sale.count))
        card = max(GOODS, key=lambda c: sold[c] > goods[c])  # for the wording: the first kind oversold
        return "not-face-up", f"p{action.player} has {goods[card]} {card} face up, not {sold[card]}"
    if not state.rules.withholding:
        return "must-sell", (
            "he must sell what he can: every face-up card of a declared kind, "
            "and on every active island that buys one of his goods"
        )
    return None


def _discard(state: State, action: Discard) -> tuple[str, str] | None:
    extra = state.rules.loadmaster_extra
    if len(action.cards) != extra:
        return "wrong-count", f"the loadmaster discards exactly {extra} cards"
    if list(action.cards) != sorted(action.cards):
        return "bad-order", "list the cards in canonical order: " + " ".join(map(str, CARDS))
    pool, chosen = discard_pool(state), counts_of(action.cards)
    for card in CARDS:
        if chosen[card] > pool[card]:
            source = "the cards he just drew" if pool is state.drawn else "his hand"
            return "not-in-hand", f"cannot discard {chosen[card]} {card}: {source} hold(s) {pool[card]}"
    return None


_DETAILS: dict[type, Callable[[State, Any], tuple[str, str] | None]] = {
    Draw: _draw,
    Offer: _offer,
    Play: _play,
    ChooseRole: _role,
    Support: _support,
    Sell: _sell,
    Discard: _discard,
}
