"""Turning snapshots into plain data and back, with cattrs.

>>> import meuterer
>>> from meuterer.serialize import structure_state, unstructure_state
>>> _, final = meuterer.random_game(seed=3, players=3)
>>> data = unstructure_state(final)
>>> data["step"], data["scores"] == list(final.scores)
('game_over', True)
>>> structure_state(data) == final
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import cattrs

from meuterer.cards import CARD_BY_NAME, ROLE_BY_NAME, Card, Role
from meuterer.rules import DiscardPool, SaleOrder
from meuterer.state import State, Step

T = TypeVar("T")

converter = cattrs.Converter(unstruct_collection_overrides={tuple: list})
"""The converter used for snapshots: cards and roles by name, tuples as lists."""
for _text_enum in (Step, SaleOrder, DiscardPool):
    converter.register_unstructure_hook(_text_enum, lambda member: member.value)
converter.register_unstructure_hook(Card, str)
converter.register_structure_hook(Card, lambda value, _: _by_name(CARD_BY_NAME, value, "card"))
converter.register_unstructure_hook(Role, str)
converter.register_structure_hook(Role, lambda value, _: _by_name(ROLE_BY_NAME, value, "role"))


def _by_name(names: Mapping[str, T], value: object, what: str) -> T:
    if not isinstance(value, str) or value not in names:
        raise ValueError(f"unknown {what} {value!r}")
    return names[value]


def unstructure_state(state: State) -> dict[str, Any]:
    """A state as plain JSON-compatible data (dicts, lists, strings, numbers, None)."""
    data: dict[str, Any] = converter.unstructure(state)
    return data


def structure_state(data: dict[str, Any]) -> State:
    """The state described by plain data from :func:`unstructure_state`."""
    return converter.structure(data, State)
