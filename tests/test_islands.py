"""The island table is validated data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

import meuterer
from meuterer import Card, Island, Rules, RulesError
from meuterer.islands import ISLANDS, load_islands

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


def _rows() -> list[dict[str, object]]:
    return [
        {"name": i.name, "buys": "any" if i.buys is None else str(i.buys), "values": list(i.values), "ship": i.ship}
        for i in ISLANDS
    ]


def test_a_corrected_table_loads_from_json_and_toml(tmp_path: Path) -> None:
    rows = _rows()
    rows[1]["ship"] = 4  # a correction read off the physical card
    (tmp_path / "islands.json").write_text(json.dumps(rows), encoding="utf-8")
    toml = "".join(
        f'[[islands]]\nname = "{r["name"]}"\nbuys = "{r["buys"]}"\nvalues = {r["values"]}\nship = {r["ship"]}\n\n'
        for r in rows
    )
    (tmp_path / "islands.toml").write_text(toml, encoding="utf-8")
    for name in ("islands.json", "islands.toml"):
        table = load_islands(tmp_path / name)
        assert table[1].ship == 4 and table[2:] == ISLANDS[2:]
        assert Rules(islands=table).islands[1].ship == 4


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows.pop(), "needs 12 islands"),
        (lambda rows: rows[3].update(buys="gold"), "island 3 \\(karge_zunge\\): buys must be a good"),
        (lambda rows: rows[4].update(values=[6, 4]), "island 4 \\(eisfelsen\\): values must be three"),
        (lambda rows: rows[5].update(ship="2"), "ship must be a whole number"),
        (lambda rows: rows[6].pop("ship"), "island 6: expected the keys"),
        (lambda rows: rows[7].update(values=[3, -1, 1]), "non-negative"),
    ],
)
def test_a_bad_table_file_is_refused_naming_the_entry(tmp_path: Path, edit: Any, message: str) -> None:
    rows = _rows()
    edit(rows)
    path = tmp_path / "islands.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    with pytest.raises(RulesError, match=message):
        load_islands(path)


def test_unreadable_table_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="cannot read"):
        load_islands(tmp_path / "missing.json")
    (tmp_path / "bad.toml").write_text("[[islands]\n", encoding="utf-8")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_islands(tmp_path / "bad.toml")
