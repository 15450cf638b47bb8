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
from enum import StrEnum
from typing import Any, TypeVar

import cattrs

from meuterer.cards import CARD_BY_NAME, ROLE_BY_NAME, Card, Role
from meuterer.state import State

T = TypeVar("T")

converter = cattrs.Converter()
"""The converter used for snapshots: cards and roles by name, tuples as lists."""
converter.register_unstructure_hook_func(
    lambda cls: isinstance(cls, type) and issubclass(cls, StrEnum), lambda member: member.value
)
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
