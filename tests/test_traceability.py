"""docs/traceability.md is what scripts/traceability.py makes of the marks now, and each
rule function's mutant still applies and was caught by its rule's tests (issue 40, items 3
and 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent


_script = load_script


trace = _script("traceability")


def test_the_page_is_up_to_date() -> None:
    page = trace.PAGE.read_text(encoding="utf-8")
    assert page == trace.render(), f"docs/traceability.md is out of date: run {trace.REGENERATE}"


def test_the_page_lists_every_rule_id_with_its_function_tests_and_fixtures() -> None:
    page = trace.render()
    for row in trace.rule_rows():
        line = next(line for line in page.splitlines() if line.startswith(f"| `{row['id']}` |"))
        assert "**none**" not in line and "**no reason given**" not in line, line
    assert "| `p4.tie` | [HU] phase 4 ¶2; [CA] mutiny | `meuterer.phases.mutiny:mutiny_succeeds` |" in page


def test_every_rule_function_has_one_mutant() -> None:
    assert set(trace.function_ids()) == set(trace.MUTANTS)


@pytest.mark.parametrize("name", list(trace.MUTANTS))
def test_each_mutant_still_applies_to_its_module(name: str) -> None:
    module = name.split(":")[0]
    source = trace.module_file(module).read_text(encoding="utf-8")
    assert trace.mutated(name) != source
    assert trace.killing_tests(name), f"no tagged test for the rule ids of {name}"


def test_a_mutant_whose_text_is_gone_or_ambiguous_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    name = "meuterer.phases.mutiny:mutiny_succeeds"
    monkeypatch.setitem(trace.MUTANTS, name, ("return mutineer_side >= captain_side  # gone", "x", "gone"))
    with pytest.raises(ValueError, match="0 times"):
        trace.mutated(name)
    monkeypatch.setitem(trace.MUTANTS, name, ("return", "x", "everywhere"))
    with pytest.raises(ValueError, match="not once"):
        trace.mutated(name)


@pytest.mark.parametrize("name", list(trace.MUTANTS))
def test_the_recorded_run_killed_each_mutant_as_it_stands(name: str) -> None:
    entry = trace.load_results().get(name)
    assert entry is not None and trace._current(name, entry), f"run: {trace.REGENERATE} --mutants {name}"
    assert entry["killed"] and entry["outcome"] == "exit 1", entry
    assert set(entry["killers"]) <= set(trace.killing_tests(name))


@pytest.mark.slow
def test_a_mutant_is_killed_by_its_rules_tests_and_the_unchanged_code_is_not() -> None:
    name = "meuterer.phases.mutiny:mutiny_succeeds"
    entry = trace.run_mutant(name)
    assert entry["killed"] and "tests/test_rules.py::test_mutiny_strength" in entry["killers"], entry
    control = trace.run_tests(trace.killing_tests(name))
    assert control["outcome"] == "exit 0" and control["failed"] == [], control
