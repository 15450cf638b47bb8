"""A new rule option touches only ``Rules``, its rule function and the docs (issue 36, item 7):
every list of the options elsewhere agrees with the fields of :class:`meuterer.Rules`.

The lists read from the fields (the kit's strategies, the test strategies, the vector
alignment's rule sets, OpenSpiel's parameters) are held to the fields here; the files other
languages read (the conformance suite's schema, the record schema) cannot be derived at
run time and are held to them too.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import Phase, find, settings

from meuterer import Rules
from meuterer.conform.fixtures import suite_dir
from meuterer.rules import OPEN, SIZE, TABLE, VARIANT, option_kind, option_values
from meuterer.testing import option_choices

from .strategies import rule_sets

NAMES = [field.name for field in attrs.fields(Rules)]
DOCS = Path(__file__).parent.parent / "docs"


def test_every_option_declares_its_kind_and_values() -> None:
    for name in NAMES:
        assert option_kind(name) in (TABLE, VARIANT, OPEN, SIZE)
        values = option_values(name)
        if option_kind(name) != TABLE:
            assert len(values) >= 2, name  # something to vary
        if values:
            assert values[0] == getattr(Rules(), name), name  # the default first: strategies shrink to it
            assert len(set(values)) == len(values), name
            for value in values:
                assert getattr(Rules(**{name: value}), name) == value  # each a valid value


def test_the_kit_varies_every_option_but_the_tables() -> None:
    varied = option_choices(variants=True, sizes=True)
    assert sorted(varied) == sorted(name for name in NAMES if option_kind(name) != TABLE)
    assert sorted(option_choices(variants=False)) == sorted(name for name in NAMES if option_kind(name) == OPEN)


@pytest.mark.parametrize("name", [name for name in NAMES if option_kind(name) in (OPEN, VARIANT)])
def test_the_test_strategies_draw_every_value_and_shrink_to_the_default(name: str) -> None:
    quiet = settings(database=None, max_examples=500)
    drawn = settings(quiet, phases=[Phase.generate])  # found is enough: no shrinking
    for value in option_values(name):

        def has(rules: Rules, value: object = value) -> bool:
            return bool(getattr(rules, name) == value)

        assert getattr(find(rule_sets(), has, settings=drawn), name) == value
    # Shrinking goes toward the default rules: the simplest rule set is the default one.
    assert find(rule_sets(), lambda r: True, settings=quiet) == Rules()


def test_the_vector_alignment_plays_every_value_of_every_option() -> None:
    align = pytest.importorskip("meuterer.vector.align", reason="the batch engine needs numpy (extra vector)")
    for name in NAMES:
        played = [getattr(rules, name) for rules in align.RULE_SETS]
        for value in option_values(name):
            assert value in played, (name, value)


def test_openspiel_parameters_are_the_rule_options() -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (extra openspiel)")
    pytest.importorskip("numpy")
    openspiel = pytest.importorskip("meuterer.openspiel")
    game_only = ("players", "first_captain", "reward", "utility")
    tables = [name for name in NAMES if isinstance(getattr(Rules(), name), tuple)]
    assert [name for name in openspiel.PARAMETERS if name not in game_only] == [n for n in NAMES if n not in tables]
    for name in NAMES:
        if name in tables:
            continue
        for value in option_values(name):  # every value goes through the parameters and back
            rules = Rules(**{name: value})
            assert openspiel.rules_from_parameters(openspiel.parameters(rules)) == rules


def _rules_schema(schema: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = schema["$defs"]["rules"]
    return found


@pytest.mark.parametrize(
    "path",
    [suite_dir() / "schemas" / "game.schema.json", DOCS / "record.schema.json"],
    ids=["conformance-suite", "record"],
)
def test_the_schemas_list_every_rule_option(path: Path) -> None:
    rules = _rules_schema(json.loads(path.read_text(encoding="utf-8")))
    assert list(rules["properties"]) == NAMES
    assert rules.get("additionalProperties") is False
    if "required" in rules:
        assert rules["required"] == NAMES
    for name in NAMES:
        default = getattr(Rules(), name)
        spec = rules["properties"][name]
        if isinstance(default, Enum):
            assert spec["enum"] == [member.value for member in type(default)], name
        elif isinstance(default, bool):
            assert spec == {"type": "boolean"}, name
