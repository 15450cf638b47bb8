"""The fixed action ids: their state-free names, and the ids of whole lists of sales or discards."""

from __future__ import annotations

import random

import pytest

import meuterer
from meuterer.actions import Discard, Sale, Sell
from meuterer.cards import Card
from meuterer.encoding import action_ids
from meuterer.rules import Rules
from meuterer.state import State, evolve


def test_every_id_has_its_own_name() -> None:
    ids = action_ids(Rules())
    names = [ids.template(a) for a in range(ids.num_actions)]
    assert len(set(names)) == ids.num_actions
    assert names[ids.pass_.start] == "pass"


def test_an_empty_discard_is_named_as_the_notation_writes_it() -> None:
    ids = action_ids(Rules(loadmaster_extra=0))
    names = {ids.template(a) for a in ids.discard}
    assert "discard none" in names
    assert "discard " not in names


def _sales_decisions(count: int) -> list[tuple[State, tuple[Sell, ...]]]:
    # The first ``count`` sales decisions of several sales, two islands active, in random
    # 4-seat games: the state, and its legal sales.
    rng = random.Random(11)
    found: list[tuple[State, tuple[Sell, ...]]] = []
    while len(found) < count:
        game = meuterer.new_game(4)
        while not meuterer.is_terminal(game):
            if meuterer.is_chance_node(game):
                game = meuterer.apply(game, meuterer.sample_chance(game, rng))
                continue
            legal = meuterer.legal_actions(game)
            if type(legal[0]) is Sell and len(legal) > 1 and len(game.active) == 2 and len(found) < count:
                found.append((game, tuple(a for a in legal if isinstance(a, Sell))))
            game = meuterer.apply(game, legal[rng.randrange(len(legal))])
    return found


def test_the_ids_of_a_list_of_sales_are_each_sales_id() -> None:
    # sell_ids reads the active islands once for the whole list: each id is action_id's,
    # and the same sales under the active islands swapped on the ring have other ids.
    ids = action_ids(Rules())
    for game, sells in _sales_decisions(8):
        numbered = ids.sell_ids(game, sells)
        assert numbered == [ids.action_id(game, sell) for sell in sells]
        assert [ids.action(game, number) for number in numbered] == list(sells)  # read back
        ring = list(game.ring)
        first, second = game.active
        ring[first], ring[second] = ring[second], ring[first]
        swapped = evolve(game, {"ring": tuple(ring)})
        again = ids.sell_ids(swapped, sells)
        assert again == [ids.action_id(swapped, sell) for sell in sells] and again != numbered
        assert ids.sell_ids(game, sells[::-1]) == numbered[::-1]


def test_the_ids_of_a_list_of_sales_refuse_what_action_id_refuses() -> None:
    ids = action_ids(Rules())
    game, _ = _sales_decisions(1)[0]
    names = [game.rules.islands[game.ring[p]].name for p in game.active]
    elsewhere = next(island.name for island in game.rules.islands if island.name not in names)
    for sales in [
        (Sale(elsewhere, Card.RUBY, 1),),  # not an active island
        (Sale(names[0], Card.RUBY, 1), Sale(names[0], Card.SALT, 1)),  # one island twice
        (Sale(names[1], Card.PIRATE, 1),),  # not a good
        (Sale(names[1], Card.WINE, 0),),  # no cards
    ]:
        sell = Sell(0, sales)
        with pytest.raises(ValueError, match="no action id") as by_one:
            ids.action_id(game, sell)
        with pytest.raises(ValueError, match="no action id") as by_list:
            ids.sell_ids(game, [Sell(0, ()), sell])
        assert str(by_list.value) == str(by_one.value)


def test_the_ids_of_a_list_of_discards_are_each_discards_id() -> None:
    ids = action_ids(Rules())
    game = meuterer.new_game(3)
    every = [Discard(seat, cards) for seat in range(3) for cards in ids.discards]
    assert ids.discard_ids(every) == [ids.action_id(game, discard) for discard in every]
    assert ids.discard_ids(every[::-1]) == [ids.action_id(game, discard) for discard in every[::-1]]
    assert ids.discard_ids([]) == []
    wrong = Discard(1, (Card.RUBY,) * 2)  # two cards: not a discard of this rule set
    with pytest.raises(ValueError, match="no action id for 'p1 discard ruby ruby'"):
        ids.action_id(game, wrong)
    with pytest.raises(ValueError, match="no action id for 'p1 discard ruby ruby'"):
        ids.discard_ids([every[0], wrong])
