"""The batched greedy bot (``meuterer.vector.greedy``) chooses exactly as
:class:`~meuterer.agents.GreedyAgent`: whole games of greedy players replayed through the
batch, and the greedy opponents of the vector env."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from meuterer import Rules
from meuterer.agents import GreedyAgent, play_game
from meuterer.errors import SetupError
from meuterer.vector import VectorGame
from meuterer.vector.align import INTERACTIONS
from meuterer.vector.arrays import IntArray
from meuterer.vector.env import MeutererVectorEnv
from meuterer.vector.greedy import BatchGreedy, greedy_actions
from tests.helpers import check_env_opponents

GAMES = 4


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", INTERACTIONS, ids=range(len(INTERACTIONS)))
def test_batched_greedy_plays_the_games_greedy_agents_play(rules: Rules, players: int) -> None:
    """Greedy games played by the reference (seeds 0 to 3): the batch, given the same chance
    outcomes, chooses every decision of every seat as the agents did, to the game's end."""
    chooser = replay_greedy_games(rules, players, range(GAMES))
    # the agent itself decides only a play with the pirate card in hand (its robbery estimate)
    if rules.pirates:
        assert 0 < chooser.scalar < chooser.decisions
    else:
        assert chooser.scalar == 0


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", INTERACTIONS, ids=range(len(INTERACTIONS)))
def test_batched_greedy_plays_many_more_games_as_the_agents(rules: Rules, players: int) -> None:
    """The same over 30 more games a rule set and player count (seeds 100 to 129): the
    array estimates (plans, best sales, role values, tails, declarations, discards) meet
    many more hands, tables and ties."""
    replay_greedy_games(rules, players, range(100, 130))


def replay_greedy_games(rules: Rules, players: int, seeds: range) -> BatchGreedy:
    """Play greedy games with the reference, replay them through a batch choosing with
    :class:`BatchGreedy` (the chance outcomes given) and check every choice; the chooser."""
    games = len(seeds)
    played = [play_game([GreedyAgent()] * players, seed=seed, rules=rules)[0] for seed in seeds]
    g = VectorGame(games, players, rules)
    chooser = BatchGreedy(rules)
    at = [0] * games
    while not g.terminal.all():
        chosen = greedy_actions(g, chooser)
        ids = np.zeros(games, dtype=np.int64)
        for game in np.flatnonzero(~g.terminal).tolist():
            expected = g.code(game, played[game][at[game]])
            if g.chance[game]:
                ids[game] = expected
            else:
                assert chosen[game] == expected, (game, at[game], played[game][at[game]])
                ids[game] = chosen[game]
            at[game] += 1
        g.step(ids)
    assert at == [len(actions) for actions in played]
    return chooser


def _first_legal(observations: Any, masks: npt.NDArray[np.bool_]) -> IntArray:
    first: IntArray = masks.argmax(axis=1)
    return first


@pytest.mark.parametrize("spec", [["greedy", _first_legal, "greedy"], ["random", "greedy", "random"], "greedy"])
def test_env_greedy_opponents_choose_as_the_agent_in_their_seats(spec: Any) -> None:
    """``opponents``: ``"greedy"`` for every other seat, or mixed with ``"random"`` and a
    callable: every move of a greedy seat is the agent's on the state it moved in."""
    specs = spec if isinstance(spec, list) else [spec] * 3
    greedy_seats = [k + 1 for k, one in enumerate(specs) if one == "greedy"]
    env = MeutererVectorEnv(num_envs=8, players=4, opponents=spec, rules=Rules(pirates=True))
    check_env_opponents(env, greedy_seats, GreedyAgent(), seed=5)


def test_unknown_opponents_are_refused() -> None:
    with pytest.raises(SetupError, match="'greedy'"):
        MeutererVectorEnv(num_envs=2, opponents="clever")
