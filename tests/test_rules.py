"""One focused test per rule of SPEC sections 2-4 (setup, the ten phases, the end).

Every scenario is reached by real play through the public API: hands are dealt by
choosing the draws, and decisions are written in the canonical notation.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import attrs
import pytest

import meuterer
from meuterer import Card, Phase, Role, Rules, State, Step
from tests.helpers import (
    counts,
    deal,
    deltas,
    draw,
    draw_any,
    legal,
    mutiny,
    phase_two,
    play,
    sail_to,
    sell_first,
)

# Four hands used by many tests (the deck's six supports are all dealt).
HANDS4 = (
    "wine wine wine support ruby",  # p0
    "salt salt salt support support",  # p1
    "cloth cloth cloth support support",  # p2
    "grain grain grain support ruby",  # p3
)
HANDS3 = HANDS4[:3]
ALL_ROLES = ("mutineer", "cabin_boy", "mate", "merchant", "loadmaster")
NO_PLAYS = ("", "", "", "")


def roles_menu(state: State) -> set[str]:
    """The role names offered to the player choosing a role."""
    assert state.step is Step.CHOOSE_ROLE
    return {text.split()[-1] for text in legal(state)}


def to_scoring(
    plays: tuple[str, ...],
    roles: dict[int, str],
    offer: int = 0,
    supports: dict[int, int] | None = None,
    hands: tuple[str, ...] = HANDS4,
    captain: int = 0,
    rules: Rules | None = None,
) -> State:
    """Deal ``hands``, play phase 2 (and phase 4, if there is a mutineer): the state at
    the first sale declaration of phase 5, after role points."""
    state = phase_two(deal(hands, captain, rules), plays, roles, offer)
    state = mutiny(state, supports or {})
    assert state.step is Step.SELL
    return state


# Section 2: setup ------------------------------------------------------------------------


@pytest.mark.rule("setup.seats", "setup.ring", "setup.active", "setup.deal")
def test_setup_hochland_only_active_ship_there_full_deck() -> None:
    state = meuterer.new_game(4, 2)
    assert state.phase is Phase.DEAL and state.round == 1 and state.captain == 2
    assert state.start == 0 and state.island_name(state.start) == "hochland"
    assert state.active == (0,)
    assert sum(state.deck) == 36 and state.deck == (4, 5, 6, 7, 8, 6, 0)
    assert state.scores == (0, 0, 0, 0) and all(sum(h) == 0 for h in state.hands)
    assert meuterer.current_player(state) == meuterer.CHANCE
    outcomes = {str(action): p for action, p in meuterer.chance_outcomes(state)}
    assert outcomes == {
        "draw p2 ruby": Fraction(4, 36),
        "draw p2 salt": Fraction(5, 36),
        "draw p2 wine": Fraction(6, 36),
        "draw p2 cloth": Fraction(7, 36),
        "draw p2 grain": Fraction(8, 36),
        "draw p2 support": Fraction(6, 36),
    }


@pytest.mark.rule("setup.deal")
@pytest.mark.parametrize(("players", "captain"), [(4, 0), (4, 2), (3, 1)])
def test_deal_starts_with_captain_clockwise_five_each(players: int, captain: int) -> None:
    state, seats = draw_any(meuterer.new_game(players, captain))
    order = [(captain + i) % players for i in range(players)]
    assert seats == [p for p in order for _ in range(5)]
    assert all(sum(hand) == 5 for hand in state.hands)
    assert sum(state.deck) == 36 - 5 * players
    assert state.phase is Phase.OFFER and state.to_act == captain


@pytest.mark.rule("p1.offer")
def test_captain_offers_zero_to_three_only() -> None:
    state = deal(HANDS4, captain=1)
    assert legal(state) == {"p1 offer 0", "p1 offer 1", "p1 offer 2", "p1 offer 3"}
    with pytest.raises(meuterer.IllegalActionError, match="0 to 3"):
        play(state, "p1 offer 4")
    with pytest.raises(meuterer.IllegalActionError, match="p1 makes the captain's offer"):
        play(state, "p0 offer 1")
    assert play(state, "p1 offer 3").offer == 3


# Section 3, phase 2: playing, passing, choosing roles --------------------------------------


@pytest.mark.rule("p2.turns")
def test_turns_go_clockwise_from_captain_skipping_passed_players() -> None:
    state = deal(
        (
            "grain grain grain grain grain",
            "cloth cloth cloth cloth cloth",
            "salt salt salt salt salt",
            "wine wine wine wine wine",
        ),
        captain=2,
    )
    state = play(state, "p2 offer 0")
    assert state.to_act == 2
    seats = []
    for text in [
        "p2 play salt",
        "p3 play wine",
        "p0 play grain",
        "p1 play cloth",
        "p2 play salt",
        "p3 pass",
        "p3 role merchant",
        "p0 play grain",
        "p1 pass",
        "p1 role mate",
        "p2 play salt",
        "p0 play grain",
        "p2 play salt",
    ]:
        seats.append(state.to_act)
        # Only the player to act has legal actions.
        assert {a.player for a in meuterer.legal_actions(state)} == {state.to_act}
        state = play(state, text)
    assert seats == [2, 3, 0, 1, 2, 3, 3, 0, 1, 1, 2, 0, 2]
    assert state.to_act == 0  # p3 and p1 have passed: p2 -> p0 -> p2 -> ...


@pytest.mark.rule("p2.play")
def test_any_card_may_be_played_even_unsellable_ones() -> None:
    # Real play to round 3, whose active islands (Karge Zunge, Affeninsel) buy only grain.
    state = sail_to(3, HANDS4)
    state = sell_first(to_round_two_scoring(state, "wine wine wine"))  # keeps support ruby: to Affeninsel
    state, _ = draw_any(state)
    assert state.round == 3 and state.active == (3, 5)
    assert all(state.island(pos).buys is Card.GRAIN for pos in state.active)
    state = play(state, "p0 offer 0")
    hand = state.hands[0]
    assert hand[Card.RUBY] and hand[Card.SUPPORT]
    assert legal(state) == {f"p0 play {card}" for card in Card if hand[card]} | {"p0 pass"}
    state = play(
        state,
        "p0 play ruby",
        "p1 pass",
        "p1 role merchant",
        "p2 pass",
        "p2 role mate",
        "p3 pass",
        "p3 role cabin_boy",
        "p0 play support",
    )
    assert state.face_up[0] == counts("ruby support")


@pytest.mark.rule("p2.play", "p2.turns")
def test_a_player_may_keep_playing_alone_at_the_end() -> None:
    state = deal(HANDS4)
    state = play(
        state,
        "p0 offer 0",
        "p0 play wine",
        "p1 pass",
        "p1 role merchant",
        "p2 pass",
        "p2 role mate",
        "p3 pass",
        "p3 role cabin_boy",
    )
    for card in ("wine", "wine", "support"):
        assert state.to_act == 0 and state.phase is Phase.PLAY
        assert f"p0 play {card}" in legal(state) and "p0 pass" in legal(state)
        state = play(state, f"p0 play {card}")
    assert state.to_act == 0 and state.hands[0] == counts("ruby")


@pytest.mark.rule("p2.empty-hand")
def test_a_player_with_an_empty_hand_must_pass() -> None:
    state = deal(HANDS4)
    state = play(
        state,
        "p0 offer 0",
        "p0 play wine",
        "p1 pass",
        "p1 role merchant",
        "p2 pass",
        "p2 role mate",
        "p3 pass",
        "p3 role cabin_boy",
        "p0 play wine",
        "p0 play wine",
        "p0 play support",
        "p0 play ruby",
    )
    assert sum(state.hands[0]) == 0
    assert legal(state) == {"p0 pass"}
    with pytest.raises(meuterer.IllegalActionError, match="no wine in hand"):
        play(state, "p0 play wine")
    state = play(state, "p0 pass")
    assert state.captain_destination == 0  # 0 cards: the start island itself


@pytest.mark.rule("p2.captain-destination", "p2.pass")
@pytest.mark.parametrize(
    ("kept", "island"),
    [(0, "hochland"), (1, "frosthoehle"), (2, "gruenland"), (3, "karge_zunge"), (4, "eisfelsen"), (5, "affeninsel")],
)
def test_captain_destination_is_n_islands_clockwise_from_start(kept: int, island: str) -> None:
    captain_plays = " ".join(["wine", "wine", "wine", "support", "ruby"][: 5 - kept])
    plays = (captain_plays, "", "", "")
    state = phase_two(deal(HANDS4), plays, {1: "merchant", 2: "mate", 3: "cabin_boy"})
    assert sum(state.face_down[0]) == kept
    assert state.captain_destination == kept and state.island_name(kept) == island


@pytest.mark.rule("p2.pass")
def test_a_pass_lays_the_rest_of_the_hand_face_down_and_ends_the_players_phase_two() -> None:
    state = play(deal(HANDS4), "p0 offer 0", "p0 play wine", "p1 pass")
    assert state.hands[1] == counts("") and state.face_down[1] == counts("salt salt salt support support")
    assert state.passed == (False, True, False, False)
    assert meuterer.view(state, 0).face_down_sizes == (0, 5, 0, 0)  # their number is public
    state = play(state, "p1 role mate", "p2 play cloth", "p3 play grain", "p0 play wine")
    assert state.to_act == 2  # p1 plays no more this round


@pytest.mark.rule("p2.role")
def test_non_captain_chooses_a_role_right_after_passing_from_those_left() -> None:
    state = play(deal(HANDS4), "p0 offer 0", "p0 play wine", "p1 pass")
    assert state.step is Step.CHOOSE_ROLE and state.to_act == 1
    assert roles_menu(state) == set(ALL_ROLES)
    assert {a.player for a in meuterer.legal_actions(state)} == {1}
    with pytest.raises(meuterer.IllegalActionError, match="chooses a role"):
        play(state, "p2 play cloth")
    state = play(state, "p1 role mate", "p2 pass")
    assert roles_menu(state) == set(ALL_ROLES) - {"mate"}
    with pytest.raises(meuterer.IllegalActionError, match="already taken"):
        play(state, "p2 role mate")
    state = play(state, "p2 role mutineer", "p3 pass")
    assert roles_menu(state) == {"cabin_boy", "merchant", "loadmaster"}
    state = play(state, "p3 role loadmaster")
    assert state.roles == (None, Role.MATE, Role.MUTINEER, Role.LOADMASTER)
    assert state.role_order == (1, 2, 3)


@pytest.mark.rule("p2.role")
def test_captain_takes_no_role() -> None:
    state = play(deal(HANDS4, captain=2), "p2 offer 1", "p2 pass")
    assert state.step is Step.PLAY and state.to_act == 3  # straight on to the next player
    assert state.captain_destination == 5
    state = play(state, "p3 pass", "p3 role merchant", "p0 pass", "p0 role mate", "p1 pass", "p1 role cabin_boy")
    assert state.roles == (Role.MATE, Role.CABIN_BOY, None, Role.MERCHANT)


@pytest.mark.rule("p2.role")
@pytest.mark.parametrize(("players", "menus"), [(4, [5, 4, 3]), (3, [5, 4])])
def test_roles_taken_per_round(players: int, menus: list[int]) -> None:
    state = play(deal(HANDS4[:players]), "p0 offer 0", "p0 pass")
    seen = []
    for seat in range(1, players):
        state = play(state, f"p{seat} pass")
        seen.append(len(legal(state)))
        state = meuterer.apply(state, meuterer.legal_actions(state)[-1])
    assert state.phase is not Phase.PLAY
    assert seen == menus
    assert sum(role is not None for role in state.roles) == players - 1


# Phase 3: reveal, the mutineer's destination ----------------------------------------------


@pytest.mark.rule("p3.reveal")
@pytest.mark.parametrize(("kept", "island"), [(0, "hochland"), (2, "gruenland"), (5, "affeninsel")])
def test_mutineer_destination_is_n_islands_clockwise_from_start(kept: int, island: str) -> None:
    mutineer_plays = " ".join(["salt", "salt", "salt", "support", "support"][: 5 - kept])
    state = phase_two(deal(HANDS4), ("wine", mutineer_plays, "", ""), {1: "mutineer", 2: "merchant", 3: "mate"})
    assert state.phase is Phase.MUTINY
    assert state.roles[1] is Role.MUTINEER
    assert state.mutineer_destination == kept and state.island_name(kept) == island
    assert state.captain_destination == 4  # the captain kept 4: his destination is his own


@pytest.mark.rule("p2.captain-destination", "p3.reveal")
def test_destinations_count_from_the_current_start_island() -> None:
    state = sail_to(3, HANDS4)  # round 2, the ship at Karge Zunge
    state = phase_two(
        state, ("wine wine wine", "salt salt salt support", "", ""), {1: "mutineer", 2: "merchant", 3: "mate"}
    )
    assert state.captain_destination == 3 + 2 and state.mutineer_destination == 3 + 1


# Phase 4: mutiny --------------------------------------------------------------------------


@pytest.mark.rule("p4.skip")
def test_no_mutineer_no_phase_four() -> None:
    state = phase_two(deal(HANDS4), ("wine", "salt", "", ""), {1: "mate", 2: "cabin_boy", 3: "merchant"})
    assert state.phase is Phase.SCORING and state.step is Step.SELL
    assert state.mutiny is None and state.mutineer_destination is None
    assert all(isinstance(a, meuterer.Sell) for a in meuterer.legal_actions(state))


@pytest.mark.rule("p4.support-order", "p4.sides")
@pytest.mark.parametrize(
    ("captain", "roles", "order"),
    [
        (2, {3: "cabin_boy", 0: "mutineer", 1: "merchant"}, [2, 3, 0]),
        (2, {3: "merchant", 0: "mate", 1: "mutineer"}, [2, 0, 1]),
        (1, {2: "loadmaster", 3: "mutineer", 0: "merchant"}, [1, 3]),
        (0, {1: "mate", 2: "mutineer", 3: "cabin_boy"}, [0, 1, 2, 3]),
    ],
)
def test_supports_clockwise_from_captain_participants_only(
    captain: int, roles: dict[int, str], order: list[int]
) -> None:
    state = phase_two(deal(HANDS4, captain), NO_PLAYS, roles)
    seats = []
    for _ in range(4):
        if state.step is not Step.MUTINY:
            break
        seats.append(state.to_act)
        state = play(state, f"p{state.to_act} support 0")
    assert seats == order
    assert state.step is Step.SELL


@pytest.mark.rule("p4.support-order")
def test_support_count_is_zero_to_face_down_supports() -> None:
    state = phase_two(deal(HANDS4), ("wine", "salt", "", ""), {1: "mutineer", 2: "mate", 3: "cabin_boy"})
    destinations = (state.captain_destination, state.mutineer_destination)
    assert state.to_act == 0 and legal(state) == {"p0 support 0", "p0 support 1"}
    with pytest.raises(meuterer.IllegalActionError, match="1 support card"):
        play(state, "p0 support 2")
    state = play(state, "p0 support 1")
    assert legal(state) == {"p1 support 0", "p1 support 1", "p1 support 2"}
    state = play(state, "p1 support 2")
    assert state.face_up[1] == counts("salt support support") and state.face_down[1] == counts("salt salt")
    assert legal(state) == {"p2 support 0", "p2 support 1", "p2 support 2"}
    state = play(state, "p2 support 0", "p3 support 1")
    # Cards spent in phase 4 change no destination.
    assert (state.captain_destination, state.mutineer_destination) == destinations


# (phase-2 plays per seat, roles, phase-4 supports, the mutiny succeeds)
STRENGTH_CASES = {
    "tie 0-0 without mate goes to the mutineer": (NO_PLAYS, {1: "mutineer", 2: "merchant", 3: "loadmaster"}, {}, True),
    "mate counts 1: 1-0": (NO_PLAYS, {1: "mutineer", 2: "mate", 3: "merchant"}, {}, False),
    "mate 1 vs mutineer's support: tie": (NO_PLAYS, {1: "mutineer", 2: "mate", 3: "merchant"}, {1: 1}, True),
    "mate's own support counts: 2-1": (NO_PLAYS, {1: "mutineer", 2: "mate", 3: "cabin_boy"}, {1: 1, 2: 1}, False),
    "cabin boy's support counts: 2-2": (NO_PLAYS, {1: "mutineer", 2: "mate", 3: "cabin_boy"}, {1: 1, 2: 1, 3: 1}, True),
    "captain's support from phase 2 counts: 1-0": (
        ("support", "", "", ""),
        {1: "mutineer", 2: "merchant", 3: "loadmaster"},
        {},
        False,
    ),
    "mutineer's support from phase 2 counts: 1-1": (
        ("support", "support", "", ""),
        {1: "mutineer", 2: "merchant", 3: "loadmaster"},
        {},
        True,
    ),
    "merchant's and loadmaster's supports never help the mutineer": (
        ("support", "", "support support", "support"),
        {1: "mutineer", 2: "merchant", 3: "loadmaster"},
        {},
        False,
    ),
    "merchant's and loadmaster's supports never help the captain": (
        ("", "support", "support support", "support"),
        {1: "mutineer", 2: "loadmaster", 3: "merchant"},
        {},
        True,
    ),
}


@pytest.mark.rule("p4.sides", "p4.strength", "p4.tie")
@pytest.mark.parametrize(("plays", "roles", "supports", "succeeds"), STRENGTH_CASES.values(), ids=STRENGTH_CASES)
def test_mutiny_strength(
    plays: tuple[str, ...], roles: dict[int, str], supports: dict[int, int], succeeds: bool
) -> None:
    state = to_scoring(plays, roles, supports=supports)
    assert state.mutiny is succeeds


# Phase 5: role points ---------------------------------------------------------------------

# (captain p0's plays, roles, offer, phase-4 supports, p1's plays, scores after role points, captain afterwards)
ROLE_POINT_CASES = {
    # Captain keeps 3: Karge Zunge (ship 4).
    "no mutineer: captain scores, pays the mate": (
        "wine wine",
        {1: "mate", 2: "merchant", 3: "cabin_boy"},
        2,
        {},
        "",
        (4 - 2, 1 + 2, 0, 0),
        0,
    ),
    "no mate: the captain pays nothing": (
        "wine wine",
        {1: "merchant", 2: "cabin_boy", 3: "loadmaster"},
        3,
        {},
        "",
        (4, 0, 0, 0),
        0,
    ),
    # Captain keeps 5: Affeninsel (ship 2) with an offer of 3.
    "scores may go negative": ("", {1: "mate", 2: "merchant", 3: "cabin_boy"}, 3, {}, "", (2 - 3, 1 + 3, 0, 0), 0),
    "failed mutiny: captain scores and pays, mutineer and cabin boy 0": (
        "wine wine",
        {1: "mutineer", 2: "mate", 3: "cabin_boy"},
        1,
        {},
        "",
        (4 - 1, 0, 1 + 1, 0),
        0,
    ),
    # The mutineer keeps 4: Eisfelsen (ship 5); 1 vs 1 with the mate, so he wins.
    "successful mutiny: mutineer scores and is captain, cabin boy 2, captain and mate 0": (
        "wine wine",
        {1: "mutineer", 2: "mate", 3: "cabin_boy"},
        2,
        {1: 1},
        "salt",
        (0, 5, 0, 2),
        1,
    ),
}


@pytest.mark.rule("p5.captain-keeps", "p5.no-mate", "p5.mutiny-succeeds")
@pytest.mark.parametrize(
    ("captain_plays", "roles", "offer", "supports", "p1_plays", "scores", "captain"),
    ROLE_POINT_CASES.values(),
    ids=ROLE_POINT_CASES,
)
def test_role_points(
    captain_plays: str,
    roles: dict[int, str],
    offer: int,
    supports: dict[int, int],
    p1_plays: str,
    scores: tuple[int, ...],
    captain: int,
) -> None:
    state = to_scoring((captain_plays, p1_plays, "", ""), roles, offer=offer, supports=supports)
    # Role points are scored before any sale is declared.
    assert state.scores == scores
    assert state.captain == captain


# Phase 5: sales -----------------------------------------------------------------------------


@pytest.mark.rule("p5.goods")
def test_support_is_never_sold() -> None:
    state = to_scoring(("support wine", "support", "", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})
    assert state.to_act == 0
    assert legal(state) == {"p0 sell hochland:wine:1"}
    with pytest.raises(meuterer.IllegalActionError, match="does not buy support"):
        play(state, "p0 sell hochland:support:1")
    state = play(state, "p0 sell hochland:wine:1")
    assert legal(state) == {"p1 sell none"}  # only a support face up: nothing to sell


@pytest.mark.rule("p5.one-kind")
def test_one_kind_of_good_per_island() -> None:
    hands = ("wine wine salt ruby ruby", *HANDS4[1:])
    state = to_scoring(("wine wine salt", "", "", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"}, hands=hands)
    assert legal(state) == {"p0 sell hochland:wine:2", "p0 sell hochland:salt:1"}
    with pytest.raises(meuterer.IllegalActionError, match="name each island once"):
        play(state, "p0 sell hochland:wine:2,hochland:salt:1")


@pytest.mark.rule("p5.buys")
def test_hochland_buys_any_good_other_islands_only_theirs() -> None:
    # Real play: round 1 sails to Grünland (salt); round 2 has Hochland and Grünland active.
    state = sail_to(2, ("wine wine salt ruby ruby", *HANDS4[1:]))
    assert state.active == (0, 2)
    state = phase_two(state, ("wine wine salt", "", "", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})
    assert legal(state) == {"p0 sell hochland:salt:1", "p0 sell hochland:wine:2,gruenland:salt:1"}
    with pytest.raises(meuterer.IllegalActionError, match="gruenland does not buy wine"):
        play(state, "p0 sell gruenland:wine:2")
    # With withholding every combination shows the same: Grünland only ever buys salt.
    withholding = sail_to(2, ("wine wine salt ruby ruby", *HANDS4[1:]), rules=Rules(withholding=True))
    withholding = phase_two(withholding, ("wine wine salt", "", "", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})
    declarations = [a for a in meuterer.legal_actions(withholding) if isinstance(a, meuterer.Sell)]
    sales = [sale for action in declarations for sale in action.sales]
    assert {sale.card for sale in sales if sale.island == "gruenland"} == {Card.SALT}
    assert {sale.card for sale in sales if sale.island == "hochland"} == {Card.SALT, Card.WINE}


@pytest.mark.rule("p5.buys")
def test_different_players_sell_different_goods_on_hochland() -> None:
    state = to_scoring(("wine", "salt", "cloth", "grain grain"), {1: "cabin_boy", 2: "mate", 3: "loadmaster"})
    after = play(
        state,
        "p0 sell hochland:wine:1",
        "p1 sell hochland:salt:1",
        "p2 sell hochland:cloth:1",
        "p3 sell hochland:grain:2",
    )
    assert deltas(state, after) == (0, 0, 0, 4)  # p3 sole leader with 2 cards: I = 4


@pytest.mark.rule("p5.one-kind")
def test_a_kind_may_be_split_across_both_islands() -> None:
    hands = (
        "grain grain grain grain wine",
        "salt salt salt support support",
        "cloth cloth cloth grain support",
        "ruby ruby ruby support support",
    )
    state = sail_to(3, hands)  # active: Hochland and Karge Zunge (grain)
    state = phase_two(state, ("grain grain grain grain", "", "grain", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})
    assert legal(state) == {
        "p0 sell hochland:grain:4",
        "p0 sell karge_zunge:grain:4",
        "p0 sell hochland:grain:1,karge_zunge:grain:3",
        "p0 sell hochland:grain:2,karge_zunge:grain:2",
        "p0 sell hochland:grain:3,karge_zunge:grain:1",
    }
    after = play(
        state,
        "p0 sell hochland:grain:2,karge_zunge:grain:2",
        "p1 sell none",
        "p2 sell karge_zunge:grain:1",
        "p3 sell none",
    )
    assert deltas(state, after) == (4 + 6, 0, 0, 0)  # sole leader on both islands


@pytest.mark.rule("p5.one-kind")
def test_never_more_cards_sold_than_face_up_even_split() -> None:
    # With withholding (so that "sell what you can" does not hide it): p2 has 1 grain face
    # up and may sell it on one island, not once on each.
    hands = (
        "grain grain grain grain wine",
        "salt salt salt support support",
        "cloth cloth cloth grain support",
        "ruby ruby ruby support support",
    )
    state = sail_to(3, hands, rules=Rules(withholding=True))
    state = phase_two(state, ("grain", "", "grain", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})
    state = play(state, "p0 sell none", "p1 sell none")
    assert legal(state) == {"p2 sell none", "p2 sell hochland:grain:1", "p2 sell karge_zunge:grain:1"}
    with pytest.raises(meuterer.IllegalActionError, match="p2 has 1 grain face up, not 2"):
        play(state, "p2 sell hochland:grain:1,karge_zunge:grain:1")


@pytest.mark.rule("p5.withholding")
def test_sell_what_you_can_by_default_withholding_as_option() -> None:
    plays = ("wine wine", "", "", "")
    roles = {1: "merchant", 2: "mate", 3: "cabin_boy"}
    state = to_scoring(plays, roles)
    assert legal(state) == {"p0 sell hochland:wine:2"}
    with pytest.raises(meuterer.IllegalActionError, match="must sell what he can"):
        play(state, "p0 sell hochland:wine:1")
    free = to_scoring(plays, roles, rules=Rules(withholding=True))
    assert legal(free) == {"p0 sell none", "p0 sell hochland:wine:1", "p0 sell hochland:wine:2"}


@pytest.mark.rule("p5.withholding")
def test_sell_none_only_when_nothing_is_sellable() -> None:
    state = to_scoring(("wine", "support", "", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})
    with pytest.raises(meuterer.IllegalActionError, match="must sell what he can"):
        play(state, "p0 sell none")
    state = play(state, "p0 sell hochland:wine:1")
    assert legal(state) == {"p1 sell none"}  # a support only
    state = play(state, "p1 sell none")
    assert legal(state) == {"p2 sell none"}  # nothing face up


# Hochland pays I = 4, II = 3, III = 2.
# (phase-2 plays, roles, points from sales)
SALE_CASES = {
    "sole leader scores I": (("wine wine", "salt", "", ""), {1: "mate", 2: "loadmaster", 3: "cabin_boy"}, (4, 0, 0, 0)),
    "merchant not among the leaders scores nothing": (
        ("wine wine", "salt", "", ""),
        {1: "merchant", 2: "mate", 3: "cabin_boy"},
        (4, 0, 0, 0),
    ),
    "two leaders score II": (("wine", "salt", "", ""), {1: "mate", 2: "merchant", 3: "cabin_boy"}, (3, 3, 0, 0)),
    "merchant in a two-way tie scores I": (
        ("wine", "salt", "", ""),
        {1: "merchant", 2: "mate", 3: "cabin_boy"},
        (3, 4, 0, 0),
    ),
    "three leaders score III": (
        ("wine", "salt", "cloth", ""),
        {1: "mate", 2: "loadmaster", 3: "cabin_boy"},
        (2, 2, 2, 0),
    ),
    "four leaders score nothing": (
        ("wine", "salt", "cloth", "grain"),
        {1: "mate", 2: "loadmaster", 3: "cabin_boy"},
        (0, 0, 0, 0),
    ),
    "merchant in a four-way tie scores I": (
        ("wine", "salt", "cloth", "grain"),
        {1: "mate", 2: "loadmaster", 3: "merchant"},
        (0, 0, 0, 4),
    ),
    "only the leaders score": (
        ("wine wine", "salt salt", "cloth", "grain"),
        {1: "mate", 2: "merchant", 3: "cabin_boy"},
        (3, 3, 0, 0),
    ),
}


@pytest.mark.rule("p5.leaders", "p5.merchant")
@pytest.mark.parametrize(("plays", "roles", "points"), SALE_CASES.values(), ids=SALE_CASES)
def test_sale_points(plays: tuple[str, ...], roles: dict[int, str], points: tuple[int, ...]) -> None:
    state = to_scoring(plays, roles)
    assert deltas(state, sell_first(state)) == points


@pytest.mark.rule("p5.sale-order", "p5.mutiny-succeeds")
@pytest.mark.parametrize(("rules", "first"), [(Rules(), 1), (Rules(sale_order="round_captain"), 0)])
def test_sale_declaration_order_after_a_successful_mutiny(rules: Rules, first: int) -> None:
    state = to_scoring(("wine", "salt", "cloth", "grain"), {1: "mutineer", 2: "merchant", 3: "cabin_boy"}, rules=rules)
    assert state.mutiny is True and state.captain == 1  # the captain cards changed hands
    assert state.to_act == first
    assert state.queue == tuple((first + i) % 4 for i in range(1, 4))
    assert {a.player for a in meuterer.legal_actions(state)} == {first}


@pytest.mark.rule("p5.sale-order")
@pytest.mark.parametrize("rules", [Rules(), Rules(sale_order="round_captain")])
def test_sale_declaration_starts_with_captain_without_mutiny(rules: Rules) -> None:
    state = to_scoring(
        ("wine", "salt", "cloth", "grain"), {3: "merchant", 0: "mate", 1: "cabin_boy"}, captain=2, rules=rules
    )
    assert state.to_act == 2 and state.queue == (3, 0, 1)


# Phase 6: sailing ---------------------------------------------------------------------------


@pytest.mark.rule("p6.sail")
def test_ship_sails_to_captains_destination_old_and_new_start_active() -> None:
    state = sail_to(3, HANDS4)
    assert state.start == 3 and state.active == (0, 3)
    # Round 2: the captain keeps 2 cards, so the ship sails on to Affeninsel; Hochland,
    # the start island of round 1, turns passive.
    state = sell_first(to_round_two_scoring(state, "wine wine wine"))
    assert state.start == 5 and state.active == (3, 5)


@pytest.mark.rule("p6.sail")
def test_ship_that_stays_leaves_one_active_island() -> None:
    state = sail_to(3, HANDS4)
    state = sell_first(to_round_two_scoring(state, "wine wine wine support ruby"))  # keeps 0: stays
    assert state.start == 3 and state.active == (3,)


@pytest.mark.rule("p6.sail")
def test_ship_sails_to_mutineers_destination_after_successful_mutiny() -> None:
    state = to_scoring(("wine wine", "salt", "", ""), {1: "mutineer", 2: "merchant", 3: "cabin_boy"})
    assert state.mutiny is True and (state.captain_destination, state.mutineer_destination) == (3, 4)
    state = sell_first(state)
    assert state.start == 4 and state.active == (0, 4)


def to_round_two_scoring(state: State, captain_plays: str) -> State:
    """Round 2 from its phase 1: the captain plays ``captain_plays``, the others pass at
    once and take roles without a mutineer; returns the state at the first declaration."""
    state = phase_two(state, (captain_plays, "", "", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})
    assert state.step is Step.SELL
    return state


# Phase 7: clean-up --------------------------------------------------------------------------


@pytest.mark.rule("p7.clean-up")
def test_clean_up_face_up_to_discard_face_down_back_to_hand() -> None:
    state = to_scoring(
        ("wine support", "salt", "cloth support", "grain"),
        {1: "mutineer", 2: "merchant", 3: "cabin_boy"},
        supports={1: 1},
    )
    state = sell_first(state)
    assert state.phase is Phase.DRAW
    assert state.discard == counts("wine support salt support cloth support grain")
    assert state.hands == (
        counts("wine wine ruby"),
        counts("salt salt support"),
        counts("cloth cloth support"),
        counts("grain grain support ruby"),
    )
    assert state.face_up == (counts(""),) * 4 and state.face_down == (counts(""),) * 4
    assert sum(state.deck) == 16


# Phase 8: drawing -----------------------------------------------------------------------------


@pytest.mark.rule("p8.draw")
def test_drawing_from_captain_clockwise_up_to_five() -> None:
    # Captain p2 keeps 5 cards (plays nothing), p3 keeps 3, p0 keeps 5, p1 keeps 1.
    state = to_scoring(
        ("", "grain grain grain support", "", "salt salt"),
        {3: "mate", 0: "cabin_boy", 1: "merchant"},
        hands=HANDS4[2:] + HANDS4[:2],
        captain=2,
    )
    state = sell_first(state)
    assert state.captain == 2
    state, seats = draw_any(state)
    assert seats == [3, 3, 1, 1, 1, 1]  # p2 and p0 have full hands and draw nothing
    assert all(sum(hand) == 5 for hand in state.hands)
    assert state.phase is Phase.OFFER and state.round == 2


def loadmaster_round(rules: Rules | None = None) -> State:
    """Round 1 up to the loadmaster's discard: p1 is the loadmaster and keeps 3 cards
    (salt support support); p0 draws 1, then p1 draws 2 + 3 = 5: ruby ruby cloth grain grain."""
    state = to_scoring(
        ("wine", "salt salt", "cloth", "grain"), {1: "loadmaster", 2: "merchant", 3: "cabin_boy"}, rules=rules
    )
    state = sell_first(state)
    assert state.phase is Phase.DRAW and state.to_act == 0 and state.draws_left == 1
    state = draw(state, "wine")
    assert state.to_act == 1 and state.draws_left == 5
    return draw(state, "ruby cloth grain ruby grain")


@pytest.mark.rule("p8.loadmaster", "p8.loadmaster-when")
def test_loadmaster_draws_three_extra_and_discards_three_just_drawn() -> None:
    state = loadmaster_round()
    assert state.step is Step.LOADMASTER_DISCARD and meuterer.current_player(state) == 1
    assert state.hands[1] == counts("salt support support ruby ruby cloth grain grain")
    assert legal(state) == {
        "p1 discard ruby ruby cloth",
        "p1 discard ruby ruby grain",
        "p1 discard ruby cloth grain",
        "p1 discard ruby grain grain",
        "p1 discard cloth grain grain",
    }
    with pytest.raises(meuterer.IllegalActionError, match="cannot discard 1 salt"):
        play(state, "p1 discard ruby ruby salt")
    discard_before = state.discard
    state = play(state, "p1 discard ruby cloth grain")
    assert state.hands[1] == counts("salt support support ruby grain")
    assert state.discard == tuple(a + b for a, b in zip(discard_before, counts("ruby cloth grain"), strict=True))
    # Only now does the next player draw.
    assert meuterer.current_player(state) == meuterer.CHANCE and state.to_act == 2 and state.draws_left == 1


@pytest.mark.rule("p8.loadmaster")
def test_loadmaster_may_discard_from_whole_hand_with_option() -> None:
    state = loadmaster_round(Rules(discard_pool="hand"))
    assert "p1 discard salt support support" in legal(state)
    assert "p1 discard ruby ruby cloth" in legal(state)
    state = play(state, "p1 discard salt support support")
    assert state.hands[1] == counts("ruby ruby cloth grain grain")


@pytest.mark.rule("p8.loadmaster")
def test_loadmaster_with_full_hand_draws_and_discards_three() -> None:
    state = to_scoring(("wine", "", "cloth", "grain"), {1: "loadmaster", 2: "merchant", 3: "cabin_boy"})
    state = draw(sell_first(state), "wine")
    assert state.to_act == 1 and state.draws_left == 3
    state = draw(state, "grain grain grain")
    assert legal(state) == {"p1 discard grain grain grain"}


@pytest.mark.rule("p8.reshuffle")
def test_reshuffle_when_the_deck_is_empty() -> None:
    # Real play: every player plays all five cards in round 1, so phase 8 needs 20 cards
    # while the deck holds 16; the last 4 come from the reshuffled discard pile.
    hands = (
        "ruby ruby ruby ruby salt",
        "salt salt salt salt wine",
        "wine wine wine wine wine",
        "support support support support support",
    )
    state = to_scoring(hands, {1: "mate", 2: "merchant", 3: "cabin_boy"}, hands=hands)
    state = sell_first(state)
    assert state.deck == counts(" ".join(["cloth"] * 7 + ["grain"] * 8 + ["support"]))
    state = draw(state, "cloth cloth cloth cloth cloth")  # p0
    state = draw(state, "cloth cloth grain grain grain")  # p1
    state = draw(state, "grain grain grain grain grain")  # p2
    state = draw(state, "support")  # p3's first card empties the deck
    assert sum(state.deck) == 0 and state.to_act == 3 and state.draws_left == 4
    pile = counts(
        "ruby ruby ruby ruby salt salt salt salt salt wine wine wine wine wine wine "
        "support support support support support"
    )
    assert state.discard == pile
    outcomes = {str(action): p for action, p in meuterer.chance_outcomes(state)}
    assert outcomes == {
        "draw p3 ruby": Fraction(4, 20),
        "draw p3 salt": Fraction(5, 20),
        "draw p3 wine": Fraction(6, 20),
        "draw p3 support": Fraction(5, 20),
    }
    with pytest.raises(meuterer.IllegalActionError, match="no grain is left in the discard pile"):
        play(state, "draw p3 grain")
    state = draw(state, "wine")
    assert state.discard == counts("")
    assert state.deck == tuple(a - b for a, b in zip(pile, counts("wine"), strict=True))
    state = draw(state, "ruby salt support")
    assert state.phase is Phase.OFFER and sum(state.deck) == 16


@pytest.mark.rule("p8.reshuffle")
def test_reshuffle_as_soon_as_the_deck_runs_out_with_option() -> None:
    # The same round as above under Rules(reshuffle="when_empty"): the draw that empties
    # the deck turns the discard pile into the new deck at once.
    hands = (
        "ruby ruby ruby ruby salt",
        "salt salt salt salt wine",
        "wine wine wine wine wine",
        "support support support support support",
    )
    rules = Rules(reshuffle="when_empty")
    state = sell_first(to_scoring(hands, {1: "mate", 2: "merchant", 3: "cabin_boy"}, hands=hands, rules=rules))
    state = draw(state, "cloth cloth cloth cloth cloth cloth cloth grain grain grain grain grain grain grain grain")
    pile = counts(
        "ruby ruby ruby ruby salt salt salt salt salt wine wine wine wine wine wine "
        "support support support support support"
    )
    assert state.deck == counts("support") and state.discard == pile
    state = draw(state, "support")  # p3's first card empties the deck: reshuffled at once
    assert state.deck == pile and state.discard == counts("")
    state = draw(state, "wine ruby salt support")
    assert state.phase is Phase.OFFER and sum(state.deck) == 16 and state.discard == counts("")


# Phases 9 and 10: the roles go back, the next round -------------------------------------------


def round_one_drawing(captain: int) -> State:
    """Round 1 with the captain cards at ``captain`` (no mutineer, each player plays one
    card), up to phase 8, where everyone draws one card."""
    hands = HANDS4[captain:] + HANDS4[:captain]
    roles = {(captain + 1) % 4: "mate", (captain + 2) % 4: "merchant", (captain + 3) % 4: "cabin_boy"}
    plays = tuple(hand.split()[0] for hand in hands)
    return sell_first(to_scoring(plays, roles, hands=hands, captain=captain))


def round_two(captain: int) -> State:
    """Round 1 played with the captain cards at ``captain``, up to phase 1 of round 2."""
    state, _ = draw_any(round_one_drawing(captain))
    return state


@pytest.mark.rule("p8.draw")
@pytest.mark.parametrize("captain", [0, 2])
def test_phase_eight_draws_from_the_captain_clockwise(captain: int) -> None:
    _, seats = draw_any(round_one_drawing(captain))
    assert seats == [(captain + i) % 4 for i in range(4)]


@pytest.mark.rule("p9.roles-return")
def test_every_role_card_is_back_in_the_centre_for_the_next_round() -> None:
    state = round_two(1)
    assert state.roles == (None,) * 4 and state.role_order == ()
    state = play(state, "p1 offer 0", "p1 pass", "p2 pass")
    assert roles_menu(state) == set(ALL_ROLES)


@pytest.mark.rule("p10.next-round")
@pytest.mark.parametrize("captain", [0, 3])
def test_the_next_round_starts_with_the_offer_of_the_captain_cards_holder(captain: int) -> None:
    state = round_two(captain)
    assert state.round == 2 and state.step is Step.OFFER and state.captain == captain
    assert meuterer.current_player(state) == captain and state.queue == ()
    assert state.offer is None and state.mutiny is None and state.sales == (None,) * 4


# Section 4: end of the game ---------------------------------------------------------------------


@pytest.mark.rule("setup.rounds", "end.last-round")
@pytest.mark.parametrize(("players", "rules", "rounds"), [(3, None, 9), (4, None, 8), (4, Rules(rounds=2), 2)])
def test_number_of_rounds(players: int, rules: Rules | None, rounds: int) -> None:
    for seed in range(3):
        history, final = meuterer.random_game(seed=seed, players=players, rules=rules)
        assert meuterer.is_terminal(final) and final.round == rounds
        # One captain's offer per round.
        assert sum(isinstance(a, meuterer.Offer) for a in history) == rounds


@pytest.mark.rule("end.last-round")
def test_game_ends_after_phase_five_of_last_round() -> None:
    state = to_scoring(("wine wine", "salt", "cloth"), {1: "merchant", 2: "mate"}, hands=HANDS3, rules=Rules(rounds=1))
    state = sell_first(state)
    assert meuterer.is_terminal(state) and state.phase is Phase.GAME_OVER
    assert meuterer.current_player(state) is None and meuterer.legal_actions(state) == ()
    # Phase 5 was played (sales scored); phase 6 was not (the ship stays at Hochland).
    assert state.scores == (4 + 4, 0, 1)  # Karge Zunge 4 and sole leader at Hochland; mate 1
    assert state.captain_destination == 3 and state.start == 0 and state.active == (0,)
    assert state.face_up[0] == counts("wine wine")  # no clean-up either
    with pytest.raises(meuterer.IllegalActionError, match="the game is over"):
        play(state, "p0 offer 0")


@pytest.mark.rule("end.winner")
def test_winners_share_ties() -> None:
    # The captain keeps 5 (Affeninsel, ship 2); p1 and p2 tie at Hochland (II = 3 each).
    state = to_scoring(("", "salt", "cloth"), {1: "cabin_boy", 2: "loadmaster"}, hands=HANDS3, rules=Rules(rounds=1))
    assert meuterer.winners(state) == ()
    state = sell_first(state)
    assert meuterer.scores(state) == (2, 3, 3)
    assert meuterer.winners(state) == (1, 2)


# Illegal actions ---------------------------------------------------------------------------------


def at_offer() -> State:
    return deal(HANDS4)


def at_play() -> State:
    return play(deal(HANDS4), "p0 offer 0")


def at_play3() -> State:
    return play(deal(HANDS3), "p0 offer 0")


def at_role() -> State:
    return play(deal(HANDS4), "p0 offer 0", "p0 play wine", "p1 pass", "p1 role mutineer", "p2 pass")


def at_sell() -> State:
    return to_scoring(("wine", "", "", ""), {1: "merchant", 2: "mate", 3: "cabin_boy"})


ILLEGAL_CASES = {
    "wrong player": (at_play, "p1 play salt", "the game expects phase 2: p0 plays a card or passes"),
    "card not in hand": (at_play, "p0 play salt", "p0 cannot play salt: no salt in hand"),
    "offer too high": (at_offer, "p0 offer 4", "the offer is a number from 0 to 3, not 4"),
    "role taken": (at_role, "p2 role mutineer", "the mutineer role is already taken this round"),
    "island not active": (at_sell, "p0 sell eisfelsen:ruby:1", "eisfelsen is not active this round"),
    "not his turn": (at_play, "p3 pass", "the game expects phase 2: p0 plays a card or passes"),
    "no such seat": (at_play3, "p3 pass", "there is no seat p3 in a 3-player game"),
    "draw of an exhausted kind": (
        lambda: play(meuterer.new_game(3), *["draw p0 ruby"] * 4),
        "draw p0 ruby",
        "no ruby is left in the deck",
    ),
}


@pytest.mark.parametrize(("setup", "text", "reason"), ILLEGAL_CASES.values(), ids=ILLEGAL_CASES)
def test_illegal_action_raises_with_reason_and_changes_nothing(
    setup: Callable[[], State], text: str, reason: str
) -> None:
    state = setup()
    snapshot = attrs.evolve(state)
    legal_before = meuterer.legal_actions(state)
    action = meuterer.parse_action(text)
    with pytest.raises(meuterer.IllegalActionError) as caught:
        meuterer.apply(state, action)
    assert isinstance(caught.value, ValueError)
    assert caught.value.action == action and caught.value.reason == reason
    assert reason in str(caught.value)
    assert state == snapshot and meuterer.legal_actions(state) == legal_before
    # The same state still accepts its legal actions.
    meuterer.apply(state, legal_before[0])


def test_apply_rejects_text_that_is_not_parsed() -> None:
    state = at_play()
    with pytest.raises(meuterer.IllegalActionError, match=r"parse text with meuterer\.parse_action"):
        meuterer.apply(state, "p0 pass")  # type: ignore[arg-type]
