"""Hidden-information speed: ``view`` and ``sample_state`` per call (µs).

Every snapshot of seeded random games (3 and 4 players, with and without the pirate
variant) is viewed by every seat and by a spectator; each of those views is then
completed into a state by ``sample_state``. Also timed, for reference: the view's
canonical JSON, its observation vector, and redacting plus replaying a whole record.
Targets (issue 4): view under 20 µs, sample under 100 µs.

    python benchmarks/bench_views.py [--games N] [--repeat N]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable

import meuterer
from meuterer import Game, Rules, State
from meuterer.record import make_record
from meuterer.redact import redact, replay_views
from meuterer.views import PlayerView, dumps_view, observation_vector, sample_state, view


def snapshots(games: int) -> tuple[list[tuple[State, int | None]], list[Game]]:
    """(state, viewer) for every snapshot and viewer of ``games`` seeded games, and the games."""
    pairs: list[tuple[State, int | None]] = []
    played = []
    for seed in range(games):
        players, rules = 3 + seed % 2, Rules(pirates=seed % 4 >= 2)
        actions, _ = meuterer.random_game(seed=seed, players=players, first_captain=seed % players, rules=rules)
        game = Game.replay(actions, players, seed % players, rules)
        played.append(game)
        pairs += [(state, p) for state in game.states for p in (None, *range(players))]
    return pairs, played


def per_call(run: Callable[[], object], calls: int, repeat: int) -> tuple[float, float]:
    """Best and median µs per call over ``repeat`` runs of ``run`` (which makes ``calls`` calls)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="seeded games (default 20)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs, best and median shown (default 5)")
    args = parser.parse_args()
    pairs, games = snapshots(args.games)
    views: list[PlayerView] = [view(state, p) for state, p in pairs]
    rng = random.Random(1)

    def views_run() -> None:
        for state, p in pairs:
            view(state, p)

    def samples_run() -> None:
        for v in views:
            sample_state(v, rng)

    def dumps_run() -> None:
        for v in views:
            dumps_view(v)

    def vector_run() -> None:
        for v in views:
            observation_vector(v)

    records = [make_record(game, digests=False) for game in games]

    def redact_run() -> None:
        for record in records:
            for p in (None, *range(len(record.players))):
                replay_views(redact(record, p))

    print(f"meuterer {meuterer.__version__}, Python {platform.python_version()}, {platform.machine()}, one core")
    print(f"{len(pairs):,} (state, viewer) pairs from {len(games)} games")
    rows = [
        ("view", views_run, len(pairs), "target < 20"),
        ("sample_state", samples_run, len(views), "target < 100"),
        ("dumps_view", dumps_run, len(views), ""),
        ("observation_vector", vector_run, len(views), ""),
        ("redact + replay_views, per action", redact_run, len(pairs), ""),
    ]
    for name, run, calls, target in rows:
        run()  # warm-up
        best, median = per_call(run, calls, args.repeat)
        print(f"{name:34} best {best:7.2f} µs   median {median:7.2f} µs   {target}")


if __name__ == "__main__":
    main()
