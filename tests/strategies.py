"""Hypothesis strategies and walkers over whole games, shared by the test modules."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import strategies as st

import meuterer
from meuterer import Action, DiscardPool, Reshuffle, Ring, Rules, SaleOrder, State


def rule_sets() -> st.SearchStrategy[Rules]:
    """Every combination of the rule options (default round counts and island table)."""
    return st.builds(
        Rules,
        sale_order=st.sampled_from(SaleOrder),
        withholding=st.booleans(),
        discard_pool=st.sampled_from(DiscardPool),
        reshuffle=st.sampled_from(Reshuffle),
        pirates=st.booleans(),
        ring=st.sampled_from(Ring),
        pirates_rob_at_start=st.booleans(),
        pirates_return=st.booleans(),
    )


def game_setups() -> st.SearchStrategy[tuple[int, int, int, Rules]]:
    """(seed, players, first captain, rules) of a random game."""
    return st.integers(3, 4).flatmap(
        lambda players: st.tuples(st.integers(0, 2**32 - 1), st.just(players), st.integers(0, players - 1), rule_sets())
    )


def walk(seed: int, players: int, first_captain: int, rules: Rules) -> Iterator[tuple[State, Action, State]]:
    """Every step (state, action, next state) of a random game, as :func:`meuterer.random_game` plays it."""
    rng = random.Random(seed)
    state = meuterer.new_game(players, first_captain, rules)
    while not meuterer.is_terminal(state):
        if meuterer.is_chance_node(state):
            action = meuterer.sample_chance(state, rng)
        else:
            action = rng.choice(meuterer.legal_actions(state))
        after = meuterer.apply(state, action)
        yield state, action, after
        state = after
