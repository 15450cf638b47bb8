"""Invariants over many complete random games (3 and 4 players, every rule option)."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import (
    Action,
    ChooseRole,
    Discard,
    Draw,
    IllegalActionError,
    Offer,
    Pass,
    Phase,
    Play,
    Role,
    Sale,
    Sell,
    State,
    Step,
    Support,
)
from meuterer.serialize import structure_state, unstructure_state
from tests.strategies import GameSetup, game_setups, walk

CARDS_ALL = tuple(meuterer.Card)
GAMES = settings(max_examples=25, deadline=None)


def cards_in_play(state: State) -> tuple[int, ...]:
    piles = [*state.hands, *state.face_up, *state.face_down, state.deck, state.discard]
    return tuple(sum(pile[c] for pile in piles) for c in range(len(state.deck)))


@GAMES
@given(game_setups())
def test_cards_are_conserved_and_hands_are_full_each_round(setup: GameSetup) -> None:
    _, players, _, rules = setup
    for _, _, after in walk(*setup):
        assert cards_in_play(after) == rules.deck
        assert all(n >= 0 for pile in (*after.hands, after.deck, after.discard) for n in pile)
        if after.phase is Phase.OFFER:
            assert [sum(h) for h in after.hands] == [rules.hand_size] * players
            assert not any(map(any, after.face_up)) and not any(map(any, after.face_down))


@GAMES
@given(game_setups())
def test_exactly_one_of_player_chance_terminal(setup: GameSetup) -> None:
    for state, _, after in walk(*setup):
        for s in (state, after):
            who = meuterer.current_player(s)
            kinds = [who is None, who == meuterer.CHANCE, who is not None and who >= 0]
            assert kinds.count(True) == 1
            assert (who is None) == meuterer.is_terminal(s) == (meuterer.legal_actions(s) == ())
            assert (who == meuterer.CHANCE) == meuterer.is_chance_node(s) == bool(meuterer.chance_outcomes(s))
            if who is not None and who >= 0:
                assert all(a.player == s.to_act for a in meuterer.legal_actions(s))


@GAMES
@given(game_setups())
def test_game_length_scores_and_winners(setup: GameSetup) -> None:
    _, players, _, rules = setup
    last = None
    for state, action, after in walk(*setup):
        if after.scores != state.scores:
            # Role points (automatic, entering the sale declarations) or the last declaration.
            assert after.phase is Phase.SCORING or isinstance(action, Sell)
            assert state.phase in (Phase.PLAY, Phase.MUTINY, Phase.SCORING)
        assert after.round - state.round in (0, 1)
        last = after
    assert last is not None and meuterer.is_terminal(last)
    assert last.round == rules.rounds_for(players) == (9 if players == 3 else 8)
    assert meuterer.scores(last) == last.scores
    best = max(last.scores)
    assert meuterer.winners(last) == tuple(p for p in range(players) if last.scores[p] == best)


@GAMES
@given(game_setups())
def test_chance_outcomes_are_the_unseen_cards(setup: GameSetup) -> None:
    for state, action, _ in walk(*setup):
        outcomes = meuterer.chance_outcomes(state)
        if not outcomes:
            continue
        if state.step is Step.RING:  # 11! arrangements, listed lazily
            assert len(outcomes) == 39916800 and outcomes[0][1] == Fraction(1, 39916800)
            assert action in meuterer.legal_actions(state)
            continue
        assert sum(p for _, p in outcomes) == 1
        pool = state.deck if any(state.deck) else state.discard
        assert dict(outcomes) == {Draw(state.to_act, c): Fraction(pool[c], sum(pool)) for c in meuterer.Card if pool[c]}
        assert action in dict(outcomes)


@GAMES
@given(game_setups())
def test_phase_two_turns_go_clockwise_skipping_passed_players(setup: GameSetup) -> None:
    players = setup[1]
    for state, action, after in walk(*setup):
        if state.phase is Phase.OFFER:
            assert after.to_act == state.captain
        if isinstance(action, Play) or (isinstance(action, ChooseRole) and after.phase is Phase.PLAY):
            clockwise = [(action.player + i) % players for i in range(1, players + 1)]
            assert after.to_act == next(p for p in clockwise if not after.passed[p])


@GAMES
@given(game_setups())
def test_every_state_round_trips_through_cattrs_and_replays_equal(setup: GameSetup) -> None:
    actions, players, captain, rules = setup
    final = meuterer.Game.replay(actions, players, captain, rules).state
    replayed = meuterer.new_game(players, captain, rules)
    for action in actions:
        assert meuterer.parse_action(str(action)) == action
        replayed = meuterer.apply(replayed, meuterer.parse_action(str(action)))
        assert structure_state(unstructure_state(replayed)) == replayed
        assert hash(replayed) == hash(structure_state(unstructure_state(replayed)))
    assert replayed == final


def candidate_actions(state: State) -> list[Action]:
    """A wide universe of well-formed actions around ``state``, legal or not."""
    seats = range(4)
    found: list[Action] = []
    for p in seats:
        found += [Draw(p, c) for c in CARDS_ALL] + [Play(p, c) for c in CARDS_ALL] + [Pass(p)]
        found += [Offer(p, n) for n in range(5)] + [ChooseRole(p, r) for r in Role]
        found += [Support(p, n) for n in range(4)] + [Sell(p, ())]
        found += [Discard(p, cards) for cards in combinations_with_replacement(CARDS_ALL[:6], 3)][::7]
    names = [state.island_name(pos) for pos in (0, 3, 4, 9)]
    for name in names:
        for card in CARDS_ALL:
            for n in (1, 2):
                found.append(Sell(state.to_act, (Sale(name, card, n),)))
    found.append(Sell(state.to_act, tuple(Sale(n, meuterer.Card.GRAIN, 1) for n in reversed(names[:2]))))
    found.append(Discard(state.to_act, (meuterer.Card.GRAIN, meuterer.Card.RUBY, meuterer.Card.SALT)))
    return found


@settings(max_examples=8, deadline=None)
@given(game_setups(), st.integers(0, 2**32 - 1))
def test_legal_actions_is_the_only_oracle(setup: GameSetup, seed: int) -> None:
    rng = random.Random(seed)  # which illegal candidates to try (the game itself shrinks)
    for state, _, _ in walk(*setup):
        legal = meuterer.legal_actions(state)
        if state.step is Step.RING:  # 11! arrangements: try a sample of them
            for index in rng.sample(range(len(legal)), 20):
                assert legal.index(legal[index]) == index
                meuterer.apply(state, legal[index])
            continue
        assert len(set(legal)) == len(legal)
        for action in legal:
            meuterer.apply(state, action)  # every listed action applies
        snapshot = unstructure_state(state)
        pool = candidate_actions(state)
        for action in rng.sample(pool, 12):
            if action in legal:
                continue
            with pytest.raises(IllegalActionError) as error:
                meuterer.apply(state, action)
            assert error.value.reason and error.value.action == action
            assert isinstance(error.value, ValueError)
        assert unstructure_state(state) == snapshot
        assert meuterer.legal_actions(state) == legal


@pytest.mark.parametrize("players", [3, 4])
def test_random_game_is_deterministic_per_seed(players: int) -> None:
    first = meuterer.random_game(seed=11, players=players)
    assert meuterer.random_game(seed=11, players=players) == first
    assert meuterer.random_game(seed=12, players=players)[0] != first[0]
