"""The shared rule functions of ``meuterer.phases`` against plain restatements of what
they compute (written here the slow, obvious way), and their memos against fresh work:
every remembered entry must be what the function would compute now."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement, product

from hypothesis import given
from hypothesis import strategies as st

import meuterer
from meuterer import Rules
from meuterer.actions import Discard, Sale
from meuterer.cards import CARDS, GOODS, counts_of
from meuterer.fast import FastGame
from meuterer.islands import ISLANDS, Island
from meuterer.phases import scoring, voyage

# Loadmaster discards ----------------------------------------------------------------------


def _discards_by_combinations(seat: int, pool: tuple[int, ...], extra: int) -> tuple[Discard, ...]:
    kinds = [c for c in CARDS if pool[c]]
    return tuple(
        Discard(seat, cards)
        for cards in combinations_with_replacement(kinds, extra)
        if all(counts_of(cards)[c] <= pool[c] for c in kinds)
    )


@given(st.lists(st.integers(0, 6), min_size=7, max_size=7), st.integers(0, 5), st.integers(0, 3))
def test_discard_choices_are_the_combinations_of_the_pool(pool: list[int], extra: int, seat: int) -> None:
    counts = tuple(pool)
    expected = _discards_by_combinations(seat, counts, extra)
    assert voyage.discard_choices(seat, counts, extra) == expected
    assert voyage.discard_choices(seat, counts, extra) is voyage.discard_choices(seat, counts, extra)


def _play_fast_games(rules: Rules, games: int) -> None:
    for seed in range(games):
        game, rng = FastGame.new(3 + seed % 2, seed % 3, rules), random.Random(seed)
        while not game.is_terminal():
            if game.is_chance_node():
                game.apply_chance(rng)
            else:
                game.apply_at(rng.randrange(len(game.legal_actions())))


def test_remembered_discards_are_what_would_be_listed_now() -> None:
    for rules in (Rules(), Rules(discard_pool="hand"), Rules(loadmaster_extra=1)):
        _play_fast_games(rules, 20)
    assert voyage._DISCARDS
    for (seat, pool, extra), found in voyage._DISCARDS.items():
        assert found == _discards_by_combinations(seat, pool, extra), (seat, pool, extra)
    assert voyage._CANDIDATES
    for (seat, kinds, extra), candidates in voyage._CANDIDATES.items():
        assert [a for a, _ in candidates] == [Discard(seat, c) for c in combinations_with_replacement(kinds, extra)]
        for action, demands in candidates:  # what a pool must hold of each kind of the discard
            assert isinstance(action, Discard)
            assert demands == tuple((k, n) for k, n in enumerate(counts_of(action.cards)) if n)


# Sale declarations ---------------------------------------------------------------------


def _declarations_by_product(
    goods: tuple[int, ...], islands: tuple[tuple[str, Island], ...], withholding: bool
) -> tuple[tuple[Sale, ...], ...]:
    # Every choice of one option per island (nothing, or n cards of one kind it buys), in
    # product order, kept when it sells no more than held and, under "sell what you can",
    # keeps no declared kind partly and leaves no kept good an idle island buys.
    options = [
        [None, *((card, n) for card in GOODS if island.buys_card(card) for n in range(1, goods[card] + 1))]
        for _, island in islands
    ]
    found = []
    for choice in product(*options):
        sold = [0] * len(GOODS)
        for option in choice:
            if option is not None:
                sold[option[0]] += option[1]
        if any(sold[card] > goods[card] for card in GOODS):
            continue
        if not withholding:
            if any(sold[card] not in (0, goods[card]) for card in GOODS):
                continue
            if any(
                option is None and island.buys_card(card) and goods[card] > sold[card]
                for option, (_, island) in zip(choice, islands, strict=True)
                for card in GOODS
            ):
                continue
        found.append(
            tuple(Sale(name, *option) for option, (name, _) in zip(choice, islands, strict=True) if option is not None)
        )
    return tuple(found)


@given(
    st.lists(st.integers(0, 4), min_size=5, max_size=5),
    st.lists(st.sampled_from(ISLANDS), max_size=3, unique=True),
    st.booleans(),
)
def test_sale_declarations_are_the_product_of_the_islands_options(
    goods: list[int], islands: list[Island], withholding: bool
) -> None:
    named = tuple((island.name, island) for island in islands)
    assert scoring.sale_declarations(tuple(goods), named, withholding) == _declarations_by_product(
        tuple(goods), named, withholding
    )


def test_remembered_sales_and_bought_kinds_are_what_would_be_made_now() -> None:
    _play_fast_games(Rules(withholding=True), 10)
    _play_fast_games(Rules(pirates=True), 10)
    assert scoring._SALE and scoring._BOUGHT
    for (name, card, count), sale in scoring._SALE.items():
        assert sale == Sale(name, card, count) and type(sale.card) is type(GOODS[0])
    for island, kinds in scoring._BOUGHT.items():
        assert kinds == tuple(card for card in GOODS if island.buys_card(card))


def test_the_reference_and_fast_engines_still_agree() -> None:
    # The shared functions serve both engines: the same game, action for action.
    for seed in range(6):
        rules = Rules(withholding=seed % 2 == 0, discard_pool="hand" if seed % 3 == 0 else "drawn")
        actions, final = meuterer.random_game(seed=seed, players=3 + seed % 2, rules=rules)
        game = FastGame.new(3 + seed % 2, 0, rules)
        for action in actions:
            game.apply(action)
        assert game.to_state() == final
