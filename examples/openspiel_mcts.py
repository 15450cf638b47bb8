"""OpenSpiel's MCTS and IS-MCTS bots play Meuterer (seat 0) against random players.

    pip install 'meuterer[openspiel]'
    python examples/openspiel_mcts.py [--games N] [--quick]

The game is the OpenSpiel adapter's ``python_meuterer`` with its default terminal rewards,
which ``mcts.MCTSBot`` requires. ``MCTSBot`` searches the true state, hidden cards included
(it cheats: a strong baseline, not a fair player); ``ISMCTSBot`` searches states drawn from
what seat 0 knows (``resample_from_infostate``). Short games (two rounds, three players)
keep the run to about a minute; ``--quick`` (or ``MEUTERER_EXAMPLE_QUICK=1``) plays one game each.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from meuterer.openspiel import resampler  # importing the adapter registers python_meuterer


def play(game: Any, bot: Any, rng: np.random.RandomState) -> list[float]:
    """One game: the bot in seat 0, random players elsewhere; the returns."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choice(outcomes, p=probabilities))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return list(state.returns())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="games per bot (default 6)")
    parser.add_argument("--simulations", type=int, default=100, help="simulations per move (default 100)")
    parser.add_argument("--quick", action="store_true", help="one game per bot, 20 simulations")
    args = parser.parse_args()
    if args.quick or os.environ.get("MEUTERER_EXAMPLE_QUICK") == "1":
        args.games, args.simulations = 1, 20
    game = pyspiel.load_game("python_meuterer", {"players": 3, "rounds": 2})
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    is_mcts = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=args.simulations, random_state=rng)
    is_mcts.set_resampler(resampler(random.Random(7)))  # reproducible determinisations
    bots = {
        "MCTSBot (sees every card)": mcts.MCTSBot(game, 2.0, args.simulations, evaluator, random_state=rng),
        "ISMCTSBot (what seat 0 knows)": is_mcts,
    }
    print(f"3 players, 2 rounds, {args.simulations} simulations per move, {args.games} game(s) per bot")
    for name, bot in bots.items():
        start = time.perf_counter()
        results = [play(game, bot, rng) for _ in range(args.games)]
        mine = np.mean([r[0] for r in results])
        others = np.mean([np.mean(r[1:]) for r in results])
        won = np.mean([r[0] == max(r) for r in results])
        seconds = time.perf_counter() - start
        print(f"{name:30} p0 {mine:5.1f} VP, random players {others:5.1f} VP, p0 best in {won:.0%} ({seconds:.0f} s)")


if __name__ == "__main__":
    main()
