"""Fit what ISMCTS counts at its horizon (``meuterer.agents.ismcts.HORIZON``) from greedy self-play.

Run from the repository root::

    PYTHONPATH=src python scripts/fit_horizon.py --games 3000

Plays ``--games`` games of four (two in three games) or three GreedyAgents
(``meuterer.fast.play_game``). At the end of each round but the last (phase 5 over, the face-down cards back in
the hands), it notes for every seat the features ``meuterer.agents.ismcts.horizon_features``
reads (the captain cards, the loadmaster role, the support cards and the goods kept,
split by whether next round's islands buy them) and the points the seat scores in the
rest of the game. A least-squares fit per player count (with a constant and the rounds
left as further columns) gives each feature's worth in VP, printed with its standard
error and as the ``HORIZON`` entry to paste.
"""

from __future__ import annotations

import argparse
import math

from meuterer.agents import GreedyAgent
from meuterer.agents.ismcts import FEATURES, horizon_features
from meuterer.fast import FastGame
from meuterer.fast.play import play_game
from meuterer.state import Phase


def collect(games: int, start: int) -> dict[int, list[tuple[list[float], float]]]:
    """Per player count, one (features, points scored later) row per seat and round."""
    rows: dict[int, list[tuple[list[float], float]]] = {3: [], 4: []}
    seen: list[tuple[int, list[list[float]], list[int]]] = []

    def note(_action: object, _seconds: float | None, game: FastGame) -> None:
        state = game.state
        if state.phase > Phase.SCORING and not game.is_terminal() and (not seen or seen[-1][0] != state.round):
            features = [horizon_features(state, seat) for seat in range(state.players)]
            seen.append((state.round, features, list(state.scores)))

    for seed in range(start, start + games):
        players = 3 if seed % 3 == 0 else 4
        seen.clear()
        _, final = play_game([GreedyAgent() for _ in range(players)], seed=seed, hook=note)
        rounds = final.rules.rounds_for(players)
        for round_, features, scores in seen:
            for seat in range(players):
                later = final.scores[seat] - scores[seat]
                rows[players].append(([1.0, *features[seat], float(rounds - round_)], float(later)))
    return rows


def least_squares(rows: list[tuple[list[float], float]]) -> tuple[list[float], list[float]]:
    """Coefficients and their standard errors (normal equations, Gauss-Jordan)."""
    k = len(rows[0][0])
    xtx = [[0.0] * k for _ in range(k)]
    xty = [0.0] * k
    for x, y in rows:
        for i in range(k):
            xty[i] += x[i] * y
            for j in range(k):
                xtx[i][j] += x[i] * x[j]
    inverse = _invert(xtx)
    beta = [sum(inverse[i][j] * xty[j] for j in range(k)) for i in range(k)]
    residual = sum((y - sum(b * v for b, v in zip(beta, x, strict=True))) ** 2 for x, y in rows)
    variance = residual / max(1, len(rows) - k)
    errors = [math.sqrt(max(0.0, inverse[i][i] * variance)) for i in range(k)]
    return beta, errors


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    a = [row[:] + [float(i == j) for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-12:
            raise ValueError(f"column {col} never varies in these games: no weight can be fitted for it")
        a[col], a[pivot] = a[pivot], a[col]
        scale = a[col][col]
        a[col] = [v / scale for v in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col]
                a[r] = [v - factor * p for v, p in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--start", type=int, default=0, help="seed of the first game")
    args = parser.parse_args()
    rows = collect(args.games, args.start)
    for players, found in sorted(rows.items()):
        beta, errors = least_squares(found)
        names = ["constant", *FEATURES, "rounds left"]
        print(f"{players} players, {len(found)} rows:")
        for name, value, error in zip(names, beta, errors, strict=True):
            print(f"  {name:>12} {value:+.2f} ± {error:.2f}")
        print(f"  HORIZON[{players}] = ({', '.join(f'{v:.2f}' for v in beta[1:-1])})")


if __name__ == "__main__":
    main()
