"""Hypothesis strategies over Meuterer games: rule sets, setups, action sequences steered
towards edge cases by play styles, and the games, states and records they reach."""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from enum import Enum
from itertools import accumulate
from typing import Any

import attrs
from hypothesis import strategies as st

from meuterer.actions import Action, ArrangeRing, Pass, Play, Sell, Support
from meuterer.cards import Card
from meuterer.engine import apply, is_chance_node, is_terminal, legal_actions, new_game, sample_chance
from meuterer.game import Game
from meuterer.record import Record, make_record
from meuterer.rules import OPEN, SIZE, VARIANT, Rules, option_values
from meuterer.rulings import robbery
from meuterer.state import State, Step

# Strategies ------------------------------------------------------------------------------


def option_choices(variants: bool = True, sizes: bool = False) -> dict[str, st.SearchStrategy[Any]]:
    """The strategy of each rule option the kit varies, by its name in :class:`~meuterer.Rules`
    (``variants=False``: the open-point options only, without the pirates and the ring;
    ``sizes=True``: also the hand size, the loadmaster's extra cards (none included), the
    highest offer and the cabin boy's points, each shrinking toward the box's value).

    >>> list(option_choices(variants=False))
    ['sale_order', 'withholding', 'discard_pool', 'reshuffle']
    >>> list(option_choices(variants=False, sizes=True))[4:]
    ['hand_size', 'loadmaster_extra', 'max_offer', 'cabin_boy_points']
    """
    kinds = (OPEN, *((VARIANT,) if variants else ()), *((SIZE,) if sizes else ()))
    return {
        field.name: option_strategy(field.name)
        for kind in kinds
        for field in attrs.fields(Rules)
        if field.metadata["kind"] == kind
    }


def option_strategy(name: str) -> st.SearchStrategy[Any]:
    """The values of the rule option ``name`` (:func:`meuterer.rules.option_values`), shrinking
    toward its default.

    >>> option_strategy("hand_size")
    sampled_from((5, 3, 4, 6))
    """
    values = option_values(name)
    if values == (False, True):
        return st.booleans()
    if isinstance(values[0], Enum):
        return st.sampled_from(type(values[0]))
    return st.sampled_from(values)


def rules(variants: bool = True) -> st.SearchStrategy[Rules]:
    """Rule sets: every option of :func:`option_choices` (``variants=False``: base game,
    fixed ring, open-point options only)."""
    return st.fixed_dictionaries(option_choices(variants)).map(lambda options: Rules(**options))


@attrs.frozen
class Setup:
    """The arguments of :func:`meuterer.new_game`."""

    players: int
    first_captain: int
    rules: Rules


def setups(variants: bool = True) -> st.SearchStrategy[Setup]:
    """Player count (3 or 4), first captain and rules."""
    return st.integers(3, 4).flatmap(lambda n: st.builds(Setup, st.just(n), st.integers(0, n - 1), rules(variants)))


_STYLES = ("uniform", "hoard", "dump", "fight", "sell_most")
STYLES = _STYLES
"""The play styles that steer random play towards edge cases (see :func:`style_weights`)."""


def style_weights(state: State, legal: Sequence[Action], style: str) -> list[int]:
    """The weight of each of the ``legal`` actions under a play style of :data:`STYLES`
    (``hoard`` passes early, ``dump`` plays everything, ``fight`` adds supports, ``sell_most``
    sells the most)."""
    return _weights(state, legal, style)


def _weights(state: State, legal: Sequence[Action], style: str) -> list[int]:
    # Styles steer random play towards edge cases: passing with full or empty hands
    # (0-card captains, empty hands), supports and ties in mutinies, big sales and ties.
    weights = []
    for action in legal:
        w = 1
        if (style == "hoard" and isinstance(action, Pass)) or (style == "dump" and isinstance(action, Play)):
            w = 8
        elif style == "fight" and isinstance(action, Support):
            w = 1 + 4 * action.count
        elif style == "fight" and isinstance(action, Play) and action.card is Card.SUPPORT:
            w = 6
        elif style == "sell_most" and isinstance(action, Sell):
            w = 1 + sum(s.count for s in action.sales)
        weights.append(w)
    return weights


@st.composite
def action_sequences(
    draw: st.DrawFn,
    setup: Setup | None = None,
    complete: bool = True,
    max_actions: int = 2000,
    max_rounds: int | None = None,
) -> tuple[Setup, tuple[Action, ...]]:
    """A legal sequence of actions from a new game: a complete game (or, with
    ``complete=False``, any prefix of one; with ``max_rounds``, the game up to the captain's
    offer of the round after it). Every choice, chance included, is drawn from hypothesis,
    so failures shrink to short, simple games. Play styles are mixed in to reach edge cases
    (0-card captains, empty hands, mutiny ties, 4-way ties, reshuffles), and pirate games
    are steered toward robberies: a pirate card that robs is eight times likelier,
    and a shuffled ring often puts Piratennest within reach of the merchant ship in round 1
    (the arrangement is often redrawn)."""
    if setup is None:
        setup = draw(setups())
    state = new_game(setup.players, setup.first_captain, setup.rules)
    style = draw(st.sampled_from(_STYLES))
    stop = max_actions if complete else draw(st.integers(0, max_actions))
    actions: list[Action] = []
    while not is_terminal(state) and len(actions) < stop:
        if max_rounds is not None and state.round > max_rounds and state.step is Step.OFFER:
            break
        legal = legal_actions(state)
        if is_chance_node(state):
            # A seeded draw keeps chance faithful to the deck while shrinking to seed 0.
            action = sample_chance(state, random.Random(draw(st.integers(0, 2**16))))
            if isinstance(action, ArrangeRing) and setup.rules.pirates:
                action = _pirates_near(state, action, draw(st.integers(0, setup.rules.hand_size)))
        elif len(legal) == 1:
            action = legal[0]
        else:
            # Passing first: choices shrink towards the shortest rounds.
            options = sorted(legal, key=lambda a: not isinstance(a, Pass))
            weights = _weights(state, options, style)
            if setup.rules.pirates:
                weights = [w * _ROBS if _robs(state, a) else w for w, a in zip(weights, options, strict=True)]
            ticket = draw(st.integers(0, sum(weights) - 1))
            action = options[bisect_right(list(accumulate(weights)), ticket)]
        actions.append(action)
        state = apply(state, action)
    return setup, tuple(actions)


_ROBS = 8
"""How much likelier :func:`action_sequences` plays a pirate card that robs."""


def _robs(state: State, action: Action) -> bool:
    """Whether ``action`` plays the pirate card so that the pirates rob the merchant ship."""
    return (
        isinstance(action, Play) and action.card is Card.PIRATE and robbery(state, sum(state.hands[action.player]) - 1)
    )


def _pirates_near(state: State, arrangement: ArrangeRing, near: int) -> ArrangeRing:
    """``arrangement`` with Piratennest swapped to ``near`` islands clockwise of Hochland when
    ``near`` is within the first hand's reach (1 to ``hand_size - 1``), so that the pirate
    card can rob in round 1; otherwise ``arrangement`` as drawn (``near`` shrinks to 0)."""
    if not 1 <= near < state.rules.hand_size:
        return arrangement
    pirate = apply(state, arrangement).pirate
    assert pirate is not None
    islands = list(arrangement.islands)
    islands[pirate], islands[near] = islands[near], islands[pirate]
    return ArrangeRing(tuple(islands))


def games(setup: Setup | None = None) -> st.SearchStrategy[Game]:
    """Complete games, as :class:`~meuterer.Game` objects with their histories."""
    return action_sequences(setup).map(lambda sa: Game.replay(sa[1], sa[0].players, sa[0].first_captain, sa[0].rules))


def states(setup: Setup | None = None) -> st.SearchStrategy[State]:
    """States reachable in legal play (any point of any game)."""
    return action_sequences(setup, complete=False).map(
        lambda sa: Game.replay(sa[1], sa[0].players, sa[0].first_captain, sa[0].rules).state
    )


def records(setup: Setup | None = None, complete: bool = True) -> st.SearchStrategy[Record]:
    """Valid game records (with digests, and results for complete games)."""
    return action_sequences(setup, complete).map(
        lambda sa: make_record(Game.replay(sa[1], sa[0].players, sa[0].first_captain, sa[0].rules))
    )
