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
from meuterer.phases.voyage import discard_pool, draw_pool
from meuterer.state import State, Step

# What each step waits for and the action types it takes: from the machine's step specs.
_STEP_EXPECTS: dict[Step, str] = {step: spec.expects for step, spec in STEPS.items() if spec.takes}
_STEP_TAKES: dict[Step, tuple[type[Action], ...]] = {step: spec.takes for step, spec in STEPS.items() if spec.takes}


def why_illegal(state: State, action: object) -> str:
    """Why ``action`` is not legal in ``state`` (assuming it is not)."""
    if not isinstance(action, ACTION_TYPES):
        return f"not an action but a {type(action).__name__} (parse text with meuterer.parse_action)"
    if state.step is Step.GAME_OVER:
        return "the game is over"
    expected = _STEP_EXPECTS.get(state.step, state.step.value).format(p=state.to_act)
    if action.player >= state.players:
        return f"there is no seat p{action.player} in a {state.players}-player game"
    wanted = _STEP_TAKES.get(state.step, ())
    if isinstance(action, ArrangeRing) and isinstance(action, wanted):
        return "not an arrangement of the ring: Hochland first, then each other island once"
    if not isinstance(action, wanted) or action.player != state.to_act:
        return f"the game expects {expected}"
    detail = _DETAILS.get(type(action))
    reason = detail(state, action) if detail is not None else None
    return reason or f"not one of the legal actions in {expected}"


def _draw(state: State, action: Draw) -> str | None:
    where = "deck" if any(state.deck) else "discard pile (the deck is empty and is reshuffled from it)"
    if not draw_pool(state)[action.card]:
        return f"no {action.card} is left in the {where}"
    return None


def _offer(state: State, action: Offer) -> str:
    return f"the offer is a number from 0 to {state.rules.max_offer}, not {action.amount}"


def _play(state: State, action: Play) -> str:
    return f"p{action.player} cannot play {action.card}: no {action.card} in hand"


def _role(state: State, action: ChooseRole) -> str:
    return f"the {action.role} role is already taken this round"


def _support(state: State, action: Support) -> str:
    have = state.face_down[action.player][Card.SUPPORT]
    return f"p{action.player} has {have} support card(s) face down and cannot add {action.count}"


def _sell(state: State, action: Sell) -> str | None:
    positions = []
    for sale in action.sales:
        position = state.position_of(sale.island)
        if position is None:
            return f"there is no island {sale.island!r}"
        if position not in state.active:
            return f"{sale.island} is not active this round"
        if not state.island(position).buys_card(sale.card):
            return f"{sale.island} does not buy {sale.card}"
        if sale.count < 1:
            return "each sale sells at least one card"
        positions.append(position)
    if positions != sorted(set(positions)):
        return "name each island once, in ascending ring position (one kind of good per island)"
    goods = state.face_up[action.player]
    sold = counts_of(sale.card for sale in action.sales for _ in range(sale.count))
    for card in GOODS:
        if sold[card] > goods[card]:
            return f"p{action.player} has {goods[card]} {card} face up, not {sold[card]}"
    if not state.rules.withholding:
        return (
            "he must sell what he can: every face-up card of a declared kind, "
            "and on every active island that buys one of his goods"
        )
    return None


def _discard(state: State, action: Discard) -> str | None:
    extra = state.rules.loadmaster_extra
    if len(action.cards) != extra:
        return f"the loadmaster discards exactly {extra} cards"
    if list(action.cards) != sorted(action.cards):
        return "list the cards in canonical order: " + " ".join(map(str, CARDS))
    pool, chosen = discard_pool(state), counts_of(action.cards)
    for card in CARDS:
        if chosen[card] > pool[card]:
            source = "the cards he just drew" if pool is state.drawn else "his hand"
            return f"cannot discard {chosen[card]} {card}: {source} hold(s) {pool[card]}"
    return None


_DETAILS: dict[type, Callable[[State, Any], str | None]] = {
    Draw: _draw,
    Offer: _offer,
    Play: _play,
    ChooseRole: _role,
    Support: _support,
    Sell: _sell,
    Discard: _discard,
}
