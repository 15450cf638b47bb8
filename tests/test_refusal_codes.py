"""Stable refusal codes: every illegal action is refused with the code docs/protocol.md gives."""

from __future__ import annotations

import pytest

import meuterer
from meuterer.errors import REFUSAL_CODES, ActionParseError, IllegalActionError
from meuterer.referee import apply_as, refusal, refusal_code
from meuterer.views import view

# A seeded 3-player game whose steps the cases below refer to (step index: what happens).
ACTIONS, _ = meuterer.random_game(seed=3, players=3)
GAME = meuterer.Game.replay(ACTIONS, players=3)

CASES = [
    (0, "draw p1 ruby", "not-your-turn"),
    (0, "draw p3 ruby", "no-such-seat"),
    (0, "p0 offer 1", "wrong-step"),
    (15, "p0 offer 7", "out-of-range"),
    (15, "p1 offer 1", "not-your-turn"),
    (15, "p0 play salt", "wrong-step"),
    (16, "p0 play ruby", "not-in-hand"),
    (16, "p1 play ruby", "not-your-turn"),
    (27, "p1 role mutineer", "role-taken"),
    (28, "p0 support 5", "out-of-range"),
    (30, "p2 sell nowhere:grain:1", "no-such-island"),
    (30, "p2 sell sandkap:wine:1", "island-inactive"),
    (30, "p2 sell hochland:ruby:1", "not-face-up"),
    (30, "p2 sell hochland:grain:0", "out-of-range"),
    (31, "p0 sell none", "must-sell"),
    (33, "draw p2 pirate", "not-in-deck"),
    (45, "p1 discard cloth grain", "wrong-count"),
    (45, "p1 discard grain cloth cloth", "bad-order"),
    (45, "p1 discard ruby cloth grain", "not-in-hand"),
    (56, "p2 sell affeninsel:wine:1", "not-bought"),
    (56, "p2 sell affeninsel:grain:1,hochland:grain:1", "bad-order"),
    (len(ACTIONS), "p0 pass", "game-over"),
]


@pytest.mark.parametrize(("step", "text", "code"), CASES)
def test_apply_refuses_with_the_documented_code(step: int, text: str, code: str) -> None:
    state = GAME.at(step)
    with pytest.raises(IllegalActionError) as caught:
        meuterer.apply(state, meuterer.parse_action(text))
    assert caught.value.code == code
    assert code in REFUSAL_CODES


def test_the_reason_keeps_its_words() -> None:
    with pytest.raises(IllegalActionError) as caught:
        meuterer.apply(GAME.at(15), meuterer.parse_action("p0 offer 7"))
    assert caught.value.reason == "the offer is a number from 0 to 3, not 7"


def test_a_ring_that_is_no_arrangement() -> None:
    state = meuterer.new_game(3, 0, meuterer.Rules(ring="shuffled"))
    with pytest.raises(IllegalActionError) as caught:
        meuterer.apply(state, meuterer.parse_action("ring hochland,sandkap"))
    assert caught.value.code == "not-an-arrangement"
    with pytest.raises(IllegalActionError) as caught:
        meuterer.apply(state, meuterer.parse_action("draw p0 ruby"))
    assert caught.value.code == "wrong-step"


def test_malformed_text_and_a_non_action() -> None:
    with pytest.raises(ActionParseError) as caught:
        meuterer.parse_action("p0 offer  1")
    assert caught.value.code == "malformed"
    with pytest.raises(IllegalActionError) as refused:
        meuterer.apply(GAME.at(15), "p0 offer 1")  # type: ignore[arg-type]
    assert refused.value.code == "malformed"


def test_codes_are_checked_and_default_to_not_legal() -> None:
    assert IllegalActionError("x", "why").code == "not-legal"
    with pytest.raises(ValueError, match="unknown refusal code"):
        IllegalActionError("x", "why", "nonsense")


def test_the_referee_codes() -> None:
    state = GAME.at(16)
    spectator = view(state, None)
    assert refusal_code(spectator, meuterer.parse_action("p0 pass"))[0] == "spectator"  # type: ignore[index]
    assert refusal_code(view(state, 0), meuterer.parse_action("draw p0 ruby"))[0] == "chance-action"  # type: ignore[index]
    assert refusal_code(view(state, 0), meuterer.parse_action("p1 pass")) == (
        "not-your-seat",
        "p0 may act only for p0, not for p1",
    )
    assert refusal_code(view(state, 0), 7)[0] == "malformed"  # type: ignore[index]
    assert refusal_code(view(state, 0), meuterer.parse_action("p0 pass")) is None
    assert refusal(view(state, 0), meuterer.parse_action("p0 play ruby")) == "p0 cannot play ruby: no ruby in hand"
    with pytest.raises(IllegalActionError) as caught:
        apply_as(state, "p0 play ruby", 0)
    assert caught.value.code == "not-in-hand"
    with pytest.raises(IllegalActionError) as caught:
        apply_as(GAME.at(len(ACTIONS)), "p0 pass", 0)
    assert caught.value.code == "game-over"


def test_the_fast_engine_says_game_over() -> None:
    from meuterer.fast import FastGame

    game = FastGame.new(3, 0)
    for action in ACTIONS:
        game.apply(action)
    with pytest.raises(IllegalActionError) as caught:
        game.apply(meuterer.parse_action("p0 pass"))
    assert caught.value.code == "game-over"
