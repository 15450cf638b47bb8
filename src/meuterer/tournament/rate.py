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

import importlib
import itertools
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from meuterer.agents.registry import AgentSpec, agent_label, make_agent
from meuterer.errors import SetupError
from meuterer.rules import Rules
from meuterer.tournament.results import GameResult
from meuterer.tournament.run import Backend, Progress, _local, _ray, _Task, game_seed, lineup, seating
from meuterer.tournament.statistics import Rate, summarize, wilson

__all__ = [
    "AgentRating",
    "Interval",
    "League",
    "Ratings",
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


# Intervals ----------------------------------------------------------------------------------


@attrs.frozen
class Interval:
    """A mean with its 95 % interval (``low``, ``high``) over ``n`` independent units."""

    mean: float
    low: float
    high: float
    n: int

    def data(self) -> dict[str, Any]:
        """As plain JSON data (an unknown bound is ``None``)."""
        return {
            "mean": self.mean,
            "low": self.low if math.isfinite(self.low) else None,
            "high": self.high if math.isfinite(self.high) else None,
            "n": self.n,
        }


def mean_interval(
    values: Sequence[float], z: float = 1.96, bounds: tuple[float, float] = (-math.inf, math.inf)
) -> Interval:
    """The mean of ``values`` with its normal interval ``mean ± z * sd / sqrt(n)`` (95 % for
    the default ``z``), clipped to ``bounds``; with fewer than two values the interval is
    ``bounds`` (nothing is known of the spread).

    >>> i = mean_interval([0.25, 0.5, 0.75, 0.5], bounds=(0.0, 1.0))
    >>> round(i.mean, 4), round(i.low, 4), round(i.high, 4), i.n
    (0.5, 0.3, 0.7, 4)
    >>> mean_interval([1.0]).low
    -inf
    """
    n = len(values)
    if n == 0:
        return Interval(0.0, bounds[0], bounds[1], 0)
    mean = statistics.fmean(values)
    if n < 2:
        return Interval(mean, bounds[0], bounds[1], n)
    half = z * statistics.stdev(values) / math.sqrt(n)
    return Interval(mean, max(bounds[0], mean - half), min(bounds[1], mean + half), n)


def share_interval(values: Sequence[float], z: float = 1.96) -> Interval:
    """:func:`mean_interval` of shares (values in [0, 1]), clipped to [0, 1]; when every
    value is the same (no spread seen, e.g. an agent that never wins), the Wilson interval
    of ``sum(values)`` successes in ``len(values)`` trials instead, which a spread of zero
    cannot shrink to a point (a share's variance is at most ``p * (1 - p)``).

    >>> i = share_interval([0.0] * 20)
    >>> i.mean, i.low, round(i.high, 3)
    (0.0, 0.0, 0.161)
    >>> share_interval([0.25, 0.5, 0.75, 0.5]) == mean_interval([0.25, 0.5, 0.75, 0.5], bounds=(0.0, 1.0))
    True
    """
    if len(values) >= 2 and min(values) == max(values):
        low, high = wilson(sum(values), len(values), z)
        return Interval(statistics.fmean(values), low, high, len(values))
    return mean_interval(values, z, bounds=(0.0, 1.0))


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
) -> League:
    """Play a league of ``agents`` (specs or factories, each named once) over ``games``
    games rounded up to whole rounds (:func:`league_games`), on ``jobs`` local processes or
    Ray (``backend``, ``ray_address``) as :func:`~meuterer.tournament.run_tournament` does.
    ``progress`` is called with the number of games just finished, ``on_result`` with each
    result as its game finishes; ``done`` are results of this league already known (an
    interrupted run with the same seed and agents), not played again. On Ctrl-C the workers
    stop and the exception passes on; what ``on_result`` got by then is complete.

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
    games = league_games(games, players, len(tables))
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    known = {result.index: result for result in done if result.index < games}
    for result in known.values():
        seated = tuple(agent_label(spec) for spec in league_seating(tables, players, result.index))
        if result.seed != game_seed(seed, result.index // players) or result.agents != seated:
            raise SetupError(f"game {result.index} of the results to resume is not game {result.index} of this league")
    tasks = []
    for deal in range(games // players):
        indices = tuple(i for i in range(deal * players, (deal + 1) * players) if i not in known)
        if indices:
            table = tables[deal % len(tables)]
            tasks.append(_Task(table, players, rules, seed, indices, True, False, duplicate=True))
    jobs = max(1, jobs)
    start = time.perf_counter()
    chunks = _ray(tasks, jobs, ray_address) if backend == "ray" else _local(tasks, jobs)
    results = list(known.values())
    try:
        for finished in chunks:
            for result, _ in finished:
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
    return League(
        agents=tuple(agent_label(spec) for spec in agents),
        players=players,
        seed=seed,
        tables=tuple(tuple(agent_label(spec) for spec in table) for table in tables),
        results=tuple(results),
        seconds=time.perf_counter() - start,
        jobs=jobs,
        backend=backend,
    )


# Statistics and ratings ---------------------------------------------------------------------


@attrs.frozen
class AgentRating:
    """One agent's statistics in a league."""

    label: str
    games: int
    """Seats held: games played, times the seats held in each."""
    wins: Interval
    """Win share (ties shared), averaged per deal, with its interval over deals."""
    margin: Interval
    """Score minus the mean of the other seats' scores, averaged per deal."""
    seats: tuple[Interval, ...]
    """Win share in each seat."""
    mu: float
    sigma: float
    ms_per_move: float | None
    """Mean thinking time per decision, in milliseconds, over the games played now
    (``None`` if none: results read back from a file have no timings)."""

    @property
    def ordinal(self) -> float:
        """The conservative rating ``mu - 3 * sigma`` (the usual leaderboard key)."""
        return self.mu - 3 * self.sigma

    def data(self) -> dict[str, Any]:
        """As plain JSON data."""
        return {
            "agent": self.label,
            "games": self.games,
            "wins": self.wins.data(),
            "margin": self.margin.data(),
            "seats": [seat.data() for seat in self.seats],
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "ms_per_move": self.ms_per_move,
        }


@attrs.frozen
class Ratings:
    """What :func:`rate_results` finds: per agent, best rated first, and per seat."""

    players: int
    games: int
    """Games counted (those of whole deals)."""
    deals: int
    left_out: int
    """Games of deals not played in every rotation (an interrupted run), not counted."""
    agents: tuple[AgentRating, ...]
    seats: tuple[Interval, ...]
    """The win share of each seat in the league, whoever held it (seats rotate evenly)."""
    baseline: tuple[Rate, ...]
    """The win share of each seat among equal agents (random players), if measured."""
    seconds: float
    cpu_seconds: float
    """Time spent in the games (agents and engine), summed over all processes."""

    def data(self) -> dict[str, Any]:
        """As plain JSON data."""
        return {
            "players": self.players,
            "games": self.games,
            "deals": self.deals,
            "left_out": self.left_out,
            "agents": [agent.data() for agent in self.agents],
            "seats": [seat.data() for seat in self.seats],
            "baseline": [
                {"mean": rate.rate, "low": rate.low, "high": rate.high, "n": rate.n} for rate in self.baseline
            ],
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
        }

    def rows(self) -> list[dict[str, object]]:
        """One row per agent (the CSV table)."""
        rows: list[dict[str, object]] = []
        for agent in self.agents:
            row: dict[str, object] = {
                "agent": agent.label,
                "games": agent.games,
                "wins": round(agent.wins.mean, 4),
                "wins_low": round(agent.wins.low, 4),
                "wins_high": round(agent.wins.high, 4),
                "margin": round(agent.margin.mean, 3),
                "margin_low": round(agent.margin.low, 3),
                "margin_high": round(agent.margin.high, 3),
                "mu": round(agent.mu, 3),
                "sigma": round(agent.sigma, 3),
                "ordinal": round(agent.ordinal, 3),
                "ms_per_move": None if agent.ms_per_move is None else round(agent.ms_per_move, 3),
            }
            row.update({f"wins_p{seat}": round(interval.mean, 4) for seat, interval in enumerate(agent.seats)})
            rows.append(row)
        return rows


def _openskill() -> Any:
    try:
        return importlib.import_module("openskill.models")
    except ImportError:
        raise SetupError("ratings need the openskill package: pip install 'meuterer[rate]'") from None


def _skill(games: Sequence[GameResult], labels: Sequence[str]) -> dict[str, tuple[float, float]]:
    """OpenSkill (Plackett-Luce) ratings after ``games`` in order, each ranked by score. An
    agent holding several seats of a game (fewer agents than seats) gets the mean of its
    seats' updates."""
    model = _openskill().PlackettLuce()
    rating = {label: model.rating(name=label) for label in labels}
    for game in games:
        teams = [[model.rating(mu=rating[a].mu, sigma=rating[a].sigma)] for a in game.agents]
        updated = model.rate(teams, scores=list(game.scores))
        for label in set(game.agents):
            seats = [seat for seat, a in enumerate(game.agents) if a == label]
            mu = statistics.fmean(updated[seat][0].mu for seat in seats)
            sigma = statistics.fmean(updated[seat][0].sigma for seat in seats)
            rating[label] = model.rating(mu=mu, sigma=sigma, name=label)
    return {label: (r.mu, r.sigma) for label, r in rating.items()}


def rate_results(
    results: Sequence[GameResult],
    players: int,
    labels: Sequence[str] = (),
    baseline: Sequence[Rate] = (),
    seconds: float = 0.0,
) -> Ratings:
    """Statistics and ratings of a league's results (games of the same deal share a seed and
    come in ``players`` consecutive indices, as :func:`run_league` plays them); only whole
    deals count. ``labels``: the agents, in the order given (default: as they appear).
    ``baseline``: the per-seat win shares among equal agents (:func:`seat_baseline`), kept
    as they are. Needs the ``openskill`` package (extra ``meuterer[rate]``)."""
    by_deal: dict[int, list[GameResult]] = {}
    for result in results:
        by_deal.setdefault(result.index // players, []).append(result)
    deals = {deal: games for deal, games in sorted(by_deal.items()) if len(games) == players}
    counted = [game for games in deals.values() for game in sorted(games, key=lambda r: r.index)]
    names = list(labels) + [a for game in counted for a in game.agents if a not in labels]
    names = list(dict.fromkeys(names))
    skill = _skill(counted, names)
    timed = [game for game in counted if game.think]
    timing = {group.label: group.ms_per_move for group in summarize(timed, players).agents}

    def per_deal(value: Callable[[GameResult, int], float], name: str | None, seat: int | None = None) -> list[float]:
        """``value`` of the (game, seat) pairs held by ``name`` (any agent: ``None``) in
        ``seat`` (any seat: ``None``), averaged per deal, for the deals with any."""
        out = []
        seats = range(players) if seat is None else (seat,)
        for games in deals.values():
            values = [value(game, s) for game in games for s in seats if name is None or game.agents[s] == name]
            if values:
                out.append(statistics.fmean(values))
        return out

    def share(game: GameResult, seat: int) -> float:
        return game.shares[seat]

    def margin(game: GameResult, seat: int) -> float:
        return game.scores[seat] - (sum(game.scores) - game.scores[seat]) / (players - 1)

    agents = [
        AgentRating(
            label=name,
            games=sum(game.agents.count(name) for game in counted),
            wins=share_interval(per_deal(share, name)),
            margin=mean_interval(per_deal(margin, name)),
            seats=tuple(share_interval(per_deal(share, name, seat)) for seat in range(players)),
            mu=skill[name][0],
            sigma=skill[name][1],
            ms_per_move=timing.get(name),
        )
        for name in names
    ]
    agents.sort(key=lambda a: -a.ordinal)
    return Ratings(
        players=players,
        games=len(counted),
        deals=len(deals),
        left_out=len(results) - len(counted),
        agents=tuple(agents),
        seats=tuple(share_interval(per_deal(share, None, seat)) for seat in range(players)),
        baseline=tuple(baseline),
        seconds=seconds,
        cpu_seconds=sum(game.seconds for game in counted),
    )


def seat_baseline(games: int, players: int = 4, rules: Rules | None = None, seed: int = 0) -> tuple[Rate, ...]:
    """The win share (ties shared) of each seat among ``games`` games of random players, on
    the vector engine (extra ``meuterer[vector]``), with 95 % Wilson intervals."""
    try:
        vector = importlib.import_module("meuterer.vector")
    except ImportError:
        raise SetupError("the seat baseline needs numpy: pip install 'meuterer[vector]'") from None
    played = vector.random_playouts(games, players, rules, batch=min(4096, max(1, games)), seed=seed)
    return tuple(Rate.of(float(played.wins[:, seat].sum()), games) for seat in range(players))


# Plot ---------------------------------------------------------------------------------------


def plot_ratings(ratings: Ratings, path: str | os.PathLike[str], title: str = "") -> None:
    """Draw ``ratings`` into an image file (PNG, SVG or PDF by its suffix) with matplotlib
    (extra ``meuterer[rate]``): per agent the win share with its 95 % interval next to par
    (``1 / players``), and per seat the league's and the random players' win shares."""
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        raise SetupError("the plot needs matplotlib: pip install 'meuterer[rate]'") from None
    matplotlib.use("Agg")
    pyplot = importlib.import_module("matplotlib.pyplot")
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4.5), gridspec_kw={"width_ratios": [3, 2]})
    par = 1 / ratings.players

    def bars(axis: Any, x: Sequence[float], intervals: Sequence[tuple[float, float, float]], **style: Any) -> None:
        means = [m for m, _, _ in intervals]
        below = [m - low for m, low, _ in intervals]
        above = [high - m for m, _, high in intervals]
        axis.bar(x, means, yerr=[below, above], capsize=4, **style)

    labels = [agent.label for agent in ratings.agents]
    spots = list(range(len(labels)))
    bars(
        left, spots, [(a.wins.mean, a.wins.low, a.wins.high) for a in ratings.agents], label="win share (95 % interval)"
    )
    left.axhline(par, color="black", linestyle="--", linewidth=1, label=f"par (1/{ratings.players})")
    left.set_xticks(spots, [f"{a.label}\n{a.mu:.1f} ± {2 * a.sigma:.1f}" for a in ratings.agents])
    left.set_xlabel("agent (OpenSkill mu ± 2 sigma), best rated first")
    left.set_ylabel("win share, ties shared")
    left.set_title(f"Per agent: {ratings.games} games, {ratings.deals} deals")
    left.set_ylim(0, 1)
    left.legend(loc="upper right")
    seats = list(range(ratings.players))
    width = 0.4 if ratings.baseline else 0.8
    bars(
        right,
        [s - width / 2 if ratings.baseline else s for s in seats],
        [(i.mean, i.low, i.high) for i in ratings.seats],
        width=width,
        label="this league",
    )
    if ratings.baseline:
        bars(
            right,
            [s + width / 2 for s in seats],
            [(r.rate, r.low, r.high) for r in ratings.baseline],
            width=width,
            label=f"random players ({ratings.baseline[0].n} games)",
        )
    right.axhline(par, color="black", linestyle="--", linewidth=1, label="par")
    right.set_xticks(seats, [f"p{s}" for s in seats])
    right.set_xlabel("seat (p0 is the first captain)")
    right.set_ylabel("win share, ties shared")
    right.set_title("Per seat")
    right.set_ylim(0, 1.3 * max(0.4, *(i.high for i in ratings.seats), *(r.high for r in ratings.baseline)))
    right.legend(loc="upper right")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(Path(path))
    pyplot.close(figure)
