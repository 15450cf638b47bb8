"""The rule functions services call (``meuterer.rulings``): the engine's own rulings,
on a state and on a player's view alike."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
import meuterer.rulings as rulings
from meuterer import Card, Role, Rules, Step
from meuterer.actions import Sale, Support
from meuterer.cards import EMPTY, MAX_SEATS, SEAT_COUNTS, add
from meuterer.islands import ISLANDS
from meuterer.phases import mutiny
from tests.strategies import GameSetup, game_setups, walk

REVEALED = frozenset(Step) - {Step.RING, Step.DEAL, Step.OFFER, Step.PLAY, Step.CHOOSE_ROLE}


@settings(max_examples=25, deadline=None)
@given(game_setups())
def test_views_get_the_same_rulings_as_the_state_once_roles_are_public(setup: GameSetup) -> None:
    for state, _, _ in walk(*setup):
        for seat in (None, *range(state.players)):
            seen = meuterer.view(state, seat)
            assert rulings.pirate_destination(seen, 2) == rulings.pirate_destination(state, 2)
            assert rulings.robbery(seen, 3) == rulings.robbery(state, 3)
            assert rulings.destination(seen, 4) == rulings.destination(state, 4)
            if state.step in REVEALED:
                assert rulings.strengths(seen) == rulings.strengths(state)
                assert rulings.sale_points(seen, state.sales) == rulings.sale_points(state, state.sales)


@pytest.mark.rule("pirates.rob")
@given(st.integers(0, 11), st.integers(0, 11), st.integers(0, 15), st.booleans())
def test_robbery_is_reaching_or_passing_the_merchant_ship(pirate: int, start: int, left: int, at_start: bool) -> None:
    state = meuterer.new_game(4, 0, Rules(pirates=True, pirates_rob_at_start=at_start))
    state = attrs.evolve(state, pirate=pirate, start=start)
    passed = {(pirate - k) % 12 for k in range(1, left + 1)}
    expected = left > 0 and (start in passed or (pirate == start and at_start))
    assert rulings.robbery(state, left) == expected
    assert rulings.pirate_destination(state, left) == (pirate - left) % 12


def test_no_pirate_ship_no_robbery() -> None:
    state = meuterer.new_game(4, 0)
    assert rulings.pirate_destination(state, 3) is None and not rulings.robbery(state, 3)


@pytest.mark.rule("p5.leaders", "p5.merchant")
@given(st.lists(st.integers(0, 5), min_size=3, max_size=4), st.integers(0, 3), st.integers(0, len(ISLANDS) - 1))
def test_island_points_pay_the_leaders(sold: list[int], merchant: int, index: int) -> None:
    island = ISLANDS[index]
    merchants = [p == merchant for p in range(len(sold))]
    points = rulings.island_points(island, sold, merchants)
    most = max(sold)
    leaders = [p for p, n in enumerate(sold) if n == most and n > 0]
    for p, n in enumerate(points):
        if p not in leaders:
            assert n == 0
        elif merchants[p]:
            assert n == island.values[0]
        else:
            assert n == (island.values[len(leaders) - 1] if len(leaders) <= 3 else 0)


@pytest.mark.rule("p5.merchant")
def test_sale_points_read_the_merchant_from_the_board() -> None:
    state = attrs.evolve(meuterer.new_game(3, 0), roles=(None, Role.MERCHANT, None))
    both = ((Sale("hochland", Card.WINE, 2),), (Sale("hochland", Card.SALT, 2),), None)
    assert rulings.sale_points(state, both) == (3, 4, 0)


@pytest.mark.rule("p4.sides", "p4.strength")
def test_a_mate_adds_one_and_only_mutiny_sides_count() -> None:
    support = add(EMPTY, Card.SUPPORT, 1)
    state = attrs.evolve(
        meuterer.new_game(4, 0),
        roles=(None, Role.MATE, Role.MERCHANT, Role.MUTINEER),
        face_up=(support, support, support, support),
    )
    assert rulings.strengths(state) == (3, 1)
    assert not rulings.mutiny_succeeds(3, 1) and rulings.mutiny_succeeds(1, 1)


def test_seat_counts_come_from_the_card_definitions() -> None:
    assert SEAT_COUNTS == (3, 4) and MAX_SEATS == 4


def test_more_support_cards_than_the_rulebook_deck_holds_can_all_be_added() -> None:
    state = meuterer.new_game(4, 0)
    state = attrs.evolve(state, to_act=2, face_down=(EMPTY, EMPTY, add(EMPTY, Card.SUPPORT, 9), EMPTY))
    legal = mutiny.legal_support(state)
    assert legal == tuple(Support(2, k) for k in range(10))
    few = attrs.evolve(state, face_down=(EMPTY, EMPTY, add(EMPTY, Card.SUPPORT, 2), EMPTY))
    assert mutiny.legal_support(few) == (Support(2, 0), Support(2, 1), Support(2, 2))
