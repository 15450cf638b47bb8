"""The batch engine's registry: for each guard and effect of the machine
(``meuterer.machine.TABLE``) the batched function that does what it does to many games
at once, and for each step where someone moves, how its moves are listed and drawn.

The phase modules of ``meuterer.vector`` register their functions here against the
reference's own (``@effect(voyage.draw_card)``, ``@guard(voyage.last_draw_of_turn)``,
``@legal(Step.PLAY)``, ``@sample(Step.DEAL, Step.DRAW)``); :func:`compile_plan` then
checks that every step and transition of the machine has its batched counterpart and that
nothing is registered that the machine lacks, and compiles the machine's table into the
:class:`Plan` that :func:`run` executes. The step order and the transitions are the
machine's: nothing here or in the phase modules restates them.

>>> from meuterer.vector import engine            # imports every phase module
>>> plan = compile_plan()
>>> from meuterer.vector.arrays import PLAY, DRAW
>>> [trigger for trigger, _ in plan.moves[PLAY]], len(plan.moves[DRAW][0][1].guards)
([('play', 'play'), ('pass', 'pass_')], 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

import attrs
import numpy as np

from meuterer.machine import ADVANCE, STEP_CODES, STEPS, TABLE, Actor, Effect, Guard, Table
from meuterer.state import Step
from meuterer.vector.arrays import BoolArray, FloatArray, Groups, IntArray
from meuterer.vector.streams import GamesDraw

BatchGuard = Callable[[Any, IntArray, IntArray], BoolArray]
"""A batched guard: (batch, games, their ids) to whether it holds in each game."""
BatchEffect = Callable[[Any, IntArray, IntArray], None]
"""A batched effect: applied to the games given (their ids: actions or chance outcomes)."""
BatchLegal = Callable[[Any, IntArray, BoolArray, IntArray], None]
"""The legal ids of a decision step: sets ``mask[rows]`` for the games given."""
BatchChoose = Callable[[Any, IntArray, FloatArray], IntArray]
"""A uniformly random legal id of each game given, from one uniform each."""
ChanceDraw = np.random.Generator | GamesDraw
"""Where a sampler draws from: the batch's generator, or the games' own streams."""
BatchSample = Callable[[Any, IntArray, ChanceDraw], IntArray]
"""A chance outcome of each game given, drawn with its probability."""

F = TypeVar("F")

GUARDS: dict[Guard, BatchGuard] = {}
EFFECTS: dict[Effect, BatchEffect] = {}
LEGAL: dict[Step, BatchLegal] = {}
CHOOSE: dict[Step, BatchChoose] = {}
SAMPLERS: list[tuple[tuple[Step, ...], BatchSample]] = []
"""Chance samplers, in the order they draw from the generator (each over its steps' games at once)."""


def guard(reference: Guard) -> Callable[[F], F]:
    """Register the batched form of the guard ``reference``."""

    def register(batched: F) -> F:
        GUARDS[reference] = batched  # type: ignore[assignment]
        return batched

    return register


STAGES: dict[BatchEffect, tuple[BatchEffect, ...]] = {}
"""Batched effects that are another's followed by more (as ``draw_last_card`` is
``draw_card``, then the next drawer): their stages, so that the shared first stage is
applied once to the games of every candidate that starts with it."""


def effect(*references: Effect, stages: tuple[BatchEffect, ...] = ()) -> Callable[[F], F]:
    """Register the batched form of the effects ``references`` (``stages``: the functions
    it amounts to, in order, when it is another effect followed by more)."""

    def register(batched: F) -> F:
        for reference in references:
            EFFECTS[reference] = batched  # type: ignore[assignment]
        if stages:
            STAGES[batched] = stages  # type: ignore[index]
        return batched

    return register


def legal(step: Step) -> Callable[[F], F]:
    """Register the legal ids of decision step ``step`` (its ``StepSpec.legal``)."""

    def register(batched: F) -> F:
        LEGAL[step] = batched  # type: ignore[assignment]
        return batched

    return register


def choose(step: Step) -> Callable[[F], F]:
    """Register a uniformly random legal choice at decision step ``step``."""

    def register(batched: F) -> F:
        CHOOSE[step] = batched  # type: ignore[assignment]
        return batched

    return register


def sample(*steps: Step) -> Callable[[F], F]:
    """Register the chance sampler of chance steps ``steps`` (their ``StepSpec.sample``)."""

    def register(batched: F) -> F:
        SAMPLERS.append((steps, batched))  # type: ignore[arg-type]
        return batched

    return register


@attrs.frozen
class Choice:
    """The candidate transitions of one (step, trigger), batched: each candidate's guards
    (the last has none), its destination's code, and each distinct effect with the
    candidates that apply it (applied once to all their games)."""

    guards: tuple[tuple[BatchGuard, ...], ...]
    dests: IntArray
    effects: tuple[tuple[BatchEffect, tuple[int, ...]], ...]
    arriving: tuple[tuple[int, int], ...]
    """The candidates whose destination is an automatic step, with its code."""
    source: int
    """The step's code (a candidate whose destination it is writes no step)."""

    @property
    def dest(self) -> int:
        """The first candidate's destination (the only one's, if one)."""
        return int(self.dests[0])

    @classmethod
    def of(
        cls,
        source: int,
        candidates: tuple[tuple[tuple[BatchGuard, ...], BatchEffect, int], ...],
        automatic: tuple[bool, ...],
    ) -> Choice:
        effects: dict[BatchEffect, list[int]] = {}
        for depth in range(max(len(STAGES.get(effect, (effect,))) for _, effect, _ in candidates)):
            for k, (_, effect, _) in enumerate(candidates):
                parts = STAGES.get(effect, (effect,))
                if depth < len(parts):
                    effects.setdefault(parts[depth], []).append(k)
        return cls(
            tuple(guards for guards, _, _ in candidates),
            np.array([dest for _, _, dest in candidates], dtype=np.int64),
            tuple((effect, tuple(ks)) for effect, ks in effects.items()),
            tuple((k, dest) for k, (_, _, dest) in enumerate(candidates) if automatic[dest]),
            source,
        )


@attrs.frozen
class Plan:
    """The machine's table in batched form. ``moves[code]``: for a step where a player or
    chance moves, each trigger with the :class:`~meuterer.encoding.ActionIds` block of its
    ids (``None``: the step's only trigger) and its candidates; ``advance[code]``: an
    automatic step's candidates; ``automatic``: whether each step code is automatic."""

    moves: dict[int, list[tuple[tuple[str, str] | None, Choice]]]
    advance: dict[int, Choice]


_BLOCK = {"pass": "pass_"}
"""The :class:`~meuterer.encoding.ActionIds` block of an action kind, where not its name."""


def compile_plan(table: Table = TABLE) -> Plan:
    """Check the registry against the machine's ``table`` and compile it; raises
    ``TypeError`` naming what is missing or registered but unknown to the machine."""
    used_guards = {g for candidates in table.values() for guards, _, _ in candidates for g in guards}
    used_effects = {e for candidates in table.values() for _, e, _ in candidates}
    deciding = {step for step, spec in STEPS.items() if spec.actor is Actor.PLAYER}
    chance = {step for step, spec in STEPS.items() if spec.actor is Actor.CHANCE}
    sampled = [step for steps, _ in SAMPLERS for step in steps]
    problems = [
        *(f"guard {g.__qualname__} has no batched form" for g in used_guards - GUARDS.keys()),
        *(f"effect {e.__qualname__} has no batched form" for e in used_effects - EFFECTS.keys()),
        *(f"{g.__qualname__} is registered but no transition has it" for g in GUARDS.keys() - used_guards),
        *(f"{e.__qualname__} is registered but no transition has it" for e in EFFECTS.keys() - used_effects),
        *(f"step {s.value} has no batched legal ids" for s in deciding - LEGAL.keys()),
        *(f"step {s.value} has no batched random choice" for s in deciding - CHOOSE.keys()),
        *(f"{s.value} is no decision step" for s in (LEGAL.keys() | CHOOSE.keys()) - deciding),
        *(f"chance step {s.value} has no batched sampler" for s in chance - set(sampled)),
        *(f"{s.value} is sampled but no chance step, or sampled twice" for s in sampled if sampled.count(s) > 1),
        *(f"{s.value} is sampled but no chance step" for s in set(sampled) - chance),
    ]
    if problems:
        raise TypeError("the batch engine does not match the machine: " + "; ".join(sorted(problems)))

    automatic = tuple(STEPS[step].actor is Actor.AUTOMATIC for step in sorted(STEPS, key=STEP_CODES.__getitem__))

    def compiled(step: Step, trigger: str) -> Choice:
        candidates = tuple(
            (tuple(GUARDS[g] for g in guards), EFFECTS[e], STEP_CODES[dest]) for guards, e, dest in table[step, trigger]
        )
        return Choice.of(STEP_CODES[step], candidates, automatic)

    moves: dict[int, list[tuple[tuple[str, str] | None, Choice]]] = {}
    advance: dict[int, Choice] = {}
    for step in STEPS:
        triggers = [trigger for s, trigger in table if s is step]
        if STEPS[step].actor is Actor.AUTOMATIC:
            advance[STEP_CODES[step]] = compiled(step, ADVANCE)
        elif triggers:
            split = len(triggers) > 1
            moves[STEP_CODES[step]] = [((t, _BLOCK.get(t, t)) if split else None, compiled(step, t)) for t in triggers]
    return Plan(moves, advance)


def run(plan: Plan, g: Any, idx: IntArray, a: IntArray, group: Groups) -> None:
    """Apply the ids ``a`` to the games ``idx`` (``group``: the grouping of their steps) by
    the machine's transitions, then advance every game that reached an automatic step
    until each waits for a player or chance (or is over)."""
    bounds, order = group.bounds, group.order
    arrivals: dict[int, list[IntArray]] = {}
    for code, triggers in plan.moves.items():
        start, stop = bounds[code], bounds[code + 1]
        if stop == start:
            continue
        if stop - start == len(idx):  # every game at this step: no gather
            i, ai = idx, a
        else:
            sel = order[start:stop]
            i, ai = idx[sel], a[sel]
        if len(triggers) == 1:
            _take(g, i, ai, triggers[0][1], arrivals)
            continue
        left: BoolArray | None = None  # the games whose trigger is not found yet
        for k, (trigger, candidates) in enumerate(triggers):
            assert trigger is not None
            if k == len(triggers) - 1:  # (legal ids: the last trigger is every other game's)
                assert left is not None
                inside = left
            else:
                block: range = getattr(g.ids, trigger[1])
                inside = (ai >= block.start) & (ai < block.stop)
                left = ~inside if left is None else left & ~inside
            n = np.count_nonzero(inside)
            if n == len(i):
                _take(g, i, ai, candidates, arrivals)
            elif n:
                _take(g, i[inside], ai[inside], candidates, arrivals)
    while arrivals:
        code = min(arrivals)
        found = arrivals.pop(code)
        games = found[0] if len(found) == 1 else np.concatenate(found)
        _take(g, games, games, plan.advance[code], arrivals)


_NOBODY: Final = np.zeros(0, dtype=np.bool_)
"""A candidate no game takes."""


def _take(g: Any, i: IntArray, a: IntArray, choice: Choice, arrivals: dict[int, list[IntArray]]) -> None:
    # Each game takes the first candidate whose guards all hold, the guards read before any
    # effect (each guard once over all the games); each distinct effect (or stage of one) is
    # then applied once to the games of every candidate that has it (a game's effect reads
    # and writes its own rows only), and each game moves to its candidate's destination.
    if len(choice.guards) == 1:  # one candidate: every game takes it
        for apply, _ in choice.effects:
            apply(g, i, a)
        if choice.dest != choice.source:
            g.step_[i] = choice.dest
        if choice.arriving:
            arrivals.setdefault(choice.dest, []).append(i)
        return
    masks = _masks(g, i, a, choice.guards)
    parts: list[tuple[IntArray, IntArray] | None] = [None] * len(masks)
    every = len(masks)
    for apply, ks in choice.effects:
        if len(ks) == every:  # every game takes one of these candidates
            apply(g, i, a)
            continue
        present = [k for k in ks if masks[k] is not _NOBODY]
        if len(present) == 1:
            apply(g, *_part(i, a, masks, parts, present[0]))
        elif present:
            union = masks[present[0]]
            for k in present[1:]:
                union = union | masks[k]
            apply(g, i[union], a[union])
    for k, dest in enumerate(choice.dests.tolist()):
        if dest != choice.source and masks[k] is not _NOBODY:
            g.step_[_part(i, a, masks, parts, k)[0]] = dest
    for k, dest in choice.arriving:
        if masks[k] is not _NOBODY:
            arrivals.setdefault(dest, []).append(_part(i, a, masks, parts, k)[0])


def _part(
    i: IntArray, a: IntArray, masks: list[Any], parts: list[tuple[IntArray, IntArray] | None], k: int
) -> tuple[IntArray, IntArray]:
    # the games (and ids) of candidate k, found once
    found = parts[k]
    if found is None:
        mask = masks[k]
        found = parts[k] = (i, a) if mask is None else (i[mask], a[mask])
    return found


def _masks(g: Any, i: IntArray, a: IntArray, guards: tuple[tuple[BatchGuard, ...], ...]) -> list[Any]:
    # For each candidate, the games that take it: None for all of them, _NOBODY for none,
    # else a mask over ``i``.
    masks: list[Any] = []
    left: BoolArray | None = None  # the games no candidate has taken yet (None: all)
    held: dict[BatchGuard, BoolArray] = {}
    for k, candidate in enumerate(guards):
        if not candidate:  # the last candidate: every game left
            masks.append(left)
            break
        holds = _holds(g, i, a, candidate, held)
        if left is not None:
            holds = holds & left
        n = np.count_nonzero(holds)
        if not n:
            masks.append(_NOBODY)
        elif n == len(i) and left is None:
            masks.append(None)
            masks.extend([_NOBODY] * (len(guards) - k - 1))
            break
        else:
            masks.append(holds)
            left = ~holds if left is None else left & ~holds
            if not np.count_nonzero(left):
                masks.extend([_NOBODY] * (len(guards) - k - 1))
                break
    return masks


def _holds(
    g: Any, i: IntArray, a: IntArray, guards: tuple[BatchGuard, ...], held: dict[BatchGuard, BoolArray]
) -> BoolArray:
    # whether every one of ``guards`` holds in each game (each guard's value kept in ``held``)
    result: BoolArray | None = None
    for check in guards:
        value = held.get(check)
        if value is None:
            value = held[check] = check(g, i, a)
        result = value if result is None else result & value
    assert result is not None
    return result
