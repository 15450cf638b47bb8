"""Play one seeded game between random players and print the result.

python examples/random_game.py
"""

from __future__ import annotations

import random

import meuterer


def main(seed: int = 7) -> None:
    rng = random.Random(seed)
    state = meuterer.new_game(players=4, first_captain=0)
    while not meuterer.is_terminal(state):
        if meuterer.current_player(state) == meuterer.CHANCE:
            action = meuterer.sample_chance(state, rng)
        else:
            action = rng.choice(meuterer.legal_actions(state))
        state = meuterer.apply(state, action)
    print("scores:", meuterer.scores(state), "winners:", meuterer.winners(state))


if __name__ == "__main__":
    main()
