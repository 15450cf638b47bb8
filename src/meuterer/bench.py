"""Quick speed figures for ``meuterer bench`` (the scripts in ``benchmarks/`` go further).

>>> from meuterer.bench import engine_figures
>>> figures = engine_figures(players=3, games=2)
>>> sorted(figures)
['chance steps/s', 'decision steps/s', 'games/s', 'steps/game', 'steps/s']
"""

from __future__ import annotations

import platform
import random
import time
from collections.abc import Callable

from meuterer._version import __version__
from meuterer.engine import apply, is_chance_node, is_terminal, legal_actions, new_game, random_game, sample_chance
from meuterer.game import Game
from meuterer.record import verify, write_record
from meuterer.serialize import dumps_state, loads_state
from meuterer.state import State
from meuterer.views import sample_state, view


def engine_figures(players: int, games: int) -> dict[str, float]:
    """Complete random games per second and steps per second (decisions and chance apart),
    with the legal actions enumerated at every decision, on one core."""
    decisions = chances = 0
    decision_time = chance_time = 0.0
    clock = time.perf_counter
    start = clock()
    for seed in range(games):
        rng = random.Random(seed)
        state = new_game(players=players, first_captain=seed % players)
        while not is_terminal(state):
            t0 = clock()
            if is_chance_node(state):
                state = apply(state, sample_chance(state, rng))
                chance_time += clock() - t0
                chances += 1
            else:
                state = apply(state, rng.choice(legal_actions(state)))
                decision_time += clock() - t0
                decisions += 1
    elapsed = clock() - start
    return {
        "games/s": games / elapsed,
        "steps/s": (decisions + chances) / elapsed,
        "decision steps/s": decisions / decision_time,
        "chance steps/s": chances / chance_time,
        "steps/game": (decisions + chances) / games,
    }


def _per_call(function: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        function()
    return (time.perf_counter() - start) / repeat


def service_figures(games: int = 5) -> dict[str, float]:
    """Microseconds per view, sampled state and state round trip; milliseconds per verified
    complete 4-player record with digests."""
    states: list[State] = []
    texts: list[str] = []
    for seed in range(games):
        actions, _ = random_game(seed=seed, players=4)
        game = Game.replay(actions, players=4)
        states += game.states[::10]
        texts.append(write_record(game))
    rng = random.Random(1)
    views = [view(s, s.to_act) for s in states]
    n = len(states)
    return {
        "view µs": 1e6 * _per_call(lambda: [view(s, s.to_act) for s in states], 3) / n,
        "sample_state µs": 1e6 * _per_call(lambda: [sample_state(v, rng) for v in views], 3) / n,
        "state round trip µs": 1e6 * _per_call(lambda: [loads_state(dumps_state(s)) for s in states], 3) / n,
        "verify ms/record": 1e3 * _per_call(lambda: [verify(t) for t in texts], 1) / len(texts),
    }


def report(games: int = 200) -> list[str]:
    """The lines ``meuterer bench`` prints."""
    lines = [f"meuterer {__version__}, Python {platform.python_version()}, {platform.machine()}, one core"]
    for players in (3, 4):
        figures = engine_figures(players, games)
        lines.append(f"{players} players, {games} games: " + ", ".join(f"{k} {v:,.0f}" for k, v in figures.items()))
    lines.append(", ".join(f"{k} {v:,.1f}" for k, v in service_figures().items()))
    return lines
