"""The learned policy over a batch (``meuterer.vector.policy``) chooses as
:class:`~meuterer.agents.policy.PolicyAgent`: the policy opponents of the vector env, move
by move, and the seat counts and rules it refuses."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from meuterer import Rules, current_player
from meuterer.agents.policy import PolicyAgent, PolicyRulesError
from meuterer.engine import legal_actions
from meuterer.vector import VectorGame
from meuterer.vector.env import MeutererVectorEnv
from meuterer.vector.policy import BatchPolicyAgent
from meuterer.views import view
from tests.helpers import check_env_opponents


@pytest.mark.parametrize("spec", ["policy", ["policy", "greedy", "random"]])
def test_env_policy_opponents_choose_as_the_agent_in_their_seats(spec: Any) -> None:
    """Every move of a policy seat is the agent's on the state it moved in (a whole game and
    more in eight games)."""
    specs = spec if isinstance(spec, list) else [spec] * 3
    policy_seats = [k + 1 for k, one in enumerate(specs) if one == "policy"]
    env = MeutererVectorEnv(num_envs=8, players=4, opponents=spec)
    check_env_opponents(env, policy_seats, PolicyAgent(), seed=7)


def test_the_batch_chooses_legal_ids_the_agent_chooses() -> None:
    games = VectorGame(batch=16, players=4, seed=11)
    chooser = BatchPolicyAgent(4)
    agent, rng = PolicyAgent(), random.Random(0)
    for _ in range(40):
        games.advance_chance()
        idx = np.flatnonzero(~games.chance & ~games.terminal)
        chosen = chooser(games, idx)
        assert games.legal_mask()[idx, chosen].all()
        state = games.to_state(int(idx[0]))
        seat = current_player(state)
        assert seat is not None
        action = agent.act(view(state, seat), legal_actions(state), rng)
        assert games.ids.action_id(state, action) == chosen[0]
        full = np.zeros(games.batch, dtype=np.int64)
        full[idx] = chosen
        games.step(full, where=~games.terminal)


@pytest.mark.parametrize(
    ("players", "rules", "message"),
    [(3, Rules(), "plays 4-player games only"), (4, Rules(pirates=True), "does not play")],
)
def test_games_the_policy_was_not_trained_for_are_refused(players: int, rules: Rules, message: str) -> None:
    with pytest.raises(PolicyRulesError, match=message):
        BatchPolicyAgent(players, rules)
    with pytest.raises(PolicyRulesError, match=message):
        MeutererVectorEnv(num_envs=2, players=players, rules=rules, opponents="policy")
