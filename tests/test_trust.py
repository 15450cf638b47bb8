"""Issue 19, part A: nothing a player may not see leaks, and nothing the library accepts is lost.

Each test here failed before its fix (the issue's item in brackets)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import attrs
import pytest

import meuterer
from meuterer import Card, Role
from meuterer.actions import ChooseRole, Discard, Draw, Offer, Pass, Play, Sale, Sell, Support

# [8] actions refuse numbers that would not read back ------------------------------------------


class _Shouting(int):
    """An int that prints otherwise: a record would hold 'p0 offer ONE'."""

    def __str__(self) -> str:
        return "ONE"

    __format__ = None  # type: ignore[assignment]


_BUILDERS: dict[str, Any] = {
    "Draw.player": lambda n: Draw(n, Card.WINE),
    "Offer.player": lambda n: Offer(n, 1),
    "Offer.amount": lambda n: Offer(0, n),
    "Play.player": lambda n: Play(n, Card.WINE),
    "Pass.player": lambda n: Pass(n),
    "ChooseRole.player": lambda n: ChooseRole(n, Role.MATE),
    "Support.player": lambda n: Support(n, 1),
    "Support.count": lambda n: Support(0, n),
    "Sale.count": lambda n: Sell(0, (Sale("hochland", Card.WINE, n),)),
    "Sell.player": lambda n: Sell(n, ()),
    "Discard.player": lambda n: Discard(n, (Card.WINE,)),
}


@pytest.mark.parametrize("field", sorted(_BUILDERS))
@pytest.mark.parametrize("number", [True, False, _Shouting(1), 1.0])
def test_every_number_of_an_action_is_a_plain_int(field: str, number: object) -> None:
    build = _BUILDERS[field]
    assert str(meuterer.parse_action(str(build(1)))) == str(build(1))  # a plain int reads back
    with pytest.raises(TypeError, match=rf"^{field} is an int, got {type(number).__name__} "):
        build(number)


def test_island_names_are_plain_str() -> None:
    class Loud(str):
        def __str__(self) -> str:
            return "LOUD"

    with pytest.raises(TypeError, match=r"Sale\.island is a str"):
        Sale(Loud("hochland"), Card.WINE, 1)
    with pytest.raises(TypeError, match=r"ArrangeRing\.islands are str"):
        meuterer.actions.ArrangeRing((Loud("hochland"),))


def test_a_game_never_holds_an_action_its_record_cannot_read() -> None:
    game = meuterer.Game.new(3)
    while not isinstance(meuterer.current_player(game.state), int) or meuterer.is_chance_node(game.state):
        game.push(meuterer.chance_outcomes(game.state)[0][0])
    with pytest.raises(TypeError):
        game.push(Offer(0, True))
    assert meuterer.verify(meuterer.write_record(game)).ok


# [9] a frozen State cannot be changed -----------------------------------------------------------


def test_the_storage_of_a_state_is_read_only() -> None:
    actions, _ = meuterer.random_game(seed=3, players=3)
    game = meuterer.Game.replay(actions, players=3)
    state = game.at(10)
    digest, before = meuterer.state_digest(state), hash(state)
    legal = meuterer.legal_actions(state)
    for storage in (vars(state), state.__dict__):
        with pytest.raises(TypeError):
            storage["round"] = 7  # type: ignore[index]
        with pytest.raises(TypeError):
            del storage["round"]  # type: ignore[attr-defined]
        with pytest.raises(AttributeError):
            storage.update(round=7)  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        state.__dict__ = {}  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.round = 7  # type: ignore[misc]
    assert dict(vars(state)) == attrs.asdict(state, recurse=False)
    assert (meuterer.state_digest(state), hash(state), meuterer.legal_actions(state)) == (digest, before, legal)
    assert meuterer.verify(meuterer.write_record(game)).ok


def test_a_state_still_copies_pickles_and_evolves() -> None:
    _, final = meuterer.random_game(seed=4, players=4)
    for twin in (pickle.loads(pickle.dumps(final)), copy.copy(final), copy.deepcopy(final)):
        assert twin == final and hash(twin) == hash(final)
        assert meuterer.state_digest(twin) == meuterer.state_digest(final)
        with pytest.raises(TypeError):
            vars(twin)["round"] = 1
    changed = attrs.evolve(final, round=1)
    assert (changed.round, final.round) == (1, final.rules.rounds_for(4))
    assert meuterer.State(**attrs.asdict(final, recurse=False)) == final
