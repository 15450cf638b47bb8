"""Speed figures for ``meuterer bench`` (the scripts in ``benchmarks/`` go further).

:func:`yardstick_table` measures each figure next to the yardstick, a hand-tuned mutable
playout simulator (``../shared/bench/ref_sim.py``, found by :func:`find_yardstick`,
imported by path), and prints it as a ratio: games/s divided by the yardstick's games/s
measured right after it in the same process, or for times, how many yardstick games
fit in that time. This machine is shared and noisy; ratios travel, absolute figures not.

>>> from meuterer.bench import engine_figures
>>> figures = engine_figures(players=3, games=2)
>>> sorted(figures)
['chance steps/s', 'decision steps/s', 'games/s', 'steps/game', 'steps/s']
"""

from __future__ import annotations

import importlib.util
import os
import platform
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from meuterer._version import __version__
from meuterer.actions import Action
from meuterer.agents import GreedyAgent, ISMCTSAgent
from meuterer.engine import apply, is_chance_node, is_terminal, legal_actions, new_game, random_game, sample_chance
from meuterer.game import Game
from meuterer.record import verify, write_record
from meuterer.serialize import dumps_state, loads_state
from meuterer.state import State
from meuterer.views import PlayerView, sample_state, view


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


YARDSTICK = Path("shared") / "bench" / "ref_sim.py"


def find_yardstick(path: str | os.PathLike[str] | None = None) -> Path | None:
    """The yardstick's file: ``path``, else ``$MEUTERER_YARDSTICK``, else
    ``shared/bench/ref_sim.py`` in a parent of the working directory or of this package."""
    if path is not None:
        return Path(path)
    if os.environ.get("MEUTERER_YARDSTICK"):
        return Path(os.environ["MEUTERER_YARDSTICK"])
    for start in (Path.cwd(), Path(__file__).resolve()):
        for parent in (start, *start.parents):
            if (parent / YARDSTICK).is_file():
                return parent / YARDSTICK
    return None


def load_yardstick(path: Path) -> ModuleType:
    """Import the yardstick by path."""
    spec = importlib.util.spec_from_file_location("meuterer_yardstick", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _timed(work: Callable[[int], object], count: int) -> float:
    """CPU seconds of ``work(i)`` for ``i`` in ``range(count)``."""
    start = time.process_time()
    for i in range(count):
        work(i)
    return time.process_time() - start


def _openspiel_playouts(players: int) -> Callable[[int], object] | None:
    try:
        import pyspiel

        import meuterer.openspiel  # noqa: F401 - registers the game
    except ImportError:
        return None
    game = pyspiel.load_game("python_meuterer", {"players": players})

    def playout(seed: int) -> object:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
        return state

    return playout


def _pettingzoo_playouts(players: int) -> Callable[[int], object] | None:
    try:
        from meuterer.pettingzoo import env
    except ImportError:
        return None

    e = env(players=players)

    def playout(seed: int) -> object:
        rng = random.Random(seed)
        e.reset(seed=seed)
        for _ in e.agent_iter():
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
            else:
                legal = observation["action_mask"].nonzero()[0]
                e.step(int(legal[rng.randrange(len(legal))]))
        return e

    return playout


def _gym_playouts(players: int) -> Callable[[int], object] | None:
    try:
        from meuterer.gym import MeutererEnv
    except ImportError:
        return None

    e = MeutererEnv(players=players)

    def playout(seed: int) -> object:
        rng = random.Random(seed)
        _, info = e.reset(seed=seed)
        terminated = truncated = False
        while not (terminated or truncated):
            legal = info["action_mask"].nonzero()[0]
            _, _, terminated, truncated, info = e.step(int(legal[rng.randrange(len(legal))]))
        return e

    return playout


def _vector_playouts(players: int, count: int) -> tuple[str, float] | None:
    """The vector engine's random playouts at steady state (the figure's name, games/s):
    B games in flight, each finished game replaced at once, timed from the first tick
    after the batch and the sale caches have warmed up until ``count`` games (at least B)
    have ended (B = 16,384, or 64 for fewer than 1,000 games);
    ``None`` without numpy (``meuterer[vector]``)."""
    try:
        from meuterer.vector import VectorGame
    except ImportError:  # pragma: no cover - without numpy
        return None
    batch = 16_384 if count >= 1000 else 64
    games = VectorGame(batch, players, seed=players)
    warm = 0
    while warm < 2 * batch:  # two games per slot: the caches of sale declarations fill
        games.step(games.random_actions(), checked=False)
        warm += int(games.terminal.sum())
        games.reset(games.terminal)
    done = 0
    start = time.process_time()
    while done < max(count, batch):
        games.step(games.random_actions(), checked=False)
        over = games.terminal
        done += int(over.sum())
        games.reset(over)
    rate = done / (time.process_time() - start)
    return f"meuterer.vector random playouts (B={batch}), games/s", rate


def _decisions(players: int, count: int) -> list[tuple[PlayerView, Sequence[Action]]]:
    """Decisions with several legal actions, from seeded greedy games."""
    from meuterer.fast import play_game

    found: list[tuple[PlayerView, Sequence[Action]]] = []
    seed = 0
    while len(found) < count:
        actions, _ = play_game([GreedyAgent() for _ in range(players)], seed=seed)
        state = new_game(players)
        for index, action in enumerate(actions):
            if not is_chance_node(state) and len(legal_actions(state)) > 1 and index % 7 == 0:
                found.append((view(state, state.to_act), legal_actions(state)))
            state = apply(state, action)
        seed += 1
    return found[:count]


def _times(ratio: float) -> str:
    """A ratio to the yardstick as the table prints it: three decimals, or three significant
    digits below 0.01 (a figure far slower than the yardstick never reads ``0.000x``).

    >>> _times(4.6712), _times(0.05), _times(0.000213)
    ('4.671x', '0.050x', '0.000213x')
    """
    return f"{ratio:.3f}x" if ratio >= 0.01 else f"{ratio:.3g}x"


def yardstick_table(
    games: int = 200, players: Sequence[int] = (3, 4), yardstick: str | os.PathLike[str] | None = None
) -> list[str]:
    """The speed table: each figure next to the yardstick's, measured right after it.

    ``games`` random games per player count for the reference engine (the adapters a
    quarter); ISMCTS (default settings) is timed on ``games // 10`` decisions, ``verify`` on ``games // 20`` records.
    """
    path = find_yardstick(yardstick)
    ref_sim = load_yardstick(path) if path is not None and path.is_file() else None
    lines = [
        f"meuterer {__version__}, Python {platform.python_version()}, {platform.machine()}, one core, CPU time",
        f"yardstick: {path if ref_sim is not None else 'not found (set MEUTERER_YARDSTICK)'}",
        f"{'players':>7}  {'figure':<50} {'value':>10}  {'vs yardstick':>13}",
    ]
    for n in players:
        lines += _rows(n, games, ref_sim)
    return lines


def _rows(n: int, games: int, ref_sim: ModuleType | None) -> list[str]:
    lines: list[str] = []
    rng = random.Random(n)

    def yard(i: int) -> object:
        assert ref_sim is not None
        return ref_sim.play_game(rng, n)

    def yard_rate(count: int) -> float | None:
        return None if ref_sim is None else count / _timed(yard, count)

    def row(figure: str, value: str, ratio: str) -> None:
        lines.append(f"{n:>7}  {figure:<50} {value:>10}  {ratio:>13}")

    for seed in range(5):  # warm the engine's memos a little
        random_game(seed, n)
    rate = yard_rate(max(100, games))
    if rate is not None:
        row("yardstick random playouts, games/s", f"{rate:,.0f}", "1.000x")
    rows: list[tuple[str, Callable[[int], object] | None, int]] = [
        ("meuterer.random_game, games/s", lambda i: random_game(i, n, i % n), games),
        ("OpenSpiel python_meuterer random playouts, games/s", _openspiel_playouts(n), max(4, games // 4)),
        ("PettingZoo env, random masked actions, games/s", _pettingzoo_playouts(n), max(4, games // 4)),
        ("Gymnasium env, random opponents and learner, games/s", _gym_playouts(n), max(4, games // 4)),
    ]
    for figure, work, count in rows:
        if work is None:
            row(figure, "not installed", "-")
            continue
        value = count / _timed(work, count)
        rate = yard_rate(max(20, 4 * count))
        row(figure, f"{value:,.0f}", "-" if rate is None else _times(value / rate))
    vector = _vector_playouts(n, 20 * games)
    if vector is None:
        row("meuterer.vector random playouts, games/s", "not installed", "-")
    else:
        figure, value = vector
        rate = yard_rate(max(20, 20 * games))
        row(figure, f"{value:,.0f}", "-" if rate is None else _times(value / rate))
    points = _decisions(n, max(4, games // 10))
    agent = ISMCTSAgent()
    search_rng = random.Random(1)
    start = time.process_time()
    for v, legal in points:
        agent.act(v, legal, search_rng)
    move = (time.process_time() - start) / len(points)
    rate = yard_rate(200)
    figure = f"ISMCTSAgent() ({agent.iterations} it., {agent.rollout} rollouts), ms/move"
    row(figure, f"{1e3 * move:,.1f}", "-" if rate is None else f"{move * rate:.1f} games")
    records = [write_record(Game.replay(random_game(seed, n)[0], players=n)) for seed in range(max(2, games // 20))]
    start = time.process_time()
    for text in records:
        verify(text)
    check = (time.process_time() - start) / len(records)
    rate = yard_rate(200)
    row(
        "verify, complete record with digests, ms",
        f"{1e3 * check:,.2f}",
        "-" if rate is None else f"{check * rate:.1f} games",
    )
    return lines


def report(games: int = 200) -> list[str]:
    """The lines ``meuterer bench`` prints: the engine's step rates and the services'
    figures, then :func:`yardstick_table` (after ``10 * games`` games to warm the memos)."""
    lines = [f"meuterer {__version__}, Python {platform.python_version()}, {platform.machine()}, one core"]
    for players in (3, 4):
        figures = engine_figures(players, games)
        lines.append(f"{players} players, {games} games: " + ", ".join(f"{k} {v:,.0f}" for k, v in figures.items()))
    lines.append(", ".join(f"{k} {v:,.1f}" for k, v in service_figures().items()))
    for seed in range(10 * games):
        random_game(10**6 + seed, 3 + seed % 2)
    return lines + yardstick_table(games)
