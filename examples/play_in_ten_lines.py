"""A whole game in ten lines: a greedy bot in seat 0 against three random bots.

python examples/play_in_ten_lines.py
"""

import meuterer
from meuterer.agents import GreedyAgent, RandomAgent, play_game

actions, final = play_game([GreedyAgent(), RandomAgent(), RandomAgent(), RandomAgent()], seed=1)
print(f"{len(actions)} actions, {final.round} rounds")
print("scores:", meuterer.scores(final), "winners:", meuterer.winners(final))
