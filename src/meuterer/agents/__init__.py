"""Bots: an agent sees only its :class:`~meuterer.views.PlayerView` and the legal actions.

Agents are named by one spec grammar (``random``, ``greedy``, ``ismcts:50``), see
``meuterer.agents.registry``.

>>> import meuterer
>>> from meuterer.agents import RandomAgent, make_agent, play_game
>>> actions, final = play_game([RandomAgent(), make_agent("greedy"), make_agent("random")], seed=5)
>>> meuterer.is_terminal(final), len(final.scores)
(True, 3)
"""

from meuterer.agents.base import Agent, Decision, Move, Played, RandomAgent, choose, play_game
from meuterer.agents.greedy import GreedyAgent
from meuterer.agents.ismcts import ISMCTSAgent
from meuterer.agents.registry import AgentSpec, AgentSpecError, agent_label, make_agent, register_agent

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "Decision",
    "GreedyAgent",
    "ISMCTSAgent",
    "Move",
    "Played",
    "RandomAgent",
    "agent_label",
    "choose",
    "make_agent",
    "play_game",
    "register_agent",
]
