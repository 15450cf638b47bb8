"""The declared machine: its shape, and agreement between ``transitions`` and the compiled table."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

import meuterer
from meuterer import Rules, State, Step
from meuterer.machine import ADVANCE, STEPS, TABLE, TRANSITIONS, Actor, build_machine
from meuterer.state import STEP_PHASE, evolve
from tests.strategies import game_setups, walk


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
def test_the_transitions_machine_itself_agrees_with_the_compiled_engine(setup: tuple[int, int, int, Rules]) -> None:
    driver: Driver | None = None
    for state, action, after in walk(*setup):
        if driver is None:
            driver = Driver(state)
        assert driver.apply(action) == after
    assert driver is not None and meuterer.is_terminal(driver.snapshot)


def test_every_step_is_declared_with_an_actor_and_a_phase() -> None:
    assert set(STEPS) == set(Step) == set(STEP_PHASE)
    for step, spec in STEPS.items():
        assert (spec.legal is not None) == (spec.actor in (Actor.PLAYER, Actor.CHANCE)), step


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
    for (step, trigger), candidates in TABLE.items():
        assert candidates[-1][0] == (), f"{step} {trigger}: the last candidate must be unguarded"


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
        assert (spec.sample is not None) == (spec.outcomes is not None) == (spec.actor is Actor.CHANCE)
        assert (spec.legal is not None) == (spec.actor in (Actor.PLAYER, Actor.CHANCE))
        assert spec.decision == (spec.actor is Actor.PLAYER)
        assert bool(spec.expects) == (spec.actor is not Actor.AUTOMATIC)


def test_the_engine_reads_steps_from_the_machine_not_from_phase_modules() -> None:
    import ast
    from pathlib import Path

    import meuterer.engine

    tree = ast.parse(Path(meuterer.engine.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name and name.startswith("meuterer.phases")}
    assert "meuterer.machine" in imported
