"""check_state: every state the engine makes passes; a sale declaration it could not
have made is refused."""

from __future__ import annotations

import pytest

import meuterer
from meuterer import Card, FormatError, Ring, Rules, Sale, State, Step
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


def _first_states() -> dict[Step, State]:
    """The first state of each resting step in a few random games."""
    found: dict[Step, State] = {}
    for seed in range(6):
        actions, _ = meuterer.random_game(seed=seed, players=4)
        state = meuterer.new_game(players=4)
        found.setdefault(state.step, state)
        for action in actions:
            state = meuterer.apply(state, action)
            found.setdefault(state.step, state)
    return found


FIRST = _first_states()


def _move(counts: tuple[int, ...], card: int, n: int) -> tuple[int, ...]:
    return tuple(c + n if i == card else c for i, c in enumerate(counts))


def _broken() -> list[tuple[State, str]]:
    play, offer, draw = FIRST[Step.PLAY], FIRST[Step.OFFER], FIRST[Step.DRAW]
    ring = meuterer.new_game(4, rules=Rules(ring=Ring.SHUFFLED))
    assert ring.step is Step.RING
    cases = []
    seat = next(s for s in range(4) if not play.passed[s] and any(play.hands[s]))
    card = next(c for c, n in enumerate(play.hands[seat]) if n)
    hands = tuple(_move(h, card, -1) if s == seat else h for s, h in enumerate(play.hands))
    down = tuple(_move(d, card, 1) if s == seat else d for s, d in enumerate(play.face_down))
    cases.append((evolve(play, {"hands": hands, "face_down": down}), "only a player who passed has cards face down"))
    other = (offer.captain + 1) % 4
    cases.append((evolve(offer, {"to_act": other, "queue": ()}), "the captain makes the offer"))
    card = next(c for c, n in enumerate(offer.deck) if n)
    hands = tuple(_move(h, card, 1) if s == 0 else h for s, h in enumerate(offer.hands))
    cases.append((evolve(offer, {"hands": hands, "deck": _move(offer.deck, card, -1)}), "more than a full hand"))
    cases.append((evolve(ring, {"scores": (1, 0, 0, 0)}), "as new_game makes it"))
    grain = next(i.name for i in draw.rules.islands if i.buys is Card.GRAIN)
    sales = ((Sale(grain, Card.RUBY, 1),), *draw.sales[1:])
    cases.append((evolve(draw, {"sales": sales}), f"{grain} does not buy 1 ruby"))
    return cases


@pytest.mark.parametrize(("state", "message"), _broken(), ids=lambda value: str(value)[:30])
def test_a_state_the_engine_cannot_make_is_refused(state: State, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        check_state(state)
