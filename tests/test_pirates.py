"""The pirate variant (SPEC section 5) and its options.

Round 1 starts with the merchant ship at Hochland (0) and the pirate ship at Piratennest
(9); a pirate ship moving at most 4 islands cannot reach Hochland from there, so the
tests that need the two ships close together move them with ``attrs.evolve`` on a real
phase-2 state (positions only; every card stays where the real game put it).
"""

from __future__ import annotations

import attrs
import pytest

import meuterer
from meuterer import Card, Phase, Rules, State, Step
from tests.helpers import counts, deal, draw, legal, play, sell_first

PIRATES = Rules(pirates=True)
PIRATES_STAY = PIRATES  # the pirate ship stays where it stopped (pirates_return=False)
HANDS = (
    "pirate ruby ruby salt support",  # p0, captain
    "support support wine wine cloth",  # p1
    "grain grain grain cloth cloth",  # p2
    "salt salt wine support grain",  # p3
)


def phase_two(rules: Rules = PIRATES, hands: tuple[str, ...] = HANDS) -> State:
    return play(deal(hands, 0, rules), "p0 offer 0")


def placed(state: State, pirate: int, ship: int) -> State:
    return attrs.evolve(state, pirate=pirate, start=ship, active=(ship,))


@pytest.mark.rule("pirates.setup", "rules.deck")
def test_the_variant_adds_the_pirate_card_and_ship() -> None:
    state = meuterer.new_game(players=4, rules=PIRATES)
    assert sum(state.deck) == 37 and state.deck[Card.PIRATE] == 1
    assert state.pirate == 9 and state.island_name(9) == "piratennest"
    assert meuterer.new_game(players=4).pirate is None
    assert sum(meuterer.new_game(players=4).deck) == 36


@pytest.mark.rule("pirates.move")
def test_playing_the_pirate_is_a_normal_play_and_moves_the_ship_counter_clockwise() -> None:
    state = play(phase_two(), "p0 play pirate")
    assert state.pirate == 9 - 4  # four cards left in p0's hand
    assert state.face_up[0] == counts("pirate") and state.to_act == 1 and not state.passed[0]
    assert state.step is Step.PLAY


@pytest.mark.rule("pirates.rob")
@pytest.mark.parametrize(
    ("pirate", "ship", "robbed"),
    [
        (6, 3, True),  # reaches the merchant ship exactly (6 - 3 = 3)
        (6, 4, True),  # passes it
        (6, 2, False),  # stops short
        (1, 10, True),  # reaches it across position 0 (1 -> 0 -> 11 -> 10)
        (1, 0, True),  # passes it at position 0
        (2, 2, False),  # starts on the merchant's island and sails away
    ],
)
def test_robbery_when_the_pirate_ship_reaches_or_passes_the_merchant_ship(pirate: int, ship: int, robbed: bool) -> None:
    state = play(phase_two(), "p0 play ruby", "p1 play support", "p2 play grain", "p3 pass", "p3 role mutineer")
    state = placed(state, pirate, ship)
    after = play(state, "p0 play pirate")
    assert after.pirate == (pirate - 3) % 12  # three cards left after ruby and pirate
    if robbed:
        # Every face-up card of every player goes with the pirate to the discard pile.
        assert all(not any(cards) for cards in after.face_up)
        assert after.discard == counts("pirate ruby support grain")
    else:
        assert after.face_up[0] == counts("ruby pirate") and after.face_up[1] == counts("support")
        assert after.discard == counts("")


@pytest.mark.rule("pirates.rob")
def test_start_robbery_option() -> None:
    state = play(phase_two(Rules(pirates=True, pirates_rob_at_start=True)), "p0 play ruby")
    after = play(placed(state, 2, 2), "p1 play support", "p2 play grain", "p3 pass", "p3 role mate", "p0 play pirate")
    assert after.discard == counts("pirate ruby support grain")


@pytest.mark.rule("pirates.last-card")
def test_with_no_cards_left_the_pirate_ship_does_not_move_or_rob() -> None:
    hands = ("ruby ruby salt support pirate", *HANDS[1:])
    state = play(phase_two(hands=hands), "p0 play ruby", "p1 play wine", "p2 play grain", "p3 play salt")
    state = play(state, "p0 play ruby", "p1 play wine", "p2 play grain", "p3 play salt")
    state = play(state, "p0 play salt", "p1 pass", "p1 role mate", "p2 pass", "p2 role merchant", "p3 pass")
    state = play(state, "p3 role loadmaster", "p0 play support")
    state = placed(state, 5, 5)
    after = play(state, "p0 play pirate")
    assert after.pirate == 5 and after.face_up[0] == counts("ruby ruby salt support pirate")


@pytest.mark.rule("pirates.rob")
def test_robbery_takes_the_cards_of_players_who_passed_and_changes_the_mutiny() -> None:
    # p1 plays two supports and passes as mutineer; the captain's pirate robs them.
    state = play(phase_two(), "p0 play ruby", "p1 play support", "p2 play grain", "p3 play salt")
    state = play(state, "p0 play salt", "p1 play support", "p2 pass", "p2 role merchant", "p3 play wine")
    state = play(state, "p0 play support", "p1 pass", "p1 role mutineer")
    assert state.face_up[1][Card.SUPPORT] == 2 and state.passed[1]
    before = placed(state, 3, 2)
    robbed = play(before, "p3 pass", "p3 role cabin_boy", "p0 play pirate")
    assert robbed.pirate == 2 and robbed.face_up == ((0,) * 7,) * 4  # one card left: 3 -> 2
    # The mutiny: captain (no supports left face up) vs mutineer (his two were stolen).
    after = play(robbed, "p0 pass")
    assert after.step is Step.MUTINY
    assert meuterer.legal_actions(after)[-1] == meuterer.Support(0, 0)  # no support cards face down
    after = play(after, "p0 support 0", "p1 support 0", "p3 support 1")
    assert after.mutiny is True  # 0 vs 1: the stolen supports no longer count


def test_a_pirate_in_a_face_down_pile_counts_toward_the_destination() -> None:
    state = play(phase_two(), "p0 play ruby", "p1 play wine", "p2 play grain", "p3 play salt", "p0 pass")
    assert state.face_down[0] == counts("pirate ruby salt support")
    assert state.captain_destination == 4  # four cards face down, the pirate among them


@pytest.mark.rule("pirates.return")
def test_without_a_robbery_the_pirate_card_is_discarded_at_the_clean_up_and_the_ship_stays() -> None:
    state = play(phase_two(), "p0 play pirate", "p1 pass", "p1 role merchant", "p2 pass", "p2 role mate")
    state = play(state, "p3 pass", "p3 role loadmaster", "p0 pass")
    assert state.step is Step.SELL
    state = play(state, *[f"p{p} sell none" for p in range(4)])
    assert state.phase is Phase.DRAW and state.discard[Card.PIRATE] == 1 and state.pirate == 5


@pytest.mark.rule("pirates.no-effect")
def test_the_merchant_ship_sailing_past_the_pirate_ship_changes_nothing() -> None:
    # The pirate ship waits at Karge Zunge (2); the captain keeps four cards and sails past it to 4.
    state = placed(phase_two(), 2, 0)
    state = play(state, "p0 play ruby", "p1 pass", "p1 role merchant", "p2 pass", "p2 role mate")
    state = play(state, "p3 pass", "p3 role loadmaster", "p0 pass")
    assert state.step is Step.SELL and state.captain_destination == 4
    state = sell_first(state)
    assert state.phase is Phase.DRAW and state.start == 4 and state.pirate == 2
    assert state.hands[0] == counts("pirate ruby salt support")  # nothing robbed from the face-down cards
    assert state.discard == counts("ruby")  # the face-up card goes the usual way


@pytest.mark.rule("pirates.return")
def test_the_pirate_ship_returns_to_piratennest_with_the_option() -> None:
    state = phase_two(Rules(pirates=True, pirates_return=True))
    state = play(state, "p0 play pirate", "p1 pass", "p1 role merchant", "p2 pass", "p2 role mate")
    state = play(state, "p3 pass", "p3 role loadmaster", "p0 pass", *[f"p{p} sell none" for p in range(4)])
    assert state.phase is Phase.DRAW and state.pirate == 9


def test_the_loadmaster_may_keep_or_discard_a_drawn_pirate() -> None:
    hands = ("ruby ruby salt support wine", *HANDS[1:])
    state = play(phase_two(hands=hands), "p0 pass", "p1 play wine", "p2 play grain", "p3 play salt")
    state = play(state, "p1 pass", "p1 role loadmaster", "p2 pass", "p2 role mate", "p3 pass", "p3 role merchant")
    state = sell_first(state)
    # p0 (captain) has a full hand; p1, the loadmaster, draws 1 + 3 cards, the pirate among them.
    assert state.step is Step.DRAW and state.to_act == 1 and state.draws_left == 4
    state = draw(state, "pirate grain grain cloth")
    assert state.step is Step.LOADMASTER_DISCARD
    discards = {"p1 discard cloth grain grain", "p1 discard cloth grain pirate", "p1 discard grain grain pirate"}
    assert legal(state) == discards
    kept = play(state, "p1 discard cloth grain grain")
    assert kept.hands[1][Card.PIRATE] == 1
    dropped = play(state, "p1 discard cloth grain pirate")
    assert dropped.hands[1][Card.PIRATE] == 0 and dropped.discard[Card.PIRATE] == 1


@pytest.mark.rule("p5.goods")
def test_the_pirate_is_never_sold() -> None:
    state = play(phase_two(), "p0 play pirate", "p1 pass", "p1 role merchant", "p2 pass", "p2 role mate")
    state = play(state, "p3 pass", "p3 role loadmaster", "p0 pass")
    assert legal(state) == {"p0 sell none"}


def test_the_variant_is_one_module_that_the_phases_reach_through_hooks() -> None:
    # Only phases/pirates.py reads the pirate options; the other phases and the machine
    # ask the variant's hooks (setup, the ring's arrangement, the clean-up, the play).
    import re
    from pathlib import Path

    from meuterer import machine, phases

    readers = re.compile(r"\brules\.pirates|\bpirates_r(?:eturn|ob_at_start)\b|piratennest|Card\.PIRATE|plays_pirate")
    home = Path(phases.__file__).parent
    others = [p for p in (*home.glob("*.py"), Path(machine.__file__)) if p.name != "pirates.py"]
    assert [p.name for p in others if readers.search(p.read_text(encoding="utf-8"))] == []


def test_the_hooks_of_the_base_game_and_of_the_pirates() -> None:
    from meuterer.machine import TABLE
    from meuterer.phases.pirates import PIRATES, play_pirate, plays_pirate
    from meuterer.phases.variants import BASE, variant_of

    base, pirates = meuterer.new_game(4, 0), meuterer.new_game(4, 0, Rules(pirates=True, pirates_return=True))
    assert variant_of(base.rules) is BASE and variant_of(pirates.rules) is PIRATES
    assert BASE.applies(pirates.rules) and not PIRATES.applies(base.rules)  # the base game is a fallback
    assert BASE.pirate_ship(base.rules, base.ring) is None and BASE.clean_up(base) == {}
    assert PIRATES.pirate_ship(pirates.rules, pirates.ring) == 9
    assert PIRATES.clean_up(attrs.evolve(pirates, pirate=3)) == {"pirate": 9}
    assert PIRATES.clean_up(attrs.evolve(pirates, pirate=3, rules=PIRATES_STAY)) == {}
    # The machine tries the variant's play of the pirate card before the base game's play.
    (guards, effect, dest), *rest = TABLE[Step.PLAY, "play"]
    assert (guards, effect, dest) == ((plays_pirate,), play_pirate, Step.PLAY) and len(rest) == 1


@pytest.mark.rule("pirates.setup")
def test_a_shuffled_ring_puts_the_pirate_ship_on_piratennest_wherever_it_lies() -> None:
    state = meuterer.new_game(4, 0, Rules(pirates=True, ring="shuffled"))
    arranged = [meuterer.apply(state, meuterer.legal_actions(state)[i]) for i in (0, 12345, 30_000_000)]
    assert [s.island_name(s.pirate) for s in arranged if s.pirate is not None] == ["piratennest"] * 3
    assert len({s.pirate for s in arranged}) > 1
