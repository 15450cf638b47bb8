"""The PettingZoo AEC env's decisions per second, next to the env as it was when issue 22 was filed.

Plays seeded games of ``meuterer.pettingzoo.env`` (4 players, every agent choosing uniformly
among his legal ids from ``last()``'s mask with ``bench_gym.choose``, the same code in every row) and
counts decisions per second of CPU time, for the vector and the encoded observation. For
comparison, in the same process and interleaved: ``_IssueTimeEnv``, the environment's code
at the filing of issue 22 (commit 8a06557: the legal ids and a new mask worked out at every
step, the encoded observation through ``Layout.encode_values``, every step's dictionaries
built afresh, PettingZoo's order-enforcing wrapper) and the observation writer of that commit,
frozen below as a private copy (``_issue_time_observation_vector``: ``meuterer.fast.observation``
as it was then, kept for timing only). It runs on today's engine (the reference, through
``FastGame``), so the engine's changes since then count on both sides: the ratio shows what
the adapter and its observation writer gained. The floor row builds no observation at all
(the mask only): what everything else costs.

    PYTHONPATH=src python benchmarks/bench_pettingzoo.py [--games N] [--repeats N] [--players N]
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from functools import partial
from statistics import median
from typing import Any

import numpy as np
from bench_gym import choose, interleaved, ratio
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from meuterer.cards import CARDS, ROLES, Role
from meuterer.machine import ROLES_SECRET, STEP_CODES
from meuterer.pettingzoo import _OrderEnforcing, env, raw_env
from meuterer.state import State, Step

# The observation writer as it was at commit 8a06557 (git show 8a06557:src/meuterer/fast/observation.py),
# frozen here for the issue-time row: a copy of old code kept for timing only, never run by the library.
_NONE = -1
# (The engine of that commit numbered its steps; read here off a reference state, by step.)
_CODE = {step: STEP_CODES[step] for step in Step}
_SECRET = {step: step in ROLES_SECRET for step in Step}
_GAME_OVER = Step.GAME_OVER
_CHOOSE_ROLE = Step.CHOOSE_ROLE
_EMPTY: Sequence[int] = [0] * len(CARDS)
_UNKNOWN_ROLES = [_NONE] * len(ROLES)
_NO_SALE = [_NONE, _NONE, 0]
_UNDECLARED = [0, *_NO_SALE, *_NO_SALE]
_SALES = 2


def _roles_seen(game: State, player: int) -> list[int]:
    # As meuterer.views.player_view._roles_seen, as the layout's entries.
    order = game.role_order
    if player in order:
        before = order[: order.index(player)]
    elif game.step == _CHOOSE_ROLE and game.to_act == player:
        before = order
    else:
        return _UNKNOWN_ROLES
    roles = game.roles
    gone = {roles[seat] for seat in before}
    return [int(role not in gone) for role in ROLES]


def _issue_time_observation_vector(game: State, player: int | None) -> list[int]:
    """``meuterer.fast.observation.observation_vector`` as it was at commit 8a06557."""
    step = game.step
    drawn = game.drawn
    drawn_count = sum(drawn)
    ring = game.ring
    active = game.active
    roles: Sequence[Role | None] = game.roles
    if _SECRET[step]:
        roles = [None] * game.players if player is None else [r if s == player else None for s, r in enumerate(roles)]
    if player is None:
        hand = down = mine = _EMPTY
        seen = _UNKNOWN_ROLES
        role = _NONE
    else:
        hand = game.hands[player]
        down = game.face_down[player]
        mine = drawn if drawn_count and game.to_act == player else _EMPTY
        seen = _roles_seen(game, player)
        own = roles[player]
        role = _NONE if own is None else int(own)
    up = [sum(column) for column in zip(*game.face_up, strict=True)]
    unseen = [n - a - b - c - d for n, a, b, c, d in zip(game.rules.deck, game.discard, hand, down, up, strict=True)]
    mutiny = game.mutiny
    flags = [0] * len(ring)
    for pos in active:
        flags[pos] = 1
    out = [
        game.players,
        _NONE if player is None else player,
        game.round,
        _CODE[step],
        game.captain,
        _NONE if step == _GAME_OVER else game.to_act,
        _NONE if game.offer is None else game.offer,
        game.start,
        _NONE if game.pirate is None else game.pirate,
        _NONE if game.captain_destination is None else game.captain_destination,
        _NONE if game.mutineer_destination is None else game.mutineer_destination,
        _NONE if mutiny is None else int(mutiny),
        game.draws_left,
        drawn_count,
        sum(game.deck),
    ]
    out += ring
    out += flags
    out += game.discard
    out += unseen
    out += hand
    out += down
    out += mine
    out.append(role)
    out += seen
    order, queue, hands, downs, passed, scores, face_up = (
        game.role_order,
        game.queue,
        game.hands,
        game.face_down,
        game.passed,
        game.scores,
        game.face_up,
    )
    for seat, sales in enumerate(game.sales):
        seat_role = roles[seat]
        out += (
            sum(hands[seat]),
            sum(downs[seat]),
            int(passed[seat]),
            _NONE if seat_role is None else int(seat_role),
            order.index(seat) if seat in order else _NONE,
            queue.index(seat) if seat in queue else _NONE,
            scores[seat],
        )
        out += face_up[seat]
        if sales is None:
            out += _UNDECLARED
            continue
        out.append(1)
        for k in range(_SALES):
            if k < len(sales):
                sale = sales[k]
                out += (_position(game, sale.island), int(sale.card), sale.count)
            else:
                out += _NO_SALE
    return out


def _position(game: State, name: str) -> int:
    islands = game.rules.islands
    return next(pos for pos, index in enumerate(game.ring) if islands[index].name == name)


class _IssueTimeEnv(raw_env):
    """``raw_env`` with the chance loop, step, legal ids and observations of commit 8a06557."""

    def _legal(self) -> dict[int, int]:
        moves = self._moves
        if moves is None:
            game = self._game
            if game.is_terminal():
                moves = {}
            else:
                action_id = self.ids.action_id
                moves = dict(
                    sorted((action_id(game.state, action), i) for i, action in enumerate(game.legal_actions()))
                )
            self._moves = moves
        return moves

    def _chance(self) -> None:
        game, rng = self._game, self._rng
        while game.is_chance_node():
            game.apply_chance(rng)
        self._moves = None
        self._observed = {}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None and 0 <= int(action) < self.ids.num_actions
        index = self._legal()[int(action)]
        game = self._game
        before = game.state.scores
        game.apply_at(index)
        self._chance()
        self._cumulative_rewards[agent] = 0.0
        after = game.state.scores
        seat = self._seat
        self.rewards = {name: float(after[seat[name]] - before[seat[name]]) for name in self.agents}
        if game.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.state.to_act]
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        observed = self._observed.get(agent)
        if observed is None:
            seat = self._seat[agent]
            game = self._game
            mask = np.zeros(self.ids.num_actions, np.int8)
            if seat == game.state.to_act and agent == self.agent_selection and not game.is_terminal():
                mask[list(self._legal())] = 1
            values = _issue_time_observation_vector(game.state, seat)
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
        rng = random.Random(seed)
        for _agent in environment.agent_iter():
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            environment.step(choose(observation["action_mask"], rng))
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
    print("every agent's policy in every row, issue-time included: bench_gym.choose (mask.nonzero, Random.randrange)")
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
