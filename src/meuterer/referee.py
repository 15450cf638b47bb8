"""The referee: the one API to expose to players, whose answers never leak hidden cards.

:func:`meuterer.apply` explains a refusal from the whole state, hidden cards included:
asked to apply ``p1 support 2`` it may answer "p1 has 0 support card(s) face down", and
asked for a draw, "no wine is left in the deck". That is right for a program that owns
the game, and wrong for a server that takes actions from players. A server calls
:func:`apply_as` instead, naming the seat that sent the action: the action is checked
and explained from that player's :func:`~meuterer.views.view` only, so two states he
cannot tell apart give him the same answer (accepted, or refused with the same words).

A player acts only for his own seat, only when it is his turn, and never makes a chance
draw (the dealer, that is the server, draws with :func:`meuterer.sample_chance`).

>>> import meuterer
>>> from meuterer.referee import apply_as, refusal
>>> from meuterer.views import view
>>> actions, _ = meuterer.random_game(seed=7, players=4)
>>> state = meuterer.Game.replay(actions[:20], players=4).state
>>> print(refusal(view(state, 0), meuterer.parse_action("p1 pass")))
p0 may act only for p0, not for p1
>>> print(refusal(view(state, 0), meuterer.parse_action("draw p0 wine")))
cards are drawn by the dealer (a chance action), never by a player
>>> after = apply_as(state, "p0 offer 2", 0)
>>> after.offer
2
"""

from __future__ import annotations

import random

from meuterer import engine
from meuterer.actions import ACTION_TYPES, Action, ArrangeRing, Draw, parse_action
from meuterer.errors import IllegalActionError
from meuterer.explain import refusal as _state_refusal
from meuterer.state import State, Step
from meuterer.views import PlayerView, sample_state, view

__all__ = ["apply_as", "check_as", "refusal", "refusal_code"]


def refusal(v: PlayerView, action: object) -> str | None:
    """Why the viewer of ``v`` may not take ``action`` now, in plain words, or ``None``
    when he may. A function of the view and the action only (nothing hidden from him)."""
    found = refusal_code(v, action)
    return None if found is None else found[1]


def refusal_code(v: PlayerView, action: object) -> tuple[str, str] | None:
    """:func:`refusal` with its stable code first (a key of
    :data:`meuterer.errors.REFUSAL_CODES`): ``("not-your-seat", "p0 may act only ...")``."""
    if not isinstance(action, ACTION_TYPES):
        return "malformed", f"not an action but a {type(action).__name__} (parse text with meuterer.parse_action)"
    p = v.player
    if p is None:
        return "spectator", "a spectator takes no action"
    if isinstance(action, Draw | ArrangeRing):
        return "chance-action", "cards are drawn by the dealer (a chance action), never by a player"
    if action.player != p:
        return "not-your-seat", f"p{p} may act only for p{p}, not for p{action.player}"
    if v.step is Step.GAME_OVER:
        return "game-over", "the game is over"
    if action in v.legal_actions():
        return None
    # Explain from a stand-in: a state with the same view, drawn the same way every time.
    return _state_refusal(sample_state(v, random.Random(0)), action)


def check_as(state: State, action: Action | str, player: int) -> Action:
    """The action ``player`` may take now (typed, as the engine lists it), or raise.

    Raises :class:`~meuterer.errors.ActionParseError` for text that is not an action,
    :class:`~meuterer.views.ViewError` for a ``player`` who is not a seat, and
    :class:`~meuterer.errors.IllegalActionError` whose reason and code are
    :func:`refusal_code`'s (computed from ``view(state, player)`` only).
    """
    typed = parse_action(action) if isinstance(action, str) else action
    v = view(state, player)
    found = refusal_code(v, typed)
    if found is not None:
        raise IllegalActionError(typed, found[1], found[0])
    legal = engine.legal_actions(state)
    if typed not in legal:  # a view's legal actions are the state's: this never happens
        raise IllegalActionError(typed, "not one of the legal actions now")
    return legal[legal.index(typed)]


def apply_as(state: State, action: Action | str, player: int) -> State:
    """:func:`meuterer.apply` for an action sent by seat ``player``; every refusal is
    explained from his view only (see :func:`check_as`). The API to expose to players."""
    return engine.apply(state, check_as(state, action, player))
