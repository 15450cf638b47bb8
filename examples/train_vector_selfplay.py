"""Train a masked policy by self-play on the vector env (torch on the CPU), and plot its
learning curve against random and greedy bots.

    pip install '.[vector,gym,rate]' torch                   # in a checkout (rate: matplotlib)
    python examples/train_vector_selfplay.py            # 300 updates of 64 games x 16 steps, minutes
    python examples/train_vector_selfplay.py --quick    # a tiny run (also with MEUTERER_EXAMPLE_QUICK=1)

An actor-critic (one MLP, a masked softmax over ``meuterer.encoding``'s ids and a value)
plays seat 0 of ``--envs`` 4-player games of ``meuterer.vector.env.MeutererVectorEnv`` at
once; the other three seats are played by the same network (self-play: a batched
opponent policy on the encoded observations and legal masks). Rewards are the change of
relative score after each decision (they add up to points minus the others' mean); the
update is advantage actor-critic with GAE.

Before training and at each checkpoint the policy (its most likely action) plays seat 0 of
``--games`` games against three random bots and ``--greedy-games`` against three greedy
bots (both on the vector env: ``opponents="random"`` and ``opponents="greedy"``); its win
share (ties shared) is printed with its 95 % Wilson interval. Seat 0 is not a fair 25 %:
the baselines are measured, not assumed: seat 0's share among four random players
(``meuterer.tournament.seat_baseline``, ``--baseline-games``) and a greedy bot's in seat 0
against three greedy bots. The curve, with the intervals and both baselines, goes to
``--plot`` (matplotlib, ``meuterer[rate]``; without it the figures are printed only).
Without torch it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

Point = tuple[int, tuple[float, float, float], tuple[float, float, float]]
"""A checkpoint: learner steps, then (share, low, high) against random bots and against greedy bots."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny configuration (a smoke test)")
    parser.add_argument("--updates", type=int, default=300, help="training updates (default 300)")
    parser.add_argument("--envs", type=int, default=64, help="games in lockstep (default 64)")
    parser.add_argument("--steps", type=int, default=16, help="learner steps per game per update (default 16)")
    parser.add_argument("--checkpoints", type=int, default=6, help="evaluations along the way (default 6)")
    parser.add_argument("--games", type=int, default=1000, help="evaluation games against random bots (1000)")
    parser.add_argument("--greedy-games", type=int, default=400, help="evaluation games against greedy bots (400)")
    parser.add_argument("--baseline-games", type=int, default=20_000, help="random games for seat 0's baseline")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default=None, help="where the learning curve goes (default vector_selfplay.png)")
    args = parser.parse_args()
    if args.quick or os.environ.get("MEUTERER_EXAMPLE_QUICK") == "1":
        args.updates, args.envs, args.steps, args.checkpoints = 4, 8, 4, 2
        args.games, args.greedy_games, args.baseline_games = 16, 4, 512
        if args.plot is None:
            args.plot = str(Path(tempfile.gettempdir()) / "vector_selfplay.png")
    if args.plot is None:
        args.plot = "vector_selfplay.png"
    try:
        import numpy as np
        import torch
        from torch import nn
    except ImportError as error:
        print(f"train_vector_selfplay.py needs numpy and torch ({error.name} is missing): pip install torch")
        return 0
    from meuterer.tournament.ratings import seat_baseline
    from meuterer.tournament.statistics import Rate
    from meuterer.vector.env import MeutererVectorEnv
    from meuterer.vector.greedy import BatchGreedy, greedy_actions

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    class Net(nn.Module):
        def __init__(self, inputs: int, actions: int) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(inputs, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh())
            self.pi = nn.Linear(256, actions)
            self.v = nn.Linear(256, 1)

        def forward(self, x: Any, mask: Any) -> tuple[Any, Any]:
            h = self.body(x)
            logits = self.pi(h).masked_fill(~mask, -1e9)
            return logits, self.v(h).squeeze(-1)

    def act(net: Net, observations: Any, masks: Any, greedy: bool = False) -> Any:
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(observations), torch.as_tensor(masks))
            if greedy:
                return logits.argmax(-1).numpy()
            return torch.distributions.Categorical(logits=logits).sample().numpy()  # type: ignore[no-untyped-call]

    def opponent(observations: Any, masks: Any) -> Any:  # self-play: the current network
        return act(net, observations, masks)

    envs = MeutererVectorEnv(num_envs=args.envs, players=4, opponents=opponent, reward="step")
    net = Net(envs.encoder.size, envs.game.ids.num_actions)
    optimiser = torch.optim.Adam(net.parameters(), lr=3e-4)

    def evaluate(games: int, opponents: str, seed: int, learner: Any = None) -> Rate:
        """Seat 0's win share over the first game of each of ``games`` slots (a slot's later
        games are not counted: the shorter games would finish first), with its interval."""
        evaluation = MeutererVectorEnv(num_envs=games, players=4, opponents=opponents, utility="win", reward="terminal")
        observation, info = evaluation.reset(seed=seed)
        wins, done = np.zeros(games), np.zeros(games, dtype=np.bool_)
        while not done.all():
            mask = info["action_mask"]
            actions = act(net, observation, mask, True) if learner is None else learner(evaluation)
            observation, reward, terminated, _, info = evaluation.step(actions)
            first = terminated & ~done
            wins[first] = reward[first]
            done |= terminated
        return Rate.of(float(wins.sum()), games)

    def point(steps: int) -> Point:
        random_bots = evaluate(args.games, "random", 10_000 + steps)
        greedy_bots = evaluate(args.greedy_games, "greedy", 20_000)
        print(
            f"{steps:>8,} learner steps ({time.perf_counter() - start:.0f} s): win share {random_bots} against "
            f"random bots ({args.games} games), {greedy_bots} against greedy bots ({args.greedy_games} games)",
            flush=True,
        )
        return (steps, _share(random_bots), _share(greedy_bots))

    start = time.perf_counter()
    # The baselines: seat 0 among random players, and a greedy bot in seat 0 among greedy bots.
    random_seat = seat_baseline(args.baseline_games, 4, seed=args.seed)[0]
    chooser = BatchGreedy()
    greedy_seat = evaluate(args.greedy_games, "greedy", 20_000, lambda env: greedy_actions(env.game, chooser))
    print(
        f"seat 0's baselines: {random_seat} among random players ({args.baseline_games:,} games), "
        f"{greedy_seat} for a greedy bot among greedy bots ({args.greedy_games} games)"
    )
    curve: list[Point] = [point(0)]  # the untrained policy, measured
    every = max(1, args.updates // args.checkpoints)
    observation, info = envs.reset(seed=args.seed)
    for update in range(1, args.updates + 1):
        observations, masks, actions, rewards, values, ends = [], [], [], [], [], []
        for _ in range(args.steps):
            mask = info["action_mask"]
            with torch.no_grad():
                logits, value = net(torch.as_tensor(observation), torch.as_tensor(mask))
            action = torch.distributions.Categorical(logits=logits).sample().numpy()  # type: ignore[no-untyped-call]
            observations.append(observation)
            masks.append(mask)
            actions.append(action)
            values.append(value.numpy())
            observation, reward, terminated, _, info = envs.step(action)
            rewards.append(reward / 10.0)
            ends.append(terminated)
        with torch.no_grad():
            _, last = net(torch.as_tensor(observation), torch.as_tensor(info["action_mask"]))
        # Generalised advantage estimation (gamma 1, lambda 0.95), cut at the end of each game.
        advantages = np.zeros((args.steps, args.envs), dtype=np.float32)
        running = np.zeros(args.envs, dtype=np.float32)
        following = last.numpy()
        for t in reversed(range(args.steps)):
            alive = 1.0 - ends[t]
            delta = rewards[t] + alive * following - values[t]
            running = delta + 0.95 * alive * running
            advantages[t] = running
            following = values[t]
        returns = advantages + np.array(values)
        logits, value = net(torch.as_tensor(np.concatenate(observations)), torch.as_tensor(np.concatenate(masks)))
        dist = torch.distributions.Categorical(logits=logits)
        taken = torch.as_tensor(np.concatenate(actions))
        advantage = torch.as_tensor(advantages.reshape(-1))
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-6)
        loss = (
            -(dist.log_prob(taken) * advantage).mean()  # type: ignore[no-untyped-call]
            + 0.5 * ((value - torch.as_tensor(returns.reshape(-1))) ** 2).mean()
            - 0.01 * dist.entropy().mean()  # type: ignore[no-untyped-call]
        )
        optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        optimiser.step()
        if update % every == 0 or update == args.updates:
            curve.append(point(update * args.steps * args.envs))
    baselines = (_share(random_seat), _share(greedy_seat))
    if write_plot(Path(args.plot), curve, baselines, (args.games, args.greedy_games, args.baseline_games)):
        print(f"learning curve: {args.plot}")
    else:
        print("no plot: it needs matplotlib (pip install '.[rate]' in a checkout)")
    return 0


def _share(rate: Any) -> tuple[float, float, float]:
    return (rate.rate, rate.low, rate.high)


def write_plot(
    path: Path,
    curve: list[Point],
    baselines: tuple[tuple[float, float, float], tuple[float, float, float]],
    games: tuple[int, int, int],
) -> bool:
    """The win shares against the learner steps, with 95 % intervals, and seat 0's two
    baselines (bands: their intervals), drawn with matplotlib; ``False`` without it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        return False
    figure, axis = pyplot.subplots(figsize=(7.5, 4.5))
    steps = [p[0] for p in curve]
    series = (
        ([p[1] for p in curve], "tab:blue", "random", games[0]),
        ([p[2] for p in curve], "tab:red", "greedy", games[1]),
    )
    for shares, colour, label, count in series:
        axis.errorbar(
            steps,
            [s for s, _, _ in shares],
            yerr=[[s - low for s, low, _ in shares], [high - s for s, _, high in shares]],
            color=colour,
            marker="o",
            capsize=3,
            label=f"policy vs 3 {label} bots ({count} games a point)",
        )
    for (share, low, high), colour, label in (
        (baselines[0], "tab:blue", f"seat 0 among random players ({games[2]:,} games)"),
        (baselines[1], "tab:red", f"greedy bot in seat 0 vs 3 greedy bots ({games[1]} games)"),
    ):
        axis.axhline(share, color=colour, linestyle="--", linewidth=1, label=f"baseline: {label}")
        axis.axhspan(low, high, color=colour, alpha=0.12)
    axis.set_xlabel("learner steps (decisions of seat 0 in training)")
    axis.set_ylabel("win share of seat 0 (ties shared)")
    axis.set_ylim(0, 1)
    axis.set_title("Self-play on the vector env, 4 players (bars and bands: 95 % Wilson intervals)")
    axis.grid(alpha=0.3)
    axis.legend(fontsize="small", loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
    return True


if __name__ == "__main__":
    raise SystemExit(main())
