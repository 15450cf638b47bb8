"""Tournaments: many seeded games between agents (``meuterer.tournament.run``), their
per-game results and result files (``meuterer.tournament.results``), and summary
statistics (``meuterer.tournament.statistics``).

>>> from meuterer.tournament import run_tournament
>>> run = run_tournament(["greedy", "random", "random"], games=3, seed=1)
>>> run.summary().games
3
"""

from meuterer.agents.registry import AgentSpec as AgentSpec  # documented in meuterer.agents
from meuterer.agents.registry import agent_label
from meuterer.tournament.results import (
    Format,
    GameResult,
    ResultsFile,
    format_for,
    read_results,
    results_text,
    write_results,
    write_text_atomic,
)
from meuterer.tournament.run import (
    Backend,
    Progress,
    Tournament,
    game_seed,
    lineup,
    play_game_result,
    ray_available,
    run_tournament,
    seating,
)
from meuterer.tournament.statistics import Group, Rate, Summary, summarize, wilson

__all__ = [
    "Backend",
    "Format",
    "GameResult",
    "Group",
    "Progress",
    "Rate",
    "ResultsFile",
    "Summary",
    "Tournament",
    "agent_label",
    "format_for",
    "game_seed",
    "lineup",
    "play_game_result",
    "ray_available",
    "read_results",
    "results_text",
    "run_tournament",
    "seating",
    "summarize",
    "wilson",
    "write_results",
    "write_text_atomic",
]
