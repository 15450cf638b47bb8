"""The harness: :func:`check_engine` plays games drawn by hypothesis on another engine (an
:class:`EngineAdapter`) and on the reference, and raises :class:`ConformanceError` with the
shortest counterexample found; :func:`drop_rounds` cuts whole rounds out of one."""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from meuterer.actions import Action, Offer, parse_action
from meuterer.engine import apply, is_chance_node, legal_actions, new_game
from meuterer.rules import Rules
from meuterer.state import State
from meuterer.testing.strategies import Setup, action_sequences
from meuterer.views import dumps_view, view

# The harness -----------------------------------------------------------------------------


class EngineAdapter(Protocol):
    """What another implementation provides to be checked. Games are opaque handles;
    actions are canonical text (``"p1 play wine"``, ``"draw p0 grain"``)."""

    def start(self, players: int, first_captain: int, rules: Rules) -> Any:
        """A new game before the deal (or before the ring's arrangement)."""

    def legal_actions(self, game: Any) -> Iterable[str]:
        """Every legal action (chance outcomes at chance nodes); empty when over."""

    def apply(self, game: Any, action: str) -> Any:
        """The game after ``action`` (a new handle, or the same one changed)."""

    def scores(self, game: Any) -> Sequence[int]:
        """Each seat's victory points."""

    def public_view(self, game: Any) -> str | None:
        """The public (spectator) view in meuterer's canonical JSON
        (:func:`meuterer.views.dumps_view` of ``view(state, None)``), or ``None`` to skip it."""


class ReferenceAdapter:
    """This library, as an :class:`EngineAdapter` (the shape an adapter takes)."""

    def start(self, players: int, first_captain: int, rules: Rules) -> State:
        return new_game(players, first_captain, rules)

    def legal_actions(self, game: State) -> Iterable[str]:
        if is_chance_node(game) and len(legal_actions(game)) > 1000:
            return ()  # the shuffled ring's 11! arrangements are not listed
        return [str(a) for a in legal_actions(game)]

    def apply(self, game: State, action: str) -> State:
        return apply(game, parse_action(action))

    def scores(self, game: State) -> Sequence[int]:
        return game.scores

    def public_view(self, game: State) -> str | None:
        return dumps_view(view(game, None))


FIND_SETTINGS = settings(
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.generate, Phase.shrink],
)
"""The hypothesis settings of a search for a counterexample (:func:`check_engine`, and
``meuterer conform``'s fuzzing): no example database, no deadline, no health checks, no
explicit examples; each search adds ``max_examples`` and ``derandomize``."""


class ConformanceError(AssertionError):
    """An implementation disagrees with the reference. ``actions`` is the shortest
    sequence found that shows it; ``step``, ``what``, ``expected`` and ``actual`` say where.
    ``shrink_seconds`` is how long the counterexample was shrunk, and ``bounded`` whether
    shrinking stopped at the time bound (the counterexample is then the best found so far)."""

    def __init__(
        self,
        setup: Setup,
        actions: tuple[str, ...],
        step: int,
        what: str,
        expected: str,
        actual: str,
        shrink_seconds: float = 0.0,
        bounded: bool = False,
    ):
        self.setup, self.actions, self.step, self.what = setup, actions, step, what
        self.expected, self.actual = expected, actual
        self.shrink_seconds, self.bounded = shrink_seconds, bounded
        shown = "\n".join(f"  {i}: {a}" for i, a in enumerate(actions[: step + 1]))
        if bounded:
            searched = (
                f"shrinking stopped at its time bound after {shrink_seconds:.1f} s: "
                "the smallest counterexample found so far"
            )
        else:
            searched = f"shrunk in {shrink_seconds:.1f} s"
        super().__init__(
            f"{what} differs after {step} action(s) ({setup.players} players, first captain "
            f"{setup.first_captain}, {setup.rules!r}):\n  expected {expected}\n  actual   {actual}\n"
            f"actions ({searched}):\n{shown}"
        )


class _OutOfTime(BaseException):
    """Stops hypothesis's shrinking at the time bound (a BaseException, so hypothesis
    does not take it for a new failure to shrink)."""


def _short(text: str) -> str:
    return text if len(text) <= 200 else f"sha256:{hashlib.sha256(text.encode()).hexdigest()[:16]}…"


def _observe(adapter: EngineAdapter, game: Any, what: str) -> object:
    if what == "legal actions":
        return sorted(set(adapter.legal_actions(game)))
    if what == "scores":
        return list(adapter.scores(game))
    return adapter.public_view(game)


def compare(adapter: EngineAdapter, setup: Setup, actions: Sequence[Action]) -> tuple[int, str, str, str] | None:
    """Play ``actions`` on both engines; the first difference as (step, what, expected,
    actual), or ``None`` when they agree at every step."""
    state = new_game(setup.players, setup.first_captain, setup.rules)
    try:
        game = adapter.start(setup.players, setup.first_captain, setup.rules)
    except Exception as error:
        return 0, "start", "a new game", f"{type(error).__name__}: {error}"
    reference = ReferenceAdapter()
    for step in range(len(actions) + 1):
        for what in ("legal actions", "scores", "public view"):
            try:
                actual = _observe(adapter, game, what)
            except Exception as error:
                return step, what, "an answer", f"{type(error).__name__}: {error}"
            if actual is None:  # the adapter does not offer a public view
                continue
            expected = _observe(reference, state, what)
            if actual != expected:
                return step, what, _short(str(expected)), _short(str(actual))
        if step == len(actions):
            return None
        action = actions[step]
        state = apply(state, action)
        try:
            game = adapter.apply(game, str(action))
        except Exception as error:
            return step, f"applying {action}", "the action to be accepted", f"{type(error).__name__}: {error}"
    return None


def check_engine(
    adapter: EngineAdapter,
    max_examples: int = 100,
    seed: int | None = None,
    setup: Setup | None = None,
    complete: bool = True,
    max_shrink_seconds: float | None = 60.0,
) -> None:
    """Check ``adapter`` against the reference over ``max_examples`` games drawn by
    hypothesis; raise :class:`ConformanceError` with a minimal counterexample on a mismatch.

    Shrinking a counterexample stops after ``max_shrink_seconds`` (``None``: no bound);
    the error then shows the smallest counterexample found so far and says so.
    """
    strategy = action_sequences(setup, complete=complete)
    config = settings(FIND_SETTINGS, max_examples=max_examples, derandomize=seed is None)
    clock = time.monotonic
    best: list[tuple[Setup, tuple[Action, ...]]] = []
    first_found: list[float] = []

    def out_of_time() -> bool:
        return bool(first_found) and max_shrink_seconds is not None and clock() - first_found[0] > max_shrink_seconds

    def differs(example: tuple[Setup, tuple[Action, ...]]) -> bool:
        if out_of_time():
            raise _OutOfTime
        if compare(adapter, *example) is None:
            return False
        # Hypothesis only accepts smaller counterexamples: the last one is the best so far.
        best[:] = [example]
        if not first_found:
            first_found.append(clock())
        return True

    try:
        found = find(strategy, differs, settings=config, random=None if seed is None else random.Random(seed))
    except NoSuchExample:
        return
    except _OutOfTime:
        found = best[0]
    setup_found, actions = found
    actions = _drop_rounds(adapter, setup_found, actions, out_of_time)
    where = compare(adapter, setup_found, actions)
    assert where is not None
    step, what, expected, actual = where
    searched = clock() - first_found[0]
    bounded = max_shrink_seconds is not None and searched > max_shrink_seconds
    raise ConformanceError(
        setup_found, tuple(map(str, actions[: step + 1])), step, what, expected, actual, searched, bounded
    )


def _legal_sequence(setup: Setup, actions: Sequence[Action]) -> bool:
    state = new_game(setup.players, setup.first_captain, setup.rules)
    for action in actions:
        if action not in legal_actions(state):
            return False
        state = apply(state, action)
    return True


def _drop_rounds(
    adapter: EngineAdapter, setup: Setup, actions: tuple[Action, ...], out_of_time: Callable[[], bool]
) -> tuple[Action, ...]:
    """Shrink further than hypothesis can: cut whole rounds (from one offer to the next)
    out of the counterexample while it stays legal and still shows the difference, until
    ``out_of_time()``."""

    def differs(setup: Setup, candidate: Sequence[Action]) -> int | None:
        where = compare(adapter, setup, candidate)
        return None if where is None else where[0]

    return drop_rounds(differs, setup, actions, out_of_time)


def drop_rounds(
    differs: Callable[[Setup, Sequence[Action]], int | None],
    setup: Setup,
    actions: tuple[Action, ...],
    out_of_time: Callable[[], bool],
) -> tuple[Action, ...]:
    """Cut the counterexample ``actions`` short after its first difference, then cut whole
    rounds (from one offer to the next) out of it while it stays legal and ``differs``
    (which returns the step of the first difference, or ``None``), until ``out_of_time()``."""
    where = differs(setup, actions)
    if where is not None:
        actions = actions[: where + 1]
    improved = True
    while improved and not out_of_time():
        improved = False
        starts = [i for i, a in enumerate(actions) if isinstance(a, Offer)]
        for first in range(len(starts)):
            for last in range(len(starts) - 1, first, -1):
                if out_of_time():
                    return actions
                candidate = actions[: starts[first]] + actions[starts[last] :]
                if _legal_sequence(setup, candidate) and differs(setup, candidate) is not None:
                    actions, improved = candidate, True
                    break
            if improved:
                break
    return actions
