"""Summary statistics of a tournament: win shares with Wilson intervals, scores, mutinies."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import attrs

from meuterer.tournament.results import GameResult

__all__ = ["Group", "Rate", "Summary", "summarize", "wilson"]


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
    played: int = -1
    """Games played in this run's time (a resumed run read the others from a file, without
    timings); ``-1``: all of them."""

    @property
    def games_timed(self) -> int:
        """The games :attr:`seconds` and :attr:`cpu_seconds` were spent on."""
        return self.games if self.played < 0 else self.played

    @property
    def games_per_second(self) -> float:
        """Throughput (games played per wall-clock second)."""
        return self.games_timed / self.seconds if self.seconds else 0.0


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
        played=sum(1 for result in results if result.seconds > 0) if any(r.seconds for r in results) else -1,
    )
