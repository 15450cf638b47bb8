"""Statistics and ratings of games played by seated agents: per agent the win share (ties
shared), the mean score margin and per seat the seat's win share, with 95 % normal intervals
over deals (:func:`mean_interval`); the OpenSkill Plackett-Luce rating (extra
``meuterer[rate]``); the seat baseline of random players and the plot of a league's ratings.
See :mod:`meuterer.tournament.rate` for how a league deals and seats its games.
"""

from __future__ import annotations

import importlib
import math
import os
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from meuterer._install import install_hint
from meuterer.errors import SetupError
from meuterer.rules import Rules
from meuterer.tournament.results import GameResult
from meuterer.tournament.statistics import Rate, summarize, wilson

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
        raise SetupError(f"ratings need the openskill package ({install_hint('rate')})") from None


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


def _tick_name(label: str) -> str:
    r"""A bot's name under its bar: a spec of three parts breaks before its last, so that
    neighbouring names never run into each other.

    >>> _tick_name("ismcts:32:policy"), _tick_name("ismcts:40")
    ('ismcts:32\n:policy', 'ismcts:40')
    """
    head, colon, last = label.rpartition(":")
    return f"{head}\n{colon}{last}" if ":" in head else label


def seat_baseline(games: int, players: int = 4, rules: Rules | None = None, seed: int = 0) -> tuple[Rate, ...]:
    """The win share (ties shared) of each seat among ``games`` games of random players, on
    the vector engine (extra ``meuterer[vector]``), with 95 % Wilson intervals."""
    try:
        vector = importlib.import_module("meuterer.vector")
    except ImportError as error:  # (its words say which import failed: not always numpy's)
        raise SetupError(f"the seat baseline needs numpy ({install_hint('vector')}; {error})") from None
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
        raise SetupError(f"the plot needs matplotlib ({install_hint('rate')})") from None
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
    left.set_xticks(spots, [f"{_tick_name(a.label)}\n{a.mu:.1f} ± {2 * a.sigma:.1f}" for a in ratings.agents])
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
