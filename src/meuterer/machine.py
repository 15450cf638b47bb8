"""The round of Meuterer as one finite-state machine, declared once.

States are the phases and their sub-steps (:class:`~meuterer.state.Step`); triggers are
the action kinds (``draw``, ``offer``, ``play``, ``pass``, ``role``, ``support``,
``sell``, ``discard``) plus ``advance``, which fires the automatic steps (reveal,
resolving a mutiny, role points, sailing, clean-up, roles returning, end of round).
Guards and effects are the pure functions of ``meuterer.phases``.

The declaration (:data:`STEPS` and :data:`TRANSITIONS`) is handed to a ``transitions``
:class:`~transitions.Machine` once at import; the engine then runs from :data:`TABLE`,
the lookup table compiled from that machine: for each (step, trigger) the candidate
transitions in declaration order, the first whose guards all hold being taken.

>>> from meuterer.machine import TABLE
>>> from meuterer.state import Step
>>> [dest.value for _, _, dest in TABLE[Step.PLAY, "pass"]]
['choose_role', 'reveal', 'play']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from fractions import Fraction
from types import MappingProxyType
from typing import Any, cast

import attrs
from transitions import Machine

from meuterer.actions import KINDS, Action, ArrangeRing, ChooseRole, Discard, Draw, Offer, Pass, Play, Sell, Support
from meuterer.phases import mutiny, offer_cargo, scoring, setup, voyage
from meuterer.phases.common import Changes
from meuterer.phases.variants import VARIANTS
from meuterer.state import State, Step

ADVANCE = "advance"
"""The trigger of automatic steps (no player decides and nothing is drawn)."""

Guard = Callable[[State, Any], bool]
Effect = Callable[[State, Any], Changes]
LegalActions = Callable[[State], Sequence[Action]]
ChanceOutcomes = Callable[[State], Sequence[tuple[Action, Fraction]]]
ChanceSampler = Callable[[State, random.Random], Action]


class Actor(Enum):
    """Who moves the game on from a step."""

    PLAYER = "player"
    CHANCE = "chance"
    AUTOMATIC = "automatic"
    NOBODY = "nobody"


@attrs.frozen
class StepSpec:
    """Everything about a step, in one place: who acts there, what he may do, and how
    services describe it.

    >>> from meuterer.machine import STEPS
    >>> from meuterer.state import Step
    >>> spec = STEPS[Step.PLAY]
    >>> spec.actor.value, spec.decision, spec.code, [t.__name__ for t in spec.takes], spec.roles_secret
    ('player', True, 3, ['Play', 'Pass'], True)
    >>> spec.expects.format(p=2)
    'phase 2: p2 plays a card or passes'
    """

    actor: Actor
    legal: LegalActions | None = None
    """The legal-action generator (player and chance steps); at a chance step, the outcomes."""
    code: int = attrs.field(default=-1, kw_only=True)
    """The step's stable number (observation vectors; never reused)."""
    takes: tuple[type[Action], ...] = attrs.field(default=(), kw_only=True)
    """The action types this step accepts."""
    expects: str = attrs.field(default="", kw_only=True)
    """What the game waits for here, in words (``{p}`` stands for the seat to act)."""
    roles_secret: bool = attrs.field(default=False, kw_only=True)
    """Whether this round's roles are still secret here (they are revealed in phase 3)."""
    outcomes: ChanceOutcomes | None = attrs.field(default=None, kw_only=True)
    """Chance steps: each outcome of :attr:`legal` with its probability."""
    sample: ChanceSampler | None = attrs.field(default=None, kw_only=True)
    """Chance steps: draw one outcome with its probability from a ``random.Random``."""

    @property
    def decision(self) -> bool:
        """Whether a player decides here (not chance, not automatic, not the game's end)."""
        return self.actor is Actor.PLAYER


INITIAL_STATE = setup.initial_state
"""Builds the state a game starts in (step ``deal``): SPEC section 2."""


def _player(code: int, legal: LegalActions, takes: tuple[type[Action], ...], expects: str, secret: bool) -> StepSpec:
    return StepSpec(Actor.PLAYER, legal, code=code, takes=takes, expects=expects, roles_secret=secret)


def _draws(code: int, expects: str, secret: bool) -> StepSpec:
    return StepSpec(
        Actor.CHANCE,
        voyage.legal_draw,
        code=code,
        takes=(Draw,),
        expects=expects,
        roles_secret=secret,
        outcomes=voyage.draw_outcomes,
        sample=voyage.sample_draw,
    )


def _automatic(code: int) -> StepSpec:
    return StepSpec(Actor.AUTOMATIC, code=code)


STEPS: dict[Step, StepSpec] = {
    Step.RING: StepSpec(
        Actor.CHANCE,
        setup.legal_ring,
        code=0,
        takes=(ArrangeRing,),
        expects="the shuffled ring: a chance action 'ring hochland,...' naming every island once",
        roles_secret=True,
        outcomes=setup.ring_outcomes,
        sample=setup.sample_ring,
    ),
    Step.DEAL: _draws(1, "the deal: a card drawn for p{p}", True),
    Step.OFFER: _player(2, offer_cargo.legal_offer, (Offer,), "phase 1: p{p} makes the captain's offer", True),
    Step.PLAY: _player(3, offer_cargo.legal_play, (Play, Pass), "phase 2: p{p} plays a card or passes", True),
    Step.CHOOSE_ROLE: _player(4, offer_cargo.legal_role, (ChooseRole,), "phase 2: p{p} chooses a role", True),
    Step.REVEAL: _automatic(5),
    Step.MUTINY: _player(6, mutiny.legal_support, (Support,), "phase 4: p{p} adds support cards", False),
    Step.RESOLVE_MUTINY: _automatic(7),
    Step.ROLE_POINTS: _automatic(8),
    Step.SELL: _player(9, scoring.legal_sell, (Sell,), "phase 5: p{p} declares sales", False),
    Step.SAIL: _automatic(10),
    Step.CLEAN_UP: _automatic(11),
    Step.DRAW: _draws(12, "phase 8: a card drawn for p{p}", False),
    Step.LOADMASTER_DISCARD: _player(
        13, voyage.legal_discard, (Discard,), "phase 8: p{p}, the loadmaster, discards", False
    ),
    Step.ROLES_RETURN: _automatic(14),
    Step.END_OF_ROUND: _automatic(15),
    Step.GAME_OVER: StepSpec(Actor.NOBODY, code=16, expects="nothing: the game is over"),
}
"""Every state of the machine and its description (see :class:`StepSpec`)."""

STEP_CODES: Mapping[Step, int] = MappingProxyType({step: spec.code for step, spec in STEPS.items()})
"""Each step's stable number (:attr:`StepSpec.code`)."""
ROLES_SECRET: frozenset[Step] = frozenset(step for step, spec in STEPS.items() if spec.roles_secret)
"""The steps in which this round's roles are still secret (:attr:`StepSpec.roles_secret`)."""
DECISION_STEPS: frozenset[Step] = frozenset(step for step, spec in STEPS.items() if spec.decision)
"""The steps in which a player decides (:attr:`StepSpec.decision`)."""


def _t(trigger: str, source: Step, dest: Step, effect: Effect, *guards: Guard) -> dict[str, Any]:
    return {
        "trigger": trigger,
        "source": source.value,
        "dest": dest.value,
        "conditions": list(guards),
        "after": effect,
    }


S = Step
TRANSITIONS: list[dict[str, Any]] = [
    # Shuffled ring only: the islands are arranged by chance before the deal.
    _t("ring", S.RING, S.DEAL, setup.arrange_ring),
    # The deal: each player in turn, from the captain, draws his five cards.
    _t("draw", S.DEAL, S.OFFER, voyage.finish_deal, voyage.last_draw_of_deal),
    _t("draw", S.DEAL, S.DEAL, voyage.draw_last_card, voyage.last_draw_of_turn),
    _t("draw", S.DEAL, S.DEAL, voyage.draw_card),
    # Phase 1: the captain's offer.
    _t("offer", S.OFFER, S.PLAY, offer_cargo.make_offer),
    # Phase 2: play or pass; a non-captain chooses a role right after passing (a variant
    # may play some card its own way: its transitions go first, see below).
    _t("play", S.PLAY, S.PLAY, offer_cargo.play_card),
    _t("pass", S.PLAY, S.CHOOSE_ROLE, offer_cargo.pass_turn, offer_cargo.passer_is_not_captain),
    _t("pass", S.PLAY, S.REVEAL, offer_cargo.pass_turn, offer_cargo.passer_is_last),
    _t("pass", S.PLAY, S.PLAY, offer_cargo.pass_turn),
    _t("role", S.CHOOSE_ROLE, S.REVEAL, offer_cargo.take_role, offer_cargo.everyone_passed),
    _t("role", S.CHOOSE_ROLE, S.PLAY, offer_cargo.take_role),
    # Phase 3: reveal; phase 4 only if someone is the mutineer.
    _t(ADVANCE, S.REVEAL, S.MUTINY, mutiny.reveal, mutiny.has_mutineer),
    _t(ADVANCE, S.REVEAL, S.ROLE_POINTS, mutiny.reveal),
    _t("support", S.MUTINY, S.RESOLVE_MUTINY, mutiny.add_support, mutiny.last_supporter),
    _t("support", S.MUTINY, S.MUTINY, mutiny.add_support),
    _t(ADVANCE, S.RESOLVE_MUTINY, S.ROLE_POINTS, mutiny.resolve_mutiny),
    # Phase 5: role points, then sales; the last round ends here.
    _t(ADVANCE, S.ROLE_POINTS, S.SELL, scoring.score_roles),
    _t("sell", S.SELL, S.GAME_OVER, scoring.declare_last, scoring.last_seller, scoring.last_round),
    _t("sell", S.SELL, S.SAIL, scoring.declare_last, scoring.last_seller),
    _t("sell", S.SELL, S.SELL, scoring.declare),
    # Phases 6 and 7: sail, clean up.
    _t(ADVANCE, S.SAIL, S.CLEAN_UP, voyage.sail),
    _t(ADVANCE, S.CLEAN_UP, S.ROLES_RETURN, voyage.clean_up, voyage.nobody_draws),
    _t(ADVANCE, S.CLEAN_UP, S.DRAW, voyage.clean_up),
    # Phase 8: draw up to five from the captain on; the loadmaster discards after his draws.
    _t("draw", S.DRAW, S.LOADMASTER_DISCARD, voyage.draw_card, voyage.last_draw_of_turn, voyage.loadmaster_draws),
    _t("draw", S.DRAW, S.ROLES_RETURN, voyage.draw_last_card, voyage.last_draw_of_turn, voyage.no_one_left_to_draw),
    _t("draw", S.DRAW, S.DRAW, voyage.draw_last_card, voyage.last_draw_of_turn),
    _t("draw", S.DRAW, S.DRAW, voyage.draw_card),
    _t("discard", S.LOADMASTER_DISCARD, S.ROLES_RETURN, voyage.discard, voyage.no_one_left_to_draw),
    _t("discard", S.LOADMASTER_DISCARD, S.DRAW, voyage.discard),
    # Phases 9 and 10: roles return; the next round starts.
    _t(ADVANCE, S.ROLES_RETURN, S.END_OF_ROUND, voyage.return_roles),
    _t(ADVANCE, S.END_OF_ROUND, S.OFFER, voyage.next_round),
]
"""The transitions, in priority order within each (source, trigger)."""


def _with_variants(base: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Each variant's transitions (phases.variants), ahead of the base game's first
    # transition from the same step on the same trigger.
    declared = list(base)
    for variant in VARIANTS:
        for trigger, source, dest, effect, guards in variant.transitions:
            at = next(i for i, t in enumerate(declared) if t["trigger"] == trigger and t["source"] == source.value)
            declared.insert(at, _t(trigger, source, dest, effect, *guards))
    return declared


TRANSITIONS = _with_variants(TRANSITIONS)

TRIGGERS: tuple[str, ...] = (*KINDS, ADVANCE)


def build_machine(
    model: object = None, initial: Step = Step.DEAL, transitions: list[dict[str, Any]] | None = None
) -> Machine:
    """A ``transitions`` machine of the declaration (or of ``transitions``, a variant of it)."""
    return Machine(
        model=model,
        states=[step.value for step in Step],
        transitions=TRANSITIONS if transitions is None else transitions,
        initial=initial.value,
        auto_transitions=False,
        send_event=False,
    )


Transition = tuple[tuple[Guard, ...], Effect, Step]
"""A compiled transition: its guards, its effect and its destination."""


Table = dict[tuple[Step, str], tuple[Transition, ...]]
"""A compiled machine: (step, trigger) to its candidate transitions, in priority order."""


TRANSITIONS_VERSIONS = ">=0.9.1,<0.10"
"""The ``transitions`` releases whose internals :func:`compile_machine` reads (pinned in pyproject)."""


def compile_machine(machine: Machine) -> Table:
    """The lookup table of a ``transitions`` machine: (step, trigger) to candidate transitions.

    It reads ``Machine.events``, ``Event.transitions`` and each transition's ``conditions``
    (``func``, ``target``), ``after`` and ``dest``: internals of ``transitions`` 0.9.x
    (:data:`TRANSITIONS_VERSIONS`).
    """
    try:
        return _compile(machine)
    except AttributeError as error:
        raise TypeError(
            f"compile_machine reads internals of transitions{TRANSITIONS_VERSIONS}; this machine lacks them: {error}"
        ) from None


def _compile(machine: Machine) -> Table:
    table: Table = {}
    for trigger, event in machine.events.items():
        for source, candidates in event.transitions.items():
            compiled: list[Transition] = []
            for transition in candidates:
                if not all(c.target is True and callable(c.func) for c in transition.conditions):
                    raise TypeError(f"{trigger} from {source}: guards must be callables that must hold")
                (effect,) = transition.after
                guards = tuple(cast(Guard, c.func) for c in transition.conditions)
                compiled.append((guards, cast(Effect, effect), Step(str(transition.dest))))
            table[Step(source), trigger] = tuple(compiled)
    return table


def _check(table: Table) -> None:
    for step, trigger in table:
        if trigger not in TRIGGERS:
            raise TypeError(f"unknown trigger {trigger!r}")
        automatic = STEPS[step].actor is Actor.AUTOMATIC
        if automatic != (trigger == ADVANCE):
            actor = STEPS[step].actor.value
            raise TypeError(f"step {step.value}: trigger {trigger!r} does not fit a step moved on by {actor}")
    for step, spec in STEPS.items():
        if spec.actor is not Actor.NOBODY and not any(s == step for s, _ in table):
            raise TypeError(f"step {step.value} has no way out")
    for candidates in table.values():
        if candidates[-1][0]:
            raise TypeError("the last candidate of each (step, trigger) must be unguarded")
    for step, trigger in table:
        kinds = {kind.kind for kind in STEPS[step].takes}
        if trigger != ADVANCE and trigger not in kinds:
            raise TypeError(f"step {step.value}: trigger {trigger!r} is not one of the action types it takes")
    for step, spec in STEPS.items():
        chance = spec.actor is Actor.CHANCE
        if (spec.legal is not None) != (chance or spec.decision) or (spec.sample is not None) != chance:
            raise TypeError(f"step {step.value}: legal actions and sampling do not fit a step moved on by {spec.actor}")
        if (spec.outcomes is not None) != chance:
            raise TypeError(f"step {step.value}: chance outcomes do not fit a step moved on by {spec.actor}")
    if sorted(spec.code for spec in STEPS.values()) != list(range(len(STEPS))):
        raise TypeError("step codes must number the steps 0, 1, 2, ... once each")


MACHINE: Machine = build_machine()
TABLE: Table = compile_machine(MACHINE)
_check(TABLE)
