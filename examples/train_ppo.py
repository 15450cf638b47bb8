"""Train sb3-contrib's MaskablePPO on one seat of Meuterer against greedy bots.

    pip install 'meuterer[rl]'          # gymnasium, numpy, stable-baselines3, sb3-contrib (and torch)
    python examples/train_ppo.py        # 60,000 steps, then 200 evaluation games per opponent
    python examples/train_ppo.py --quick   # a tiny run (also with MEUTERER_EXAMPLE_QUICK=1)

The learner plays a rotating seat of a 4-player game (``meuterer.gym``, registered as
``meuterer/Meuterer-v0``) against three ``GreedyAgent`` bots; its reward after each decision
is its change of relative score (points minus the others' mean). It prints the learning
curve (win rate against greedy bots at checkpoints) and the final win rates against random
and greedy bots (a win shared by k tied players counts 1/k; a random seat wins 25%).
Without torch or sb3-contrib it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny configuration (a smoke test)")
    parser.add_argument("--steps", type=int, default=60_000, help="training steps (default 60,000)")
    parser.add_argument("--games", type=int, default=200, help="evaluation games per opponent (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward-scale", type=float, default=1.0, help="multiply rewards by this (default 1)")
    parser.add_argument("--gamma", type=float, default=1.0, help="discount factor (default 1)")
    parser.add_argument("--ent-coef", type=float, default=0.0, help="entropy bonus (default 0)")
    args = parser.parse_args()
    if args.quick or os.environ.get("MEUTERER_EXAMPLE_QUICK") == "1":
        args.steps, args.games = 1_024, 4
    try:
        import numpy as np
        import torch
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.maskable.utils import get_action_masks
    except ImportError as error:
        print(f"train_ppo.py needs torch and sb3-contrib ({error.name} is missing): pip install 'meuterer[rl]'")
        return 0
    from meuterer.encoding import utilities
    from meuterer.gym import MeutererEnv

    torch.set_num_threads(1)

    def win_rate(model: Any, opponents: str, games: int, seed: int) -> float:
        env = MeutererEnv(players=4, opponents=opponents, seat="rotate", utility="win")
        total = 0.0
        observation, _ = env.reset(seed=seed)
        for _ in range(games):
            done = False
            while not done:
                action, _ = model.predict(observation, action_masks=get_action_masks(env), deterministic=True)
                observation, _, terminated, truncated, _ = env.step(int(action))
                done = terminated or truncated
            total += utilities(env.state, "win")[env.seat]
            observation, _ = env.reset()
        return total / games

    from gymnasium.wrappers import TransformReward

    base = MeutererEnv(players=4, opponents="greedy", seat="rotate", reward="step", utility="relative")
    base.reset(seed=args.seed)
    env: Any = base
    if args.reward_scale != 1.0:
        env = TransformReward(base, lambda reward: reward * args.reward_scale)
    checkpoints = 4
    n_steps = min(1024, max(64, args.steps // checkpoints))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=min(256, n_steps),
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        seed=args.seed,
        verbose=0,
    )
    print(f"MaskablePPO, 4 players, learner on a rotating seat against 3 greedy bots, {args.steps:,} steps")
    print(f"reward scale {args.reward_scale:g}, gamma {args.gamma:g}, entropy coefficient {args.ent_coef:g}")
    print(f"{'steps':>8} {'seconds':>8} {'win rate vs greedy':>19}  (seconds of training)")
    trained = 0.0
    done_steps = 0
    for k in range(1, checkpoints + 1):
        target = args.steps * k // checkpoints
        start = time.perf_counter()
        model.learn(target - done_steps, reset_num_timesteps=False)
        trained += time.perf_counter() - start
        done_steps = target
        rate = win_rate(model, "greedy", max(1, args.games // 4), seed=1000 + k)
        print(f"{done_steps:8,} {trained:8.0f} {rate:19.2f}")
    rates = {opponents: win_rate(model, opponents, args.games, seed=7) for opponents in ("random", "greedy")}
    print(f"trained {args.steps:,} steps in {trained:.0f} s ({args.steps / trained:,.0f} steps/s)")
    for opponents, rate in rates.items():
        print(f"win rate against 3 {opponents} bots over {args.games} games: {rate:.2f}")
    del np
    return 0


if __name__ == "__main__":
    sys.exit(main())
