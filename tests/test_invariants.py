"""check_state: every state the engine makes passes; a sale declaration it could not
have made is refused."""

from __future__ import annotations

import pytest

import meuterer
from meuterer import FormatError, Sale, State, Step
from meuterer.invariants import check_state
from meuterer.state import evolve


def _at_sell(seed: int) -> State:
    """The first state of a random game where the seat to act declares sales with goods on the table."""
    actions, _ = meuterer.random_game(seed=seed, players=3)
    state = meuterer.new_game(players=3)
    for action in actions:
        state = meuterer.apply(state, action)
        if state.step is Step.SELL and any(state.face_up[state.to_act][:5]):
            return state
    raise AssertionError("no sale in this game")


def test_every_state_of_a_game_passes() -> None:
    actions, _ = meuterer.random_game(seed=11, players=4)
    state = meuterer.new_game(players=4)
    for action in actions:
        state = meuterer.apply(state, action)
        check_state(state)


def test_a_declaration_the_seller_could_not_make_is_refused() -> None:
    state = _at_sell(1)
    p = state.to_act
    legal = {action.sales for action in meuterer.legal_actions(state) if isinstance(action, meuterer.Sell)}
    declared = next(sales for sales in legal if sales)
    assert state.queue, "the seller is not the last one"
    done = evolve(state, {"to_act": state.queue[0], "queue": state.queue[1:]})
    check_state(evolve(done, {"sales": tuple(declared if s == p else None for s in range(3))}))
    too_many = (Sale(declared[0].island, declared[0].card, declared[0].count + 9),)
    assert () not in legal  # he must sell what he can
    for sales in (too_many, ()):
        with pytest.raises(FormatError, match=rf"\$\.sales\[{p}\]: not a legal declaration"):
            check_state(evolve(done, {"sales": tuple(sales if s == p else None for s in range(3))}))


def test_a_sale_on_an_unknown_island_is_refused() -> None:
    _, final = meuterer.random_game(seed=3, players=3)
    with pytest.raises(FormatError, match=r"\$\.sales\[0\]: there is no island 'atlantis'"):
        check_state(evolve(final, {"sales": ((Sale("atlantis", meuterer.Card.RUBY, 1),), *final.sales[1:])}))
