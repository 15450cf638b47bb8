"""The environments' core: legal ids and their masks, observations, seeding, loading."""

from __future__ import annotations

import random
from typing import Any

import pytest

import meuterer
from meuterer import Rules
from meuterer.actions import Discard, Sell
from meuterer.encoding import action_ids
from meuterer.errors import SetupError
from meuterer.views import observation_layout, view

np = pytest.importorskip("numpy")
envcore = pytest.importorskip("meuterer.envcore")


def decisions(players: int, rules: Rules, seed: int, games: int) -> list[Any]:
    """Every decision state of some random games."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = meuterer.new_game(players, rng.randrange(players), rules)
        while not meuterer.is_terminal(state):
            if meuterer.is_chance_node(state):
                state = meuterer.apply(state, meuterer.sample_chance(state, rng))
                continue
            found.append(state)
            legal = meuterer.legal_actions(state)
            state = meuterer.apply(state, legal[rng.randrange(len(legal))])
    return found


@pytest.mark.parametrize(("players", "limit"), [(3, envcore.LegalIds.LIMIT), (4, 40)])
def test_legal_ids_are_the_encodings_at_every_decision(players: int, limit: int, monkeypatch: Any) -> None:
    # The ids, each with the place of its action in the legal list, and their masks, whether
    # found in the memos or worked out (a small limit forgets them now and then).
    monkeypatch.setattr(envcore.LegalIds, "LIMIT", limit)
    rules = Rules(pirates=True, withholding=True)
    ids = action_ids(rules)
    legal_ids = envcore.LegalIds(ids)
    kinds = set()
    for state in decisions(players, rules, players, 12):
        legal = meuterer.legal_actions(state)
        moves, mask, as_int8 = legal_ids(state, legal)
        expected = sorted((ids.action_id(state, action), i) for i, action in enumerate(legal))
        assert list(moves.items()) == expected
        assert np.flatnonzero(mask).tolist() == [number for number, _ in expected]
        assert not mask.flags.writeable and as_int8.dtype == np.int8 and as_int8.base is mask
        kinds.add(type(legal[0]))
    assert {Sell, Discard} <= kinds
    assert len(legal_ids._entries) <= limit and len(legal_ids._masks) <= limit
    none = legal_ids(state, ())
    assert none[0] == {} and not none[1].any()


def test_sales_have_the_ids_of_the_active_islands_order() -> None:
    # The same sales with the two active islands swapped on the ring have other ids: the memo
    # tells the two apart.
    import attrs

    ids = action_ids(Rules())
    legal_ids = envcore.LegalIds(ids)
    checked = 0
    for state in decisions(4, Rules(), 5, 30):
        legal = meuterer.legal_actions(state)
        pairs = [a for a in legal if isinstance(a, Sell) and len(a.sales) == 2]
        if not (pairs and len(state.active) == 2):
            continue
        moves = legal_ids(state, legal)[0]
        ring = list(state.ring)
        first, second = state.active
        ring[first], ring[second] = ring[second], ring[first]
        swapped = attrs.evolve(state, ring=tuple(ring))
        again = legal_ids(swapped, legal)[0]
        assert list(again.items()) == sorted((ids.action_id(swapped, a), i) for i, a in enumerate(legal))
        assert again != moves
        checked += 1
        if checked == 5:
            break
    assert checked == 5


def test_a_list_out_of_id_order_gives_each_id_its_place() -> None:
    ids = action_ids(Rules())
    state = decisions(4, Rules(), 2, 1)[3]
    legal = meuterer.legal_actions(state)
    assert len(legal) > 1
    moves = envcore.legal_moves(ids, state, legal)
    back = envcore.legal_moves(ids, state, legal[::-1])
    assert list(back.items()) == [(number, len(legal) - 1 - i) for number, i in moves.items()]


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize(
    "rules", [Rules(), Rules(pirates=True, hand_size=4, loadmaster_extra=2, max_offer=5, ring="shuffled")]
)
def test_observers_give_the_layouts_vector_and_encoding(players: int, rules: Rules) -> None:
    # Every seat's and the spectator's observation at every step of some games is the
    # layout's vector and encoding of the view, and none handed out changes later.
    layout = observation_layout(players, rules)
    encode, vector = envcore.observer(layout, "encoded", rules), envcore.observer(layout, "vector", rules)
    handed: list[tuple[Any, Any, tuple[int, ...]]] = []
    for seed in range(3):
        rng = random.Random(seed)
        state = meuterer.new_game(players, seed % players, rules)
        while True:
            for player in (None, *range(players)):
                expected = layout.vector(view(state, player))
                encoded, ints = encode(state, player), vector(state, player)
                assert encoded.dtype == np.float32 and encoded.flags.writeable
                assert np.array_equal(encoded, np.array(layout.encode_values(expected), np.float32))
                assert ints.dtype == np.int64 and ints.flags.writeable and ints.tolist() == list(expected)
                handed.append((encoded, ints, expected))
            if meuterer.is_terminal(state):
                break
            if meuterer.is_chance_node(state):
                state = meuterer.apply(state, meuterer.sample_chance(state, rng))
            else:
                legal = meuterer.legal_actions(state)
                state = meuterer.apply(state, legal[rng.randrange(len(legal))])
    assert len(handed) > 500
    for encoded, ints, expected in handed[:: len(handed) // 50]:
        assert np.array_equal(encoded, np.array(layout.encode_values(expected), np.float32))
        assert ints.tolist() == list(expected)


def test_the_choices_an_environment_checks() -> None:
    with pytest.raises(SetupError, match="observation must be one of encoded, vector"):
        envcore.observer(observation_layout(3), "pixels", Rules())
    with pytest.raises(SetupError, match="reward must be one of step, terminal, got 'turn'"):
        envcore.check_choice("reward", "turn", ("step", "terminal"))
    assert envcore.rules_with_rounds(Rules(pirates=True), 3) == Rules(pirates=True, rounds=3)
    assert envcore.rules_with_rounds(None, None) == Rules()


def test_loadable_states() -> None:
    state = meuterer.new_game(3)
    assert envcore.loadable(state, 3, Rules()) is state
    with pytest.raises(SetupError, match=r"meuterer\.State"):
        envcore.loadable("deal", 3, Rules())
    with pytest.raises(SetupError, match="3 seats, the environment 4"):
        envcore.loadable(state, 4, Rules())
    with pytest.raises(SetupError, match="other rules"):
        envcore.loadable(state, 3, Rules(rounds=2))


def test_seeded_generators() -> None:
    assert envcore.dealer(4).random() == random.Random(4).random()
    first, second = envcore.opponent_rngs(4, 2)
    assert first.random() != second.random()
    assert [r.random() for r in envcore.opponent_rngs(4, 2)] == [r.random() for r in envcore.opponent_rngs(4, 2)]
