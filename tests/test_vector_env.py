"""The Gymnasium VectorEnv and the Pgx-style API on the vector engine: the invariants of
Pgx's api_test and Gymnasium's checks (dtypes, shapes, masks, rewards, reset by seed)."""

from __future__ import annotations

import re
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import pytest

import meuterer.gym  # noqa: F401 - registers meuterer/Meuterer-v0 and its vector entry point
from meuterer import Rules
from meuterer.errors import IllegalActionError, SetupError
from meuterer.vector.arrays import GAME_OVER
from meuterer.vector.env import MeutererVectorEnv, init, step
from meuterer.vector.greedy import BatchGreedy
from meuterer.vector.observation import observations
from meuterer.vector.policy import BatchPolicyAgent
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
        MeutererVectorEnv(num_envs=2, opponents="ismcts")


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


class PlainVectorEnv(MeutererVectorEnv):
    """The env as first written: every round of its loop a step of the whole batch through
    the public API (random actions and the check for every game, observations and masks of
    the whole batch). The env must play the same games, step for step."""

    def step(self, actions: npt.NDArray[np.int64]) -> Any:
        g = self.game
        g.step(actions)
        self._advance()
        terminated = g.terminal.copy()
        now = g.utilities(self.utility)[:, self.seat]
        rewards = now - self._last if self.reward_kind == "step" else np.where(terminated, now, 0.0)
        self._last = now.copy()
        info: dict[str, Any] = {"action_mask": g.legal_mask()}
        if terminated.any():
            info["final_obs"] = self._observe()
            info["final_info"] = {"scores": g.scores.copy(), "_scores": terminated.copy()}
            info["_final_obs"] = terminated.copy()
            info["_final_info"] = terminated.copy()
            g.reset(terminated)
            self._advance()
            self._last[terminated] = g.utilities(self.utility)[terminated, self.seat]
            info["action_mask"] = g.legal_mask()
        return self._observe(), rewards.astype(np.float32), terminated, np.zeros(self.num_envs, np.bool_), info

    def _advance(self) -> None:
        g = self.game
        while True:
            player = g.current_player
            moving = (player != self.seat) & (player != -2)
            if not moving.any():
                return
            actions = g.random_actions()
            for k, policy in enumerate(self._policies):
                theirs = np.flatnonzero(player == (k if k < self.seat else k + 1))
                if policy is None or not len(theirs):
                    continue
                if isinstance(policy, BatchGreedy | BatchPolicyAgent):
                    actions[theirs] = policy(g, theirs)
                else:
                    seen: npt.NDArray[Any] = observations(g, g.to_act)[theirs]
                    if self.observation_kind == "encoded":
                        seen = self.encoder(seen)
                    actions[theirs] = policy(seen, g.legal_mask()[theirs])
            g.step(actions, moving)


def _last_legal(observations: npt.NDArray[Any], masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    chosen: npt.NDArray[np.int64] = masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
    return chosen


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 4},
        {"players": 3, "seat": 1, "observation": "vector", "rules": Rules(pirates=True, ring="shuffled")},
        {
            "players": 4,
            "seat": 3,
            "reward": "terminal",
            "utility": "win",
            "opponents": [_last_legal, "random", _last_legal],
        },
        {
            "players": 4,
            "seat": 2,
            "observation": "vector",
            "rules": Rules(discard_pool="hand"),
            "opponents": _last_legal,
        },
        {"players": 4, "seat": 1, "rules": Rules(pirates=True), "opponents": ["greedy", _last_legal, "random"]},
        {"players": 3, "opponents": "greedy"},
    ],
)
def test_the_env_plays_the_games_of_the_plain_loop(kwargs: dict[str, Any]) -> None:
    envs = [cls(num_envs=16, rounds=1, **kwargs) for cls in (MeutererVectorEnv, PlainVectorEnv)]
    firsts = [env.reset(seed=6) for env in envs]
    np.testing.assert_array_equal(firsts[0][0], firsts[1][0])
    finished = 0
    for _ in range(80):
        actions = envs[0].random_actions()
        assert (envs[1].random_actions() == actions).all()
        got, plain = (env.step(actions) for env in envs)
        for one, other in zip(got[:4], plain[:4], strict=True):
            np.testing.assert_array_equal(one, other)
        assert list(got[4]) == list(plain[4])  # the same keys, in the same order
        for key, value in got[4].items():
            if key == "final_info":
                for part in ("scores", "_scores"):
                    np.testing.assert_array_equal(value[part], plain[4][key][part])
            elif key == "final_obs":  # the finished games' rows; zeros in the others
                done = got[4]["_final_obs"]
                assert value.shape == plain[4][key].shape and value.dtype == plain[4][key].dtype
                np.testing.assert_array_equal(value[done], plain[4][key][done])
                assert not value[~done].any()
            else:
                np.testing.assert_array_equal(value, plain[4][key])
        finished += int(got[2].sum())
    assert finished > 16  # restarts included


def test_an_illegal_opponent_action_refuses_the_step_naming_the_games() -> None:
    def offer_too_much(observations: npt.NDArray[Any], masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        return np.where(np.arange(len(masks)) % 2 == 1, 783, np.argmax(masks, axis=1))

    messages = []
    for cls in (MeutererVectorEnv, PlainVectorEnv):
        envs = cls(num_envs=5, seat=1, opponents=offer_too_much)
        with pytest.raises(IllegalActionError) as refused:
            envs.reset(seed=1)  # seat 0 is the first captain: his offer
        messages.append(str(refused.value))
    assert (
        messages[0]
        == messages[1]
        == "illegal action 'id(s) 783, 783': not legal in 2 game(s) of the batch: 1, 3 (nothing was applied)"
    )


def _refusal(envs: MeutererVectorEnv, actions: Any) -> tuple[type[BaseException], str] | None:
    """The error the batch's own check raises for ``actions`` (None: they are legal)."""
    try:
        envs.game.check(actions, envs.game.step_ != GAME_OVER)
    except Exception as error:  # any error: compared with the env's
        return type(error), str(error)
    return None


def test_the_learners_actions_are_checked_whatever_is_done_to_the_mask_handed_out() -> None:
    # The env checks the learner's actions against a mask of its own (kept from the end of
    # the previous step): writing into the mask it handed out changes nothing.
    envs = MeutererVectorEnv(num_envs=6, players=3, rounds=1, observation="vector")
    _, info = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    refused = 0
    for turn in range(60):
        mask = info["action_mask"]
        legal = mask.copy()  # (the batch's legal ids: no game is over between steps here)
        mask[...] = turn % 2 == 0  # all legal, or none, in the array the user holds
        actions = envs.random_actions()
        wrong = rng.random(6) < 0.2
        actions[wrong] = rng.integers(-2, envs.game.ids.num_actions + 2, size=int(wrong.sum()))
        expected = _refusal(envs, actions)
        assert expected is None or expected[0] is IllegalActionError
        inside = (actions >= 0) & (actions < legal.shape[1])
        assert (expected is None) == bool((inside & legal[np.arange(6), np.where(inside, actions, 0)]).all())
        kept = envs._mask
        assert kept is not None and kept[1] == envs.game._version  # the env's own check, not the batch's
        if expected is not None:
            with pytest.raises(IllegalActionError) as error:
                envs.step(actions)
            assert str(error.value) == expected[1]
            refused += 1
            actions = envs.random_actions()  # nothing was applied: a legal step now
        _, _, _, _, info = envs.step(actions)
    assert refused > 10
    bads: list[Any] = [[0] * 6, np.zeros(6, dtype=np.float64), np.zeros(5, dtype=np.int64)]
    for bad in bads:  # the batch's own errors
        expected = _refusal(envs, bad)
        assert expected is not None and expected[0] in (TypeError, ValueError)
        with pytest.raises(expected[0], match=re.escape(expected[1])):
            envs.step(bad)


def test_the_check_follows_the_batch_when_it_changes_between_steps() -> None:
    # The kept mask is the batch's at one state: once the batch changes (here a game set to
    # another's state), the learner's actions are checked against the new state.
    envs = MeutererVectorEnv(num_envs=8, observation="vector")
    _, info = envs.reset(seed=5)
    for _ in range(3):
        _, _, _, _, info = envs.step(envs.random_actions())
    mask = info["action_mask"]
    other = next(j for j in range(1, 8) if (mask[0] & ~mask[j]).any())
    stale = int(np.flatnonzero(mask[0] & ~mask[other])[0])  # legal in game 0, not in the other
    envs.game.set_state(0, envs.game.to_state(other))
    actions = envs.random_actions()
    actions[0] = stale
    with pytest.raises(IllegalActionError, match=r"game\(s\) of the batch: 0 "):
        envs.step(actions)
    assert (envs.action_masks()[0] == mask[other]).all()
    envs.step(envs.random_actions())  # the new state's legal actions pass
