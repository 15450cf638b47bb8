"""Record-layer speed: a state to canonical JSON and back (µs each), and verifying a
complete 4-player record with per-step digests (ms per record).

States are taken from seeded random 4-player games (every snapshot of each game);
records are those of other seeded random 4-player games, written with digests and
result. Targets (issue 3): round trip under 100 µs, verification under 10 ms per game.

    python benchmarks/bench_records.py [--games N] [--records N] [--repeat N]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable, Sequence

import meuterer
from meuterer import Game, State


def games(count: int, first_seed: int) -> list[Game]:
    """``count`` complete seeded random 4-player games, with their full history."""
    played = []
    for seed in range(first_seed, first_seed + count):
        actions, _ = meuterer.random_game(seed=seed, players=4, first_captain=seed % 4)
        played.append(Game.replay(actions, players=4, first_captain=seed % 4))
    return played


def per_item(run: Callable[[], object], items: int, repeat: int) -> tuple[float, float]:
    """Best and median seconds per item over ``repeat`` runs of ``run`` (which handles ``items`` items)."""
    clock = time.perf_counter
    times = []
    for _ in range(repeat):
        start = clock()
        run()
        times.append((clock() - start) / items)
    return min(times), statistics.median(times)


def bench_states(states: Sequence[State], repeat: int) -> dict[str, tuple[float, float]]:
    texts = [meuterer.dumps_state(s) for s in states]
    encoded = [t.encode() for t in texts]
    assert all(meuterer.loads_state(t) == s for t, s in zip(texts, states, strict=True))
    n = len(states)
    dumps, loads, digest = meuterer.dumps_state, meuterer.loads_state, meuterer.state_digest
    return {
        "dumps_state": per_item(lambda: [dumps(s) for s in states], n, repeat),
        "loads_state": per_item(lambda: [loads(t) for t in texts], n, repeat),
        "loads_state (bytes)": per_item(lambda: [loads(b) for b in encoded], n, repeat),
        "round trip": per_item(lambda: [loads(dumps(s)) for s in states], n, repeat),
        "state_digest": per_item(lambda: [digest(s) for s in states], n, repeat),
    }


def bench_records(played: Sequence[Game], repeat: int) -> dict[str, tuple[float, float]]:
    texts = [meuterer.write_record(g) for g in played]
    records = [meuterer.read_record(t) for t in texts]
    assert all(meuterer.verify(t).ok for t in texts)
    bare = [meuterer.record.dumps_record(meuterer.record.make_record(g, digests=False)) for g in played]
    n = len(texts)
    verify, read = meuterer.verify, meuterer.read_record
    return {
        "verify(text), digests": per_item(lambda: [verify(t) for t in texts], n, repeat),
        "  read_record(text)": per_item(lambda: [read(t) for t in texts], n, repeat),
        "  verify(Record), digests": per_item(lambda: [verify(r) for r in records], n, repeat),
        "verify(text), no digests": per_item(lambda: [verify(t) for t in bare], n, repeat),
        "write_record (with digests)": per_item(lambda: [meuterer.write_record(g) for g in played], n, repeat),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="4-player games whose states are used (default 8)")
    parser.add_argument("--records", type=int, default=50, help="4-player records verified (default 50)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs; best and median shown (default 5)")
    args = parser.parse_args()
    print(f"meuterer {meuterer.__version__}, Python {platform.python_version()}, {platform.machine()}, one core")

    states = [s for g in games(args.games, 1000) for s in g.states]
    sizes = [len(meuterer.dumps_state(s)) for s in states]
    print(
        f"\nstates: {len(states)} from {args.games} random 4-player games, "
        f"canonical JSON {min(sizes)}-{max(sizes)} chars (mean {statistics.mean(sizes):.0f})"
    )
    bench_states(states[:50], 1)  # warm-up
    for name, (best, median) in bench_states(states, args.repeat).items():
        print(f"  {name:<28} {best * 1e6:8.1f} µs  (median {median * 1e6:.1f} µs)")

    played = games(args.records, 2000)
    actions = [len(g) for g in played]
    print(
        f"\nrecords: {len(played)} complete random 4-player games with digests and result, "
        f"{min(actions)}-{max(actions)} actions (mean {statistics.mean(actions):.0f})"
    )
    bench_records(played[:3], 1)  # warm-up
    for name, (best, median) in bench_records(played, args.repeat).items():
        print(f"  {name:<28} {best * 1e3:8.2f} ms  (median {median * 1e3:.2f} ms) per record")


if __name__ == "__main__":
    main()
