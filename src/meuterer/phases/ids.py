"""Rule ids on the rule functions: :func:`rule` names the ids of docs/rules.md that a
function states, and :data:`RULE_FUNCTIONS` lists, for each id, the functions naming it.

The decorator records the function and hands it back unchanged (no wrapper, so calling a
rule function costs what it did); tests/test_rule_functions.py checks that every id of
docs/rules.md has one function or a stated reason, and no id has two.

>>> @rule("example.tie", "example.order")
... def tie_goes_to_the_mutineer(captain_side: int, mutineer_side: int) -> bool:
...     return mutineer_side >= captain_side
>>> RULE_FUNCTIONS["example.tie"] == [tie_goes_to_the_mutineer], rule_ids(tie_goes_to_the_mutineer)
(True, ('example.tie', 'example.order'))
>>> del RULE_FUNCTIONS["example.tie"], RULE_FUNCTIONS["example.order"]  # (not the game's ids)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

RULE_FUNCTIONS: dict[str, list[Callable[..., Any]]] = {}
"""Each rule id named by :func:`rule`, with the functions naming it (in import order)."""


def rule(*ids: str) -> Callable[[F], F]:
    """Mark a function as the statement of the rules ``ids``; the function is returned as is."""

    def mark(function: F) -> F:
        for ident in ids:
            RULE_FUNCTIONS.setdefault(ident, []).append(function)
        return function

    return mark


def rule_ids(function: Callable[..., Any]) -> tuple[str, ...]:
    """The ids ``function`` was marked with, in the table's order of marking."""
    return tuple(ident for ident, functions in RULE_FUNCTIONS.items() if function in functions)
