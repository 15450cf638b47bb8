"""Bots: an agent sees only its :class:`~meuterer.views.PlayerView` and the legal actions.

>>> import random
>>> import meuterer
>>> from meuterer.agents import RandomAgent, play_game
>>> final, actions = play_game([RandomAgent()] * 3, seed=5)
>>> meuterer.is_terminal(final), len(final.scores)
(True, 3)
"""

from meuterer.agents.base import Agent, RandomAgent, play_game
from meuterer.agents.greedy import GreedyAgent
from meuterer.agents.ismcts import ISMCTSAgent

__all__ = ["Agent", "GreedyAgent", "ISMCTSAgent", "RandomAgent", "play_game"]
