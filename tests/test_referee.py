"""The referee (issue 11, item 10): what a player is told depends only on what he sees."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import IllegalActionError
from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sale, Sell, Support
from meuterer.cards import CARDS, GOODS, ROLES, Card
from meuterer.referee import apply_as, check_as, refusal
from meuterer.state import State
from meuterer.views import ViewError, sample_state, view
from tests.strategies import GameSetup, game_setups, walk


def outcome(state: State, action: Action, player: int) -> str:
    """What ``player`` is told when he sends ``action``: accepted, or the refusal's words.

    (What the game then shows him may differ: an accepted action can bring on automatic
    steps that reveal roles or resolve a mutiny.)"""
    try:
        apply_as(state, action, player)
    except IllegalActionError as error:
        return str(error)
    return "accepted"


def probes(state: State, other: State) -> list[Action]:
    """The legal actions of both states, and a spread of actions for every seat."""
    decided = [s for s in (state, other) if not meuterer.is_chance_node(s)]  # not the lazy 11! ring
    found: list[Action] = [a for s in decided for a in meuterer.legal_actions(s)]
    for q in range(state.players):
        found += [Pass(q), Offer(q, 0), Offer(q, 2), Offer(q, 9), Support(q, 0), Support(q, 1), Support(q, 3)]
        found += [Play(q, card) for card in CARDS] + [ChooseRole(q, role) for role in ROLES]
        found += [meuterer.Draw(q, card) for card in CARDS]
        found += [Discard(q, (Card.RUBY, Card.RUBY, Card.SALT)), Discard(q, (Card.SUPPORT,) * 3), Sell(q, ())]
        found += [Sell(q, (Sale(state.island_name(pos), good, 1),)) for pos in state.active for good in GOODS]
    return [a for a in found if not isinstance(a, meuterer.ArrangeRing)]


@settings(max_examples=40, deadline=None)
@given(setup=game_setups(), cut=st.floats(0, 1), player=st.integers(0, 3), seed=st.integers(0, 2**16))
def test_two_states_with_the_same_view_give_the_same_answers(
    setup: GameSetup, cut: float, player: int, seed: int
) -> None:
    steps = [before for before, _, _ in walk(*setup)]
    state = steps[int(cut * (len(steps) - 1))]
    p = player % state.players
    other = sample_state(view(state, p), random.Random(seed))
    assert view(other, p) == view(state, p)
    for action in probes(state, other):
        assert outcome(state, action, p) == outcome(other, action, p), str(action)


@settings(max_examples=6, deadline=None)
@given(setup=game_setups())
def test_a_player_may_take_exactly_his_legal_actions(setup: GameSetup) -> None:
    for state, action, after in walk(*setup):
        decider = meuterer.current_player(state)
        if decider is None or decider < 0:
            continue
        assert apply_as(state, action, decider) == after
        assert check_as(state, str(action), decider) == action
        for seat in range(state.players):
            if seat != decider:
                with pytest.raises(IllegalActionError, match=f"p{seat} may act only for p{seat}"):
                    apply_as(state, action, seat)


def test_the_issue_examples_no_longer_leak() -> None:
    actions, _ = meuterer.random_game(seed=7, players=4)
    game = meuterer.Game.replay(actions, players=4)
    mutiny = next(s for s in game.states if s.step is meuterer.Step.MUTINY)
    seat = mutiny.to_act
    other = (seat + 1) % mutiny.players
    with pytest.raises(IllegalActionError) as info:
        meuterer.apply(mutiny, Support(seat, 5))
    assert "face down" in info.value.reason  # the engine's own message names hidden cards
    with pytest.raises(IllegalActionError) as info:
        apply_as(mutiny, Support(seat, 5), other)
    assert info.value.reason == f"p{other} may act only for p{other}, not for p{seat}"
    deal = meuterer.new_game(4)
    with pytest.raises(IllegalActionError) as info:
        apply_as(deal, "draw p0 pirate", 0)
    assert "no pirate" not in info.value.reason and "dealer" in info.value.reason


def test_a_spectator_and_a_stranger_take_no_action() -> None:
    state = meuterer.new_game(3)
    assert refusal(view(state, None), Pass(0)) == "a spectator takes no action"
    assert refusal(view(state, 0), "p0 pass") == "not an action but a str (parse text with meuterer.parse_action)"
    with pytest.raises(ViewError):
        apply_as(state, "p0 pass", 3)
    with pytest.raises(meuterer.ActionParseError):
        apply_as(state, "p0 dance", 0)


def test_apply_as_applies_what_the_engine_applies() -> None:
    actions, _ = meuterer.random_game(seed=7, players=4)
    mutiny = next(s for s in meuterer.Game.replay(actions, players=4).states if s.step is meuterer.Step.MUTINY)
    seat, other = mutiny.to_act, (mutiny.to_act + 1) % mutiny.players
    with pytest.raises(IllegalActionError) as info:
        apply_as(mutiny, Support(seat, 5), other)
    assert info.value.reason == f"p{other} may act only for p{other}, not for p{seat}"
    legal = meuterer.legal_actions(mutiny)[0]
    assert apply_as(mutiny, legal, seat) == meuterer.apply(mutiny, legal)
