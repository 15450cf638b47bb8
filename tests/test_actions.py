"""The canonical action notation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import meuterer
from meuterer import (
    ActionParseError,
    ArrangeRing,
    Card,
    ChooseRole,
    Discard,
    Draw,
    MeutererError,
    Offer,
    Pass,
    Play,
    Role,
    Sale,
    Sell,
    Support,
)

EXAMPLES = {
    "p0 offer 2": Offer(0, 2),
    "p1 play wine": Play(1, Card.WINE),
    "p1 pass": Pass(1),
    "p1 role mutineer": ChooseRole(1, Role.MUTINEER),
    "p3 role cabin_boy": ChooseRole(3, Role.CABIN_BOY),
    "p0 support 1": Support(0, 1),
    "p0 support 0": Support(0, 0),
    "p2 sell hochland:cloth:2": Sell(2, (Sale("hochland", Card.CLOTH, 2),)),
    "p0 sell hochland:grain:1,karge_zunge:grain:2": Sell(
        0, (Sale("hochland", Card.GRAIN, 1), Sale("karge_zunge", Card.GRAIN, 2))
    ),
    "p3 sell none": Sell(3, ()),
    "p2 discard grain grain salt": Discard(2, (Card.GRAIN, Card.GRAIN, Card.SALT)),
    "p1 discard none": Discard(1, ()),
    "draw p1 grain": Draw(1, Card.GRAIN),
}


@pytest.mark.parametrize(("text", "action"), EXAMPLES.items())
def test_the_notation_of_the_issue(text: str, action: meuterer.Action) -> None:
    assert meuterer.parse_action(text) == action
    assert str(action) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p1 dance", "unknown action kind 'dance'"),
        ("p4 pass", "'p4' is not a seat"),
        ("p1 play gold", "unknown card 'gold'"),
        ("p1 role captain", "unknown role 'captain'"),
        ("p0 offer two", "'two' is not a number"),
        ("p0 offer 02", "'02' is not a number"),
        ("p0 offer -1", "'-1' is not a number"),
        ("p1  pass", "not an action"),
        ("P1 pass", "'P1' is not a seat"),
        ("p1 pass now", "expected 0 argument(s)"),
        ("p2 sell hochland:cloth", "a sale is island:card:count"),
        ("p2 discard", "names its cards, or 'none'"),
        ("p2 discard ", "not an action"),
        ("p2 discard none none", "unknown card 'none'"),
        ("p2 discard none salt", "unknown card 'none'"),
        ("draw p1", "expected 2 argument(s)"),
        ("", "not an action"),
    ],
)
def test_bad_text_raises_a_parse_error_saying_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ActionParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        meuterer.parse_action(text)


def test_non_text_raises_a_parse_error() -> None:
    with pytest.raises(ActionParseError, match="must be text"):
        meuterer.parse_action(3)  # type: ignore[arg-type]


@given(st.text(alphabet=st.sampled_from(list("p0123 :,abcdegilmnoprstuvwxyz_")), max_size=40))
def test_any_text_parses_to_a_round_tripping_action_or_raises_a_parse_error(text: str) -> None:
    try:
        action = meuterer.parse_action(text)
    except ActionParseError:
        return
    assert str(action) == text


seats = st.integers(0, 3)
cards = st.sampled_from(Card)
actions = st.one_of(
    st.builds(Draw, seats, cards),
    st.builds(Offer, seats, st.integers(0, 9)),
    st.builds(Play, seats, cards),
    st.builds(Pass, seats),
    st.builds(ChooseRole, seats, st.sampled_from(Role)),
    st.builds(Support, seats, st.integers(0, 9)),
    st.builds(
        Sell,
        seats,
        st.lists(
            st.builds(Sale, st.sampled_from(meuterer.ISLANDS).map(lambda i: i.name), cards, st.integers(1, 9)),
            max_size=2,
        ).map(tuple),
    ),
    st.builds(Discard, seats, st.lists(cards, max_size=4).map(tuple)),
)


@given(actions)
def test_every_action_round_trips_through_its_text(action: meuterer.Action) -> None:
    assert meuterer.parse_action(str(action)) == action


def test_fields_convert_on_construction_to_the_canonical_action() -> None:
    assert Play(0, 6).card is Card.PIRATE and str(Play(0, 6)) == "p0 play pirate"
    assert Draw(1, 4).card is Card.GRAIN and ChooseRole(2, 0).role is Role.MUTINEER
    assert Sale("hochland", 2, 1).card is Card.WINE
    assert Discard(1, [4, 4, 1]).cards == (Card.GRAIN, Card.GRAIN, Card.SALT)
    assert all(type(c) is Card for c in Discard(1, [4, 4, 1]).cards)
    sell = Sell(0, [Sale("hochland", Card.WINE, 1)])
    assert sell.sales == (Sale("hochland", Card.WINE, 1),) and hash(sell) == hash(meuterer.parse_action(str(sell)))
    assert ArrangeRing(["hochland", "sandkap"]).islands == ("hochland", "sandkap")


@pytest.mark.parametrize("bad", [7, -1, True, 2.0, "wine", None])
def test_a_field_that_is_no_card_or_role_is_a_typed_error(bad: object) -> None:
    with pytest.raises(MeutererError, match="not a card"):
        Play(0, bad)  # type: ignore[arg-type]
    with pytest.raises(MeutererError, match="not a role"):
        ChooseRole(0, bad if bad != 7 else 5)  # type: ignore[arg-type]
    if type(bad) is not int:  # a wrong type is a TypeError too
        with pytest.raises(TypeError, match="not a card"):
            Play(0, bad)  # type: ignore[arg-type]


def test_an_action_built_with_plain_numbers_fires_like_the_listed_one() -> None:
    from tests.test_pirates import phase_two

    state = phase_two()  # p0 holds the pirate card and acts
    plain = meuterer.apply(state, Play(0, 6))  # the pirate card as a number
    assert plain == meuterer.apply(state, meuterer.parse_action("p0 play pirate"))
    assert plain.pirate != state.pirate


def test_parsed_draws_plays_passes_and_roles_are_the_instances_the_engine_lists() -> None:
    actions, final = meuterer.random_game(seed=5, players=4)
    state = meuterer.new_game(4, 0)
    shared = 0
    for action in actions:
        parsed = meuterer.parse_action(str(action))
        assert parsed == action and parsed is meuterer.parse_action(str(action))
        if isinstance(action, Draw | Play | Pass | ChooseRole):
            assert any(parsed is listed for listed in meuterer.legal_actions(state))
            shared += 1
        state = meuterer.apply(state, parsed)
    assert state == final and shared > 100


def test_a_game_without_the_loadmasters_extra_cards_is_written_and_read_back() -> None:
    """With ``loadmaster_extra=0`` the loadmaster discards nothing: ``pN discard none``."""
    rules = meuterer.Rules(loadmaster_extra=0)
    actions, _ = meuterer.random_game(seed=1, players=3, rules=rules)
    discards = [str(a) for a in actions if isinstance(a, Discard)]
    assert discards and all(text.endswith(" discard none") for text in discards)
    game = meuterer.Game.replay(actions, 3, 0, rules)
    text = meuterer.write_record(game)
    assert ' discard none"' in text
    record = meuterer.read_record(text)
    assert tuple(record.actions) == tuple(actions)
    assert meuterer.verify(text).ok
