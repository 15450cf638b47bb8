"""Before and after: the same figure for two revisions of meuterer, runs alternating.

Speed work is judged against the code it replaces, on a machine whose load changes from
minute to minute. This script checks each revision out into a temporary git worktree and
alternates short runs of the two (each in its own process, with ``PYTHONPATH`` pointing
at that revision's ``src``), every run measuring the figure right between two runs of the
yardstick (``../shared/bench/ref_sim.py``) in CPU time. It prints each revision's median
ratio to the yardstick and the ratio of the two medians.

    python benchmarks/bench_revisions.py BASE [NEW] --figure openspiel [--rounds 4] [--seconds 3]
    python benchmarks/bench_revisions.py BASE [NEW] --figure pettingzoo --instructions [--games 30]
    python benchmarks/bench_revisions.py BASE [NEW] --figure gym --rounds 21 --seconds 4 --warmup 3000

``NEW`` defaults to the working tree. Each timed run plays ``--warmup`` games first (3 by
default: a cold start). Today's code keeps memos that fill over the first 2,000-3,000
games of a process (PettingZoo: 2.9 ms a game over the first 500, 2.2 ms from the
2,500th on), so a 4-second run from a cold start times mostly their filling; a long
training run spends nearly all its time past it, and ``--warmup 3000`` measures that
steady state. Figures (4 players, random legal actions):
``engine`` (``meuterer.random_game``), ``fast`` (``meuterer.fast.random_game``, if the
revision has it; since issue 36 the reference's own), ``openspiel`` (random playouts of ``python_meuterer`` as
``random_sim_test`` plays them), ``pettingzoo`` and ``pettingzoo-encoded`` (one AEC
environment, reset per game, vector or encoded observations), ``gym`` and ``gym-vector``
(``meuterer/Meuterer-v0`` against random opponents, encoded or vector observations; the
learner chooses uniformly among its legal ids). A figure is games per second over the same
seeds on both sides; where both revisions play the same games from a seed (they do since
the fast engine), the ratio of the medians is also the ratio of decisions (or learner
steps) per second.

``--instructions`` counts instead of timing (needs valgrind): each revision plays the
figure's loop once under callgrind, ``--warmup`` games (30 by default) and then ``--games`` seeded games,
and the machine instructions of those games are read between two dumps. The counts do not
depend on the machine's load, so one run of each revision is enough; they are not time
(memory and branches cost differently), so they back up the timed ratio, not replace it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
YARDSTICK = next(
    (p / "shared" / "bench" / "ref_sim.py" for p in ROOT.parents if (p / "shared").is_dir()),
    Path("../shared/bench/ref_sim.py"),
)

# The figures' loops: work(seed) plays one game (figure and players in sys.argv[1], [3]).
LOOPS = r"""
import random, sys
figure, players = sys.argv[1], int(sys.argv[3])
if figure == "engine":
    import meuterer
    def work(seed):
        meuterer.random_game(seed=seed, players=players, first_captain=seed % players)
elif figure == "fast":
    from meuterer.fast import random_game
    def work(seed):
        random_game(seed, players, seed % players)
elif figure == "openspiel":
    import pyspiel
    import meuterer.openspiel
    game = pyspiel.load_game("python_meuterer", {"players": players})
    def work(seed):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
elif figure in ("gym", "gym-vector"):
    import gymnasium
    import meuterer.gym
    e = gymnasium.make("meuterer/Meuterer-v0", players=players, observation="encoded" if figure == "gym" else "vector")
    def work(seed):
        rng = random.Random(seed)
        e.reset(seed=seed)
        done = False
        while not done:
            legal = e.unwrapped.action_masks().nonzero()[0]
            _, _, terminated, truncated, _ = e.step(int(legal[rng.randrange(len(legal))]))
            done = terminated or truncated
elif figure in ("pettingzoo", "pettingzoo-encoded"):
    from meuterer.pettingzoo import env
    e = env(players=players, observation="vector" if figure == "pettingzoo" else "encoded")
    def work(seed):
        rng = random.Random(seed)
        e.reset(seed=seed)
        for _ in e.agent_iter():
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
            else:
                legal = observation["action_mask"].nonzero()[0]
                e.step(int(legal[rng.randrange(len(legal))]))
else:
    raise SystemExit(f"unknown figure {figure!r}")
"""

# One run, executed with the revision's src first on the path: prints a JSON line.
RUN = (
    LOOPS
    + r"""
import importlib.util, json, time
seconds, yardstick, warmup = float(sys.argv[2]), sys.argv[4], int(sys.argv[5])
spec = importlib.util.spec_from_file_location("ref_sim", yardstick)
ref_sim = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref_sim)
for seed in range(warmup):
    work(10**6 + seed)
rng = random.Random(1)
def rate(function, budget):
    count, start = 0, time.process_time()
    while time.process_time() - start < budget:
        function(count)
        count += 1
    return count / (time.process_time() - start)
before = rate(lambda i: ref_sim.play_game(rng, players), seconds / 4)
value = rate(work, seconds)
after = rate(lambda i: ref_sim.play_game(rng, players), seconds / 4)
print(json.dumps({"games_per_s": value, "ratio": value / ((before + after) / 2)}))
"""
)


# One count, executed under callgrind: the instructions between the two dumps are the games'.
COUNT = (
    LOOPS
    + r"""
import os, subprocess
def dump(name):
    subprocess.run(["callgrind_control", "--dump=" + name, str(os.getpid())], capture_output=True, check=True)
for seed in range(int(sys.argv[4])):
    work(10**6 + seed)
dump("warm")
for seed in range(int(sys.argv[2])):
    work(seed)
dump("measured")
"""
)

FIGURES = ("engine", "fast", "openspiel", "pettingzoo", "pettingzoo-encoded", "gym", "gym-vector")


def run(src: Path, figure: str, seconds: float, players: int, warmup: int) -> dict[str, float]:
    """One measurement of ``figure`` with the package in ``src``, after ``warmup`` games."""
    environment = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", RUN, figure, str(seconds), str(players), str(YARDSTICK), str(warmup)],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the run with {src} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def count(src: Path, figure: str, games: int, players: int, warmup: int, scratch: Path) -> float:
    """Machine instructions per game of ``figure`` with the package in ``src`` (callgrind),
    after ``warmup`` games."""
    environment = {**os.environ, "PYTHONPATH": str(src)}
    out = scratch / f"callgrind.{src.parent.name}"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", sys.executable, "-c", COUNT]
        + [figure, str(games), str(players), str(warmup)],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the count with {src} failed:\n{done.stderr[-2000:]}")
    for dump in scratch.glob(out.name + ".*"):
        text = dump.read_text(errors="replace")
        if "dump measured" in text:
            summary = next(line for line in text.splitlines() if line.startswith("summary:"))
            return int(summary.split()[1]) / games
    raise SystemExit(f"no measured dump from callgrind for {src}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the revision before (a commit, tag or branch)")
    parser.add_argument("new", nargs="?", help="the revision after (default: the working tree)")
    parser.add_argument("--figure", default="engine", choices=FIGURES)
    parser.add_argument("--rounds", type=int, default=4, help="runs of each revision (default 4)")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per run (default 3)")
    parser.add_argument("--players", type=int, default=4, choices=[3, 4])
    parser.add_argument(
        "--warmup",
        type=int,
        default=None,
        help="games played before each timed run or count (default 3 before a run: a cold start; 30 before a count)",
    )
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    parser.add_argument("--games", type=int, default=30, help="games counted with --instructions (default 30)")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    if not args.instructions and not YARDSTICK.is_file():
        raise SystemExit(f"no yardstick at {YARDSTICK}")
    warmup = args.warmup if args.warmup is not None else 30 if args.instructions else 3
    with tempfile.TemporaryDirectory() as temporary:
        trees: dict[str, Path] = {}
        for label, revision in (("before", args.base), ("after", args.new)):
            if revision is None:
                trees[label] = ROOT / "src"
                continue
            tree = Path(temporary) / label
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), revision], check=True
            )
            trees[label] = tree / "src"
        try:
            if args.instructions:
                counts = {
                    label: count(src, args.figure, args.games, args.players, warmup, Path(temporary))
                    for label, src in trees.items()
                }
                for label, per_game in counts.items():
                    print(f"{label:6} {per_game:,.0f} instructions per game", flush=True)
                print(
                    f"{args.figure}, {args.players} players, {args.games} games after {warmup}: "
                    f"{counts['before'] / counts['after']:.2f}x fewer instructions"
                )
                return
            ratios: dict[str, list[float]] = {label: [] for label in trees}
            for round_ in range(args.rounds):
                for label, src in trees.items():
                    result = run(src, args.figure, args.seconds, args.players, warmup)
                    ratios[label].append(result["ratio"])
                    print(
                        f"round {round_ + 1} {label:6} {result['games_per_s']:8.1f} games/s, "
                        f"{result['ratio']:.4f}x the yardstick",
                        flush=True,
                    )
        finally:
            for label, revision in (("before", args.base), ("after", args.new)):
                if revision is not None:
                    subprocess.run(
                        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[label].parent)],
                        check=False,
                    )
    before, after = statistics.median(ratios["before"]), statistics.median(ratios["after"])
    # Each round's two runs follow each other: their ratio is paired, free of slower drifts.
    paired = sorted(a / b for a, b in zip(ratios["after"], ratios["before"], strict=True))
    print(
        f"{args.figure}, {args.players} players: before {before:.4f}x, after {after:.4f}x the yardstick "
        f"(medians of {args.rounds}): {after / before:.2f}x as fast; round by round "
        f"{', '.join(f'{r:.2f}' for r in paired)} (median {statistics.median(paired):.2f})"
    )


if __name__ == "__main__":
    main()
