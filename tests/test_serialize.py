"""Snapshots as plain data (cattrs)."""

from __future__ import annotations

import json
from typing import Any

import meuterer
from meuterer.serialize import structure_state, unstructure_state


def leaves(data: Any) -> list[Any]:
    if isinstance(data, dict):
        assert all(type(k) is str for k in data)
        return [leaf for value in data.values() for leaf in leaves(value)]
    if isinstance(data, list):
        return [leaf for value in data for leaf in leaves(value)]
    return [data]


def test_a_state_is_plain_json_data_and_comes_back_equal() -> None:
    actions, final = meuterer.random_game(seed=5, players=4, rules=meuterer.Rules(sale_order="round_captain"))
    state = meuterer.new_game(players=4, rules=final.rules)
    for action in actions[:120]:
        state = meuterer.apply(state, action)
    data = unstructure_state(state)
    assert {type(leaf) for leaf in leaves(data)} <= {str, int, bool, type(None)}
    assert data["rules"]["sale_order"] == "round_captain"
    assert data["step"] == state.step.value
    back = structure_state(json.loads(json.dumps(data)))
    assert back == state and hash(back) == hash(state)


def test_roles_and_cards_are_written_by_name() -> None:
    _, final = meuterer.random_game(seed=2, players=3)
    data = unstructure_state(final)
    assert set(data["roles"]) <= {None, "mutineer", "cabin_boy", "mate", "merchant", "loadmaster"}
    assert {island["buys"] for island in data["rules"]["islands"]} == {None, "ruby", "salt", "wine", "cloth", "grain"}


def test_every_state_field_is_written_by_its_type_and_read_back() -> None:
    # serialize derives its writers from State's field types: each field appears in the text.
    import typing

    from meuterer.serialize import dumps_state
    from meuterer.state import FIELDS, State

    _, final = meuterer.random_game(seed=4, players=3)
    text = dumps_state(final)
    assert json.loads(text) == unstructure_state(final)
    assert sorted(json.loads(text)) == sorted(FIELDS) == sorted(typing.get_type_hints(State))


def test_the_state_fields_are_one_list() -> None:
    # State's class body is the list; its __init__ is derived from it, and the Changes of
    # effects (a TypedDict, which mypy must read as text) restate it: neither may drift
    # from it in name, order or type.
    import inspect
    import typing

    from meuterer.state import FIELDS, Changes, State

    fields = typing.get_type_hints(State)
    assert list(inspect.signature(State.__init__).parameters)[1:] == list(FIELDS) == list(fields)
    assert typing.get_type_hints(State.__init__, localns=vars(meuterer.state)) == {**fields, "return": type(None)}
    assert typing.get_type_hints(Changes) == fields
