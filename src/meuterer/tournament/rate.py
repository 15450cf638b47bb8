"""Leagues and ratings: an evaluation protocol for any agents.

A league seats its agents at *tables*: every choice of ``players`` of them (in the order
given) when there are at least ``players`` agents, else the one lineup of
:func:`~meuterer.tournament.lineup` (the last agent repeated). Games come in *deals*: deal
``d`` is played ``players`` times at table ``d % tables``, the seats rotated one step each
time, all from the same seed ``game_seed(seed, d)``. The ring, the opening hands and the
sequence of cards taken off the deck are then the same in every rotation (the chance draws
come from their own generator, and a draw depends only on the deck, which only draws
change); only when the deck runs out and the discards are reshuffled can later draws
differ. Each agent so holds every seat's cards once per deal it plays, which cuts the luck
of the deal out of comparisons. A run is a whole number of *rounds*: every table once, in
every rotation.

Per agent the league reports the win share (ties shared), the mean score margin (its score
minus the mean of the others' at the table) and, per seat, the win share of the seat
whoever held it; intervals are 95 % normal intervals over deals (:func:`mean_interval`),
the deal being the unit that repeats independently. The rating is OpenSkill's
Plackett-Luce model (extra ``meuterer[rate]``), each game ranked by score, the games in
order.

>>> league_tables(["a", "b", "c", "d"], 3)
(('a', 'b', 'c'), ('a', 'b', 'd'), ('a', 'c', 'd'), ('b', 'c', 'd'))
>>> league_seating(league_tables(["a", "b", "c", "d"], 3), 3, 4)  # deal 1 (table 1), rotation 1
('d', 'a', 'b')
>>> league_games(10, 3, 4)  # rounds of 4 tables x 3 rotations
12
"""

from __future__ import annotations

import hashlib
import itertools
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib.util import find_spec
from typing import Final, Literal, get_args

import attrs

from meuterer._install import install_hint
from meuterer.agents.registry import AgentSpec, agent_label, make_agent
from meuterer.errors import SetupError
from meuterer.phases.scoring import leaders
from meuterer.rules import Rules
from meuterer.tournament.ratings import (
    AgentRating,
    Interval,
    Ratings,
    mean_interval,
    plot_ratings,
    rate_results,
    seat_baseline,
    share_interval,
)
from meuterer.tournament.results import GameResult
from meuterer.tournament.run import Backend, Progress, Task, _Task, game_seed, gather, lineup, seating
from meuterer.tournament.statistics import Rate

__all__ = [
    "AgentRating",
    "Engine",
    "Interval",
    "League",
    "Ratings",
    "deal_seed",
    "league_engine",
    "league_games",
    "league_seating",
    "league_tables",
    "mean_interval",
    "plot_ratings",
    "rate_results",
    "run_league",
    "seat_baseline",
    "share_interval",
]

Table = tuple[AgentSpec, ...]
Engine = Literal["auto", "reference", "vector"]
ENGINES: Final = get_args(Engine)
"""The engines a league may be asked for (``auto``: the batch engine when it can)."""


def league_engine(agents: Sequence[AgentSpec], engine: Engine = "auto") -> Literal["reference", "vector"]:
    """The engine a league of ``agents`` plays on: ``"vector"`` (the batch engine) when
    asked, or with ``"auto"`` when every agent is one the batch plays
    (:data:`~meuterer.vector.playouts.BATCHED_AGENTS`, numpy installed); else the reference.
    Raises :class:`~meuterer.errors.SetupError` when the batch engine is asked for agents
    it cannot play.

    >>> league_engine(["greedy", "ismcts"])
    'reference'
    """
    if engine not in ENGINES:
        raise SetupError(f"engine is one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "reference":
        return "reference"
    batched: tuple[str, ...] = ()
    if find_spec("numpy") is not None:
        from meuterer.vector.playouts import BATCHED_AGENTS

        batched = BATCHED_AGENTS
    others = [agent_label(spec) for spec in agents if not (isinstance(spec, str) and _name(spec) in batched)]
    if not others:
        return "vector"
    if engine == "vector":
        if not batched:
            raise SetupError(f"the batch engine needs numpy ({install_hint('vector')})")
        raise SetupError(f"the batch engine plays {', '.join(batched)}, not {', '.join(others)}")
    return "reference"


def deal_seed(seed: int, deal: int, engine: Literal["reference", "vector"] = "reference") -> int:
    """The seed of deal ``deal`` of a league seeded ``seed``: :func:`~meuterer.tournament.game_seed`
    on the reference, a key of the batch engine's own there (its games draw otherwise, so
    results of the two never mix in one league).

    >>> deal_seed(1, 0) == deal_seed(1, 0) != deal_seed(1, 0, "vector")
    True
    """
    return game_seed(seed, deal) if engine == "reference" else _key("deal", seed, deal)


def _name(spec: str) -> str:
    """A spec as the registry reads it (case and surrounding blanks ignored)."""
    return spec.strip().lower()


def _key(kind: str, seed: int, index: int) -> int:
    digest = hashlib.sha256(f"meuterer-league-vector-{kind}:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@attrs.frozen
class _SeatedTask:
    """Games of a league on the batch engine (:func:`meuterer.vector.seated.play_seated`):
    deal ``d``'s chance from the key ``deal_seed(seed, d, "vector")``, a game's random
    players' choices from a key of the game's own."""

    tables: tuple[tuple[str, ...], ...]
    players: int
    rules: Rules | None
    seed: int
    indices: tuple[int, ...]
    batch: int

    def play(self) -> Iterator[tuple[GameResult, str | None]]:
        """Each game's result as it ends (no records)."""
        from meuterer.vector.seated import SeatedGame, play_seated

        seated = {index: league_seating(self.tables, self.players, index) for index in self.indices}
        games = {
            index: SeatedGame(
                index,
                tuple(_name(str(label)) for label in seated[index]),
                chance=deal_seed(self.seed, index // self.players, "vector"),
                choices=_key("choices", self.seed, index),
            )
            for index in self.indices
        }
        for played in play_seated(list(games.values()), self.players, self.rules, batch=self.batch):
            game = games[played.index]
            result = GameResult(
                index=played.index,
                seed=game.chance,
                agents=tuple(map(str, seated[played.index])),
                first_captain=0,
                scores=played.scores,
                winners=leaders(played.scores),
                rounds=played.rounds,
                actions=played.actions,
                moves=played.moves,
                mutineers=played.mutineers,
                mutinies_won=played.mutinies_won,
                think=played.think,
                seconds=played.seconds,
            )
            yield result, None


def league_tables(agents: Sequence[AgentSpec], players: int) -> tuple[Table, ...]:
    """The tables of a league of ``agents``: every choice of ``players`` of them (in order),
    or the one lineup with the last agent repeated when there are fewer agents than seats.
    Raises :class:`~meuterer.errors.SetupError` when two agents go by the same label.

    >>> league_tables(["greedy", "random"], 4)
    (('greedy', 'random', 'random', 'random'),)
    """
    labels = [agent_label(spec) for spec in agents]
    if len(set(labels)) != len(labels):
        raise SetupError(f"each agent of a league is named once, got {', '.join(labels)}")
    if len(agents) < players:
        return (lineup(agents, players),)
    return tuple(itertools.combinations(agents, players))


def league_games(games: int, players: int, tables: int) -> int:
    """``games`` rounded up to whole rounds (``tables * players`` games), at least one round."""
    size = players * tables
    return max(1, -(-games // size)) * size


def league_seating(tables: Sequence[Table], players: int, index: int) -> Table:
    """The agent in each seat in game ``index``: deal ``index // players`` at table
    ``deal % len(tables)``, rotation ``index % players``."""
    return seating(tables[(index // players) % len(tables)], index)


# Playing ------------------------------------------------------------------------------------


@attrs.frozen
class League:
    """The per-game results of a league (in game order) and how long it took."""

    agents: tuple[str, ...]
    """The agents' labels, in the order given."""
    players: int
    seed: int
    tables: tuple[tuple[str, ...], ...]
    """The labels at each table, before the seats rotate."""
    results: tuple[GameResult, ...]
    seconds: float
    """Wall-clock time of the run."""
    jobs: int
    backend: str
    engine: str = "reference"
    """The engine that played the games: ``"reference"`` or ``"vector"``."""

    def ratings(self, baseline: Sequence[Rate] = ()) -> Ratings:
        """The league's statistics and ratings (:func:`rate_results`)."""
        return rate_results(self.results, self.players, self.agents, baseline, self.seconds)


def run_league(
    agents: Sequence[AgentSpec],
    games: int,
    players: int = 4,
    seed: int | None = None,
    jobs: int = 1,
    rules: Rules | None = None,
    backend: Backend = "local",
    progress: Progress | None = None,
    ray_address: str | None = None,
    *,
    done: Iterable[GameResult] = (),
    on_result: Callable[[GameResult], None] | None = None,
    engine: Engine = "auto",
    batch: int = 1024,
) -> League:
    """Play a league of ``agents`` (specs or factories, each named once) over ``games``
    games rounded up to whole rounds (:func:`league_games`), on ``jobs`` local processes or
    Ray (``backend``, ``ray_address``) as :func:`~meuterer.tournament.run_tournament` does.
    ``progress`` is called with the number of games just finished, ``on_result`` with each
    result as its game finishes; ``done`` are results of this league already known (an
    interrupted run with the same seed and agents), not played again. On Ctrl-C the workers
    stop and the exception passes on; what ``on_result`` got by then is complete.

    ``engine`` (:func:`league_engine`): on the batch engine the games are played ``batch``
    at a time in lockstep, each process taking its share of the games; each game is the same
    whatever process or batch plays it, but not the game the reference plays from the same
    seed (the two draw their chance otherwise).

    >>> league = run_league(["greedy", "random"], games=3, players=3, seed=1)
    >>> [result.agents for result in league.results]
    [('greedy', 'random', 'random'), ('random', 'greedy', 'random'), ('random', 'random', 'greedy')]
    >>> len({result.seed for result in league.results})  # one deal, three rotations
    1
    """
    if players not in (3, 4):
        raise SetupError(f"Meuterer is played by 3 or 4 players, got {players!r}")
    if type(games) is not int or games < 1:
        raise SetupError(f"games must be a number >= 1, got {games!r}")
    if backend not in ("local", "ray"):
        raise SetupError(f"backend is 'local' or 'ray', got {backend!r}")
    tables = league_tables(agents, players)
    for spec in agents:
        make_agent(spec)  # fail early on a bad spec
    on = league_engine(agents, engine)
    if type(batch) is not int or batch < 1:
        raise SetupError(f"batch must be a number >= 1, got {batch!r}")
    games = league_games(games, players, len(tables))
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    known = {result.index: result for result in done if result.index < games}
    for result in sorted(known.values(), key=lambda r: r.index):
        seated = tuple(agent_label(spec) for spec in league_seating(tables, players, result.index))
        if result.seed != deal_seed(seed, result.index // players, on) or result.agents != seated:
            raise SetupError(
                f"game {result.index} of the results to resume is not game {result.index} of this league "
                f"(on the {'batch' if on == 'vector' else 'reference'} engine)"
            )
    jobs = max(1, jobs)
    tasks: list[Task] = []
    if on == "vector":
        todo = [index for index in range(games) if index not in known]
        names = tuple(tuple(agent_label(spec) for spec in table) for table in tables)
        size = max(1, min(batch, -(-len(todo) // jobs))) if jobs > 1 else len(todo) or 1
        for first in range(0, len(todo), size):
            tasks.append(_SeatedTask(names, players, rules, seed, tuple(todo[first : first + size]), batch))
    for deal in range(games // players if on == "reference" else 0):
        indices = tuple(i for i in range(deal * players, (deal + 1) * players) if i not in known)
        if indices:
            table = tables[deal % len(tables)]
            tasks.append(_Task(table, players, rules, seed, indices, True, False, duplicate=True))
    start = time.perf_counter()
    results = gather(tasks, jobs, backend, ray_address, known.values(), on_result, progress)
    return League(
        agents=tuple(agent_label(spec) for spec in agents),
        players=players,
        seed=seed,
        tables=tuple(tuple(agent_label(spec) for spec in table) for table in tables),
        results=tuple(results),
        seconds=time.perf_counter() - start,
        jobs=jobs,
        backend=backend,
        engine=on,
    )
