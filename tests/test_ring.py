"""The shuffled ring: Hochland at position 0, the other eleven islands arranged by chance."""

from __future__ import annotations

import random
from fractions import Fraction
from math import factorial

import pytest

import meuterer
from meuterer import ArrangeRing, IllegalActionError, Phase, Rules, Step
from meuterer.islands import ISLAND_NAMES
from tests.helpers import deal_script, play, run

SHUFFLED = Rules(ring="shuffled")
ORDER = ("hochland", "sandkap", "fingerhut", "piratennest", "rotes_riff", "sommerland", "kalte_klippe",
         "affeninsel", "eisfelsen", "karge_zunge", "gruenland", "frosthoehle")  # fmt: skip
TEXT = "ring " + ",".join(ORDER)


def test_the_arrangement_is_a_chance_node_before_the_deal() -> None:
    state = meuterer.new_game(players=3, rules=SHUFFLED)
    assert state.step is Step.RING and state.phase is Phase.DEAL
    assert meuterer.current_player(state) == meuterer.CHANCE and meuterer.is_chance_node(state)
    outcomes = meuterer.chance_outcomes(state)
    assert len(outcomes) == factorial(11) == len(meuterer.legal_actions(state))
    action, p = outcomes[123456]
    assert p == Fraction(1, factorial(11)) and action == meuterer.legal_actions(state)[123456]
    assert p * len(outcomes) == 1


def test_the_arrangements_are_every_order_of_the_other_islands_once() -> None:
    arrangements = meuterer.legal_actions(meuterer.new_game(rules=SHUFFLED))
    rng = random.Random(5)
    for index in [0, 1, len(arrangements) - 1, *rng.sample(range(len(arrangements)), 200)]:
        action = arrangements[index]
        assert isinstance(action, ArrangeRing)
        assert action.islands[0] == "hochland" and sorted(action.islands) == sorted(ISLAND_NAMES)
        assert arrangements.index(action) == index and action in arrangements
    first = [arrangements[i] for i in range(50)]
    assert len(set(first)) == 50
    # Lexicographic order of the islands' table positions.
    keys = [[ISLAND_NAMES.index(name) for name in a.islands] for a in first if isinstance(a, ArrangeRing)]
    assert keys == sorted(keys)


@pytest.mark.rule("setup.ring")
def test_an_arrangement_lays_out_the_ring_and_the_deal_follows() -> None:
    state = play(meuterer.new_game(players=3, rules=Rules(ring="shuffled", pirates=True)), TEXT)
    assert state.step is Step.DEAL
    assert [state.island_name(p) for p in range(12)] == list(ORDER)
    assert state.pirate == ORDER.index("piratennest") == 3
    assert meuterer.parse_action(TEXT) == meuterer.ArrangeRing(ORDER) and str(meuterer.parse_action(TEXT)) == TEXT


@pytest.mark.rule("setup.ring", "p2.captain-destination")
def test_destinations_count_along_the_shuffled_ring() -> None:
    state = play(meuterer.new_game(players=3, rules=SHUFFLED), TEXT)
    hands = ("ruby salt wine cloth grain", "ruby salt wine cloth grain", "ruby salt wine cloth grain")
    state = run(state, [*deal_script(hands), "p0 offer 0", "p0 play ruby", "p1 play ruby", "p2 play ruby", "p0 pass"])
    assert state.captain_destination == 4 and state.island_name(4) == "rotes_riff"


@pytest.mark.parametrize(
    "islands",
    [
        ORDER[1:] + ORDER[:1],  # Hochland not first
        ORDER[:11] + ("sandkap",),  # an island twice, one missing
        ORDER[:11],  # too few
        (*ORDER, "atlantis"),
    ],
)
def test_a_wrong_arrangement_is_illegal(islands: tuple[str, ...]) -> None:
    state = meuterer.new_game(rules=SHUFFLED)
    with pytest.raises(IllegalActionError, match="not an arrangement of the ring"):
        meuterer.apply(state, ArrangeRing(islands))


@pytest.mark.rule("setup.ring")
def test_a_fixed_ring_has_no_arrangement_step() -> None:
    state = meuterer.new_game()
    assert state.step is Step.DEAL
    with pytest.raises(IllegalActionError, match="the deal"):
        meuterer.apply(state, ArrangeRing(ORDER))


def test_random_games_on_a_shuffled_ring_record_the_arrangement_first() -> None:
    actions, final = meuterer.random_game(seed=3, players=4, rules=SHUFFLED)
    assert isinstance(actions[0], ArrangeRing) and meuterer.is_terminal(final)
    assert final.ring[0] == 0 and sorted(final.ring) == list(range(12))
    assert meuterer.verify(meuterer.write_record(meuterer.Game.replay(actions, rules=SHUFFLED))).ok
