"""The PettingZoo AEC env's decisions per second, next to the env as it was when issue 22 was filed.

Plays seeded games of ``meuterer.pettingzoo.env`` (4 players, every agent choosing uniformly
among his legal ids from ``last()``'s mask, as ``benchmarks/bench_adapters.py`` does) and
counts decisions per second of CPU time, for the vector and the encoded observation. For
comparison, in the same process and interleaved: ``_IssueTimeEnv``, the environment's code
at the filing of issue 22 (commit 8a06557: the legal ids and a new mask worked out at every
step, the encoded observation through ``Layout.encode_values``, every step's dictionaries
built afresh, PettingZoo's order-enforcing wrapper). It runs on today's fast engine and
observation writer, so the ratio shows what the adapter itself gained: the gains of the
shared engine and of ``meuterer.fast.observation`` since then count on both sides. The
floor row builds no observation at all (the mask only): what everything else costs.

    PYTHONPATH=src python benchmarks/bench_pettingzoo.py [--games N] [--repeats N] [--players N]
"""

from __future__ import annotations

import argparse
from functools import partial
from statistics import median
from typing import Any

import numpy as np
from bench_gym import interleaved, ratio
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from meuterer.fast.observation import observation_vector
from meuterer.pettingzoo import _OrderEnforcing, env, raw_env


class _IssueTimeEnv(raw_env):
    """``raw_env`` with the step, legal ids and observations of commit 8a06557."""

    def _legal(self) -> dict[int, int]:
        moves = self._moves
        if moves is None:
            game = self._game
            if game.is_terminal():
                moves = {}
            else:
                action_id = self.ids.action_id
                moves = dict(sorted((action_id(game, action), i) for i, action in enumerate(game.legal_actions())))
            self._moves = moves
        return moves

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None and 0 <= int(action) < self.ids.num_actions
        index = self._legal()[int(action)]
        game = self._game
        before = game.scores[:]
        game.apply_at(index)
        self._chance()
        self._cumulative_rewards[agent] = 0.0
        after = game.scores
        seat = self._seat
        self.rewards = {name: float(after[seat[name]] - before[seat[name]]) for name in self.agents}
        if game.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.to_act]
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        observed = self._observed.get(agent)
        if observed is None:
            seat = self._seat[agent]
            game = self._game
            mask = np.zeros(self.ids.num_actions, np.int8)
            if seat == game.to_act and agent == self.agent_selection and not game.is_terminal():
                mask[list(self._legal())] = 1
            values = observation_vector(game, seat)
            if self.observation_kind == "vector":
                observation = np.array(values, np.int64)
            else:
                observation = np.array(self.layout.encode_values(values), np.float32)
            observed = self._observed[agent] = {"observation": observation, "action_mask": mask}
        return observed


class _IssueTimeWrapper(OrderEnforcingWrapper):  # type: ignore[misc]
    """The order checks as wrapped at commit 8a06557 (``last`` answered by the environment)."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.last(observe)  # type: ignore[no-any-return]


class _Floor(raw_env):
    """Today's env with no observation built (the mask only): what the rest costs."""

    def observe(self, agent: str) -> dict[str, Any]:
        self._legal()
        return {"observation": None, "action_mask": self._mask if agent == self.agent_selection else self._no_mask}


def _play(environment: Any, games: int) -> int:
    """Decisions in ``games`` seeded games with random legal actions (bench_adapters' loop)."""
    decisions = 0
    for seed in range(games):
        environment.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in environment.agent_iter():
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            decisions += 1
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved measurements per row (medians shown)")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    n, kinds = args.players, ("vector", "encoded")
    envs: dict[tuple[str, str], Any] = {}
    for kind in kinds:
        envs["now", kind] = env(players=n, observation=kind)
        envs["before", kind] = _IssueTimeWrapper(_IssueTimeEnv(players=n, observation=kind, illegal="terminate"))
    envs["floor", "vector"] = _OrderEnforcing(_Floor(players=n, illegal="terminate"))
    for environment in envs.values():
        _play(environment, 2)  # warm-up (imports, caches)
    rates = interleaved({key: partial(_play, e, args.games) for key, e in envs.items()}, args.repeats)
    print(f"{n} players, {args.games} games per measurement, medians of {args.repeats} (CPU time)")
    for kind in kinds:
        now, before = rates["now", kind], rates["before", kind]
        print(
            f"{kind}: {median(now):,.0f} decisions/s; at issue 22's filing {median(before):,.0f}; {ratio(now, before)}"
        )
    floor = rates["floor", "vector"]
    print(
        f"floor (no observation built, the mask only): {median(floor):,.0f} decisions/s,"
        f" {ratio(floor, rates['before', 'vector'])} the vector row's issue-time figure"
    )


if __name__ == "__main__":
    main()
