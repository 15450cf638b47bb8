"""The island table is validated data."""

from __future__ import annotations

import attrs
import pytest

import meuterer
from meuterer import Card, Island, Rules, RulesError
from meuterer.islands import ISLANDS

# SPEC section 1, transcribed row by row: name, buys, I, II, III, ship.
SPEC_TABLE = """
hochland any 4 3 2 5
frosthoehle cloth 3 2 1 3
gruenland salt 5 3 2 4
karge_zunge grain 6 3 2 4
eisfelsen ruby 6 4 3 5
affeninsel grain 2 1 1 2
kalte_klippe cloth 5 2 2 4
sommerland salt 3 1 1 2
rotes_riff wine 4 2 2 3
piratennest any 4 3 2 5
fingerhut ruby 2 1 0 2
sandkap wine 4 2 1 3
"""


def test_the_default_table_is_the_specification() -> None:
    rows = [line.split() for line in SPEC_TABLE.strip().splitlines()]
    expected = tuple(
        Island(name, None if buys == "any" else Card[buys.upper()], (int(a), int(b), int(c)), int(ship))
        for name, buys, a, b, c, ship in rows
    )
    assert expected == ISLANDS


def test_buys_any_good_but_never_support_or_pirate() -> None:
    hochland, karge_zunge = ISLANDS[0], ISLANDS[3]
    assert all(hochland.buys_card(c) for c in (Card.RUBY, Card.SALT, Card.WINE, Card.CLOTH, Card.GRAIN))
    assert not hochland.buys_card(Card.SUPPORT) and not hochland.buys_card(Card.PIRATE)
    assert karge_zunge.buys_card(Card.GRAIN) and not karge_zunge.buys_card(Card.WINE)


def test_a_corrected_table_is_used_by_the_engine() -> None:
    corrected = (ISLANDS[0], attrs.evolve(ISLANDS[1], ship=9), *ISLANDS[2:])
    rules = Rules(islands=corrected)
    state = meuterer.new_game(players=3, rules=rules)
    assert state.island(1).ship == 9


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (ISLANDS[:11], "needs 12 islands"),
        ((*ISLANDS[:11], ISLANDS[0]), "name each island once"),
        ((*ISLANDS[1:2], ISLANDS[0], *ISLANDS[2:]), "Hochland must be at ring position 0"),
        ((ISLANDS[0], attrs.evolve(ISLANDS[1], values=(3, -1, 1)), *ISLANDS[2:]), "non-negative"),
        ((ISLANDS[0], attrs.evolve(ISLANDS[1], buys=Card.SUPPORT), *ISLANDS[2:]), "not a good"),
    ],
)
def test_a_bad_table_is_refused_with_a_clear_error(table: tuple[Island, ...], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules(islands=table)


def test_a_table_where_a_good_sells_nowhere_is_refused() -> None:
    table = tuple(
        attrs.evolve(i, buys=Card.SALT) if i.buys is None or i.buys is Card.RUBY else i for i in ISLANDS
    )
    with pytest.raises(RulesError, match="no island buys ruby"):
        Rules(islands=table)
