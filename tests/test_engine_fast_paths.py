"""The reference engine's fast paths keep its semantics: copies with changes, chance
sampling, cached legal actions, and the exact games ``random_game`` plays per seed."""

from __future__ import annotations

import hashlib
import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import Card, Rules, Step
from meuterer.actions import Discard, Draw, Sell
from meuterer.errors import MeutererError
from meuterer.islands import ISLANDS
from meuterer.state import Changes, evolve
from tests.strategies import game_setups, walk


def _games_digest(seeds: range) -> str:
    digest = hashlib.sha256()
    for seed in seeds:
        players = 3 + seed % 2
        rules = Rules(
            pirates=seed % 3 == 0,
            ring="shuffled" if seed % 5 == 0 else "fixed",
            withholding=seed % 7 == 0,
            discard_pool="hand" if seed % 4 == 1 else "drawn",
            reshuffle="when_empty" if seed % 6 == 2 else "on_draw",
        )
        actions, final = meuterer.random_game(seed=seed, players=players, first_captain=seed % players, rules=rules)
        digest.update(" ".join(map(str, actions)).encode())
        digest.update(meuterer.state_digest(final).encode())
    return digest.hexdigest()


def test_random_game_plays_the_same_games_as_before() -> None:
    # Pinned: a change in the order of legal actions or chance outcomes, or in how the
    # random generator is consumed, changes these games (and every same-seed result of
    # the adapters and tools built on them). Regenerate only for a deliberate, announced change.
    assert _games_digest(range(60)) == "6094d88b8fe83d675826dc9f494d1e58ddb7c92de7e64030b24e743e55e02b33"


def test_evolve_copies_without_touching_the_callers_dict() -> None:
    state = meuterer.new_game(4, 0)
    changes: Changes = {"round": 3, "to_act": 2}
    new = evolve(state, changes)
    assert changes == {"round": 3, "to_act": 2}
    assert (new.round, new.to_act, state.round, state.to_act) == (3, 2, 1, 0)
    assert new == attrs.evolve(state, round=3, to_act=2) and hash(new) == hash(attrs.evolve(state, round=3, to_act=2))
    with pytest.raises(TypeError, match="no fields"):
        evolve(state, {"rounds": 3})


@settings(max_examples=20, deadline=None)
@given(game_setups(), st.integers(0, 2**32 - 1))
def test_sample_chance_is_random_choices_over_the_outcomes(setup: tuple[int, int, int, Rules], seed: int) -> None:
    for state, _, _ in walk(*setup):
        if state.step not in (Step.DEAL, Step.DRAW):
            continue
        ours, theirs = random.Random(seed), random.Random(seed)
        draws = [a for a, _ in meuterer.chance_outcomes(state)]
        pool = state.deck if any(state.deck) else state.discard
        expected = theirs.choices(draws, [pool[a.card] for a in draws if isinstance(a, Draw)])[0]
        drawn = meuterer.sample_chance(state, ours)
        assert drawn == expected and drawn in meuterer.legal_actions(state)
        assert ours.random() == theirs.random()


def test_sample_chance_refuses_a_decision() -> None:
    state = meuterer.new_game(4, 0)
    while meuterer.is_chance_node(state):
        state = meuterer.apply(state, meuterer.sample_chance(state, random.Random(1)))
    with pytest.raises(MeutererError, match="chance node"):
        meuterer.sample_chance(state, random.Random(1))


def test_an_equal_island_table_shares_the_sale_lists_and_a_changed_one_does_not() -> None:
    for state, action, _ in walk(11, 4, 0, Rules()):
        if isinstance(action, Sell) and any(state.face_up[state.to_act][:5]):
            break
    listed = meuterer.legal_actions(attrs.evolve(state))
    read_back = meuterer.loads_state(meuterer.dumps_state(state))  # equal rules, new objects
    assert read_back.rules.islands is not state.rules.islands
    assert meuterer.legal_actions(read_back) is listed
    swapped = (attrs.evolve(ISLANDS[0], buys=Card.RUBY), *ISLANDS[1:])
    assert meuterer.legal_actions(attrs.evolve(state, rules=Rules(islands=swapped))) != listed


def test_draws_are_the_listed_instances() -> None:
    state = meuterer.new_game(3, 1)
    drawn = meuterer.sample_chance(state, random.Random(5))
    assert isinstance(drawn, Draw) and any(drawn is a for a in meuterer.legal_actions(state))


@settings(max_examples=15, deadline=None)
@given(game_setups())
def test_the_state_text_is_the_canonical_json_of_its_data_at_every_step(setup: tuple[int, int, int, Rules]) -> None:
    from meuterer.serialize import _canonical_json, unstructure_state

    states = [after for _, _, after in walk(*setup)]
    # in game order (field texts memoised on the previous state) and shuffled
    for state in states + states[::-7]:
        assert meuterer.dumps_state(state) == _canonical_json(unstructure_state(state))


@given(st.lists(st.integers(0, 4), min_size=7, max_size=7), st.integers(0, 5), st.integers(0, 3))
def test_loadmaster_discards_are_the_filtered_combinations_in_order(pool: list[int], extra: int, seat: int) -> None:
    from itertools import combinations_with_replacement

    from meuterer.actions import Discard
    from meuterer.cards import CARDS, counts_of
    from meuterer.phases.voyage import _discards

    kinds = [c for c in CARDS if pool[c]]
    expected = tuple(
        Discard(seat, cards)
        for cards in combinations_with_replacement(kinds, extra)
        if all(counts_of(cards)[c] <= pool[c] for c in kinds)
    )
    assert _discards(seat, tuple(pool), extra) == expected


def test_states_stay_frozen_hashable_and_picklable() -> None:
    import copy
    import pickle

    _, final = meuterer.random_game(seed=1, players=4)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        final.round = 3  # type: ignore[misc]
    for clone in (pickle.loads(pickle.dumps(final)), copy.deepcopy(final), copy.copy(final)):
        assert clone == final and hash(clone) == hash(final)
    assert attrs.evolve(final, round=2) == evolve(final, {"round": 2})


def test_huge_legal_lists_are_computed_but_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from meuterer.phases import voyage

    # The bounded rules keep every list short, so lower the threshold to see a long one dropped.
    monkeypatch.setattr(voyage, "_CACHED_LISTS_UP_TO", 100)
    state = meuterer.new_game(4, 0, Rules(loadmaster_extra=6, deck=(20, 20, 20, 20, 20, 20, 0)))
    state = attrs.evolve(state, step=Step.LOADMASTER_DISCARD, to_act=1, drawn=(5, 5, 5, 5, 5, 5, 0))
    legal = voyage.legal_discard(state)
    assert len(legal) > 100 and all(len(a.cards) == 6 for a in legal)  # type: ignore[union-attr]
    assert (1, state.drawn, 6) not in voyage._DISCARDS
    small = attrs.evolve(state, drawn=(1, 1, 0, 0, 0, 0, 0), rules=Rules(loadmaster_extra=2))
    assert voyage.legal_discard(small) == (Discard(1, (Card.RUBY, Card.SALT)),)
    assert (1, small.drawn, 2) in voyage._DISCARDS


@given(st.lists(st.integers(0, 9), min_size=7, max_size=7), st.floats(0.0, 1.0, exclude_max=True))
def test_pick_card_is_the_bisection_of_the_running_counts(pool: list[int], x: float) -> None:
    from bisect import bisect
    from itertools import accumulate

    from meuterer.phases.voyage import pick_card

    if not any(pool):
        return
    expected = bisect(list(accumulate(pool)), x * (sum(pool) + 0.0))
    if expected == len(pool):  # x rounded up to the total
        expected = max(c for c in range(len(pool)) if pool[c])
    assert pick_card(pool, x) == expected
    # x times the size rounded up to the size (random.choices' bisection caps it): the last kind
    assert pick_card(pool, 1.0) == max(c for c in range(len(pool)) if pool[c])


def _naive_run(state: meuterer.State, action: meuterer.Action) -> meuterer.State:
    """The declared machine fired the plain way: every guard of every candidate asked,
    every step (automatic ones included) a checked copy."""
    from meuterer.machine import ADVANCE, STEPS, TABLE, Actor

    fired: meuterer.Action | None = action
    trigger = action.kind
    while True:
        _, effect, dest = next(c for c in TABLE[state.step, trigger] if all(g(state, fired) for g in c[0]))
        state = evolve(state, {**effect(state, fired), "step": dest})
        if STEPS[dest].actor is not Actor.AUTOMATIC:
            return state
        trigger, fired = ADVANCE, None


@settings(max_examples=15, deadline=None)
@given(game_setups())
def test_run_table_is_the_plain_firing_and_leaves_the_callers_state_alone(setup: tuple[int, int, int, Rules]) -> None:
    # run_table copies the caller's state once, moves its own snapshots on in place across
    # automatic steps and skips a guard that already failed: none of it shows.
    for state, action, after in walk(*setup):
        before = dict(vars(state))
        assert after == _naive_run(state, action)
        assert vars(state) == before and vars(after) is not vars(state)
