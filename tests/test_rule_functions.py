"""Each rule id of docs/rules.md is stated by one rule function, marked ``@rule(id)``, or
docs/rules.md says why not (issue 40, item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from meuterer.phases.ids import rule, rule_ids
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent


_script = load_script


trace = _script("traceability")
IDS = [row["id"] for row in trace.rule_rows()]


@pytest.mark.parametrize("ident", IDS)
def test_each_rule_id_has_one_function_or_a_reason(ident: str) -> None:
    functions = trace.rule_functions().get(ident, [])
    reason = trace.reasons().get(ident)
    if reason is None:
        assert len(functions) == 1, f"{ident}: functions {[trace.qualified(f) for f in functions]}"
    else:
        assert functions == [], f"{ident} has a reason and a function {trace.qualified(functions[0])}"


def test_every_marked_or_excused_id_is_in_the_table() -> None:
    assert set(trace.rule_functions()) - set(IDS) == set()
    assert set(trace.reasons()) - set(IDS) == set()
    assert len(trace.reasons()) < len(IDS) // 4  # reasons stay the exception


def test_the_places_the_reasons_name_exist() -> None:
    for ident, reason in trace.reasons().items():
        for name in trace.named_functions(reason):
            assert callable(trace.resolve(*name.split(":"))), f"{ident}: {name}"


def test_the_marked_function_is_the_one_the_module_holds() -> None:
    # @rule hands the function back as is: no wrapper stands between the machine and the rule
    for functions in trace.rule_functions().values():
        for function in functions:
            module, qualname = trace.qualified(function).split(":")
            assert trace.resolve(module, qualname) is function
            assert not hasattr(function, "__wrapped__")


def test_rule_marks_and_returns_the_function_itself() -> None:
    def tie(captain_side: int, mutineer_side: int) -> bool:
        return mutineer_side >= captain_side

    try:
        assert rule("test.one", "test.two")(tie) is tie
        assert rule_ids(tie) == ("test.one", "test.two")
        assert rule_ids(lambda: 0) == ()
    finally:
        from meuterer.phases.ids import RULE_FUNCTIONS

        RULE_FUNCTIONS.pop("test.one", None), RULE_FUNCTIONS.pop("test.two", None)
