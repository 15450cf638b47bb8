"""A conformance kit: hypothesis strategies over Meuterer games, and a harness that checks
another implementation against this one, step by step.

Another engine plugs in through an :class:`EngineAdapter` (a handful of methods speaking
the canonical notation). :func:`check_engine` plays many games drawn by hypothesis and, at
every step, compares the set of legal actions, the public view and the scores with the
reference. On a mismatch it raises :class:`ConformanceError` with the shortest action
sequence that shows it (hypothesis shrinks it).

>>> from meuterer.testing import ReferenceAdapter, check_engine
>>> check_engine(ReferenceAdapter(), max_examples=3, seed=1)  # the reference agrees with itself
"""

from __future__ import annotations

import hashlib
import random
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from itertools import accumulate
from typing import Any, Protocol

import attrs
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from meuterer.actions import Action, ArrangeRing, Offer, Pass, Play, Sell, Support, parse_action
from meuterer.cards import Card
from meuterer.engine import apply, is_chance_node, is_terminal, legal_actions, new_game, sample_chance
from meuterer.game import Game
from meuterer.record import Record, make_record
from meuterer.rules import OPEN, SIZE, VARIANT, Rules, option_values
from meuterer.rulings import robbery
from meuterer.state import State, Step
from meuterer.views import dumps_view, view

# Strategies ------------------------------------------------------------------------------


def option_choices(variants: bool = True, sizes: bool = False) -> dict[str, st.SearchStrategy[Any]]:
    """The strategy of each rule option the kit varies, by its name in :class:`~meuterer.Rules`
    (``variants=False``: the open-point options only, without the pirates and the ring;
    ``sizes=True``: also the hand size, the loadmaster's extra cards (none included), the
    highest offer and the cabin boy's points, each shrinking toward the box's value).

    >>> list(option_choices(variants=False))
    ['sale_order', 'withholding', 'discard_pool', 'reshuffle']
    >>> list(option_choices(variants=False, sizes=True))[4:]
    ['hand_size', 'loadmaster_extra', 'max_offer', 'cabin_boy_points']
    """
    kinds = (OPEN, *((VARIANT,) if variants else ()), *((SIZE,) if sizes else ()))
    return {
        field.name: option_strategy(field.name)
        for kind in kinds
        for field in attrs.fields(Rules)
        if field.metadata["kind"] == kind
    }


def option_strategy(name: str) -> st.SearchStrategy[Any]:
    """The values of the rule option ``name`` (:func:`meuterer.rules.option_values`), shrinking
    toward its default.

    >>> option_strategy("hand_size")
    sampled_from((5, 3, 4, 6))
    """
    values = option_values(name)
    if values == (False, True):
        return st.booleans()
    if isinstance(values[0], Enum):
        return st.sampled_from(type(values[0]))
    return st.sampled_from(values)


def rules(variants: bool = True) -> st.SearchStrategy[Rules]:
    """Rule sets: every option of :func:`option_choices` (``variants=False``: base game,
    fixed ring, open-point options only)."""
    return st.fixed_dictionaries(option_choices(variants)).map(lambda options: Rules(**options))


@attrs.frozen
class Setup:
    """The arguments of :func:`meuterer.new_game`."""

    players: int
    first_captain: int
    rules: Rules


def setups(variants: bool = True) -> st.SearchStrategy[Setup]:
    """Player count (3 or 4), first captain and rules."""
    return st.integers(3, 4).flatmap(lambda n: st.builds(Setup, st.just(n), st.integers(0, n - 1), rules(variants)))


_STYLES = ("uniform", "hoard", "dump", "fight", "sell_most")
STYLES = _STYLES
"""The play styles that steer random play towards edge cases (see :func:`style_weights`)."""


def style_weights(state: State, legal: Sequence[Action], style: str) -> list[int]:
    """The weight of each of the ``legal`` actions under a play style of :data:`STYLES`
    (``hoard`` passes early, ``dump`` plays everything, ``fight`` adds supports, ``sell_most``
    sells the most)."""
    return _weights(state, legal, style)


def _weights(state: State, legal: Sequence[Action], style: str) -> list[int]:
    # Styles steer random play towards edge cases: passing with full or empty hands
    # (0-card captains, empty hands), supports and ties in mutinies, big sales and ties.
    weights = []
    for action in legal:
        w = 1
        if (style == "hoard" and isinstance(action, Pass)) or (style == "dump" and isinstance(action, Play)):
            w = 8
        elif style == "fight" and isinstance(action, Support):
            w = 1 + 4 * action.count
        elif style == "fight" and isinstance(action, Play) and action.card is Card.SUPPORT:
            w = 6
        elif style == "sell_most" and isinstance(action, Sell):
            w = 1 + sum(s.count for s in action.sales)
        weights.append(w)
    return weights


@st.composite
def action_sequences(
    draw: st.DrawFn,
    setup: Setup | None = None,
    complete: bool = True,
    max_actions: int = 2000,
    max_rounds: int | None = None,
) -> tuple[Setup, tuple[Action, ...]]:
    """A legal sequence of actions from a new game: a complete game (or, with
    ``complete=False``, any prefix of one; with ``max_rounds``, the game up to the captain's
    offer of the round after it). Every choice, chance included, is drawn from hypothesis,
    so failures shrink to short, simple games. Play styles are mixed in to reach edge cases
    (0-card captains, empty hands, mutiny ties, 4-way ties, reshuffles), and pirate games
    are steered toward robberies: a pirate card that robs is eight times likelier,
    and a shuffled ring often puts Piratennest within reach of the merchant ship in round 1
    (the arrangement is often redrawn)."""
    if setup is None:
        setup = draw(setups())
    state = new_game(setup.players, setup.first_captain, setup.rules)
    style = draw(st.sampled_from(_STYLES))
    stop = max_actions if complete else draw(st.integers(0, max_actions))
    actions: list[Action] = []
    while not is_terminal(state) and len(actions) < stop:
        if max_rounds is not None and state.round > max_rounds and state.step is Step.OFFER:
            break
        legal = legal_actions(state)
        if is_chance_node(state):
            # A seeded draw keeps chance faithful to the deck while shrinking to seed 0.
            action = sample_chance(state, random.Random(draw(st.integers(0, 2**16))))
            if isinstance(action, ArrangeRing) and setup.rules.pirates:
                action = _pirates_near(state, action, draw(st.integers(0, setup.rules.hand_size)))
        elif len(legal) == 1:
            action = legal[0]
        else:
            # Passing first: choices shrink towards the shortest rounds.
            options = sorted(legal, key=lambda a: not isinstance(a, Pass))
            weights = _weights(state, options, style)
            if setup.rules.pirates:
                weights = [w * _ROBS if _robs(state, a) else w for w, a in zip(weights, options, strict=True)]
            ticket = draw(st.integers(0, sum(weights) - 1))
            action = options[bisect_right(list(accumulate(weights)), ticket)]
        actions.append(action)
        state = apply(state, action)
    return setup, tuple(actions)


_ROBS = 8
"""How much likelier :func:`action_sequences` plays a pirate card that robs."""


def _robs(state: State, action: Action) -> bool:
    """Whether ``action`` plays the pirate card so that the pirates rob the merchant ship."""
    return (
        isinstance(action, Play) and action.card is Card.PIRATE and robbery(state, sum(state.hands[action.player]) - 1)
    )


def _pirates_near(state: State, arrangement: ArrangeRing, near: int) -> ArrangeRing:
    """``arrangement`` with Piratennest swapped to ``near`` islands clockwise of Hochland when
    ``near`` is within the first hand's reach (1 to ``hand_size - 1``), so that the pirate
    card can rob in round 1; otherwise ``arrangement`` as drawn (``near`` shrinks to 0)."""
    if not 1 <= near < state.rules.hand_size:
        return arrangement
    pirate = apply(state, arrangement).pirate
    assert pirate is not None
    islands = list(arrangement.islands)
    islands[pirate], islands[near] = islands[near], islands[pirate]
    return ArrangeRing(tuple(islands))


def games(setup: Setup | None = None) -> st.SearchStrategy[Game]:
    """Complete games, as :class:`~meuterer.Game` objects with their histories."""
    return action_sequences(setup).map(lambda sa: Game.replay(sa[1], sa[0].players, sa[0].first_captain, sa[0].rules))


def states(setup: Setup | None = None) -> st.SearchStrategy[State]:
    """States reachable in legal play (any point of any game)."""
    return action_sequences(setup, complete=False).map(
        lambda sa: Game.replay(sa[1], sa[0].players, sa[0].first_captain, sa[0].rules).state
    )


def records(setup: Setup | None = None, complete: bool = True) -> st.SearchStrategy[Record]:
    """Valid game records (with digests, and results for complete games)."""
    return action_sequences(setup, complete).map(
        lambda sa: make_record(Game.replay(sa[1], sa[0].players, sa[0].first_captain, sa[0].rules))
    )


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
