"""The readers' time budget (2 s of CPU per input within the documented limits): the CPU
time of ``verify`` and ``loads_redacted`` on each hostile document of ``tests/test_budget.py``,
of ``verify`` on the longest record, and of ``meuterer replay --html``'s page for it, next to
the budget and to the yardstick (how many yardstick games fit in the same time).

The tests check the memory of the same cases; the time is measured here, not asserted
(issue 21).

    python benchmarks/bench_budget.py [--quick] [--yardstick PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))  # for tests.test_budget's documents

from tests.test_budget import HOSTILE, SECONDS, SLOW_HOSTILE, longest_game

import meuterer
from meuterer.bench import find_yardstick, load_yardstick
from meuterer.redact import loads_redacted
from meuterer.viewer import replay_html


def cpu(work: Callable[[], object]) -> float:
    """CPU seconds of ``work()``; a MeutererError counts as an answer."""
    start = time.process_time()
    with contextlib.suppress(meuterer.MeutererError):
        work()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the slow documents")
    parser.add_argument("--yardstick", help="path of ref_sim.py")
    args = parser.parse_args()
    path = find_yardstick(args.yardstick)
    ref_sim = load_yardstick(path) if path is not None and path.is_file() else None
    rng = random.Random(1)

    def yardstick_games(seconds: float) -> str:
        if ref_sim is None:
            return "-"
        start = time.process_time()
        for _ in range(200):
            ref_sim.play_game(rng, 4)
        rate = 200 / (time.process_time() - start)
        return f"{seconds * rate:,.0f}"

    print(f"budget: {SECONDS:.1f} s of CPU per input; yardstick: {path if ref_sim else 'not found'}")
    print(f"{'case':<28} {'reader':<15} {'CPU s':>7} {'of budget':>10} {'yardstick games':>16}")
    cases = {name: make for name, make in HOSTILE.items() if not (args.quick and name in SLOW_HOSTILE)}

    def row(name: str, label: str, seconds: float) -> None:
        print(f"{name:<28} {label:<15} {seconds:>7.2f} {seconds / SECONDS:>9.0%} {yardstick_games(seconds):>16}")

    for name, make in cases.items():
        text = make()
        row(name, "verify", cpu(lambda: meuterer.verify(text)))  # noqa: B023 - called at once
        row(name, "loads_redacted", cpu(lambda: loads_redacted(text)))  # noqa: B023 - called at once
    longest = meuterer.write_record(longest_game())
    row("longest record", "verify", cpu(lambda: meuterer.verify(longest)))
    row("longest record", "replay_html", cpu(lambda: replay_html(longest)))


if __name__ == "__main__":
    main()
