"""Fuzzing: differential games drawn by hypothesis, played on the engine and the reference,
and the first difference shrunk (hypothesis, then whole rounds cut, then cut after the first
diverging step)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from meuterer.actions import Action
from meuterer.conform.client import EngineFailure
from meuterer.conform.fixtures import game_fixture
from meuterer.conform.player import Capabilities, Player
from meuterer.conform.report import Difference
from meuterer.rules import Rules
from meuterer.testing import FIND_SETTINGS, Setup, action_sequences, drop_rounds, option_choices


def setups_for(caps: Capabilities, rounds: Sequence[int | None] = (1, 2, 3, None)) -> st.SearchStrategy[Setup]:
    """Setups drawn over the options the engine supports (the others at their defaults).

    An engine that plays ``rounds`` also gets short games (1 to 3 rounds; hypothesis shrinks
    toward 1), so that a bug of the last round, or one that takes rounds of play to show (a
    reshuffle, a robbery, a rare tie), shrinks to a counterexample of one or two rounds; the
    corpus holds the full-length games. ``rounds``: the values of the option to draw from.
    The sizes (hand, the loadmaster's extra cards, highest offer, cabin boy's points) vary
    too, for an engine that plays them.
    """
    options: dict[str, st.SearchStrategy[Any]] = {}
    choices = {"rounds": st.sampled_from(rounds), **option_choices(sizes=True)}
    for name, strategy in choices.items():
        if name in caps.options:
            options[name] = strategy
    rules = st.fixed_dictionaries(options).map(lambda chosen: Rules(**chosen))
    counts = sorted(caps.players) or [3, 4]
    return st.sampled_from(counts).flatmap(lambda n: st.builds(Setup, st.just(n), st.integers(0, n - 1), rules))


HYPOTHESIS_SHARE: Final = 2 / 3
"""The share of the shrinking time hypothesis gets; cutting whole rounds gets the rest (a long
counterexample that hypothesis shrinks slowly then still loses its rounds)."""


class Fuzzer:
    """Differential games drawn by hypothesis, played on the engine and the reference.

    ``played`` games took ``seconds`` to search (until the first difference);
    ``shrinking_seconds`` is the time spent shrinking after it."""

    def __init__(self, player: Player, restart: Callable[[], None], shrink_seconds: float = 60.0) -> None:
        self.player = player
        self.restart = restart
        self.shrink_seconds = shrink_seconds
        self.played = 0
        self.seconds = 0.0
        self.shrinking_seconds = 0.0

    def _differs(self, setup: Setup, actions: Sequence[Action]) -> Difference | None:
        views = self.player.caps.views
        fixture = game_fixture("fuzz", setup.players, setup.first_captain, setup.rules, actions, [], views, ids=[])
        try:
            found = self.player.play(fixture)
        except EngineFailure as failure:
            self.restart()
            # Where it failed is not known: the whole game is the counterexample.
            return Difference(len(actions), f"the engine ({failure.kind})", "a reply", failure.message)
        return found if isinstance(found, Difference) else None

    def run(
        self, games: int, seed: int | None, tick: Callable[[], None]
    ) -> tuple[Setup, tuple[Action, ...], Difference] | None:
        """Play ``games`` games; the shrunk counterexample of the first difference, or ``None``.

        An engine that plays the ``rounds`` option first gets half of the games as one-round
        games (games of one round, and the first round of two-round games, up to the second
        captain's offer, so that phases 6 to 10 are played too), then games of 1 to 3 rounds
        or full length: a bug that can show in round 1 is then usually found there, and
        shrinks to one round, even when longer games would show it sooner (a robbery, which
        needs the pirate card played within reach of the merchant ship; a reshuffle)."""
        caps = self.player.caps
        parts: list[tuple[st.SearchStrategy[Setup], int | None, int]] = [(setups_for(caps), None, games)]
        if "rounds" in caps.options:
            parts = [(setups_for(caps, (1, 2)), 1, games // 2), (setups_for(caps), None, games - games // 2)]
        clock = time.monotonic
        first_found: list[float] = []
        best: list[tuple[Setup, tuple[Action, ...]]] = []

        def out_of_time(share: float = 1.0) -> bool:
            return bool(first_found) and clock() - first_found[0] > self.shrink_seconds * share

        def differs(example: tuple[Setup, tuple[Action, ...]]) -> bool:
            if out_of_time(HYPOTHESIS_SHARE):
                raise _OutOfTime
            started = clock()
            found = self._differs(*example)
            if not first_found:
                self.seconds += clock() - started
                self.played += 1
                tick()
            if found is None:
                return False
            best[:] = [example]
            if not first_found:
                first_found.append(clock())
            return True

        for setups, max_rounds, count in parts:
            if count <= 0:
                continue
            strategy = setups.flatmap(partial(_sequences, max_rounds=max_rounds))
            config = settings(FIND_SETTINGS, max_examples=count, derandomize=seed is None)
            try:
                find(strategy, differs, settings=config, random=None if seed is None else random.Random(seed))
            except NoSuchExample:
                continue
            except _OutOfTime:
                pass
            break
        if not best:
            return None
        setup, actions = best[0]

        def step_of(setup: Setup, candidate: Sequence[Action]) -> int | None:
            found = self._differs(setup, candidate)
            return None if found is None else found.step

        actions = drop_rounds(step_of, setup, actions, out_of_time)
        found = self._differs(setup, actions)
        assert found is not None
        self.shrinking_seconds = clock() - first_found[0]
        return setup, actions[: found.step + 1], found


def _sequences(setup: Setup, max_rounds: int | None) -> st.SearchStrategy[tuple[Setup, tuple[Action, ...]]]:
    return action_sequences(setup, max_rounds=max_rounds)


class _OutOfTime(BaseException):
    """Stops hypothesis's shrinking at the time bound."""
