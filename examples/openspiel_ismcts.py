"""OpenSpiel's IS-MCTS bot plays Meuterer (seat 0) against two random players.

    pip install 'meuterer[openspiel]'
    python examples/openspiel_ismcts.py

The game comes from the OpenSpiel adapter (``pyspiel.load_game("python_meuterer")``); the
bot is ``open_spiel.python.algorithms.ismcts`` with random rollouts, searching worlds drawn
from what seat 0 knows. A short game (three rounds) keeps the run to a few seconds.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from meuterer.openspiel import resampler  # importing the adapter registers python_meuterer


def main(seed: int = 7, rounds: int = 3, simulations: int = 200) -> None:
    game = pyspiel.load_game("python_meuterer", {"players": 3, "rounds": rounds})
    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        uct_c=2.0,
        max_simulations=simulations,
        random_state=rng,
    )
    bot.set_resampler(resampler(random.Random(seed)))  # reproducible determinisations
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            action = rng.choice(outcomes, p=probabilities)
        else:
            player = state.current_player()
            action = bot.step(state) if player == 0 else rng.choice(state.legal_actions())
            print(state.action_to_string(player, action) + ("  (IS-MCTS)" if player == 0 else ""))
        state.apply_action(action)
    print("scores:", [int(score) for score in state.returns()], "(p0 is the IS-MCTS bot)")


if __name__ == "__main__":
    main()
