"""ISMCTS strength at a given time per move: one ISMCTS seat against three GreedyAgents.

Game ``g`` is played from seed ``g`` with the ISMCTS agent in seat ``g % 4`` (seats
rotate; seat 0 is the first captain). Prints the ISMCTS seat's win share (ties share the
win) with a 95% Wilson interval, and its mean CPU time per move (every move it makes).
Results are appended one JSON line per game to ``--out`` if given, so runs can be split
across processes (``--start``) and summed with ``--summarise``.

    python benchmarks/bench_strength.py [--iterations 50] [--rollout greedy] [--opponents search]
        [--exploration 1.5] [--prior-weight 1.0] [--games 100] [--start 1000] [--out results.jsonl]
    python benchmarks/bench_strength.py --summarise results.jsonl [more.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from meuterer.actions import Action
from meuterer.agents import GreedyAgent, ISMCTSAgent, play_game
from meuterer.agents.base import Agent
from meuterer.agents.ismcts import PRIOR_WEIGHT, Opponents, Rollout
from meuterer.tournament import wilson
from meuterer.views import PlayerView


class Timed:
    """An agent that counts its moves and the CPU time they take."""

    name = "timed"

    def __init__(self, agent: Agent) -> None:
        self.agent, self.seconds, self.moves = agent, 0.0, 0

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        start = time.process_time()
        action = self.agent.act(view, legal, rng)
        self.seconds += time.process_time() - start
        self.moves += 1
        return action


def summary(rows: list[dict[str, float]]) -> str:
    n = len(rows)
    share = sum(r["share"] for r in rows)
    low, high = wilson(share, n)
    per_move = 1e3 * sum(r["seconds"] for r in rows) / sum(r["moves"] for r in rows)
    return f"{n} games: win share {share / n:.3f} [{low:.3f}, {high:.3f}], {per_move:.1f} ms per move (CPU)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--rollout", default="greedy", choices=get_args(Rollout))
    parser.add_argument(
        "--prior-weight", type=float, default=PRIOR_WEIGHT, help="the PUCT constant of --rollout policy's prior"
    )
    parser.add_argument("--opponents", default="search", choices=get_args(Opponents))
    parser.add_argument("--exploration", type=float, default=1.5)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--start", type=int, default=1000, help="seed of the first game (default 1000)")
    parser.add_argument("--out", help="append one JSON line per game here")
    parser.add_argument("--summarise", nargs="+", metavar="FILE", help="only sum up earlier --out files")
    args = parser.parse_args()
    if args.summarise:
        found = [
            json.loads(line) for path in args.summarise for line in Path(path).read_text(encoding="utf-8").splitlines()
        ]
        print(summary(found))
        return
    rows = []
    for game in range(args.start, args.start + args.games):
        seat = game % 4
        search = ISMCTSAgent(
            iterations=args.iterations,
            rollout=args.rollout,
            exploration=args.exploration,
            prior_weight=args.prior_weight,
            opponents=args.opponents,
        )
        me = Timed(search)
        agents: list[Agent] = [GreedyAgent() for _ in range(4)]
        agents[seat] = me
        _, final = play_game(agents, seed=game)
        best = max(final.scores)
        winners = [p for p, score in enumerate(final.scores) if score == best]
        row = {
            "game": game,
            "share": 1 / len(winners) if seat in winners else 0.0,
            "seconds": me.seconds,
            "moves": me.moves,
        }
        rows.append(row)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
    extra = f", prior weight {args.prior_weight}" if args.rollout == "policy" else ""
    spec = f"ismcts:{args.iterations}:{args.rollout}:{args.opponents}"
    print(f"{spec}, exploration {args.exploration}{extra}, " + summary(rows))


if __name__ == "__main__":
    main()
