"""The shared rule functions of ``meuterer.phases`` against plain restatements of what
they compute (written here the slow, obvious way), and their memos against fresh work:
every remembered entry must be what the function would compute now."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import combinations_with_replacement, product
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import Rules
from meuterer.actions import Discard, Sale, Support
from meuterer.cards import CARDS, GOODS, Card, Role, counts_of
from meuterer.fast import FastGame
from meuterer.islands import ISLANDS, Island
from meuterer.phases import common, mutiny, offer_cargo, pirates, scoring, voyage

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
    assert voyage._MULTISETS and voyage._DISCARD
    for (kinds, extra), multisets in voyage._MULTISETS.items():
        assert [cards for cards, _ in multisets] == list(combinations_with_replacement(kinds, extra))
        for cards, demands in multisets:  # what a pool must hold of each kind of the multiset
            assert demands == tuple((k, n) for k, n in enumerate(counts_of(cards)) if n)
    for (seat, cards), action in voyage._DISCARD.items():
        assert action == Discard(seat, cards) and type(action.player) is int


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


@pytest.mark.rule("p5.one-kind", "p5.withholding")
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


def _island_points_by_rank(island: Island, sold: list[int], merchants: list[bool]) -> tuple[int, ...]:
    most = max(sold, default=0)
    if most <= 0:
        return (0,) * len(sold)
    leaders = [p for p, n in enumerate(sold) if n == most]
    shared = island.values[len(leaders) - 1] if len(leaders) <= len(island.values) else 0
    return tuple(
        ((island.values[0] if p < len(merchants) and merchants[p] else shared) if p in leaders else 0)
        for p in range(len(sold))
    )


class _Board:
    def __init__(self, players: int, roles: tuple[Role | None, ...], ring: tuple[int, ...], active: tuple[int, ...]):
        self.players, self.roles, self.ring, self.active, self.rules = players, roles, ring, active, Rules()


@given(
    st.integers(3, 4).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.sampled_from([None, *Role]), min_size=n, max_size=n),
            st.lists(
                st.one_of(
                    st.none(),
                    st.lists(
                        st.tuples(st.sampled_from(ISLANDS[:4]), st.sampled_from(GOODS), st.integers(0, 4)), max_size=2
                    ),
                ),
                min_size=n,
                max_size=n,
            ),
        )
    ),
    st.sampled_from([(0,), (1,), (0, 1), (1, 3), (2, 14)]),
)
def test_sale_points_are_each_active_islands_points_summed(
    table: tuple[int, list[Role | None], list[list[tuple[Island, int, int]] | None]], active: tuple[int, ...]
) -> None:
    players, roles, declared = table
    sales = tuple(None if d is None else tuple(Sale(i.name, card, n) for i, card, n in d) for d in declared)
    board = _Board(players, tuple(roles), tuple(range(12)), active)
    expected = [0] * players
    merchants = [role is Role.MERCHANT for role in roles]
    for position in active:
        island = ISLANDS[position % 12]
        sold = [sum(s.count for s in (d or ()) if s.island == island.name) for d in sales]
        for p, won in enumerate(_island_points_by_rank(island, sold, merchants)):
            expected[p] += won
    assert scoring.sale_points(board, sales) == tuple(expected)  # type: ignore[arg-type]


@pytest.mark.rule("p5.leaders", "p5.merchant")
@given(st.lists(st.integers(0, 5), max_size=5), st.lists(st.booleans(), max_size=5), st.sampled_from(ISLANDS))
def test_island_points_rank_the_sellers(sold: list[int], merchants: list[bool], island: Island) -> None:
    assert scoring.island_points(island, sold, merchants) == _island_points_by_rank(island, sold, merchants)
    assert scoring.island_points(island, tuple(sold)) == _island_points_by_rank(island, sold, [])


# Drawing and turns -----------------------------------------------------------------------


class _Piles:
    def __init__(self, deck: tuple[int, ...], discard: tuple[int, ...]) -> None:
        self.deck, self.discard = deck, discard


@given(
    st.lists(st.integers(0, 9), min_size=7, max_size=7),
    st.lists(st.integers(0, 9), min_size=7, max_size=7),
    st.integers(0, 2**32),
)
def test_sample_card_is_random_choices_over_the_draw_pool(deck: list[int], discard: list[int], seed: int) -> None:
    # The same card and the same one draw of the generator as choices over the listed kinds.
    pool = deck if any(deck) else discard
    ours, theirs = random.Random(seed), random.Random(seed)
    card = voyage.sample_card(_Piles(tuple(deck), tuple(discard)), ours)  # type: ignore[arg-type]
    kinds = [c for c in CARDS if pool[c]]
    if kinds:
        assert card == theirs.choices(kinds, [pool[c] for c in kinds])[0]
    else:
        assert card == 0 and theirs.random() >= 0
    assert ours.getstate() == theirs.getstate()
    assert card == voyage.pick_card(pool, random.Random(seed).random())


def test_sample_card_takes_the_last_kind_when_the_draw_rounds_up_to_the_pool() -> None:
    class Top(random.Random):
        def random(self) -> float:
            return 1.0  # (beyond any float random() returns: the fallback of the walk)

    assert voyage.sample_card(_Piles((0,) * 7, (0, 2, 0, 3, 0, 0, 0)), Top()) == 3  # type: ignore[arg-type]
    assert voyage.pick_card((0, 2, 0, 3, 0, 0, 0), 1.0) == 3


@pytest.mark.rule("p2.turns")
@given(
    st.integers(1, 5).flatmap(
        lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n), st.integers(0, n - 1))
    )
)
def test_next_unpassed_is_the_first_seat_clockwise_still_in(table: tuple[list[bool], int]) -> None:
    passed, after = table
    players = len(passed)
    clockwise = [(after + i) % players for i in range(1, players + 1)]
    assert common.next_unpassed(players, passed, after) == next((s for s in clockwise if not passed[s]), after)


# Mutiny support ---------------------------------------------------------------------------


@pytest.mark.rule("p4.support-order")
def test_legal_support_is_zero_up_to_every_face_down_support_card_the_same_tuple_each_time() -> None:
    state = meuterer.new_game(4, 0)
    empty = (0,) * len(CARDS)
    for seat in range(4):
        for held in range(12):
            down = tuple(held if card == Card.SUPPORT else 0 for card in CARDS)
            face_down = tuple(down if s == seat else empty for s in range(4))
            board = attrs.evolve(state, to_act=seat, face_down=face_down)
            legal = mutiny.legal_support(board)
            assert legal == tuple(Support(seat, k) for k in range(held + 1))
            again = mutiny.legal_support(attrs.evolve(board, round=2))
            assert again == legal and (again is legal or held > 6)  # (the rulebook's deck has 6)


# Arithmetic rules over ints or arrays -----------------------------------------------------

_SMALL = st.integers(0, 14)
_FLAG = st.integers(0, 1)
_ARITHMETIC: dict[str, tuple[Callable[..., Any], tuple[st.SearchStrategy[int], ...], tuple[Any, ...]]] = {
    "destination_from": (offer_cargo.destination_from, (_SMALL, _SMALL), (12,)),
    "pirate_moves_to": (pirates.pirate_moves_to, (_SMALL, _SMALL), (12,)),
    "robs": (pirates.robs, (st.integers(0, 11), st.integers(0, 11), _SMALL), (12, True)),
    "robs_not_at_start": (pirates.robs, (st.integers(0, 11), st.integers(0, 11), _SMALL), (12, False)),
    "side_strengths": (mutiny.side_strengths, (_SMALL, _SMALL, _FLAG, _SMALL), ()),
    "mutiny_succeeds": (mutiny.mutiny_succeeds, (_SMALL, _SMALL), ()),
    "role_payouts": (scoring.role_payouts, (_FLAG, _SMALL, _SMALL, _FLAG, _FLAG), (3,)),
    "leader_points": (scoring.leader_points, (_FLAG, _FLAG, _SMALL, _SMALL), ()),
    "is_last_round": (scoring.is_last_round, (_SMALL,), (8,)),
    "cards_to_fill": (voyage.cards_to_fill, (_SMALL, _FLAG), (2,)),
    "reshuffles": (voyage.reshuffles, (_SMALL, _FLAG, _FLAG), ()),
}


@pytest.mark.parametrize("name", sorted(_ARITHMETIC))
@settings(max_examples=40)
@given(data=st.data())
def test_an_arithmetic_rule_answers_an_array_as_each_of_its_values(name: str, data: st.DataObject) -> None:
    # The batch engine calls these rules over numpy arrays: each entry of the answer is the
    # answer for that entry's values (cards_to_fill: the hand size first, then the values).
    np = pytest.importorskip("numpy")
    rule, drawn, fixed = _ARITHMETIC[name]
    rows = data.draw(st.lists(st.tuples(*drawn), min_size=1, max_size=6))
    columns = [np.array(column) for column in zip(*rows, strict=True)]
    if name == "cards_to_fill":
        answer = rule(5, columns[0], *fixed, columns[1].astype(bool))
        each = [rule(5, held, *fixed, bool(loadmaster)) for held, loadmaster in rows]
    else:
        answer = rule(*columns, *fixed)
        each = [rule(*row, *fixed) for row in rows]
    if isinstance(answer, tuple):
        assert [tuple(int(part[k]) for part in answer) for k in range(len(rows))] == [tuple(map(int, e)) for e in each]
    else:
        assert np.asarray(answer).tolist() == [int(e) if not isinstance(e, bool) else e for e in each]


def test_the_arithmetic_rules_are_the_reference_rulings() -> None:
    s = meuterer.new_game(4, 0, Rules(pirates=True))
    assert offer_cargo.destination(s, 3) == offer_cargo.destination_from(s.start, 3, len(s.ring)) == 3
    assert pirates.robbery(s, 9) and not pirates.robbery(s, 8) and not pirates.robbery(s, 0)
    assert voyage.cards_needed(Rules(loadmaster_extra=2), Role.LOADMASTER, 4) == 3
    assert scoring.shared_value((4, 3, 2), 3) == 2 and scoring.shared_value((4, 3, 2), 0) == 0
    assert scoring.relative_utilities(27.0, 76.0, 3) == 2.5 and scoring.win_shares(True, 4) == 0.25
