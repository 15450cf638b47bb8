"""Hypothesis strategies and walkers over whole games, shared by the test modules."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import strategies as st

import meuterer
from meuterer import Action, Rules, State
from meuterer.testing import action_sequences, rules

GameSetup = tuple[tuple[Action, ...], int, int, Rules]
"""(actions of a complete game, players, first captain, rules)."""


def rule_sets() -> st.SearchStrategy[Rules]:
    """Every combination of the variants and the open points of the rules (default round
    counts, sizes and island table): :func:`meuterer.testing.rules`, whose options are read
    from the fields of :class:`~meuterer.Rules`, each shrinking toward its default."""
    return rules(variants=True)


def game_setups() -> st.SearchStrategy[GameSetup]:
    """(actions, players, first captain, rules) of a complete game under any rule options.

    Every choice, chance included, is drawn by :func:`meuterer.testing.action_sequences`,
    so a failing game shrinks to a short, simple one (not to another random seed)."""
    return action_sequences().map(lambda sa: (sa[1], sa[0].players, sa[0].first_captain, sa[0].rules))


def walk(
    game: int | tuple[Action, ...], players: int, first_captain: int, rules: Rules
) -> Iterator[tuple[State, Action, State]]:
    """Every step (state, action, next state) of a game: the ``game``'s actions, or (an
    ``int``) the random game :func:`meuterer.random_game` plays from that seed."""
    state = meuterer.new_game(players, first_captain, rules)
    if not isinstance(game, int):
        for action in game:
            after = meuterer.apply(state, action)
            yield state, action, after
            state = after
        return
    rng = random.Random(game)
    while not meuterer.is_terminal(state):
        if meuterer.is_chance_node(state):
            action = meuterer.sample_chance(state, rng)
        else:
            action = rng.choice(meuterer.legal_actions(state))
        after = meuterer.apply(state, action)
        yield state, action, after
        state = after
