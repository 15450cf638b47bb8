"""A brute-force oracle for sale declarations, written from the rules' text alone
(docs/rules.md, SPEC phase 5 "Sales"), compared with the engine's legal ``Sell`` actions.

The oracle enumerates every sub-multiset of the seller's face-up goods and every way to
split it over the active islands, then keeps the splits the text allows:

- only ruby, salt, wine, cloth and grain are sold;
- an island buys only its good (``Island.buys``), one that buys ``None`` buys any good;
- a player sells one kind of good per island (a kind may be split across both);
- "sell what you can" (``withholding=False``): no face-up card of a declared kind stays
  unsold, and an island where he declared nothing buys none of his unsold goods; with
  ``withholding=True`` he may keep back anything.

It shares no code with ``meuterer.phases.scoring``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import product

import attrs
import pytest

import meuterer
from meuterer import Card, Rules, Sell, State, Step
from meuterer.islands import Island
from meuterer.state import evolve

_GOODS = (Card.RUBY, Card.SALT, Card.WINE, Card.CLOTH, Card.GRAIN)  # the text's list, in card order

Declaration = frozenset[tuple[str, Card, int]]


def _buys(island: Island, card: Card) -> bool:
    return island.buys is None or island.buys is card


def _sub_multisets(counts: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    return product(*(range(n + 1) for n in counts))


def oracle(goods: tuple[int, ...], islands: list[Island], withholding: bool) -> set[Declaration]:
    """Every declaration the rules allow a seller with ``goods`` (counts per :data:`_GOODS`)."""
    found: set[Declaration] = set()
    for sold in _sub_multisets(goods):
        # every split of ``sold`` over the islands: the first islands take any part, the last the rest
        for parts in product(_sub_multisets(sold), repeat=len(islands) - 1):
            last = tuple(s - sum(part[g] for part in parts) for g, s in enumerate(sold))
            if min(last) < 0:
                continue
            split = [*parts, last]
            if any(sum(1 for n in part if n) > 1 for part in split):  # one kind per island
                continue
            if any(
                n and not _buys(island, _GOODS[g])
                for island, part in zip(islands, split, strict=True)
                for g, n in enumerate(part)
            ):
                continue
            unsold = [have - s for have, s in zip(goods, sold, strict=True)]
            if not withholding:
                if any(s and left for s, left in zip(sold, unsold, strict=True)):  # a declared kind partly kept
                    continue
                idle = [island for island, part in zip(islands, split, strict=True) if not any(part)]
                if any(left and _buys(island, _GOODS[g]) for island in idle for g, left in enumerate(unsold)):
                    continue
            found.add(
                frozenset(
                    (island.name, _GOODS[g], n)
                    for island, part in zip(islands, split, strict=True)
                    for g, n in enumerate(part)
                    if n
                )
            )
    return found


def engine_declarations(state: State) -> list[Declaration]:
    sells = [action for action in meuterer.legal_actions(state) if isinstance(action, Sell)]
    return [frozenset((sale.island, sale.card, sale.count) for sale in action.sales) for action in sells]


def _sell_states(rng: random.Random, games: int) -> Iterator[State]:
    """The phase-5 states of random games under random rule options."""
    for _ in range(games):
        rules = Rules(
            withholding=rng.random() < 0.5,
            pirates=rng.random() < 0.5,
            ring=rng.choice(list(meuterer.Ring)),
        )
        state = meuterer.new_game(rng.choice((3, 4)), rules=rules)
        while not meuterer.is_terminal(state):
            if state.step is Step.SELL:
                yield state
            if meuterer.is_chance_node(state):
                action = meuterer.sample_chance(state, rng)
            else:
                action = rng.choice(meuterer.legal_actions(state))
            state = meuterer.apply(state, action)


def compare(seed: int, games: int) -> tuple[int, int]:
    """Compare the engine with the oracle at every phase-5 decision of ``games`` random
    games; the number of states compared, and how many of them had goods to sell."""
    rng = random.Random(seed)
    checked = with_goods = 0
    for state in _sell_states(rng, games):
        islands = [state.island(position) for position in state.active]
        # the game's own face-up cards, then made-up goods (more kinds, more cards)
        for goods in (state.face_up[state.to_act][: len(_GOODS)], tuple(rng.choice((0, 0, 1, 2, 3)) for _ in _GOODS)):
            face_up = (*goods, *state.face_up[state.to_act][len(_GOODS) :])
            seller = evolve(
                state, {"face_up": tuple(face_up if s == state.to_act else f for s, f in enumerate(state.face_up))}
            )
            listed = engine_declarations(seller)
            assert len(set(listed)) == len(listed), "a declaration listed twice"
            assert set(listed) == oracle(goods, islands, state.rules.withholding), (goods, islands)
            checked += 1
            with_goods += any(goods)
    return checked, with_goods


@pytest.mark.rule("p5.one-kind", "p5.withholding", "p5.buys")
def test_the_engine_lists_exactly_the_declarations_the_rules_allow() -> None:
    checked, with_goods = compare(2026, 12)
    assert checked >= 400 and with_goods >= 300  # enough declarations to bite


@pytest.mark.slow
def test_the_engine_agrees_with_the_oracle_over_many_games() -> None:
    checked, with_goods = compare(7, 100)
    assert checked >= 4000 and with_goods >= 2000


def test_the_oracle_agrees_with_the_designers_sale_example() -> None:
    # SPEC "Sale example 1": player 1 with 3 grain face up sells 2 on Karge Zunge and 1 on Hochland.
    table = {island.name: island for island in meuterer.Rules().islands}
    hochland, karge = table["hochland"], table["karge_zunge"]
    grain = (0, 0, 0, 0, 3)
    allowed = oracle(grain, [hochland, karge], withholding=False)
    assert frozenset({("karge_zunge", Card.GRAIN, 2), ("hochland", Card.GRAIN, 1)}) in allowed
    assert frozenset({("karge_zunge", Card.GRAIN, 2)}) not in allowed  # a grain kept back
    assert frozenset({("karge_zunge", Card.GRAIN, 2)}) in oracle(grain, [hochland, karge], withholding=True)
    assert oracle((1, 0, 0, 0, 0), [karge], withholding=False) == {frozenset()}  # nothing sellable there


def test_the_engine_follows_the_island_table_of_the_rules() -> None:
    # The same seller, goods and ring positions under two island tables, in turn: the
    # engine's remembered declarations must not mix them up.
    state = next(s for s in _sell_states(random.Random(5), 3) if any(s.face_up[s.to_act][: len(_GOODS)]))
    swapped = tuple(attrs.evolve(island, buys=None if island.buys else Card.RUBY) for island in state.rules.islands)
    other = evolve(state, {"rules": attrs.evolve(state.rules, islands=swapped)})
    goods = state.face_up[state.to_act][: len(_GOODS)]
    for s in (state, other, state, other):
        islands = [s.island(position) for position in s.active]
        assert set(engine_declarations(s)) == oracle(goods, islands, s.rules.withholding)
    assert set(engine_declarations(state)) != set(engine_declarations(other))
