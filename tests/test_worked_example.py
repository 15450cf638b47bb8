"""The test vectors of SPEC section 7: the designer's worked example round and the two
sale examples, replayed exactly through the public API in the canonical notation."""

from __future__ import annotations

import pytest

import meuterer
from meuterer import Card, Phase, Role, State
from tests.helpers import counts, deal_script, legal, legal_list, play, run, sail_to

# Seats clockwise: Jenő (captain) p0, Anita p1, Péter p2, Krisztina p3.
JENO, ANITA, PETER, KRISZTINA = 0, 1, 2, 3

# The rulebook pictures the dealt hands but its text does not list them; these hands are
# derived from the text (the goods left face down are free choices that change nothing):
# - Jenő plays support, wine, wine and passes with 2, at least one a support (he adds one
#   in phase 4); his other face-down card is a grain.
# - Anita plays support and passes with 4, at least one a support (she adds one).
# - Péter plays cloth, cloth and passes with 3; he has no support ("nincs nála támogatás").
# - Krisztina plays wine, salt, salt and passes with 2; she has no salt left ("ha még
#   lenne sója") but holds a support she decides to keep for later rounds.
HANDS = (
    "support wine wine support grain",  # Jenő
    "support support ruby grain grain",  # Anita
    "cloth cloth grain grain ruby",  # Péter
    "wine salt salt support cloth",  # Krisztina
)

# The deal: 5 cards each, starting with the captain Jenő and going clockwise.
# fmt: off
DEAL = [
    "draw p0 support", "draw p0 wine", "draw p0 wine", "draw p0 support", "draw p0 grain",
    "draw p1 support", "draw p1 support", "draw p1 ruby", "draw p1 grain", "draw p1 grain",
    "draw p2 cloth", "draw p2 cloth", "draw p2 grain", "draw p2 grain", "draw p2 ruby",
    "draw p3 wine", "draw p3 salt", "draw p3 salt", "draw p3 support", "draw p3 cloth",
]
# fmt: on
PHASE_1 = ["p0 offer 0"]
PHASE_2 = [
    "p0 play support",  # Jenő
    "p1 play support",  # Anita
    "p2 play cloth",  # Péter
    "p3 play wine",  # Krisztina
    "p0 play wine",
    "p1 pass",  # Anita passes with 4 cards ...
    "p1 role mutineer",  # ... and takes the mutineer
    "p2 play cloth",
    "p3 play salt",
    "p0 play wine",
    "p2 pass",  # Péter passes with 3 cards ...
    "p2 role merchant",  # ... and takes the merchant
    "p3 play salt",
    "p0 pass",  # Jenő passes with 2 cards: destination Grünland
    "p3 pass",  # Krisztina passes with 2 cards ...
    "p3 role cabin_boy",  # ... and takes the cabin boy
]
PHASE_4 = ["p0 support 1", "p1 support 1", "p3 support 0"]
# Anita is captain once the role points are scored, so she declares first.
PHASE_5 = [
    "p1 sell none",
    "p2 sell hochland:cloth:2",
    "p3 sell hochland:salt:2",
    "p0 sell hochland:wine:2",
]
# Anita draws 2, Péter 2, Krisztina 3, Jenő 4 (any cards still in the deck would do).
PHASE_8 = [
    *["draw p1 cloth"] * 2,
    *["draw p2 grain"] * 2,
    *["draw p3 salt"] * 3,
    *["draw p0 wine"] * 3,
    "draw p0 ruby",
]
SCRIPT = [*DEAL, *PHASE_1, *PHASE_2, *PHASE_4, *PHASE_5, *PHASE_8]


def supports(state: State, *seats: int) -> int:
    return sum(state.face_up[p][Card.SUPPORT] for p in seats)


def test_script_is_canonical_notation() -> None:
    assert [str(meuterer.parse_action(text)) for text in SCRIPT] == SCRIPT
    assert deal_script(HANDS, captain=JENO) == DEAL


@pytest.mark.rule("p2.play", "p2.pass", "p2.role", "p3.reveal", "p4.tie", "p5.captain-keeps", "p8.loadmaster")
def test_worked_example_round_one() -> None:
    state = meuterer.new_game(4, JENO)
    assert state.active == (0,) and state.start == 0 and state.island_name(0) == "hochland"

    state = run(state, DEAL)
    assert [state.hands[p] for p in range(4)] == [counts(h) for h in HANDS]
    assert state.phase is Phase.OFFER and state.to_act == JENO
    assert legal(state) == {"p0 offer 0", "p0 offer 1", "p0 offer 2", "p0 offer 3"}

    # Phase 1: Jenő offers 0.
    state = run(state, PHASE_1)
    assert state.offer == 0 and state.phase is Phase.PLAY and state.to_act == JENO

    # Phase 2, checked move by move up to Anita's role choice.
    state = run(state, PHASE_2[:6])
    assert state.step is meuterer.Step.CHOOSE_ROLE and state.to_act == ANITA
    assert sum(state.face_down[ANITA]) == 4
    assert legal(state) == {f"p1 role {r}" for r in ("mutineer", "cabin_boy", "mate", "merchant", "loadmaster")}
    state = run(state, PHASE_2[6:11])
    # Péter sees that the mutineer is gone.
    assert legal(state) == {f"p2 role {r}" for r in ("cabin_boy", "mate", "merchant", "loadmaster")}
    state = run(state, PHASE_2[11:13])
    assert state.to_act == JENO
    state = play(state, PHASE_2[13])  # Jenő passes with 2 cards
    assert state.captain_destination == 2 and state.island_name(2) == "gruenland"
    assert state.roles[JENO] is None and state.phase is Phase.PLAY
    # Krisztina is left alone, with no salt in hand: she may only play cloth or support, or pass.
    assert state.to_act == KRISZTINA and state.hands[KRISZTINA] == counts("support cloth")
    assert legal(state) == {"p3 play cloth", "p3 play support", "p3 pass"}
    state = play(state, PHASE_2[14])
    assert legal(state) == {"p3 role cabin_boy", "p3 role mate", "p3 role loadmaster"}
    state = play(state, PHASE_2[15])

    # Phase 3: roles revealed; Anita's destination is 4 islands from Hochland: Eisfelsen.
    assert state.roles == (None, Role.MUTINEER, Role.MERCHANT, Role.CABIN_BOY)
    assert state.mutineer_destination == 4 and state.island_name(4) == "eisfelsen"
    assert state.face_up == (
        counts("support wine wine"),
        counts("support"),
        counts("cloth cloth"),
        counts("wine salt salt"),
    )
    assert [sum(d) for d in state.face_down] == [2, 4, 3, 2]

    # Phase 4: 1 vs 1 before supports (no mate); Jenő, Anita, Krisztina decide in turn.
    assert state.phase is Phase.MUTINY
    assert supports(state, JENO) == 1 and supports(state, ANITA, KRISZTINA) == 1
    assert state.to_act == JENO and state.queue == (ANITA, KRISZTINA)  # Péter (merchant) takes no part
    assert legal(state) == {"p0 support 0", "p0 support 1"}
    state = play(state, PHASE_4[0])
    assert legal(state) == {"p1 support 0", "p1 support 1"}
    state = play(state, PHASE_4[1])
    assert legal(state) == {"p3 support 0", "p3 support 1"}
    state = play(state, PHASE_4[2])
    assert supports(state, JENO) == 2 and supports(state, ANITA, KRISZTINA) == 2
    assert state.mutiny is True  # a tie goes to the mutineer

    # Phase 5, role points first: Anita +5 (Eisfelsen) and captain, Krisztina +2.
    assert state.phase is Phase.SCORING
    assert state.scores == (0, 5, 0, 2)
    assert state.captain == ANITA
    assert state.to_act == ANITA and state.queue == (PETER, KRISZTINA, JENO)
    assert legal_list(state) == ["p1 sell none"]  # supports are never sold
    state = play(state, PHASE_5[0])
    assert legal_list(state) == ["p2 sell hochland:cloth:2"]
    state = play(state, PHASE_5[1])
    # One kind per island: salt or wine at Hochland, never both; all of the kind declared.
    assert legal(state) == {"p3 sell hochland:salt:2", "p3 sell hochland:wine:1"}
    for wrong in ("p3 sell hochland:salt:1", "p3 sell hochland:salt:2,hochland:wine:1", "p3 sell none"):
        with pytest.raises(meuterer.IllegalActionError):
            play(state, wrong)
    state = play(state, PHASE_5[2])
    assert legal_list(state) == ["p0 sell hochland:wine:2"]
    before_sales = state.scores
    state = play(state, PHASE_5[3])
    # Three-way tie at Hochland (2 cards each): the merchant scores I = 4, the others III = 2.
    assert tuple(a - b for a, b in zip(state.scores, before_sales, strict=True)) == (2, 0, 4, 2)
    assert state.scores == (2, 5, 4, 4)  # Jenő 2, Anita 5, Péter 4, Krisztina 4

    # Phase 6: the ship sails to Eisfelsen; Hochland and Eisfelsen are active next round.
    assert state.start == 4 and state.active == (0, 4)

    # Phase 7: face-up cards discarded, face-down cards back in hand.
    assert state.discard == counts("support support wine wine support support cloth cloth wine salt salt")
    assert state.hands == (
        counts("grain"),
        counts("ruby grain grain"),
        counts("grain grain ruby"),
        counts("support cloth"),
    )

    # Phase 8: from Anita clockwise: Anita 2, Péter 2, Krisztina 3, Jenő 4.
    assert state.phase is Phase.DRAW
    seats = []
    for text in PHASE_8:
        assert meuterer.current_player(state) == meuterer.CHANCE
        seats.append(state.to_act)
        state = play(state, text)
    assert seats == [1, 1, 2, 2, 3, 3, 3, 0, 0, 0, 0]
    assert all(sum(h) == 5 for h in state.hands)

    # Round 2 starts under Anita.
    assert state.round == 2 and state.phase is Phase.OFFER and state.captain == ANITA and state.to_act == ANITA
    assert state.roles == (None,) * 4
    assert state.active == (0, 4)


def test_worked_example_as_one_script() -> None:
    state = run(meuterer.new_game(4, JENO), SCRIPT)
    assert state.scores == (2, 5, 4, 4)
    assert (state.round, state.captain, state.start, state.active) == (2, ANITA, 4, (0, 4))


def sale_deltas(state: State, declarations: list[str]) -> tuple[int, ...]:
    """Points scored by ``declarations`` (all of them legal when declared), per seat."""
    before = state.scores
    for text in declarations:
        assert text in legal(state), f"{text} is not legal: {sorted(legal(state))}"
        state = play(state, text)
    assert state.phase is not Phase.SCORING
    return tuple(a - b for a, b in zip(state.scores, before, strict=True))


@pytest.mark.rule("p5.leaders", "p5.merchant")
def test_sale_example_1_three_way_tie_with_merchant() -> None:
    # Real play: in round 1 the captain (p0 = "player 1") passes with 3 cards and there is
    # no mutiny, so the ship sails from Hochland to Karge Zunge.
    state = sail_to(3, ("grain grain grain cloth cloth", "grain wine cloth cloth cloth", "ruby salt wine wine wine"))
    assert state.active == (0, 3) and state.island_name(3) == "karge_zunge"
    state = play(
        state,
        "p0 offer 0",
        "p0 play grain",
        "p1 play grain",
        "p2 play ruby",
        "p0 play grain",
        "p1 play wine",
        "p2 play salt",
        "p0 play grain",
        "p1 pass",
        "p1 role loadmaster",  # "player 2"
        "p2 pass",
        "p2 role merchant",  # "player 3"
        "p0 pass",
    )
    assert state.phase is Phase.SCORING and state.mutiny is None and state.to_act == 0
    # Player 1 splits his grain over both islands. Player 3's salt stays unsold: he sells
    # ruby at Hochland (one kind per island) and Karge Zunge buys only grain.
    assert "p0 sell hochland:grain:1,karge_zunge:grain:2" in legal(state)
    deltas = sale_deltas(
        state,
        [
            "p0 sell hochland:grain:1,karge_zunge:grain:2",
            "p1 sell hochland:wine:1,karge_zunge:grain:1",
            "p2 sell hochland:ruby:1",
        ],
    )
    # Karge Zunge: player 1 alone with 2 cards scores 6. Hochland: three-way tie at 1 card:
    # players 1 and 2 score III = 2, player 3 (merchant) I = 4.
    assert deltas == (6 + 2, 2, 4)


@pytest.mark.rule("p5.leaders", "p5.merchant")
def test_sale_example_2_four_way_tie_with_merchant() -> None:
    # Seats p0..p3 are the example's players 1..4: mutineer, captain, loadmaster, merchant.
    # Real play: round 1 with p1 as captain sails to Karge Zunge without a mutiny.
    hands = (
        "grain cloth cloth cloth cloth",
        "grain support wine wine wine",
        "grain salt salt salt salt",
        "grain ruby ruby ruby ruby",
    )
    state = sail_to(3, hands, captain=1)
    assert state.active == (0, 3)
    state = play(
        state,
        "p1 offer 0",
        "p1 play grain",
        "p2 play grain",
        "p3 play grain",
        "p0 play grain",
        "p1 play support",
        "p2 pass",
        "p2 role loadmaster",
        "p3 pass",
        "p3 role merchant",
        "p0 pass",
        "p0 role mutineer",
        "p1 pass",
        # Phase 4: the captain's support played in phase 2 beats the mutineer: 1 vs 0.
        "p1 support 0",
        "p0 support 0",
    )
    assert state.mutiny is False and state.captain == 1
    assert state.roles == (Role.MUTINEER, None, Role.LOADMASTER, Role.MERCHANT)
    deltas = sale_deltas(
        state,
        [
            "p1 sell karge_zunge:grain:1",
            "p2 sell karge_zunge:grain:1",
            "p3 sell karge_zunge:grain:1",
            "p0 sell karge_zunge:grain:1",
        ],
    )
    # Four-way tie: nobody scores but the merchant, who scores I = 6.
    assert deltas == (0, 0, 0, 6)
