"""The declared machine: its shape, and agreement between ``transitions`` and the compiled table."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

import meuterer
from meuterer import State, Step
from meuterer.machine import ADVANCE, STEPS, TABLE, TRANSITIONS, Actor, build_machine
from meuterer.state import STEP_PHASE, evolve
from tests.strategies import GameSetup, game_setups, walk


class Driver:
    """A model for a ``transitions`` machine built from the declaration, whose effects
    are recorded so that the machine itself can play a game."""

    def __init__(self, state: State) -> None:
        self.snapshot = state
        self.changes: list[dict[str, Any]] = []
        recorded = [{**t, "after": [self._recorder(t["after"])]} for t in TRANSITIONS]
        self.machine = build_machine(self, initial=state.step, transitions=recorded)

    def _recorder(self, effect: Any) -> Any:
        def record(state: State, action: object) -> None:
            self.changes.append(effect(state, action))

        return record

    def fire(self, trigger: str, action: object) -> None:
        before = self.snapshot
        assert self.trigger(trigger, before, action)  # type: ignore[attr-defined]
        (changes,) = self.changes
        self.changes.clear()
        self.snapshot = evolve(before, {**changes, "step": Step(self.state)})  # type: ignore[attr-defined]

    def apply(self, action: meuterer.Action) -> State:
        self.fire(action.kind, action)
        while STEPS[self.snapshot.step].actor is Actor.AUTOMATIC:
            self.fire(ADVANCE, None)
        return self.snapshot


@settings(max_examples=10, deadline=None)
@given(game_setups())
def test_the_transitions_machine_itself_agrees_with_the_compiled_engine(setup: GameSetup) -> None:
    driver: Driver | None = None
    for state, action, after in walk(*setup):
        if driver is None:
            driver = Driver(state)
        assert driver.apply(action) == after
    assert driver is not None and meuterer.is_terminal(driver.snapshot)


def test_every_step_is_declared_with_a_spec_and_a_phase() -> None:
    assert set(STEPS) == set(Step) == set(STEP_PHASE)


def test_the_import_time_check_refuses_a_table_that_does_not_fit_the_steps() -> None:
    # machine._check runs on TABLE at import; here it is shown to bite on broken tables.
    import pytest

    from meuterer.machine import _check

    _check(TABLE)
    (guards, effect, dest), *_ = TABLE[Step.PLAY, "play"]
    broken = {
        "unknown trigger 'dance'": {**TABLE, (Step.PLAY, "dance"): TABLE[Step.PLAY, "play"]},
        "trigger 'advance' does not fit a step moved on by player": {
            **TABLE,
            (Step.PLAY, ADVANCE): (((), effect, dest),),
        },
        "step offer has no way out": {key: value for key, value in TABLE.items() if key[0] is not Step.OFFER},
        "the last candidate .* must be unguarded": {**TABLE, (Step.PLAY, "play"): ((guards or (len,), effect, dest),)},
        "trigger 'sell' is not one of the action types it takes": {**TABLE, (Step.PLAY, "sell"): (((), effect, dest),)},
    }
    for message, table in broken.items():
        with pytest.raises(TypeError, match=message):
            _check(table)  # type: ignore[arg-type]


def test_the_table_is_the_declaration() -> None:
    declared = [
        (Step(t["source"]), t["trigger"], Step(t["dest"]), t["after"], tuple(t["conditions"])) for t in TRANSITIONS
    ]
    compiled = [
        (step, trigger, dest, effect, guards)
        for (step, trigger), candidates in TABLE.items()
        for guards, effect, dest in candidates
    ]
    assert sorted(map(repr, declared)) == sorted(map(repr, compiled))


def test_phase_enumeration_has_ten_rulebook_phases_plus_deal_and_end() -> None:
    assert [p.value for p in meuterer.Phase] == list(range(12))
    assert int(meuterer.Phase.DEAL) == 0 and int(meuterer.Phase.GAME_OVER) == 11
    assert int(meuterer.Phase.MUTINY) == 4 and int(meuterer.Phase.DRAW) == 8


def test_compile_machine_names_the_transitions_versions_it_reads_when_internals_are_missing() -> None:
    from pathlib import Path

    import pytest

    from meuterer.machine import TRANSITIONS_VERSIONS, compile_machine

    class Bare:  # a "machine" without the 0.9.x internals
        pass

    with pytest.raises(TypeError, match=r"transitions>=0\.9\.1,<0\.10"):
        compile_machine(Bare())  # type: ignore[arg-type]
    pyproject = Path(__file__).parent.parent / "pyproject.toml"
    assert f'"transitions{TRANSITIONS_VERSIONS}"' in pyproject.read_text()


def test_services_read_the_step_facts_from_the_machine() -> None:
    from meuterer import views
    from meuterer.machine import ROLES_SECRET, STEP_CODES

    assert views.STEP_CODES is STEP_CODES and views.ROLES_SECRET is ROLES_SECRET
    # The observation encodes the step by these codes: they are part of the vector's meaning.
    assert [STEP_CODES[step] for step in Step] == list(range(len(Step)))
    # Roles stay secret until the reveal (phase 3).
    assert {Step.RING, Step.DEAL, Step.OFFER, Step.PLAY, Step.CHOOSE_ROLE} == ROLES_SECRET


def test_every_step_that_takes_actions_takes_exactly_the_kinds_of_its_transitions() -> None:
    for step, spec in STEPS.items():
        triggers = {trigger for s, trigger in TABLE if s == step and trigger != ADVANCE}
        assert triggers == {kind.kind for kind in spec.takes}, step
        assert bool(spec.expects) == (spec.actor is not Actor.AUTOMATIC), step


def test_the_engine_reads_steps_from_the_machine_not_from_phase_modules() -> None:
    import ast
    from pathlib import Path

    import meuterer.engine

    tree = ast.parse(Path(meuterer.engine.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name and name.startswith("meuterer.phases")}
    assert "meuterer.machine" in imported
