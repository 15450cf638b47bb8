"""Run a small tournament: one greedy bot against three random ones, on two processes.

    python examples/tournament.py

The same seed gives the same games whatever the number of processes.
"""

from __future__ import annotations

from meuterer.tournament import run_tournament


def main(games: int = 40) -> None:
    run = run_tournament(["greedy", "random"], games=games, players=4, seed=7, jobs=2)
    for group in run.summary().agents:
        wins = group.wins
        print(f"{group.label:>7}: won {wins.rate:.0%} of its games (95% interval {wins.low:.0%} to {wins.high:.0%})")


if __name__ == "__main__":
    main()
