"""Tournaments: many seeded games between agents, on local processes or a Ray cluster.

Game ``i`` of a run with seed ``S`` is played from its own seed (:func:`game_seed`), so
every game, and so every per-game result, is the same whichever process or machine plays
it: a seeded run gives the same results with one process, several, or Ray. Agents are
named by specs (:func:`make_agent`): ``random``, ``greedy``, ``ismcts`` or
``ismcts:ITERATIONS[:ROLLOUT]``; a fresh agent is made for every game. Seats rotate from
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

import csv
import hashlib
import importlib
import io
import json
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Literal, TextIO

import attrs

from meuterer.actions import Action
from meuterer.agents.base import Agent, RandomAgent
from meuterer.agents.greedy import GreedyAgent
from meuterer.agents.ismcts import ISMCTSAgent
from meuterer.cards import Role
from meuterer.engine import apply, current_player, is_chance_node, legal_actions, new_game, sample_chance, winners
from meuterer.errors import SetupError
from meuterer.game import Game
from meuterer.record import write_record
from meuterer.rules import Rules
from meuterer.state import State
from meuterer.views import view

AgentSpec = str | Callable[[], Agent]
"""An agent spec (``"greedy"``, ``"ismcts:100"``) or a picklable factory, such as an agent class."""
Backend = Literal["local", "ray"]
Progress = Callable[[int], None]
"""Called with the number of games just finished."""

AGENT_NAMES = ("random", "greedy", "ismcts")


def make_agent(spec: AgentSpec) -> Agent:
    """A new agent from a spec: ``random``, ``greedy``, ``ismcts``, ``ismcts:ITERATIONS`` or
    ``ismcts:ITERATIONS:ROLLOUT`` (``greedy`` or ``random``); or the result of calling a factory.

    >>> make_agent("ismcts:50:random")
    ISMCTSAgent(iterations=50, seed=None, rollout='random')
    >>> make_agent("clever")
    Traceback (most recent call last):
    ...
    meuterer.errors.SetupError: unknown agent 'clever': use random, greedy, ismcts[:ITERATIONS[:ROLLOUT]]
    """
    if not isinstance(spec, str):
        return spec()
    name, *args = spec.split(":")
    if name == "random" and not args:
        return RandomAgent()
    if name == "greedy" and not args:
        return GreedyAgent()
    if name == "ismcts" and len(args) <= 2:
        try:
            iterations = int(args[0]) if args else 50
            rollout = args[1] if len(args) > 1 else "greedy"
            return ISMCTSAgent(iterations=iterations, rollout=rollout)  # type: ignore[arg-type]
        except ValueError as error:
            raise SetupError(f"bad agent {spec!r}: {error}") from None
    raise SetupError(f"unknown agent {spec!r}: use random, greedy, ismcts[:ITERATIONS[:ROLLOUT]]")


def agent_label(spec: AgentSpec) -> str:
    """The name an agent spec goes by in results: the spec itself, or a factory's ``name``
    (an agent class's) or ``__name__``."""
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", None) or getattr(spec, "__name__", None) or repr(spec))


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


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for the default ``z``); ``successes``
    may be fractional (shared wins).

    >>> low, high = wilson(50, 100)
    >>> round(low, 3), round(high, 3)
    (0.404, 0.596)
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


# Playing ---------------------------------------------------------------------------------


@attrs.frozen
class GameResult:
    """The outcome of one game. Everything but the timings ``think`` and ``seconds`` is
    reproducible from the run's seed."""

    index: int
    seed: int
    agents: tuple[str, ...]
    """The label of the agent in each seat."""
    first_captain: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int
    actions: int
    """All actions, chance draws included."""
    moves: tuple[int, ...]
    """Decisions taken by each seat (forced ones included)."""
    mutineers: tuple[int, ...]
    """Mutinies led by each seat."""
    mutinies_won: tuple[int, ...]
    """Successful mutinies led by each seat."""
    think: tuple[float, ...] = attrs.field(default=(), eq=False)
    """Seconds each seat spent deciding (not reproducible)."""
    seconds: float = attrs.field(default=0.0, eq=False)
    """Seconds the game took, agents and engine (not reproducible)."""

    @property
    def mutinies(self) -> int:
        """Mutinies in the game (rounds with a mutineer)."""
        return sum(self.mutineers)

    @property
    def shares(self) -> tuple[float, ...]:
        """Each seat's share of the win: ``1/k`` for each of ``k`` tied winners, else 0."""
        return tuple(1 / len(self.winners) if seat in self.winners else 0.0 for seat in range(len(self.scores)))

    def data(self) -> dict[str, Any]:
        """The reproducible fields as plain JSON data (one line of a JSON-lines file)."""
        return {
            "game": self.index,
            "seed": self.seed,
            "agents": list(self.agents),
            "first_captain": self.first_captain,
            "scores": list(self.scores),
            "winners": list(self.winners),
            "rounds": self.rounds,
            "actions": self.actions,
            "moves": list(self.moves),
            "mutineers": list(self.mutineers),
            "mutinies_won": list(self.mutinies_won),
        }


def _play(
    agents: Sequence[Agent], seed: int, first_captain: int, rules: Rules | None
) -> tuple[State, tuple[Action, ...], list[int], list[float], list[int], list[int]]:
    """:func:`meuterer.agents.play_game`'s loop (same generators, so the same game), also
    counting each seat's moves, thinking time, mutinies led and mutinies won."""
    rng = random.Random(seed)
    chance = random.Random(rng.getrandbits(64))
    own = [random.Random(rng.getrandbits(64)) for _ in agents]
    state = new_game(len(agents), first_captain, rules)
    n = len(agents)
    history: list[Action] = []
    moves, think = [0] * n, [0.0] * n
    mutineers, won = [0] * n, [0] * n
    clock = time.perf_counter
    while (seat := current_player(state)) is not None:
        if is_chance_node(state):
            action = sample_chance(state, chance)
        else:
            start = clock()
            action = agents[seat].act(view(state, seat), legal_actions(state), own[seat])
            think[seat] += clock() - start
            moves[seat] += 1
        history.append(action)
        before = state.mutiny
        state = apply(state, action)
        if before is None and state.mutiny is not None:
            leader = state.roles.index(Role.MUTINEER)
            mutineers[leader] += 1
            won[leader] += int(state.mutiny)
    return state, tuple(history), moves, think, mutineers, won


@attrs.frozen
class _Task:
    specs: tuple[AgentSpec, ...]
    players: int
    rules: Rules | None
    seed: int
    indices: tuple[int, ...]
    rotate: bool
    records: bool


def seating(specs: Sequence[AgentSpec], index: int, rotate: bool = True) -> tuple[AgentSpec, ...]:
    """The spec in each seat for game ``index``: agent ``k`` in seat ``(k + index) % players``.

    >>> seating(["a", "b", "c"], 1)
    ('c', 'a', 'b')
    """
    n = len(specs)
    if not rotate:
        return tuple(specs)
    return tuple(specs[(seat - index) % n] for seat in range(n))


def play_game_result(
    specs: Sequence[AgentSpec], index: int, seed: int, rules: Rules | None = None, rotate: bool = True
) -> tuple[GameResult, tuple[Action, ...]]:
    """Play game ``index`` of a run seeded ``seed`` between fresh agents made from ``specs``
    (one per seat, before rotation); its result and its actions."""
    seated = seating(specs, index, rotate)
    agents = [make_agent(spec) for spec in seated]
    own_seed = game_seed(seed, index)
    start = time.perf_counter()
    state, history, moves, think, mutineers, won = _play(agents, own_seed, 0, rules)
    result = GameResult(
        index=index,
        seed=own_seed,
        agents=tuple(agent_label(spec) for spec in seated),
        first_captain=0,
        scores=state.scores,
        winners=winners(state),
        rounds=state.round,
        actions=len(history),
        moves=tuple(moves),
        mutineers=tuple(mutineers),
        mutinies_won=tuple(won),
        think=tuple(think),
        seconds=time.perf_counter() - start,
    )
    return result, history


def _run_task(task: _Task) -> list[tuple[GameResult, str | None]]:
    """Play a chunk of games (in whatever process runs it)."""
    out: list[tuple[GameResult, str | None]] = []
    for index in task.indices:
        result, history = play_game_result(task.specs, index, task.seed, task.rules, task.rotate)
        record = None
        if task.records:
            game = Game.replay(history, task.players, result.first_captain, task.rules)
            names = [f"{label}-{seat}" for seat, label in enumerate(result.agents)]
            record = write_record(game, names=names)
        out.append((result, record))
    return out


def _tasks(
    specs: tuple[AgentSpec, ...],
    games: int,
    players: int,
    rules: Rules | None,
    seed: int,
    rotate: bool,
    records: bool,
    chunk: int,
) -> list[_Task]:
    return [
        _Task(specs, players, rules, seed, tuple(range(start, min(games, start + chunk))), rotate, records)
        for start in range(0, games, chunk)
    ]


def _local(tasks: Sequence[_Task], jobs: int) -> Iterator[list[tuple[GameResult, str | None]]]:
    if jobs <= 1:
        for task in tasks:
            yield _run_task(task)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_run_task, task) for task in tasks]
        for future in as_completed(futures):
            yield future.result()


def ray_available() -> bool:
    """Whether the optional ``ray`` package (extra ``meuterer[ray]``) can be imported."""
    try:
        importlib.import_module("ray")
    except ImportError:
        return False
    return True


def _ray(tasks: Sequence[_Task], jobs: int, address: str | None) -> Iterator[list[tuple[GameResult, str | None]]]:
    try:
        ray: Any = importlib.import_module("ray")
    except ImportError:
        raise SetupError("the ray backend needs the ray package: pip install 'meuterer[ray]'") from None
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
) -> Tournament:
    """Play ``games`` games between ``agents`` (one spec per seat, the last repeated to fill
    ``players`` seats; ``players`` defaults to the number of specs, at least 3).

    ``seed`` seeds the whole run (a random one is drawn and kept in the result when it is
    ``None``). ``jobs`` processes play in parallel (``backend="local"``), or ``jobs`` CPUs of
    a local Ray instance, or a Ray cluster at ``ray_address`` (``backend="ray"``). With
    ``records``, every game's record is written there as ``game-000123.json``.
    ``progress`` is called with the number of games finished each time some finish.
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
    jobs = max(1, jobs)
    if chunk is None:
        chunk = max(1, min(25, games // (jobs * 20)))
    directory = None
    if records is not None:
        directory = Path(records)
        directory.mkdir(parents=True, exist_ok=True)
    tasks = _tasks(specs, games, players, rules, seed, rotate, directory is not None, chunk)
    start = time.perf_counter()
    chunks = _ray(tasks, jobs, ray_address) if backend == "ray" else _local(tasks, jobs)
    results: list[GameResult] = []
    for finished in chunks:
        for result, record in finished:
            results.append(result)
            if directory is not None and record is not None:
                (directory / f"game-{result.index:06d}.json").write_text(record, encoding="utf-8")
        if progress is not None:
            progress(len(finished))
    results.sort(key=lambda r: r.index)
    return Tournament(
        specs=tuple(agent_label(spec) for spec in specs),
        players=players,
        seed=seed,
        results=tuple(results),
        seconds=time.perf_counter() - start,
        jobs=jobs,
        backend=backend,
    )


# Per-game results as files ---------------------------------------------------------------

Format = Literal["csv", "jsonl"]


def format_for(path: str | os.PathLike[str]) -> Format:
    """``csv`` for a ``.csv`` file, ``jsonl`` (JSON lines) otherwise."""
    return "csv" if os.fspath(path).lower().endswith(".csv") else "jsonl"


def write_results(results: Iterable[GameResult], file: TextIO, fmt: Format = "jsonl") -> None:
    """Write per-game results as JSON lines or CSV (columns per seat: ``agent_0``, ``score_0``, ...).

    >>> import io
    >>> run = run_tournament(["greedy", "random", "random"], games=2, seed=3)
    >>> out = io.StringIO()
    >>> write_results(run.results, out, "csv")
    >>> out.getvalue().splitlines()[0]
    'game,seed,first_captain,rounds,actions,winners,agent_0,agent_1,agent_2,score_0,score_1,score_2,moves_0,moves_1,moves_2,mutineer_0,mutineer_1,mutineer_2,mutinies_won_0,mutinies_won_1,mutinies_won_2'
    """
    if fmt == "jsonl":
        for result in results:
            file.write(json.dumps(result.data(), separators=(",", ":")) + "\n")
        return
    writer: Any = None
    for result in results:
        seats = range(len(result.agents))
        row: dict[str, object] = {
            "game": result.index,
            "seed": result.seed,
            "first_captain": result.first_captain,
            "rounds": result.rounds,
            "actions": result.actions,
            "winners": " ".join(map(str, result.winners)),
        }
        for name, values in (
            ("agent", result.agents),
            ("score", result.scores),
            ("moves", result.moves),
            ("mutineer", result.mutineers),
            ("mutinies_won", result.mutinies_won),
        ):
            row.update({f"{name}_{seat}": values[seat] for seat in seats})
        if writer is None:
            writer = csv.DictWriter(file, fieldnames=list(row), lineterminator="\n")
            writer.writeheader()
        writer.writerow(row)


def results_text(results: Iterable[GameResult], fmt: Format = "jsonl") -> str:
    """:func:`write_results` into a string."""
    out = io.StringIO()
    write_results(results, out, fmt)
    return out.getvalue()


# Summary ----------------------------------------------------------------------------------


@attrs.frozen
class Rate:
    """A proportion with its 95% Wilson interval."""

    successes: float
    n: int
    low: float
    high: float

    @classmethod
    def of(cls, successes: float, n: int) -> Rate:
        """The rate ``successes / n`` with its interval."""
        low, high = wilson(successes, n)
        return cls(successes, n, low, high)

    @property
    def rate(self) -> float:
        """The proportion (0 when ``n`` is 0)."""
        return self.successes / self.n if self.n else 0.0

    def __str__(self) -> str:
        return f"{100 * self.rate:.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}]"


@attrs.frozen
class Group:
    """Statistics of a set of (game, seat) pairs: one agent's, or one seat's."""

    label: str
    games: int
    """How many (game, seat) pairs: the games played, times the seats an agent held in each."""
    wins: Rate
    """Win share, ties shared, with its interval (see :class:`GameResult.shares`)."""
    mean_score: float
    sd_score: float
    mutinies: int
    """Mutinies led."""
    mutinies_won: Rate
    """Of those, the successful ones."""
    moves: int
    think: float
    """Seconds spent deciding."""

    @property
    def ms_per_move(self) -> float:
        """Mean time per decision, in milliseconds."""
        return 1000 * self.think / self.moves if self.moves else 0.0


@attrs.frozen
class Summary:
    """What :func:`summarize` finds."""

    games: int
    players: int
    agents: tuple[Group, ...]
    """One group per agent label, in the order of first appearance."""
    seats: tuple[Group, ...]
    """One group per seat (whatever agent held it); seat 0 is the first captain."""
    agent_seats: tuple[tuple[str, int, Rate], ...]
    """The win share of each agent in each seat."""
    rounds: int
    mutinies: Rate
    """Rounds with a mutiny, out of all rounds."""
    mutinies_won: Rate
    """Successful mutinies, out of all mutinies."""
    mean_actions: float
    """Game length in actions (chance draws included)."""
    mean_moves: float
    """Game length in decisions."""
    seconds: float
    """Wall-clock time of the run."""
    cpu_seconds: float
    """Time spent playing (agents and engine), summed over the games of all processes."""

    @property
    def games_per_second(self) -> float:
        """Throughput (games per wall-clock second)."""
        return self.games / self.seconds if self.seconds else 0.0


def _group(label: str, pairs: Sequence[tuple[GameResult, int]]) -> Group:
    scores = [result.scores[seat] for result, seat in pairs]
    led = sum(result.mutineers[seat] for result, seat in pairs)
    return Group(
        label=label,
        games=len(pairs),
        wins=Rate.of(sum(result.shares[seat] for result, seat in pairs), len(pairs)),
        mean_score=statistics.fmean(scores) if scores else 0.0,
        sd_score=statistics.stdev(scores) if len(scores) > 1 else 0.0,
        mutinies=led,
        mutinies_won=Rate.of(sum(result.mutinies_won[seat] for result, seat in pairs), led),
        moves=sum(result.moves[seat] for result, seat in pairs),
        think=sum(result.think[seat] for result, seat in pairs if result.think),
    )


def summarize(results: Sequence[GameResult], players: int, seconds: float = 0.0) -> Summary:
    """Win shares (with 95% Wilson intervals), scores (mean and standard deviation) and
    mutinies per agent and per seat, and the mutiny frequency and game length overall."""
    by_agent: dict[str, list[tuple[GameResult, int]]] = {}
    by_seat: list[list[tuple[GameResult, int]]] = [[] for _ in range(players)]
    by_both: dict[tuple[str, int], list[tuple[GameResult, int]]] = {}
    for result in results:
        for seat, label in enumerate(result.agents):
            by_agent.setdefault(label, []).append((result, seat))
            by_seat[seat].append((result, seat))
            by_both.setdefault((label, seat), []).append((result, seat))
    rounds = sum(result.rounds for result in results)
    mutinies = sum(result.mutinies for result in results)
    n = len(results)
    return Summary(
        games=n,
        players=players,
        agents=tuple(_group(label, pairs) for label, pairs in by_agent.items()),
        seats=tuple(_group(f"p{seat}", pairs) for seat, pairs in enumerate(by_seat)),
        agent_seats=tuple(
            (label, seat, Rate.of(sum(r.shares[s] for r, s in by_both[label, seat]), len(by_both[label, seat])))
            for label in by_agent
            for seat in range(players)
            if (label, seat) in by_both
        ),
        rounds=rounds,
        mutinies=Rate.of(mutinies, rounds),
        mutinies_won=Rate.of(sum(sum(result.mutinies_won) for result in results), mutinies),
        mean_actions=statistics.fmean(result.actions for result in results) if n else 0.0,
        mean_moves=statistics.fmean(sum(result.moves) for result in results) if n else 0.0,
        seconds=seconds,
        cpu_seconds=sum(result.seconds for result in results),
    )


def format_summary(summary: Summary) -> str:
    """The summary as plain text."""
    lines = [
        f"{summary.games} games, {summary.players} players",
        f"{'agent':<14} {'seats':>6} {'win share [95%]':>22} {'score':>6} {'sd':>5} {'mutinies':>8} "
        f"{'won':>6} {'ms/move':>8}",
    ]
    for group in summary.agents:
        lines.append(_group_line(group))
    lines.append(f"{'seat':<14}")
    for group in summary.seats:
        lines.append(_group_line(group))
    lines.append(
        f"mutinies in {summary.mutinies} of rounds; successful: {summary.mutinies_won}; "
        f"game length {summary.mean_actions:.1f} actions, {summary.mean_moves:.1f} decisions"
    )
    return "\n".join(lines)


def _group_line(group: Group) -> str:
    won = f"{100 * group.mutinies_won.rate:.0f}%" if group.mutinies else "-"
    return (
        f"{group.label:<14} {group.games:>6} {group.wins!s:>22} {group.mean_score:>6.1f} {group.sd_score:>5.1f} "
        f"{group.mutinies:>8} {won:>6} {group.ms_per_move:>8.2f}"
    )
