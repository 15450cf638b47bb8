"""The engine API around the rules: setup arguments, the oracle, option values."""

from __future__ import annotations

import pytest

import meuterer
from meuterer import IllegalActionError, Rules, RulesError, SetupError


@pytest.mark.rule("setup.seats")
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 2}, "3 or 4 players"),
        ({"players": 5}, "3 or 4 players"),
        ({"players": "4"}, "3 or 4 players"),
        ({"players": 3, "first_captain": 3}, "seat from 0 to 2"),
        ({"first_captain": -1}, "seat from 0 to 3"),
        ({"rules": "default"}, "meuterer.Rules"),
    ],
)
def test_bad_setup_raises_a_setup_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        meuterer.new_game(**kwargs)  # type: ignore[arg-type]


@pytest.mark.rule("rules.deck")
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rounds": 0}, "positive"),
        ({"deck": (4, 5, 6, 7, 8, 6, 1)}, "no pirate card without pirates=True"),
        ({"pirates": True, "deck": (4, 5, 6, 7, 8, 6, 0)}, "1 pirate card with pirates=True"),
        ({"deck": (1, 1, 1, 1, 1, 1, 0)}, "more than 23 cards"),
        ({"deck": (4, 5, 6, 2, 0, 6, 0)}, "more than 23 cards, got 23"),  # 4 x 5 + 3 is one too few
        ({"hand_size": 0}, "hand_size must be a whole number of at least 1"),
        ({"max_offer": -1}, "max_offer must be"),
        ({"sale_order": "first_player"}, "first_player"),
    ],
)
def test_bad_rule_options_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rules(**kwargs)  # type: ignore[arg-type]
    assert issubclass(RulesError, ValueError)


def test_apply_refuses_what_is_not_an_action() -> None:
    state = meuterer.new_game()
    for junk in ("draw p0 grain", None, 3, ["draw", "p0", "grain"]):
        with pytest.raises(IllegalActionError, match="not an action"):
            meuterer.apply(state, junk)  # type: ignore[arg-type]


def test_apply_refuses_seats_beyond_the_table() -> None:
    state = meuterer.new_game(players=3)
    with pytest.raises(IllegalActionError, match="no seat p3 in a 3-player game"):
        meuterer.apply(state, meuterer.parse_action("draw p3 grain"))


def test_a_game_over_accepts_nothing() -> None:
    actions, final = meuterer.random_game(seed=4, players=3)
    assert meuterer.legal_actions(final) == () and meuterer.chance_outcomes(final) == ()
    assert meuterer.current_player(final) is None
    with pytest.raises(IllegalActionError, match="the game is over"):
        meuterer.apply(final, actions[-1])


@pytest.mark.rule("end.winner")
def test_winners_before_the_end_is_empty() -> None:
    assert meuterer.winners(meuterer.new_game()) == ()


@pytest.mark.rule("setup.rounds", "end.last-round")
def test_the_rounds_option_shortens_the_game() -> None:
    _, final = meuterer.random_game(seed=1, players=4, rules=Rules(rounds=2))
    assert final.round == 2 and meuterer.is_terminal(final)
