"""Train a masked policy by self-play on the vector env (torch on the CPU), and plot its
learning curve against the random and greedy bots.

    pip install 'meuterer[vector,gym]' torch
    python examples/train_vector_selfplay.py            # 300 updates of 64 games x 16 steps, minutes
    python examples/train_vector_selfplay.py --quick    # a tiny run (also with MEUTERER_EXAMPLE_QUICK=1)

An actor-critic (one MLP, a masked softmax over ``meuterer.encoding``'s ids and a value)
plays seat 0 of ``--envs`` 4-player games of ``meuterer.vector.env.MeutererVectorEnv`` at
once; the other three seats are played by the same network (self-play: a batched
opponent policy on the encoded observations and legal masks). Rewards are the change of
relative score after each decision (they add up to points minus the others' mean); the
update is advantage actor-critic with GAE. At each checkpoint the greedy policy's win
share (ties shared; a random seat wins 25%) is measured against random bots (on the vector
env) and against greedy bots (``meuterer.gym.MeutererEnv``, the same encoding), and the
curve is written to ``--plot`` (a PNG drawn with the standard library only).
Without torch it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import struct
import tempfile
import time
import zlib
from itertools import pairwise
from pathlib import Path
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny configuration (a smoke test)")
    parser.add_argument("--updates", type=int, default=300, help="training updates (default 300)")
    parser.add_argument("--envs", type=int, default=64, help="games in lockstep (default 64)")
    parser.add_argument("--steps", type=int, default=16, help="learner steps per game per update (default 16)")
    parser.add_argument("--checkpoints", type=int, default=6, help="evaluations along the way (default 6)")
    parser.add_argument("--games", type=int, default=200, help="evaluation games against random bots")
    parser.add_argument("--greedy-games", type=int, default=40, help="evaluation games against greedy bots")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default=None, help="where the learning curve goes (default vector_selfplay.png)")
    args = parser.parse_args()
    if args.quick or os.environ.get("MEUTERER_EXAMPLE_QUICK") == "1":
        args.updates, args.envs, args.steps, args.checkpoints, args.games, args.greedy_games = 4, 8, 4, 2, 8, 2
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
    from meuterer.gym import MeutererEnv
    from meuterer.vector.env import MeutererVectorEnv

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

    def against_random(games: int, seed: int) -> float:
        evaluation = MeutererVectorEnv(num_envs=min(games, 256), players=4, utility="win", reward="terminal")
        observation, info = evaluation.reset(seed=seed)
        total, done = 0.0, 0
        while done < games:
            observation, reward, terminated, _, info = evaluation.step(act(net, observation, info["action_mask"], True))
            total += float(reward[terminated].sum())
            done += int(terminated.sum())
        return total / done

    def against_greedy(games: int, seed: int) -> float:
        env = MeutererEnv(players=4, opponents="greedy", utility="win", reward="terminal")
        total = 0.0
        for game in range(games):
            observation, info = env.reset(seed=seed + game)
            done = False
            while not done:
                action = act(net, observation[None], info["action_mask"][None], True)[0]
                observation, reward, terminated, truncated, info = env.step(int(action))
                done = terminated or truncated
            total += float(reward)
        return total / games

    curve: list[tuple[int, float, float]] = []
    every = max(1, args.updates // args.checkpoints)
    observation, info = envs.reset(seed=args.seed)
    start = time.perf_counter()
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
            steps = update * args.steps * args.envs
            point = (steps, against_random(args.games, 10_000 + update), against_greedy(args.greedy_games, 20_000))
            curve.append(point)
            print(
                f"{steps:>8,} learner steps ({time.perf_counter() - start:.0f} s): win share {point[1]:.3f} against "
                f"random bots ({args.games} games), {point[2]:.3f} against greedy bots ({args.greedy_games} games)",
                flush=True,
            )
    write_plot(Path(args.plot), curve)
    print(f"learning curve: {args.plot}")
    return 0


def write_plot(path: Path, curve: list[tuple[int, float, float]], width: int = 480, height: int = 300) -> None:
    """The win shares against the steps as a PNG (blue: against random bots, red: against
    greedy bots; grey lines at 0, 0.25 (a random seat's share), 0.5 and 1), standard library only."""
    pixels = [[(255, 255, 255)] * width for _ in range(height)]
    left, right, top, bottom = 30, width - 10, 10, height - 20

    def y_of(share: float) -> int:
        return round(bottom - share * (bottom - top))

    def x_of(step: int) -> int:
        most = max((s for s, _, _ in curve), default=1) or 1
        return round(left + step / most * (right - left))

    def line(x0: int, y0: int, x1: int, y1: int, colour: tuple[int, int, int]) -> None:
        for k in range(max(abs(x1 - x0), abs(y1 - y0)) + 1):
            t = k / max(1, max(abs(x1 - x0), abs(y1 - y0)))
            x, y = round(x0 + t * (x1 - x0)), round(y0 + t * (y1 - y0))
            for dx in (0, 1):
                if 0 <= x + dx < width and 0 <= y < height:
                    pixels[y][x + dx] = colour

    for share in (0.0, 0.25, 0.5, 1.0):
        line(left, y_of(share), right, y_of(share), (200, 200, 200))
    line(left, top, left, bottom, (0, 0, 0))
    for index, colour in ((1, (30, 90, 200)), (2, (200, 40, 40))):
        points = [(x_of(0), y_of(0.25))] + [(x_of(p[0]), y_of(p[index])) for p in curve]
        for (x0, y0), (x1, y1) in pairwise(points):
            line(x0, y0, x1, y1, colour)
    raw = b"".join(b"\x00" + bytes(channel for pixel in row for channel in pixel) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    raise SystemExit(main())
