"""Snapshots as plain data and as canonical JSON, with a SHA-256 digest.

The canonical serialisation of a state is the JSON text of :func:`unstructure_state`
with keys sorted, no insignificant white space, and non-ASCII characters as they are
(UTF-8); its digest is the SHA-256 of that text, in lower-case hexadecimal. Cards, roles,
steps and options are written by name; card multisets as lists of 7 counts in canonical
card order; islands by ring position.

>>> import meuterer
>>> _, final = meuterer.random_game(seed=3, players=3)
>>> text = meuterer.dumps_state(final)
>>> text[:40]
'{"active":[4,11],"captain":1,"captain_de'
>>> meuterer.loads_state(text) == final
True
>>> len(meuterer.state_digest(final))
64
"""

from __future__ import annotations

import hashlib
import json
import operator
import typing
from collections.abc import Callable, Mapping
from itertools import compress
from operator import is_not
from typing import Any, TypeVar

import cattrs
from cattrs.v import format_exception

from meuterer._cache import Memo
from meuterer.actions import Sale
from meuterer.cards import CARD_BY_NAME, ROLE_BY_NAME, Card, Counts, Role
from meuterer.errors import FormatError, MeutererError
from meuterer.invariants import check_state
from meuterer.rules import DiscardPool, Reshuffle, Ring, Rules, SaleOrder
from meuterer.state import FIELDS, State, Step, fields_of
from meuterer.textio import MAX_CONTAINERS as MAX_CONTAINERS  # re-exported: the parser lived here
from meuterer.textio import MAX_KEYS as MAX_KEYS
from meuterer.textio import has_lone_surrogate as has_lone_surrogate
from meuterer.textio import parse_json as parse_json

T = TypeVar("T")

MAX_STATE_TEXT = 1 << 20
"""The longest state text :func:`loads_state` reads (1 MiB)."""

converter = cattrs.Converter(unstruct_collection_overrides={tuple: list}, forbid_extra_keys=True)
"""The converter for states and rules: names for cards, roles and options, lists for tuples,
and strict types when reading (no ``"3"`` for 3, no unknown keys)."""
for _text_enum in (Step, SaleOrder, DiscardPool, Reshuffle, Ring):
    converter.register_unstructure_hook(_text_enum, lambda member: member.value)
converter.register_unstructure_hook(Card, str)
converter.register_unstructure_hook(Role, str)


def _by_name(names: Mapping[str, T], what: str) -> Any:
    def structure(value: object, _: object) -> T:
        if not isinstance(value, str) or value not in names:
            raise ValueError(f"unknown {what} {value!r} (one of {', '.join(names)})")
        return names[value]

    return structure


def _exactly(kind: type) -> Any:
    def structure(value: object, _: object) -> object:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        return value

    return structure


converter.register_structure_hook(Card, _by_name(CARD_BY_NAME, "card"))
converter.register_structure_hook(Role, _by_name(ROLE_BY_NAME, "role"))
converter.register_structure_hook(Step, _by_name({s.value: s for s in Step}, "step"))
converter.register_structure_hook(SaleOrder, _by_name({s.value: s for s in SaleOrder}, "sale order"))
converter.register_structure_hook(DiscardPool, _by_name({s.value: s for s in DiscardPool}, "discard pool"))
converter.register_structure_hook(Ring, _by_name({s.value: s for s in Ring}, "ring"))
converter.register_structure_hook(Reshuffle, _by_name({s.value: s for s in Reshuffle}, "reshuffle"))
for _kind in (int, bool, str):
    converter.register_structure_hook(_kind, _exactly(_kind))


def _tuple_of(kind: type) -> Any:
    def structure(value: object, _: object) -> tuple[object, ...]:
        if not isinstance(value, list | tuple) or not all(type(item) is kind for item in value):
            raise TypeError(f"expected a list of {kind.__name__}, got {value!r}")
        return tuple(value)

    return structure


# Fast paths for the many card-count lists (same checks as item by item).
converter.register_structure_hook_func(lambda t: t == tuple[int, ...], _tuple_of(int))
converter.register_structure_hook_func(lambda t: t == tuple[bool, ...], _tuple_of(bool))


def structure(data: object, cls: type[T], path: str = "$") -> T:
    """Read ``data`` as a ``cls`` with :data:`converter`; raise :class:`FormatError` naming
    the first bad path (``$.rules.islands[3].ship``) instead of a cattrs or attrs error."""
    try:
        return converter.structure(data, cls)
    except cattrs.ClassValidationError as error:
        messages = cattrs.transform_error(error, path=path, format_exception=_describe)
        first = messages[0]
        where, _, _ = first.rpartition(" @ ")
        location = first.rsplit(" @ ", 1)[-1] if " @ " in first else path
        raise FormatError(location, where or first) from None
    except MeutererError as error:  # a validator of Rules refused the value
        raise FormatError(path, str(error)) from None
    except RecursionError:
        raise FormatError(path, "nested too deeply") from None
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise FormatError(path, f"{type(error).__name__}: {error}") from None


def _describe(error: BaseException, cls: type | None) -> str:
    if isinstance(error, MeutererError | TypeError | ValueError) and not isinstance(error, KeyError) and str(error):
        if type(error) in (TypeError, ValueError) and "invalid literal" in str(error):
            return format_exception(error, cls)
        return str(error)
    return format_exception(error, cls)


# The rule set is the largest part of every state and rarely changes: keep the last few
# rule sets as JSON text, and reuse the Rules read from equal data.
def _rules_text(rules: Rules) -> str:
    return _canonical_json(converter.unstructure(rules))


_rules_json: Callable[[Rules], str] = Memo(_rules_text, size=16).__getitem__


_rules_converter = converter.copy()


_recent_rules: Memo[str, Rules] = Memo(size=8)
"""The last rule sets read, by the repr of their data (exact for JSON data: 5.0 is not
taken for 5, nor 0 for false)."""


def _rules_from(data: object, _: object = None) -> Rules:
    key = repr(data)
    rules = _recent_rules.get(key)
    if rules is None:
        try:
            rules = _rules_converter.structure(data, Rules)
        except MeutererError as error:
            raise ValueError(str(error)) from None
        _recent_rules.put(key, rules)
    return rules


converter.register_structure_hook(Rules, _rules_from)


def _role_names(roles: tuple[Role | None, ...]) -> list[str | None]:
    return [None if role is None else str(role) for role in roles]


def _sale_data(sales: tuple[tuple[Sale, ...] | None, ...]) -> list[list[dict[str, object]] | None]:
    return [
        None if declared is None else [{"card": str(s.card), "count": s.count, "island": s.island} for s in declared]
        for declared in sales
    ]


# dumps_state runs once per step when records carry digests, so it skips cattrs and
# writes each field's JSON text with a small encoder of its own (keys in sorted order; a
# test checks the text equals the canonical JSON of unstructure_state). Consecutive states
# share the objects of the fields that did not change, so each field's text is memoised
# on the identity of its last value (immutable: the same object always has the same text).
# Every dict encoded here has its keys in sorted order already.
_SORTED_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


def _value_json(value: object) -> str:
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return _SORTED_JSON(value)


def _memo(dump: Callable[[Any], str]) -> Callable[[Any], str]:
    # The text of a small hashable value, remembered by value (bounded).
    return Memo(dump, size=1 << 14).__getitem__


def _ints_json(values: tuple[int, ...]) -> str:
    return "[" + ",".join(map(int.__repr__, values)) + "]"


# The JSON text of each card multiset (and other small tuple of ints), looked up at C
# level, so ``map`` over piles runs without Python calls.
_counts_json: Callable[[Counts], str] = _memo(_ints_json)


def _declared_json(declared: tuple[Sale, ...] | None) -> str:
    return _SORTED_JSON(_sale_data((declared,)))[1:-1]


_declared_memo = _memo(_declared_json)


def _sales_json(sales: tuple[tuple[Sale, ...] | None, ...]) -> str:
    # One seat's declaration at a time, each remembered by value (a round repeats them).
    return "[" + ",".join(map(_declared_memo, sales)) + "]"


def _scalar_member(key: str) -> Callable[[Any], str]:
    # A scalar field's whole member text (key included), remembered by value and type (so
    # that True and 1 stay apart); bounded.
    texts: Memo[object, str] = Memo(
        lambda memo: key + (int.__repr__(memo) if type(memo) is int else _value_json(memo[1])),  # type: ignore[index]
        size=1 << 12,
    )

    def member(value: object) -> str:
        return texts[value if type(value) is int else (type(value), value)]

    return member


def _piles_member(key: str) -> Callable[[Any], str]:
    # One multiset per seat, each text looked up at C level.
    opening = key + "["
    return lambda piles: opening + ",".join(map(_counts_json, piles)) + "]"


def _step_member(key: str) -> Callable[[Any], str]:
    return {step: f"{key}{_value_json(step.value)}" for step in Step}.__getitem__


def _text_member(dump: Callable[[Any], str], memoised: bool = True) -> Callable[[str], Callable[[Any], str]]:
    def member(key: str) -> Callable[[Any], str]:
        if memoised:
            return _memo(lambda value: key + dump(value))
        return lambda value: key + dump(value)

    return member


# How each field is written, by its declared type: a field of a new type must be given
# its writer here (the import fails otherwise), every field of a known type is written
# without a further list of names.
_MEMBER_BY_TYPE: dict[object, Callable[[str], Callable[[Any], str]]] = {
    int: _scalar_member,
    int | None: _scalar_member,
    bool | None: _scalar_member,
    Step: _step_member,
    Rules: _text_member(_rules_json, memoised=False),  # remembered per rule set already
    tuple[int, ...]: _text_member(_counts_json),
    tuple[Counts, ...]: _piles_member,
    tuple[bool, ...]: _text_member(_SORTED_JSON),
    tuple[Role | None, ...]: _text_member(lambda roles: _SORTED_JSON(_role_names(roles))),
    tuple[tuple[Sale, ...] | None, ...]: _text_member(_sales_json, memoised=False),
}
_FIELD_TYPES = typing.get_type_hints(State)
_SORTED_FIELDS = sorted(FIELDS)
# Each field's member text ('"name":value'), from one call; the first one also opens the
# object and the last one closes it (so the text is one join, without copying it twice).
_MEMBERS = [_MEMBER_BY_TYPE[_FIELD_TYPES[name]](f'"{name}":') for name in _SORTED_FIELDS]


def _opening(first: Callable[[Any], str]) -> Callable[[Any], str]:
    return lambda value: "{" + first(value)


def _closing(last: Callable[[Any], str]) -> Callable[[Any], str]:
    return lambda value: last(value) + "}"


_MEMBERS[0] = _opening(_MEMBERS[0])
_MEMBERS[-1] = _closing(_MEMBERS[-1])
_read_sorted = operator.itemgetter(*_SORTED_FIELDS)  # from a state's __dict__ (see meuterer.state.evolve)
_FIELD_INDICES = range(len(_SORTED_FIELDS))
_last_dump: tuple[tuple[object, ...], list[str]] = ((object(),) * len(_SORTED_FIELDS), [""] * len(_SORTED_FIELDS))
"""The last state's field values and their member texts (never changed in place)."""


def _canonical_json(data: object) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_with_rules(data: Mapping[str, Any], rules: Rules) -> str:
    """The canonical JSON text of ``data`` with a ``"rules"`` member holding ``rules``.

    The same text as sorted-key, compact JSON of ``{**data, "rules": unstructured rules}``,
    but the rule set (most of the text of a state or a view, and rarely changing) is
    written once per rule set and spliced in at its sorted place. ``data`` must be
    JSON-compatible and must not have a ``"rules"`` key.

    >>> json_with_rules({"z": 1, "a": [2]}, Rules()).startswith('{"a":[2],"rules":{"cabin_boy_points":2,')
    True
    """
    if "rules" in data:
        raise ValueError("data already has a 'rules' member")
    low = {key: value for key, value in data.items() if key < "rules"}
    high = {key: value for key, value in data.items() if key > "rules"}
    parts = [_canonical_json(low)[1:-1]] if low else []
    parts.append('"rules":' + _rules_json(rules))
    if high:
        parts.append(_canonical_json(high)[1:-1])
    return "{" + ",".join(parts) + "}"


def unstructure_state(state: State) -> dict[str, Any]:
    """A state as plain JSON-compatible data (dicts, lists, strings, numbers, booleans, None)."""
    data: dict[str, Any] = converter.unstructure(state)
    return data


def structure_state(data: object) -> State:
    """The state described by plain data, checked; raises :class:`FormatError` naming the bad path."""
    if not isinstance(data, dict):
        raise FormatError("$", f"a state is a JSON object, got {type(data).__name__}")
    state = structure(data, State)
    check_state(state)
    return state


def dumps_state(state: State) -> str:
    """The canonical JSON text of ``state``."""
    global _last_dump
    values = _read_sorted(fields_of(state))
    last_values, last_texts = _last_dump  # one read: another thread may replace it meanwhile
    texts = list(last_texts)
    members = _MEMBERS
    for index in compress(_FIELD_INDICES, map(is_not, values, last_values)):
        texts[index] = members[index](values[index])
    _last_dump = (values, texts)
    return ",".join(texts)


def loads_state(text: str | bytes) -> State:
    """The state of a canonical (or any equivalent) JSON text, checked (:func:`meuterer.invariants.check_state`).

    Raises :class:`FormatError` for bad data, :class:`TypeError` unless ``text`` is
    ``str`` or ``bytes``."""
    if not isinstance(text, str | bytes | bytearray):
        raise TypeError(f"a state is read from str or bytes, not {type(text).__name__}")
    if len(text) > MAX_STATE_TEXT:
        raise FormatError("$", f"a state text is at most {MAX_STATE_TEXT} characters, got {len(text)}")
    return structure_state(parse_json(text))


def state_digest(state: State) -> str:
    """The SHA-256 of :func:`dumps_state`, in hexadecimal."""
    return hashlib.sha256(dumps_state(state).encode()).hexdigest()
