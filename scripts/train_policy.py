"""Train the policy network shipped as ``meuterer/agents/data/policy-v2.npz``.

    pip install torch numpy                      # torch to train only; playing needs numpy
    python scripts/train_policy.py --budget-minutes 80 --jobs 2 --seed 2 --hidden 384 \
        --out src/meuterer/agents/data/policy-v2.npz

Four-player games under ``Rules()``, one learning seat (rotating) against three
``GreedyAgent`` bots, on the reference engine. Its input is the encoded observation
(``observation_layout(4).encode``), its output one score per action id of
``meuterer.encoding``, masked to the legal ones. The games are played by ``--jobs``
worker processes; the main process trains (torch, one thread). Three stages share the
wall-clock budget:

1. **Imitation of greedy** (5 %): every seat's decisions in greedy games, as a start.
2. **DAgger with a search teacher** (90 %): the workers play games in small batches; in
   each, at every decision of the learning seat, ``ISMCTSAgent`` labels the position with
   its root visit counts (a distribution over the legal actions), and the seat plays the
   teacher's move in the first eighth of the stage, the network's afterwards (the latest
   copy the workers were sent, refreshed every ``REFRESH_SECONDS``). The main process
   trains on every label so far as they arrive, about ``REPLAY`` times per label.
3. **Epochs** (at most 4 % of the budget, at most ``EPOCHS`` passes): over all the labels,
   with a falling learning rate; then the network is checked on validation games (seeds
   of their own).

``--reinforce-share F`` adds a stage of REINFORCE against greedy (a share F of the budget,
taken from the DAgger stage), kept only if the validation games do not get worse.

At the end it plays ``--eval-games`` games against three greedy bots on seeds no stage
trained on (``EVAL_SEEDS``, seats rotating) and prints the win share (ties shared) with a
95 % interval and the time per decision.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import shutil
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
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
GAMES_PER_TASK = 4
"""Games a worker plays per task before it hands back its labels."""
REFRESH_SECONDS = 60.0
"""How often the workers are sent the network's latest weights."""
REPLAY = 8
"""Training samples drawn per label collected, during the DAgger stage."""
BATCH = 256
EPOCHS = 6
"""At most this many passes over the labels after the DAgger stage."""

Sample = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""An observation vector (int16), the legal ids, the target ids and their probabilities."""


class Labeller:
    """The learning seat: labels each of its decisions (greedy's choice, or the search's
    visit counts) and plays the teacher's, greedy's or the network's move."""

    name = "learner"

    def __init__(self, samples: list[Sample], teacher: ISMCTSAgent | None, net: PolicyNet | None, rules: Rules):
        self.samples, self.teacher = samples, teacher
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
        self.samples.append(
            (
                np.array(self.layout.vector(view), np.int16),
                np.array(ids, np.int64),
                np.fromiter(target, dtype=np.int64),
                np.fromiter(target.values(), np.float32),
            )
        )
        return best if self.player is None else self.player.act(view, legal, rng)


# What the workers run: plain functions of picklable arguments.


def greedy_games(seeds: Sequence[int]) -> list[Sample]:
    """Every seat's decisions in greedy games on ``seeds``."""
    samples: list[Sample] = []
    for seed in seeds:
        play_game([Labeller(samples, None, None, Rules()) for _ in range(PLAYERS)], seed=seed)
    return samples


def labelled_games(seeds: Sequence[int], iterations: int, net: PolicyNet | None) -> list[Sample]:
    """The learning seat's decisions, labelled by the search, in games against greedy."""
    samples: list[Sample] = []
    teacher = ISMCTSAgent(iterations=iterations)
    for seed in seeds:
        agents: list[Any] = [GreedyAgent() for _ in range(PLAYERS)]
        agents[seed % PLAYERS] = Labeller(samples, teacher, net, Rules())
        play_game(agents, seed=seed)
    return samples


def evaluated_games(net: PolicyNet, seeds: Sequence[int]) -> tuple[list[float], float, int]:
    """The policy's win share (ties shared) in each game against three greedy bots (its seat
    ``seed mod 4``), its CPU seconds and its decisions."""
    timed = _Timed(PolicyAgent(net))
    shares = []
    for seed in seeds:
        seat = seed % PLAYERS
        agents: list[Any] = [GreedyAgent() for _ in range(PLAYERS)]
        agents[seat] = timed
        _, final = play_game(agents, seed=seed)
        shares.append(utilities(final, "win")[seat])
    return shares, timed.seconds, timed.decisions


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


def chunks(seeds: Sequence[int], size: int) -> list[list[int]]:
    return [list(seeds[k : k + size]) for k in range(0, len(seeds), size)]


def win_share(pool: Any, net: PolicyNet, games: int, first_seed: int) -> tuple[float, float, float]:
    """The policy's win share against three greedy bots (seats rotating, ties shared),
    its 95 % interval's half-width, and the ms of CPU per decision."""
    shares: list[float] = []
    seconds, decisions = 0.0, 0
    parts = [(net, part) for part in chunks(range(first_seed, first_seed + games), 20)]
    for part_shares, part_seconds, part_decisions in pool.starmap(evaluated_games, parts):
        shares += part_shares
        seconds += part_seconds
        decisions += part_decisions
    mean = sum(shares) / games
    spread = math.sqrt(sum((s - mean) ** 2 for s in shares) / max(1, games - 1))
    return mean, 1.96 * spread / math.sqrt(games), 1000 * seconds / max(1, decisions)


# The network (torch, in the main process only).


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

    x = encoder(np.stack([s[0] for s in samples]).astype(np.int32))
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


def train_steps(
    model: Any, optimiser: Any, samples: list[Sample], encoder: Encoder, steps: int, rng: random.Random
) -> float:
    """``steps`` updates on batches drawn from ``samples``; the mean loss."""
    losses = []
    for _ in range(max(1, steps)):
        chosen = [samples[rng.randrange(len(samples))] for _ in range(min(BATCH, len(samples)))]
        x, mask, target = batch(chosen, encoder, model[-1].out_features)
        loss = imitation_loss(model, x, mask, target)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return float(sum(losses) / len(losses))


def reinforce(
    model: Any,
    optimiser: Any,
    samples: list[Sample],
    encoder: Encoder,
    rules: Rules,
    until: float,
    seeds: Iterator[int],
) -> int:
    """Policy-gradient updates (games sampled from the network against greedy bots) until
    ``until``; returns the games played."""
    import torch

    layout, ids = observation_layout(PLAYERS, rules), action_ids(rules)
    played, update_games = 0, 16
    imitation_rng = random.Random(0)
    while time.monotonic() < until:
        net = export(model, rules, {})
        rows: list[tuple[np.ndarray, list[int], int, float]] = []
        for _ in range(update_games):
            seed = next(seeds)
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
        chosen = [samples[imitation_rng.randrange(len(samples))] for _ in range(BATCH)]
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
    parser.add_argument("--jobs", type=int, default=2, help="worker processes playing games (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="policy.npz", help="where the weights go (.npz)")
    parser.add_argument("--teacher-iterations", type=int, default=32, help="ISMCTS iterations per label (default 32)")
    parser.add_argument("--hidden", type=int, default=256, help="units per hidden layer")
    parser.add_argument("--eval-games", type=int, default=400, help="final evaluation games (default 400)")
    parser.add_argument("--validation-games", type=int, default=200)
    parser.add_argument("--reinforce-share", type=float, default=0.0, help="budget share of REINFORCE (default 0)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("train_policy.py needs torch to train (pip install torch); playing needs numpy only")
        return 0
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
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

    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        # 1. Imitation of greedy: every seat's decisions.
        greedy: list[Sample] = []
        until = start + 0.05 * budget
        games = 0
        while games == 0 or (time.monotonic() < until and len(greedy) < GREEDY_CAP):
            tasks = [[next(seeds) for _ in range(GAMES_PER_TASK)] for _ in range(args.jobs)]
            for part in pool.map(greedy_games, tasks):
                greedy += part
            games += GAMES_PER_TASK * args.jobs
        loss = train_steps(model, optimiser, greedy, encoder, 3 * len(greedy) // BATCH, rng)
        print(f"{clock()} greedy imitation: {games} games, {len(greedy)} decisions, loss {loss:.3f}", flush=True)

        # 2. DAgger: the search labels the learner's decisions, the workers never idle.
        labels: list[Sample] = []
        dagger_end = start + (0.95 - args.reinforce_share) * budget
        own_moves_from = time.monotonic() + (dagger_end - time.monotonic()) / 8
        net: PolicyNet | None = None
        refreshed = time.monotonic()
        pending: deque[Any] = deque()
        games = trained = 0
        next_report = time.monotonic() + REFRESH_SECONDS
        while time.monotonic() < dagger_end or pending or not labels:
            now = time.monotonic()
            if now >= own_moves_from and (net is None or now - refreshed >= REFRESH_SECONDS):
                net, refreshed = export(model, rules, {}), now
            while (now < dagger_end or not (labels or pending)) and len(pending) < 2 * args.jobs:
                task = [next(seeds) for _ in range(GAMES_PER_TASK)]
                pending.append(pool.apply_async(labelled_games, (task, args.teacher_iterations, net)))
            while pending and pending[0].ready():
                labels += pending.popleft().get()
                games += GAMES_PER_TASK
            owed = (REPLAY * len(labels) - trained) // BATCH
            if owed > 0:
                loss = train_steps(model, optimiser, labels, encoder, min(owed, 20), rng)
                trained += min(owed, 20) * BATCH
            elif pending:
                pending[0].wait(0.5)
            if time.monotonic() >= next_report:
                next_report += REFRESH_SECONDS * 5
                print(f"{clock()} DAgger: {games} games, {len(labels)} labels, loss {loss:.3f}", flush=True)
        print(f"{clock()} DAgger done: {games} games, {len(labels)} labels, loss {loss:.3f}", flush=True)

        # 3. Epochs over every label, the learning rate falling, until the evaluation's time.
        epochs_end = start + (0.99 - args.reinforce_share) * budget
        epoch_start, epoch_steps = time.monotonic(), 0
        steps_per_epoch = max(1, len(labels) // BATCH)
        while (time.monotonic() < epochs_end and epoch_steps < EPOCHS * steps_per_epoch) or epoch_steps == 0:
            left = max(0.0, (epochs_end - time.monotonic()) / max(1.0, epochs_end - epoch_start))
            for group in optimiser.param_groups:
                group["lr"] = 1e-4 + 9e-4 * left
            loss = train_steps(model, optimiser, labels, encoder, 50, rng)
            epoch_steps += 50
        print(f"{clock()} epochs: {epoch_steps / steps_per_epoch:.1f} over the labels, loss {loss:.3f}", flush=True)

        if args.reinforce_share > 0:
            before = export(model, rules, {})
            kept = win_share(pool, before, args.validation_games, VALIDATION_SEEDS)[0]
            saved = [p.detach().clone() for p in model.parameters()]
            for group in optimiser.param_groups:
                group["lr"] = 2e-4
            played = reinforce(model, optimiser, labels, encoder, rules, start + 0.99 * budget, seeds)
            after = win_share(pool, export(model, rules, {}), args.validation_games, VALIDATION_SEEDS)[0]
            if after < kept:
                with torch.no_grad():
                    for p, old in zip(model.parameters(), saved, strict=True):
                        p.copy_(old)
            verdict = "kept" if after >= kept else "undone"
            print(
                f"{clock()} policy gradient: {played} games; "
                f"validation {kept:.3f} before, {after:.3f} after: {verdict}",
                flush=True,
            )
        else:
            validation = win_share(pool, export(model, rules, {}), args.validation_games, VALIDATION_SEEDS)[0]
            print(f"{clock()} validation win share {validation:.3f}", flush=True)

        # The evaluation, on seeds never trained on.
        net = export(model, rules, {})
        share, half, ms = win_share(pool, net, args.eval_games, EVAL_SEEDS)
    meta = {
        "name": Path(args.out).stem,
        "command": "python scripts/train_policy.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "commit": made_at,
        "training_minutes": round((time.monotonic() - start) / 60, 1),
        "teacher": f"ismcts:{args.teacher_iterations}",
        "labels": len(labels),
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
