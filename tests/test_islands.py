"""The island table is validated data."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import meuterer
import meuterer.islands
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


@pytest.mark.rule("p5.goods", "p5.buys")
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
    table = tuple(attrs.evolve(i, buys=Card.SALT) if i.buys is None or i.buys is Card.RUBY else i for i in ISLANDS)
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


# Hostile table files (issue 11, item 4): every failure is a RulesError -----------------------


def _toml(rows: list[dict[str, Any]]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(v)

    return "".join("[[islands]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in row.items()) + "\n" for row in rows)


@pytest.mark.parametrize("buys", [[], {}, ["ruby"], {"a": 1}, 3, 2.5, True])
@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_an_unhashable_or_odd_buys_is_a_rules_error(tmp_path: Path, buys: Any, suffix: str) -> None:
    rows = _rows()
    rows[2]["buys"] = buys
    path = tmp_path / f"islands{suffix}"
    path.write_text(json.dumps(rows) if suffix == ".json" else _toml(rows), encoding="utf-8")
    with pytest.raises(RulesError, match="buys must be a good"):
        load_islands(path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.toml", "a = " + "[" * 100_000 + "]" * 100_000),
        ("inline.toml", "a = " + "{b = " * 5_000 + "1" + "}" * 5_000),
        ("twice.json", '{"islands": [], "islands": []}'),
        ("big.json", " " * (64 * 1024 + 1)),
        ("latin1.json", "Grünland"),
    ],
)
def test_hostile_files_are_rules_errors(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(RulesError):
        load_islands(path)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    index=st.integers(0, 11),
    key=st.sampled_from(["name", "buys", "values", "ship", "extra"]),
    value=JSON,
    toml=st.booleans(),
)
def test_fuzzed_table_files_load_or_raise_rules_error(
    tmp_path: Path, index: int, key: str, value: Any, toml: bool
) -> None:
    rows = _rows()
    rows[index][key] = value
    if toml:
        try:
            text = _toml(rows)
        except (TypeError, ValueError):
            return
        path = tmp_path / "fuzz.toml"
    else:
        text, path = json.dumps(rows), tmp_path / "fuzz.json"
    path.write_text(text, encoding="utf-8")
    try:
        table = load_islands(path)
    except RulesError:
        return
    assert Rules(islands=table).islands == table


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_fuzzed_table_data_loads_or_raises_rules_error(data: Any) -> None:
    for candidate in (data, [data] * 12, {"islands": data}):
        with contextlib.suppress(RulesError):
            meuterer.islands.islands_from_data(candidate)


@pytest.mark.parametrize(
    "bad",
    [
        attrs.evolve(ISLANDS[1], values=("3", 2, 1)),  # type: ignore[arg-type]
        attrs.evolve(ISLANDS[1], values=[3, 2, 1]),  # type: ignore[arg-type]
        attrs.evolve(ISLANDS[1], ship=None),  # type: ignore[arg-type]
        attrs.evolve(ISLANDS[1], name=["frosthoehle"]),  # type: ignore[arg-type]
        "frosthoehle",
    ],
    ids=repr,
)
def test_an_island_of_the_wrong_types_is_a_rules_error(bad: Any) -> None:
    with pytest.raises(RulesError):
        Rules(islands=(ISLANDS[0], bad, *ISLANDS[2:]))
