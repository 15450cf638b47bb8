"""Tournaments: many seeded games between agents, on local processes or a Ray cluster.

Game ``i`` of a run with seed ``S`` is played from its own seed (:func:`game_seed`), so
every game, and so every per-game result, is the same whichever process or machine plays
it: a seeded run gives the same results with one process, several, or Ray, and a run
resumed after an interruption gives the results of an uninterrupted one. Agents are named
by specs (:func:`meuterer.agents.make_agent`): ``random``, ``greedy``, ``ismcts`` or
``ismcts:ITERATIONS[:ROLLOUT[:OPPONENTS]]``; a fresh agent is made for every game. Seats rotate from
game to game (agent ``k`` sits in seat ``(k + i) % players`` in game ``i``) and seat 0 is
always the first captain, so over a multiple of ``players`` games each agent plays every
seat equally often.

Ties for the most points share the win: each of ``k`` tied winners is credited ``1/k``.

>>> from meuterer.tournament import run_tournament
>>> run = run_tournament(["greedy", "random", "random"], games=6, seed=1)
>>> [game.agents[0] for game in run.results]
['greedy', 'random', 'random', 'greedy', 'random', 'random']
>>> summary = run.summary()
>>> summary.agents[0].label, summary.agents[0].games, summary.games
('greedy', 6, 6)
>>> greedy = summary.agents[0].wins
>>> greedy.low < greedy.rate <= greedy.high <= 1.0
True
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Literal, Protocol

import attrs

from meuterer._install import install_hint
from meuterer.actions import Action
from meuterer.agents.registry import AgentSpec, agent_label, make_agent
from meuterer.cards import Role
from meuterer.engine import winners
from meuterer.errors import SetupError
from meuterer.fast import FastGame
from meuterer.fast import play_game as fast_play_game
from meuterer.game import Game
from meuterer.record import write_record, write_text_atomic
from meuterer.rules import Rules
from meuterer.tournament.results import GameResult
from meuterer.tournament.statistics import Summary, summarize
from meuterer.tournament.workers import worker_init

__all__ = [
    "Backend",
    "Progress",
    "Tournament",
    "game_seed",
    "lineup",
    "play_game_result",
    "ray_available",
    "run_tournament",
    "seating",
]

Backend = Literal["local", "ray"]
Progress = Callable[[int], None]
"""Called with the number of games just finished."""


def lineup(specs: Sequence[AgentSpec], players: int) -> tuple[AgentSpec, ...]:
    """One spec per seat: ``specs`` with its last entry repeated to fill the table.

    >>> lineup(["ismcts", "greedy"], 4)
    ('ismcts', 'greedy', 'greedy', 'greedy')
    """
    if not specs:
        raise SetupError("name at least one agent")
    if len(specs) > players:
        raise SetupError(f"{len(specs)} agents for {players} seats")
    return tuple(specs) + (specs[-1],) * (players - len(specs))


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` in a run seeded ``seed`` (64 bits of SHA-256, stable everywhere).

    >>> game_seed(1, 0) == game_seed(1, 0) != game_seed(1, 1)
    True
    """
    digest = hashlib.sha256(f"meuterer-tournament:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# Playing ---------------------------------------------------------------------------------


@attrs.frozen
class _Task:
    specs: tuple[AgentSpec, ...]
    players: int
    rules: Rules | None
    seed: int
    indices: tuple[int, ...]
    rotate: bool
    records: bool
    directory: str | None = None
    """Where the worker writes the records itself (local processes: then a worker sends back
    only small results, which a stop can never cut in half); ``None``: it sends them back."""
    duplicate: bool = False
    """Duplicate deals: see :func:`play_game_result`."""

    def play(self) -> Iterator[tuple[GameResult, str | None]]:
        """Play the games one by one (in whatever process runs the task): each result with
        its record (``None`` without records, or when the worker wrote it itself)."""
        for index in self.indices:
            result, history = play_game_result(
                self.specs, index, self.seed, self.rules, self.rotate, duplicate=self.duplicate
            )
            record = None
            if self.records:
                game = Game.replay(history, self.players, result.first_captain, self.rules)
                names = [f"{label}-{seat}" for seat, label in enumerate(result.agents)]
                record = write_record(game, names=names)
                if self.directory is not None:
                    write_text_atomic(Path(self.directory) / f"game-{result.index:06d}.json", record)
                    record = None
            yield result, record


class Task(Protocol):
    """A chunk of games some process plays: a tournament's or a league's, on the reference
    engine or on the batch engine."""

    def play(self) -> Iterator[tuple[GameResult, str | None]]:
        """Each game's result (and record, if any) as it ends."""


def seating(specs: Sequence[AgentSpec], index: int, rotate: bool = True) -> tuple[AgentSpec, ...]:
    """The spec in each seat for game ``index``: agent ``k`` in seat ``(k + index) % players``.

    >>> seating(["a", "b", "c"], 1)
    ('c', 'a', 'b')
    """
    n = len(specs)
    if not rotate:
        return tuple(specs)
    return tuple(specs[(seat - index) % n] for seat in range(n))


class _Counter:
    """The hook of a tournament game: each seat's decisions, thinking time, mutinies led and won."""

    def __init__(self, players: int) -> None:
        self.moves, self.think = [0] * players, [0.0] * players
        self.mutineers, self.won = [0] * players, [0] * players
        self._mutiny: bool | None = None

    def __call__(self, action: Action, seconds: float | None, game: FastGame) -> None:
        if seconds is not None:
            seat = action.player
            self.moves[seat] += 1
            self.think[seat] += seconds
        state = game.state
        if self._mutiny is None and state.mutiny is not None:
            leader = state.roles.index(Role.MUTINEER)
            self.mutineers[leader] += 1
            self.won[leader] += int(state.mutiny)
        self._mutiny = state.mutiny


def play_game_result(
    specs: Sequence[AgentSpec],
    index: int,
    seed: int,
    rules: Rules | None = None,
    rotate: bool = True,
    *,
    duplicate: bool = False,
) -> tuple[GameResult, tuple[Action, ...]]:
    """Play game ``index`` of a run seeded ``seed`` between fresh agents made from ``specs``
    (one per seat, before rotation); its result and its actions. Agents see only their views;
    the game is played by :func:`meuterer.fast.play_game` (the same games as
    :func:`meuterer.agents.play_game`, with a hook that reads the live game). With
    ``duplicate``, games ``d * players`` to ``d * players + players - 1`` share one seed,
    ``game_seed(seed, d)``: the same chance draws (deal ``d``) with the seats rotated."""
    seated = seating(specs, index, rotate)
    agents = [make_agent(spec) for spec in seated]
    own_seed = game_seed(seed, index // len(seated) if duplicate else index)
    count = _Counter(len(agents))
    start = time.perf_counter()
    history, state = fast_play_game(agents, own_seed, 0, rules, hook=count)
    result = GameResult(
        index=index,
        seed=own_seed,
        agents=tuple(agent_label(spec) for spec in seated),
        first_captain=0,
        scores=state.scores,
        winners=winners(state),
        rounds=state.round,
        actions=len(history),
        moves=tuple(count.moves),
        mutineers=tuple(count.mutineers),
        mutinies_won=tuple(count.won),
        think=tuple(count.think),
        seconds=time.perf_counter() - start,
    )
    return result, history


Finished = list[tuple[GameResult, str | None]]


def _run_task(task: Task) -> Finished:
    """Play a chunk of games (in whatever process runs it)."""
    return list(task.play())


def _tasks(
    specs: tuple[AgentSpec, ...],
    indices: Sequence[int],
    players: int,
    rules: Rules | None,
    seed: int,
    rotate: bool,
    records: bool,
    chunk: int,
) -> list[_Task]:
    return [
        _Task(specs, players, rules, seed, tuple(indices[start : start + chunk]), rotate, records)
        for start in range(0, len(indices), chunk)
    ]


def _local(tasks: Sequence[Task], jobs: int) -> Iterator[Finished]:
    if jobs <= 1:
        for task in tasks:
            for finished in task.play():  # one game at a time, so that each is reported at once
                yield [finished]
        return
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=worker_init)
    # A few tasks per worker are in flight at a time, not all of them: a run of a million
    # games holds a few dozen futures, and stopping it (Ctrl-C) has little to cancel.
    waiting = iter(tasks)
    running = {pool.submit(_run_task, task) for task in itertools.islice(waiting, 4 * jobs)}
    try:
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                next_task = next(waiting, None)
                if next_task is not None:
                    running.add(pool.submit(_run_task, next_task))
                yield future.result()
    finally:
        # Also on Ctrl-C or when the caller stops early: the games still running are dropped.
        processes = dict(getattr(pool, "_processes", None) or {})
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            process.join()


def ray_available() -> bool:
    """Whether the optional ``ray`` package (extra ``meuterer[ray]``) can be imported."""
    try:
        importlib.import_module("ray")
    except ImportError:
        return False
    return True


def _ray(tasks: Sequence[Task], jobs: int, address: str | None) -> Iterator[list[tuple[GameResult, str | None]]]:
    try:
        ray: Any = importlib.import_module("ray")
    except ImportError:
        raise SetupError(f"the ray backend needs the ray package ({install_hint('ray')})") from None
    if not ray.is_initialized():
        # Ship this very package to the workers, which may not have it installed.
        package = importlib.import_module("meuterer")
        options: dict[str, Any] = {
            "address": address,
            "logging_level": "ERROR",
            "log_to_driver": False,
            "runtime_env": {"py_modules": [package]},
        }
        if address is None and "RAY_ADDRESS" not in os.environ and jobs > 0:
            options["num_cpus"] = jobs
        ray.init(**options)
    remote = ray.remote(_run_task)
    pending = [remote.remote(task) for task in tasks]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            yield ray.get(ref)


def gather(
    tasks: Sequence[Task],
    jobs: int,
    backend: Backend,
    ray_address: str | None,
    known: Iterable[GameResult],
    on_result: Callable[[GameResult], None] | None,
    progress: Progress | None,
    write: Callable[[GameResult, str], None] | None = None,
) -> list[GameResult]:
    """Play ``tasks`` on ``backend``: the results after those ``known``, in game order. Each
    goes to ``on_result`` (and its record, if any, to ``write``) as it comes; ``progress`` hears
    of each finished chunk. However it ends, the workers are stopped and waited for."""
    chunks = _ray(tasks, jobs, ray_address) if backend == "ray" else _local(tasks, jobs)
    results = list(known)
    try:
        for finished in chunks:
            for result, record in finished:
                if write is not None and record is not None:
                    write(result, record)
                results.append(result)
                if on_result is not None:
                    on_result(result)
            if progress is not None:
                progress(len(finished))
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()  # stops and waits for the workers
    results.sort(key=lambda r: r.index)
    return results


@attrs.frozen
class Tournament:
    """The per-game results of a run (in game order) and how long it took."""

    specs: tuple[str, ...]
    """The label of each agent of the lineup, before seats rotate."""
    players: int
    seed: int
    results: tuple[GameResult, ...]
    seconds: float
    """Wall-clock time of the run."""
    jobs: int
    backend: str

    def summary(self) -> Summary:
        """Summary statistics of the run."""
        return summarize(self.results, self.players, self.seconds)


def run_tournament(
    agents: Sequence[AgentSpec],
    games: int,
    players: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    rules: Rules | None = None,
    records: str | os.PathLike[str] | None = None,
    backend: Backend = "local",
    rotate: bool = True,
    progress: Progress | None = None,
    ray_address: str | None = None,
    chunk: int | None = None,
    *,
    done: Iterable[GameResult] = (),
    on_result: Callable[[GameResult], None] | None = None,
) -> Tournament:
    """Play ``games`` games between ``agents`` (one spec per seat, the last repeated to fill
    ``players`` seats; ``players`` defaults to the number of specs, at least 3).

    ``seed`` seeds the whole run (a random one is drawn and kept in the result when it is
    ``None``). ``jobs`` processes play in parallel (``backend="local"``), or ``jobs`` CPUs of
    a local Ray instance, or a Ray cluster at ``ray_address`` (``backend="ray"``). With
    ``records``, every game's record is written there as ``game-000123.json`` (atomically,
    as the game finishes). ``progress`` is called with the number of games finished each
    time some finish, ``on_result`` with each result as its game finishes.

    ``done`` are results of this run already known (from an interrupted run with the same
    seed and agents): their games are not played again, and they are part of the result.
    On an interruption (Ctrl-C) the worker processes are stopped and the exception passes
    on; what ``on_result`` got by then is complete.
    """
    if type(games) is not int or games < 0:
        raise SetupError(f"games must be a number >= 0, got {games!r}")
    if players is None:
        players = max(3, len(agents))
    if players not in (3, 4):
        raise SetupError(f"Meuterer is played by 3 or 4 players, got {players!r}")
    if backend not in ("local", "ray"):
        raise SetupError(f"backend is 'local' or 'ray', got {backend!r}")
    specs = lineup(agents, players)
    for spec in specs:
        make_agent(spec)  # fail early on a bad spec
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    known = {result.index: result for result in done if result.index < games}
    for result in known.values():
        seated = tuple(agent_label(spec) for spec in seating(specs, result.index, rotate))
        if result.seed != game_seed(seed, result.index) or result.agents != seated:
            raise SetupError(f"game {result.index} of the results to resume is not game {result.index} of this run")
    jobs = max(1, jobs)
    todo = [index for index in range(games) if index not in known]
    if chunk is None:
        chunk = max(1, min(25, len(todo) // (jobs * 20)))
    directory = None
    if records is not None:
        directory = Path(records)
        directory.mkdir(parents=True, exist_ok=True)
    tasks = _tasks(specs, todo, players, rules, seed, rotate, directory is not None, chunk)
    if directory is not None and backend == "local" and jobs > 1:
        tasks = [attrs.evolve(task, directory=str(directory)) for task in tasks]
    start = time.perf_counter()

    def write(result: GameResult, record: str) -> None:
        assert directory is not None
        write_text_atomic(directory / f"game-{result.index:06d}.json", record)

    try:
        results = gather(tasks, jobs, backend, ray_address, known.values(), on_result, progress, write)
    finally:
        if directory is not None:  # a record a stopped worker was writing
            for temporary in directory.glob(".game-*.json.*.tmp"):
                temporary.unlink(missing_ok=True)
    return Tournament(
        specs=tuple(agent_label(spec) for spec in specs),
        players=players,
        seed=seed,
        results=tuple(results),
        seconds=time.perf_counter() - start,
        jobs=jobs,
        backend=backend,
    )
