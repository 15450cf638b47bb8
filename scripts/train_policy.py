"""Train the policy network shipped as ``meuterer/agents/data/policy-v1.npz``.

    pip install torch numpy                      # torch to train only; playing needs numpy
    nice -n 10 python scripts/train_policy.py --budget-minutes 25 --seed 1 --out src/meuterer/agents/data/policy-v1.npz

Four-player games under ``Rules()``, one learning seat (rotating) against three
``GreedyAgent`` bots, on the reference engine. Its input is the encoded observation
(``observation_layout(4).encode``), its output one score per action id of
``meuterer.encoding``, masked to the legal ones. Three stages share the budget:

1. **Imitation of greedy** (10 %): every seat's decisions in greedy games, as a start.
2. **DAgger with a search teacher** (65 %): in rounds, the learner plays its seat (in the
   first round the teacher plays it), and at each of its decisions ``ISMCTSAgent`` labels
   the position with its root visit counts (a distribution over the legal actions); after
   each round the network is trained on every label so far (cross-entropy).
3. **Policy gradient against greedy** (15 %): REINFORCE on the final score margin of
   sampled games, with the imitation loss kept alongside; kept only if the validation
   games (seeds of their own) do not get worse.

The rest of the budget is training epochs. At the end it plays ``--eval-games`` games
against three greedy bots on seeds no stage trained on (``EVAL_SEEDS``, seats rotating)
and prints the win share (ties shared) with a 95 % interval and the time per decision.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from meuterer.actions import Action, Discard
from meuterer.agents import GreedyAgent, ISMCTSAgent, play_game
from meuterer.agents.policy import PolicyAgent, PolicyNet
from meuterer.encoding import action_ids, utilities
from meuterer.rules import Rules
from meuterer.vector.observation import Encoder
from meuterer.views import PlayerView, observation_layout

PLAYERS = 4
TRAIN_SEEDS = 1_000_000
"""Training games play seeds ``TRAIN_SEEDS * (seed + 1) + k``."""
VALIDATION_SEEDS = 800_000_000
GREEDY_CAP = 150_000
"""At most this many greedy decisions are kept (memory)."""
EVAL_SEEDS = 900_000_000
"""The final evaluation's seeds: ``EVAL_SEEDS + k``, never trained on."""

Sample = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""An observation vector, the legal ids, the target ids and their probabilities."""


class Data:
    """Labelled decisions, in arrays made once for training."""

    def __init__(self) -> None:
        self.samples: list[Sample] = []

    def add(self, vector: Sequence[int], legal: Sequence[int], target: dict[int, float]) -> None:
        ids = np.fromiter(target, dtype=np.int64)
        self.samples.append(
            (np.array(vector, np.int32), np.array(legal, np.int64), ids, np.fromiter(target.values(), np.float32))
        )


class Labeller:
    """The learning seat: labels each of its decisions (greedy's choice, or the search's
    visit counts) and plays the teacher's, greedy's or the network's move."""

    name = "learner"

    def __init__(self, data: Data, teacher: ISMCTSAgent | None, net: PolicyNet | None, rules: Rules) -> None:
        self.data, self.teacher, self.net = data, teacher, net
        self.greedy = GreedyAgent()
        self.layout = observation_layout(PLAYERS, rules)
        self.ids = action_ids(rules)
        self.player = None if net is None else PolicyAgent(net)

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        ids = [self.ids.action_id(view, a) for a in legal]
        if self.teacher is None or isinstance(legal[0], Discard):
            best = self.greedy.act(view, legal, rng)
            target = {self.ids.action_id(view, best): 1.0}
        else:
            root = self.teacher.search(view, rng)
            visits = {self.ids.action_id(view, a): child.visits for a, child in root.children.items()}
            total = sum(visits.values())
            target = {i: n / total for i, n in visits.items() if n}
            best = legal[ids.index(max(visits, key=lambda i: visits[i]))]
        self.data.add(self.layout.vector(view), ids, target)
        return best if self.player is None else self.player.act(view, legal, rng)


def make_model(inputs: int, hidden: int, actions: int) -> Any:
    from torch import nn

    return nn.Sequential(
        nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, actions)
    )


def export(model: Any, rules: Rules, meta: dict[str, Any]) -> PolicyNet:
    linear = [m for m in model if hasattr(m, "weight")]
    weights = tuple(m.weight.detach().numpy().T.astype(np.float32).copy() for m in linear)
    biases = tuple(m.bias.detach().numpy().astype(np.float32).copy() for m in linear)
    return PolicyNet(weights, biases, PLAYERS, rules, meta)


def batch(samples: Sequence[Sample], encoder: Encoder, actions: int) -> tuple[Any, Any, Any]:
    import torch

    x = encoder(np.stack([s[0] for s in samples]))
    mask = np.zeros((len(samples), actions), dtype=np.bool_)
    target = np.zeros((len(samples), actions), dtype=np.float32)
    for row, (_, legal, ids, probs) in enumerate(samples):
        mask[row, legal] = True
        target[row, ids] = probs
    return torch.as_tensor(x), torch.as_tensor(mask), torch.as_tensor(target)


def imitation_loss(model: Any, x: Any, mask: Any, target: Any) -> Any:
    import torch

    logits = model(x).masked_fill(~mask, -1e9)
    return -(target * torch.log_softmax(logits, -1)).sum(-1).mean()


def train(model: Any, optimiser: Any, data: Data, encoder: Encoder, epochs: float, rng: random.Random) -> float:
    """``epochs`` passes (a fraction: part of one) over ``data``; the mean loss."""
    samples = data.samples
    steps = max(1, int(epochs * len(samples) / 256))
    losses = []
    for _ in range(steps):
        chosen = [samples[rng.randrange(len(samples))] for _ in range(min(256, len(samples)))]
        x, mask, target = batch(chosen, encoder, model[-1].out_features)
        loss = imitation_loss(model, x, mask, target)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def win_share(net: PolicyNet, games: int, first_seed: int) -> tuple[float, float, float]:
    """The policy's win share against three greedy bots (seats rotating, ties shared),
    its 95 % interval's half-width, and the ms per decision."""
    agent = PolicyAgent(net)
    timed = _Timed(agent)
    shares = []
    for k in range(games):
        seat = k % PLAYERS
        agents: list[Any] = [GreedyAgent() for _ in range(PLAYERS)]
        agents[seat] = timed
        _, final = play_game(agents, seed=first_seed + k)
        shares.append(utilities(final, "win")[seat])
    mean = sum(shares) / games
    spread = math.sqrt(sum((s - mean) ** 2 for s in shares) / max(1, games - 1))
    return mean, 1.96 * spread / math.sqrt(games), 1000 * timed.seconds / max(1, timed.decisions)


class _Timed:
    name = "policy"

    def __init__(self, agent: PolicyAgent) -> None:
        self.agent, self.seconds, self.decisions = agent, 0.0, 0

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        start = time.process_time()
        action = self.agent.act(view, legal, rng)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return action


def reinforce(
    model: Any, optimiser: Any, data: Data, encoder: Encoder, rules: Rules, until: float, seeds: list[int]
) -> int:
    """Policy-gradient updates (games sampled from the network against greedy bots) until
    ``until``; returns the games played."""
    import torch

    layout, ids = observation_layout(PLAYERS, rules), action_ids(rules)
    played, update_games = 0, 16
    imitation_rng = random.Random(seeds[0])
    while time.monotonic() < until:
        net = export(model, rules, {})
        rows: list[tuple[np.ndarray, list[int], int, float]] = []
        for _ in range(update_games):
            seed = seeds[0] + played
            played += 1
            seat = seed % PLAYERS
            sampler = _Sampler(net, layout, ids, random.Random(seed))
            agents: list[Any] = [GreedyAgent() for _ in range(PLAYERS)]
            agents[seat] = sampler
            _, final = play_game(agents, seed=seed)
            margin = utilities(final, "relative")[seat] / 10.0
            rows += [(v, legal, a, margin) for v, legal, a in sampler.rows]
        returns = np.array([r[3] for r in rows], dtype=np.float32)
        advantage = torch.as_tensor((returns - returns.mean()) / (returns.std() + 1e-6))
        x = torch.as_tensor(encoder(np.stack([r[0] for r in rows])))
        mask = torch.zeros((len(rows), model[-1].out_features), dtype=torch.bool)
        for row, r in enumerate(rows):
            mask[row, r[1]] = True
        logits = model(x).masked_fill(~mask, -1e9)
        taken = torch.as_tensor([r[2] for r in rows])
        logp = torch.log_softmax(logits, -1).gather(1, taken[:, None]).squeeze(1)
        chosen = [data.samples[imitation_rng.randrange(len(data.samples))] for _ in range(256)]
        loss = -(advantage * logp).mean() + imitation_loss(model, *batch(chosen, encoder, model[-1].out_features))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return played


class _Sampler:
    """Samples the network's move (softmax of its scores), keeping what it saw and did."""

    name = "sampler"

    def __init__(self, net: PolicyNet, layout: Any, ids: Any, rng: random.Random) -> None:
        self.net, self.layout, self.ids, self.rng = net, layout, ids, rng
        self.rows: list[tuple[np.ndarray, list[int], int]] = []

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        vector = self.layout.vector(view)
        ids = [self.ids.action_id(view, a) for a in legal]
        scores = self.net.scores(np.array(self.layout.encode_values(vector), np.float32)[None])[0, ids]
        p = np.exp(scores - scores.max())
        k = self.rng.choices(range(len(legal)), weights=(p / p.sum()).tolist())[0]
        self.rows.append((np.array(vector, np.int32), ids, ids[k]))
        return legal[k]


def commit() -> str:
    git = shutil.which("git")
    if git is None:
        return "unknown"
    try:
        out = subprocess.run([git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)  # noqa: S603
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-minutes", type=float, default=25.0, help="wall-clock budget (default 25)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="policy.npz", help="where the weights go (.npz)")
    parser.add_argument("--teacher-iterations", type=int, default=16, help="ISMCTS iterations per label (default 16)")
    parser.add_argument("--hidden", type=int, default=256, help="units per hidden layer")
    parser.add_argument("--eval-games", type=int, default=400, help="final evaluation games (default 400)")
    parser.add_argument("--validation-games", type=int, default=200)
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("train_policy.py needs torch to train (pip install torch); playing needs numpy only")
        return 0
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    rules = Rules()
    layout = observation_layout(PLAYERS, rules)
    encoder = Encoder(layout)
    actions = action_ids(rules).num_actions
    model = make_model(encoder.size, args.hidden, actions)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    start = time.monotonic()
    made_at = commit()  # the script as it runs, not as it may be when the run ends
    budget = args.budget_minutes * 60
    seeds = iter(range(TRAIN_SEEDS * (args.seed + 1), TRAIN_SEEDS * (args.seed + 2)))

    def clock() -> str:
        return f"[{time.monotonic() - start:6.0f} s]"

    # 1. Imitation of greedy: every seat's decisions.
    greedy = Data()
    until = start + 0.10 * budget
    games = 0
    while games == 0 or (time.monotonic() < until and len(greedy.samples) < GREEDY_CAP):
        play_game([Labeller(greedy, None, None, rules) for _ in range(PLAYERS)], seed=next(seeds))
        games += 1
    loss = train(model, optimiser, greedy, encoder, 3.0, rng)
    print(f"{clock()} greedy imitation: {games} games, {len(greedy.samples)} decisions, loss {loss:.3f}", flush=True)

    # 2. DAgger: the search labels the learner's decisions.
    teacher = ISMCTSAgent(iterations=args.teacher_iterations)
    labels = Data()
    rounds = 4
    for r in range(rounds):
        until = start + (0.10 + 0.65 * (r + 1) / rounds) * budget
        net = None if r == 0 else export(model, rules, {})
        games = 0
        while games == 0 or time.monotonic() < until - 0.04 * budget:
            seed = next(seeds)
            agents: list[Any] = [GreedyAgent() for _ in range(PLAYERS)]
            agents[seed % PLAYERS] = Labeller(labels, teacher, net, rules)
            play_game(agents, seed=seed)
            games += 1
        while True:
            loss = train(model, optimiser, labels, encoder, 1.0, rng)
            if time.monotonic() >= until:
                break
        print(
            f"{clock()} DAgger round {r + 1}: {games} games, {len(labels.samples)} labels, loss {loss:.3f}", flush=True
        )

    # 3. Policy gradient against greedy, kept if the validation games do not get worse.
    before = export(model, rules, {})
    kept = win_share(before, args.validation_games, VALIDATION_SEEDS)[0]
    saved = [p.detach().clone() for p in model.parameters()]
    for group in optimiser.param_groups:
        group["lr"] = 2e-4
    played = reinforce(model, optimiser, labels, encoder, rules, start + 0.90 * budget, [next(seeds)])
    after = win_share(export(model, rules, {}), args.validation_games, VALIDATION_SEEDS)[0]
    if after < kept:
        with torch.no_grad():
            for p, old in zip(model.parameters(), saved, strict=True):
                p.copy_(old)
    print(
        f"{clock()} policy gradient: {played} games; validation win share {kept:.3f} before, {after:.3f} after: "
        f"{'kept' if after >= kept else 'undone'}",
        flush=True,
    )

    # The evaluation, on seeds never trained on.
    net = export(model, rules, {})
    share, half, ms = win_share(net, args.eval_games, EVAL_SEEDS)
    meta = {
        "name": Path(args.out).stem,
        "command": "python scripts/train_policy.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "commit": made_at,
        "training_minutes": round((time.monotonic() - start) / 60, 1),
        "teacher": f"ismcts:{args.teacher_iterations}",
        "labels": len(labels.samples),
        "eval": {"games": args.eval_games, "win_share": round(share, 4), "half_width": round(half, 4)},
    }
    export(model, rules, meta).save(args.out)
    print(f"{clock()} saved {args.out}")
    print(
        f"evaluation: win share {share:.3f} [{share - half:.3f}, {share + half:.3f}] against three greedy bots, "
        f"{args.eval_games} games (seeds {EVAL_SEEDS}+, seats rotating, ties shared), {ms:.2f} ms per decision"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
