"""The Gymnasium VectorEnv and the Pgx-style API on the vector engine: the invariants of
Pgx's api_test and Gymnasium's checks (dtypes, shapes, masks, rewards, reset by seed)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import pytest

import meuterer.gym  # noqa: F401 - registers meuterer/Meuterer-v0 and its vector entry point
from meuterer import Rules
from meuterer.errors import IllegalActionError, SetupError
from meuterer.vector.env import MeutererVectorEnv, init, step
from meuterer.views import observation_layout, view


def _play(envs: MeutererVectorEnv, steps: int) -> tuple[list[float], list[Any]]:
    """Random legal steps; each finished episode's summed rewards and final info."""
    totals = np.zeros(envs.num_envs)
    finished: list[float] = []
    infos: list[Any] = []
    for _ in range(steps):
        mask = envs.action_masks()
        assert mask.any(axis=1).all()  # a legal action in every game, always
        observation, rewards, terminated, truncated, info = envs.step(envs.random_actions())
        assert observation.shape == envs.observation_space.shape and envs.observation_space.contains(observation)
        assert rewards.dtype == np.float32 and terminated.dtype == np.bool_ and not truncated.any()
        totals += rewards
        if terminated.any():
            finished += totals[terminated].tolist()
            totals[terminated] = 0
            infos.append(info)
    return finished, infos


def test_make_vec_builds_it_with_same_step_autoreset() -> None:
    envs = gymnasium.make_vec("meuterer/Meuterer-v0", num_envs=4, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, MeutererVectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    observation, info = envs.reset(seed=3)
    assert observation.shape == (4, observation_layout(4).encoded_size) and observation.dtype == np.float32
    assert info["action_mask"].shape == (4, 784)


def test_episodes_rewards_add_up_to_the_final_utility_and_games_restart() -> None:
    envs = MeutererVectorEnv(num_envs=6, players=3, rounds=1, observation="vector", utility="score")
    envs.reset(seed=1)
    finished, infos = _play(envs, 120)
    assert len(finished) >= 6
    final = np.concatenate([info["final_info"]["scores"][info["_final_info"]][:, 0] for info in infos])
    assert finished == final.astype(float).tolist()
    assert all(info["final_obs"].shape == (6, observation_layout(3).size) for info in infos)


def test_terminal_rewards_and_win_utility() -> None:
    envs = MeutererVectorEnv(num_envs=4, rounds=1, reward="terminal", utility="win", observation="vector")
    envs.reset(seed=2)
    finished, _ = _play(envs, 100)
    assert finished and set(finished) <= {0.0, 0.25, 1 / 3, 0.5, 1.0}


def test_reset_is_deterministic_by_seed() -> None:
    def run(seed: int) -> list[int]:
        envs = MeutererVectorEnv(num_envs=3, observation="vector")
        observation, _ = envs.reset(seed=seed)
        for _ in range(10):
            observation, *_ = envs.step(envs.random_actions())
        return [int(x) for x in observation.ravel()]

    assert run(5) == run(5) and run(5) != run(6)


def test_observations_are_the_learners_view() -> None:
    envs = MeutererVectorEnv(num_envs=3, seat=2, observation="vector")
    observation, _ = envs.reset(seed=4)
    for _ in range(5):
        observation, *_ = envs.step(envs.random_actions())
    layout = observation_layout(4)
    for i in range(3):
        assert observation[i].tolist() == list(layout.vector(view(envs.game.to_state(i), 2)))
        assert envs.game.to_state(i).to_act == 2


def test_callable_opponents_get_a_batch_of_observations_and_masks() -> None:
    calls: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def first_legal(observations: npt.NDArray[Any], masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        calls.append((observations.shape, masks.shape))
        chosen: npt.NDArray[np.int64] = np.argmax(masks, axis=1)
        return chosen

    envs = MeutererVectorEnv(num_envs=5, opponents=[first_legal, "random", first_legal])
    envs.reset(seed=1)
    _play(envs, 20)
    assert calls and all(o[1] == observation_layout(4).encoded_size and m[1] == 784 for o, m in calls)


def test_illegal_actions_refuse_the_step_and_bad_setups_are_refused() -> None:
    envs = MeutererVectorEnv(num_envs=3)
    envs.reset(seed=1)
    with pytest.raises(IllegalActionError, match=": 0, 1, 2 "):
        envs.step(np.full(3, 783))
    for kwargs in ({"seat": 4}, {"reward": "dense"}, {"utility": "money"}, {"observation": "pixels"}):
        with pytest.raises(SetupError):
            MeutererVectorEnv(num_envs=2, **kwargs)
    with pytest.raises(SetupError, match="one policy per other seat"):
        MeutererVectorEnv(num_envs=2, opponents=["random"])
    with pytest.raises(SetupError, match="callable"):
        MeutererVectorEnv(num_envs=2, opponents="greedy")


def test_pgx_style_api_every_seat_zero_sum_rewards() -> None:
    state = init(8, players=4, rules=Rules(rounds=2, pirates=True), seed=3)
    total = np.zeros((8, 4))
    layout = observation_layout(4, state.game.rules)
    while not state.terminated.all():
        assert state.legal_action_mask[~state.terminated].any(axis=1).all()
        old = state
        state = step(state, state.game.random_actions())
        assert old.game is not state.game  # pure: the old state is unchanged
        np.testing.assert_allclose(state.rewards.sum(axis=1), 0.0, atol=1e-4)  # relative utility: zero sum
        total += state.rewards
    np.testing.assert_allclose(total, state.game.utilities("relative"), atol=1e-3)
    seat_views = [layout.vector(view(state.game.to_state(0), seat)) for seat in range(4)]
    assert state.observation[0].tolist() == [list(v) for v in seat_views]
    assert (state.current_player == -2).all()
