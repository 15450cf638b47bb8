"""The engine API: start a game, list legal actions, apply actions, read results.

>>> import meuterer
>>> s = meuterer.new_game(players=3, first_captain=1)
>>> meuterer.current_player(s) == meuterer.CHANCE, s.phase.name
(True, 'DEAL')
>>> sum(p for _, p in meuterer.chance_outcomes(s))
Fraction(1, 1)
>>> s = meuterer.apply(s, meuterer.parse_action("draw p1 grain"))
>>> s.hands[1]
(0, 0, 0, 0, 1, 0, 0)
>>> actions, final = meuterer.random_game(seed=7, players=4, first_captain=0)
>>> meuterer.is_terminal(final), final.round
(True, 8)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import repeat
from operator import is_
from typing import Final, Protocol

from meuterer.actions import Action
from meuterer.errors import IllegalActionError, MeutererError
from meuterer.explain import refusal
from meuterer.machine import ADVANCE, INITIAL_STATE, STEPS, TABLE, Actor, Table
from meuterer.rules import Rules
from meuterer.rulings import winners as _winners
from meuterer.state import State, Step, fields_of, new_snapshot, store_fields

CHANCE: Final = -1
"""What :func:`current_player` returns at a chance node (a card is drawn)."""

_AUTOMATIC = frozenset(step for step, spec in STEPS.items() if spec.actor is Actor.AUTOMATIC)
_CHANCE_STEPS = frozenset(step for step, spec in STEPS.items() if spec.actor is Actor.CHANCE)
# random_game's movers: the chance sampler or the legal-action generator of each step
# where the game rests (a state is never left on an automatic step).
_MOVERS = {step: (spec.sample, spec.legal or (lambda state: ())) for step, spec in STEPS.items()}
_LEGAL = {step: spec.legal for step, spec in STEPS.items()}


def new_game(players: int = 4, first_captain: int = 0, rules: Rules | None = None) -> State:
    """The state before the deal (a chance node: the captain draws first).

    Raises :class:`~meuterer.errors.SetupError` for a player count other than 3 or 4
    or a first captain who is not a seat.
    """
    return INITIAL_STATE(players, first_captain, rules)


def current_player(state: State) -> int | None:
    """The seat to decide, :data:`CHANCE` when a card is drawn, ``None`` when the game is over."""
    step = state.step
    if step is Step.GAME_OVER:
        return None
    if step in _CHANCE_STEPS:
        return CHANCE
    return state.to_act


def is_terminal(state: State) -> bool:
    """Whether the game is over (after phase 5 of the last round)."""
    return state.step is Step.GAME_OVER


def is_chance_node(state: State) -> bool:
    """Whether the next action is a card drawn by chance."""
    return state.step in _CHANCE_STEPS


# A one-entry cache: callers nearly always ask for the legal actions of a state and
# then apply one of them to the same state object.
_last: tuple[State | None, Sequence[Action]] = (None, ())


class SupportsLegalActions(Protocol):
    """Anything that lists its own legal actions, such as a player's view
    (:class:`meuterer.views.PlayerView`)."""

    def legal_actions(self) -> Sequence[Action]: ...


def legal_actions(state: State | SupportsLegalActions) -> Sequence[Action]:
    """Every action :func:`apply` accepts in ``state``, in a fixed order; ``()`` when over.

    A tuple, except at the shuffled ring's arrangement, where it is a lazy sequence of
    the 11! arrangements. At a chance node these are the possible outcomes (see
    :func:`chance_outcomes`).
    This is the only legality oracle: :func:`apply` accepts exactly these actions.

    Given a player's view instead of a state, the actions open to that player: the
    same as for the state when he is the one to decide, ``()`` otherwise.
    """
    global _last
    cached = _last
    if cached[0] is state:
        return cached[1]
    if type(state) is not State and not isinstance(state, State):
        listed = getattr(state, "legal_actions", None)
        if not callable(listed):
            raise TypeError(f"legal_actions takes a State or a PlayerView, got {type(state).__name__}")
        return listed()  # type: ignore[no-any-return]
    legal = _LEGAL[state.step]
    actions = legal(state) if legal is not None else ()
    _last = (state, actions)
    return actions


def chance_outcomes(state: State) -> Sequence[tuple[Action, Fraction]]:
    """At a chance node, each possible draw with its probability (summing to 1); else ``()``.

    A draw comes from the unseen cards: the deck's composition, or the discard pile's
    when the deck is empty (it is shuffled into a new deck). Before the deal of a game
    with ``Rules(ring="shuffled")`` the outcomes are the 11! island arrangements, each
    with probability 1/11!, as a lazy sequence (indexable, with ``len``; nothing is
    enumerated until asked for).
    """
    outcomes = STEPS[state.step].outcomes
    return () if outcomes is None else outcomes(state)


def apply(state: State, action: Action) -> State:
    """The state after ``action``; ``state`` itself is never changed.

    Raises :class:`~meuterer.errors.IllegalActionError`, saying why (and with a stable
    ``code``, see ``docs/protocol.md``), unless ``action`` is one of
    :func:`legal_actions` (``state``). The reason is worded from the whole state, hidden
    cards included. A server taking actions from players calls
    :func:`meuterer.referee.apply_as` instead, which words its refusals from the sender's view.
    """
    global _last
    cached = _last  # legal_actions' cache, read here first: callers mostly just listed them
    if cached[0] is state:
        legal = cached[1]
    elif type(state) is State or isinstance(state, State):
        listing = _LEGAL[state.step]  # legal_actions(state), inlined
        legal = listing(state) if listing is not None else ()
        _last = (state, legal)
    else:
        view = " (a player's view holds no hidden cards to play on: apply to the game's State)"
        raise TypeError(f"apply takes a State, got {type(state).__name__}{view if hasattr(state, 'player') else ''}")
    # Callers mostly pass a listed instance: look for it by identity first (a plain loop
    # over a short tuple, at C speed over a long one), then by equality (actions convert
    # their fields, so an equal one fires the same).
    if type(legal) is tuple:
        if len(legal) <= 8:
            for listed in legal:
                if listed is action:
                    return run_table(TABLE, state, action)
        elif any(map(is_, legal, repeat(action))):
            return run_table(TABLE, state, action)
    if action not in legal:
        code, reason = refusal(state, action)
        raise IllegalActionError(action, reason, code)
    return run_table(TABLE, state, action)


def run_table(table: Table, state: State, action: Action, owned: bool = False) -> State:
    """Fire ``action`` through a compiled machine ``table``, then its automatic steps.

    :func:`apply` is this with the declared machine's table, after the legality check.
    Tests use it to run a variant of the declaration (one rule changed).

    Guards are pure: one that failed for a candidate is not asked again for the next
    (the table lists ``last_draw_of_turn`` first in three of a draw's four candidates).
    ``owned``: the caller made ``state`` and no one else has seen it (the cursor of
    ``meuterer.fast``), so its fields move on in place and ``state`` itself is returned;
    otherwise it is copied once and never changed."""
    candidates = table[state.step, action.kind]
    fired: Action | None = action
    fields: dict[str, object] | None = fields_of(state) if owned else None
    while True:
        failed = None
        for guards, effect, dest in candidates:
            for guard in guards:
                if guard is failed or not guard(state, fired):
                    failed = guard
                    break
            else:
                # evolve(state, changes) inlined, without its field-name check: effects
                # return typed Changes (mypy checks their keys; tests run them through
                # the checked evolve too).
                changes = effect(state, fired)
                if fields is None:  # the caller's state: copied, never changed
                    fields = fields_of(state).copy()
                    fields.update(changes)
                    fields["step"] = dest
                    state = new_snapshot(State)
                    store_fields(state, fields)
                else:
                    # The snapshot before an automatic step is this call's own, seen by
                    # nothing but the guards and the effect that just read it: its fields
                    # move on in place instead of being copied into yet another snapshot.
                    fields.update(changes)
                    fields["step"] = dest
                break
        else:
            raise AssertionError("unreachable: the last candidate transition is unguarded")
        if dest not in _AUTOMATIC:
            return state
        candidates, fired = table[dest, ADVANCE], None


def scores(state: State) -> tuple[int, ...]:
    """Victory points of each seat."""
    return state.scores


def winners(state: State) -> tuple[int, ...]:
    """The seats with the most points once the game is over (ties share the win); ``()`` before."""
    return _winners(state)


def sample_chance(state: State, rng: random.Random) -> Action:
    """Draw a chance outcome of ``state`` with its probability, using ``rng``.

    A card draw costs one ``rng.random()`` (as ``rng.choices`` over :func:`chance_outcomes`
    weighted by the pool's counts); the shuffled ring's arrangement one ``rng.randrange``.
    Raises :class:`~meuterer.errors.MeutererError` when ``state`` is not a chance node.
    """
    sample = STEPS[state.step].sample
    if sample is None:
        raise MeutererError(f"sample_chance needs a chance node, not step {state.step.value}")
    return sample(state, rng)


def random_game(
    seed: int | None = None, players: int = 4, first_captain: int = 0, rules: Rules | None = None
) -> tuple[tuple[Action, ...], State]:
    """Play a whole game: uniform random legal choices, seeded chance draws.

    Returns every action in order (chance draws included) and the final state. The same
    seed gives the same game.
    """
    rng = random.Random(seed)
    state = new_game(players, first_captain, rules)
    history: list[Action] = []
    record, choose, movers, over = history.append, rng.choice, _MOVERS, Step.GAME_OVER
    while state.step is not over:
        sample, legal = movers[state.step]
        # as sample_chance and rng.choice(legal_actions(state)) would choose
        action = sample(state, rng) if sample is not None else choose(legal(state))
        record(action)
        state = run_table(TABLE, state, action)  # a listed action: legal by construction
    return tuple(history), state
