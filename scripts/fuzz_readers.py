"""Long fuzzer of every reader (issue 11): records, redacted records, states, views, island tables, actions.

Run from the repository root, for example for a minute per target::

    PYTHONPATH=src:. python scripts/fuzz_readers.py --seconds 60 --seed 1

``--targets view,state`` runs only those targets (one target per process gives each
reader's own peak memory).

Each target mutates valid documents (or makes up text) and checks that the reader only
ever raises its documented errors (``FormatError``, ``RulesError``, ``ActionParseError``),
that ``verify`` never raises, that a redacted record either replays or raises
``IllegalActionError``, that a state that loads can be viewed, sampled and played on
without any error, and that a view that loads can be shown (text, vector, board), sampled
and asked for its legal actions without any error. It prints, per target, the inputs tried, the failures (with the first
input of each kind saved to ``fuzz-failures/``), the worst CPU time of one input and the
process's peak memory. The exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import random
import resource
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.test_hardening import mutate, smoke

import meuterer
from meuterer import FormatError, Game, IllegalActionError, Rules, RulesError
from meuterer.islands import ISLANDS, load_islands
from meuterer.record import make_record
from meuterer.redact import dumps_redacted, loads_redacted, redact, replay_views
from meuterer.serialize import unstructure_state
from meuterer.svg import board
from meuterer.views import dumps_view, loads_view, observation_text, observation_vector, sample_state, view

SETUPS = [
    (4, 7, Rules()),
    (3, 2, Rules(pirates=True, ring="shuffled", withholding=True)),
    (4, 9, Rules(pirates=True, discard_pool="hand", reshuffle="when_empty", hand_size=6, loadmaster_extra=4)),
]
WEIRD: list[Any] = [None, True, 0, -1, 2**70, 1.5, "", "x" * 300, "\ud800", [], {}, [[]], {"a": {}}, "p0 pass"]


def games() -> list[Game]:
    found = []
    for players, seed, rules in SETUPS:
        actions, _ = meuterer.random_game(seed=seed, players=players, rules=rules)
        found.append(Game.replay(actions, players=players, rules=rules))
        found.append(Game.replay(actions[: len(actions) // 3], players=players, rules=rules))
    return found


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a node of a JSON value (capped per list, so records stay quick)."""
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index in sorted(random.sample(range(len(data)), min(len(data), 8))):
            found += paths(data[index], (*prefix, index))
    return found


def mutate_json(text: str, rng: random.Random) -> str | bytes:
    """A record-like text with one or two random changes: a node replaced, deleted or
    doubled, a key repeated, a surrogate added, the text cut or a byte flipped."""
    how = rng.randrange(8)
    if how == 0:
        return text[: rng.randrange(len(text))]
    if how == 1:
        raw = bytearray(text.encode())
        raw[rng.randrange(len(raw))] = rng.randrange(256)
        return bytes(raw)
    if how == 2:
        key = rng.choice(list(json.loads(text)))
        return text.replace(f'"{key}":', f'"{key}": {json.dumps(rng.choice(WEIRD))}, "{key}":', 1)
    data = json.loads(text)
    for _ in range(rng.randint(1, 2)):
        path = rng.choice(paths(data)[1:])
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        value = parent[last]
        if how == 3 and isinstance(parent, dict):
            del parent[last]
        elif how == 4 and isinstance(value, list) and value:
            value.insert(rng.randrange(len(value)), copy.deepcopy(rng.choice(value)))
        elif how == 5 and isinstance(value, str):
            parent[last] = value[: rng.randrange(len(value) + 1)] + rng.choice(["\ud800", "?", " ", ";", "9"])
        elif how == 6 and isinstance(value, int) and not isinstance(value, bool):
            parent[last] = rng.choice([value + 1, value - 1, -value, value * 10**6, 0])
        else:
            parent[last] = copy.deepcopy(rng.choice(WEIRD))
    return json.dumps(data, ensure_ascii=rng.random() < 0.5)


class Target:
    """A reader under test: how to make an input, and how to use it (raising on failure)."""

    def __init__(self, name: str, make: Callable[[random.Random], Any], use: Callable[[Any, random.Random], None]):
        self.name, self.make, self.use = name, make, use
        self.tried = 0
        self.worst = 0.0
        self.failures: Counter[str] = Counter()

    def run(self, seconds: float, rng: random.Random, out: Path) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            source = self.make(rng)
            self.tried += 1
            started = time.process_time()
            try:
                self.use(source, rng)
            except Exception as error:  # anything that reaches here is a finding
                where = traceback.extract_tb(error.__traceback__)[-1]
                kind = f"{type(error).__name__} at {Path(where.filename).name}:{where.lineno}"
                if not self.failures[kind]:
                    out.mkdir(exist_ok=True)
                    saved = source if isinstance(source, str | bytes) else repr(source)
                    name = f"{self.name}-{len(self.failures)}.txt"
                    (out / name).write_bytes(saved if isinstance(saved, bytes) else saved.encode("utf-8", "replace"))
                self.failures[kind] += 1
            self.worst = max(self.worst, time.process_time() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30, help="seconds per target (default 30)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    parser.add_argument("--targets", default=None, help="comma-separated targets to run (default: all)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    played = games()
    records = [meuterer.write_record(g) for g in played]
    redacted = [dumps_redacted(redact(make_record(g), seat)) for g in played for seat in (None, 0, 1)]
    states = [s for g in played for s in g.states[::7]]
    views = [dumps_view(view(s, seat)) for s in states[::3] for seat in (None, 0, 1, 2)]

    def use_record(text: str | bytes, _: random.Random) -> None:
        with contextlib.suppress(FormatError):
            meuterer.read_record(text)
        report = meuterer.verify(text)
        assert isinstance(report, meuterer.Report)
        assert all("cannot be verified" not in str(f) for f in report.findings), report

    def use_redacted(text: str | bytes, _: random.Random) -> None:
        try:
            record = loads_redacted(text)
        except FormatError:
            return
        with contextlib.suppress(IllegalActionError):
            replay_views(record)

    def make_state(r: random.Random) -> str:
        data = unstructure_state(r.choice(states))
        for _ in range(r.randint(1, 3)):
            mutate(data, r)
        return json.dumps(data)

    def use_state(text: str, r: random.Random) -> None:
        try:
            state = meuterer.loads_state(text)
        except FormatError:
            return
        smoke(state, r)

    def use_view(text: str | bytes, r: random.Random) -> None:
        try:
            seen = loads_view(text)
        except FormatError:
            return
        observation_vector(seen), observation_text(seen), seen.legal_actions(), board(seen)
        if seen.player is not None:
            sample_state(seen, r)

    rows = [
        {"name": i.name, "buys": "any" if i.buys is None else str(i.buys), "values": list(i.values), "ship": i.ship}
        for i in ISLANDS
    ]
    table = args.out.with_name("fuzz-islands.json")

    def use_islands(text: str | bytes, _: random.Random) -> None:
        table.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        with contextlib.suppress(RulesError):
            load_islands(table)

    def make_action(r: random.Random) -> str:
        words = ["p0", "p3", "p9", "draw", "sell", "ring", "role", "offer", "support", "discard", "play", "pass"]
        words += ["ruby", "mate", "hochland:ruby:1", "none", "-1", "99999999999999999999", "", "\ud800", ",", ":"]
        return " ".join(r.choice(words) for _ in range(r.randint(1, 6)))

    def use_action(text: str, _: random.Random) -> None:
        with contextlib.suppress(meuterer.ActionParseError):
            meuterer.parse_action(text)

    targets = [
        Target("record", lambda r: mutate_json(r.choice(records), r), use_record),
        Target("redacted", lambda r: mutate_json(r.choice(redacted), r), use_redacted),
        Target("state", make_state, use_state),
        Target("view", lambda r: mutate_json(r.choice(views), r), use_view),
        Target("islands", lambda r: mutate_json(json.dumps(rows), r), use_islands),
        Target("action", make_action, use_action),
    ]
    if args.targets is not None:
        wanted = args.targets.split(",")
        targets = [target for target in targets if target.name in wanted]
    failed = False
    for target in targets:
        target.run(args.seconds, rng, args.out)
        failed = failed or bool(target.failures)
        print(
            f"{target.name:9} tried {target.tried:7}  failures {sum(target.failures.values()):5}  "
            f"worst {target.worst * 1000:7.1f} ms"
        )
        for kind, count in target.failures.most_common():
            print(f"          {count:5} x {kind}")
    table.unlink(missing_ok=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of the process: {peak:.0f} MiB")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
