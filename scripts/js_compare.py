"""Play random games on the JavaScript engine and on the reference, step by step.

Independent of `meuterer conform`: talks the engine protocol to
``node examples/engine-js/main.js`` itself and compares, at every step, who acts, the
legal actions (as sets), the chance outcomes with their exact probabilities and the
scores. Usage::

    PYTHONPATH=src python scripts/js_compare.py --games 200 --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import meuterer
from meuterer.serialize import converter
from meuterer.testing import ConformanceError, Setup, check_engine
from meuterer.views import dumps_view, view

ENGINE = [
    "node",
    str(Path(__file__).resolve().parent.parent / "examples" / "engine-js" / "main.js"),
]


class Engine:
    """A protocol engine process, one JSON line per request."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(  # noqa: S603 (the engine command is ours or the user's own)
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.next_id = 0

    def ask(self, cmd: str, **fields: Any) -> dict[str, Any]:
        self.next_id += 1
        request = {"id": self.next_id, "cmd": cmd, **fields}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        if reply.get("id") != self.next_id:
            raise RuntimeError(f"reply {reply} does not answer request {request}")
        return reply

    def close(self) -> None:
        self.ask("quit")
        self.proc.wait(timeout=5)


class JsAdapter:
    """`meuterer.testing.check_engine`'s adapter over the protocol engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def start(self, players: int, first_captain: int, rules: meuterer.Rules) -> str:
        options = converter.unstructure(rules)
        reply = self.engine.ask("new", players=players, first_captain=first_captain, rules=options)
        return str(reply["game"])

    def legal_actions(self, game: str) -> list[str]:
        return sorted(engine_step(self.engine, game)[1])

    def apply(self, game: str, action: str) -> str:
        handle = str(self.engine.ask("clone", game=game)["game"])
        reply = self.engine.ask("apply", game=handle, action=action)
        if reply["status"] != "ok":
            raise ValueError(f"engine refused {action!r}: {reply}")
        return handle

    def scores(self, game: str) -> list[int]:
        return list(self.engine.ask("scores", game=game)["scores"])

    def public_view(self, game: str) -> str | None:
        return None


def hypothesis_run(examples: int, seed: int) -> int:
    """check_engine on 3 and 4 players, default rules and one-round games."""
    engine = Engine(ENGINE)
    adapter = JsAdapter(engine)
    setups = [Setup(p, p - 3, meuterer.Rules(rounds=r)) for p in (3, 4) for r in (1, None)]
    failures = 0
    try:
        for setup in setups:
            began = time.monotonic()
            try:
                check_engine(adapter, max_examples=examples, seed=seed, setup=setup)
            except ConformanceError as error:
                failures += 1
                rounds = sum(" offer " in a for a in error.actions)
                print(
                    f"{setup.players} players, rounds={setup.rules.rounds}: difference at step {error.step}"
                    f" ({len(error.actions)} actions, {rounds} rounds, {time.monotonic() - began:.1f} s):"
                    f" {error.what}: expected {error.expected}, got {error.actual}"
                )
            else:
                print(f"{setup.players} players, rounds={setup.rules.rounds}: {examples} games agree")
    finally:
        engine.close()
    return 1 if failures else 0


def reference_step(state: meuterer.State) -> tuple[object, set[str], dict[str, Fraction]]:
    """Who acts, the legal actions and the chance outcomes of the reference."""
    who = meuterer.current_player(state)
    if meuterer.is_terminal(state):
        return None, set(), {}
    if state.step == meuterer.Step.RING:
        table = [island.name for island in state.rules.islands]
        (_, probability) = meuterer.chance_outcomes(state)[0]
        return "chance", {f"ring {table[0]} {','.join(table[1:])} {probability}"}, {}
    if who == meuterer.CHANCE:
        outcomes = {str(a): Fraction(p) for a, p in meuterer.chance_outcomes(state)}
        return "chance", set(outcomes), outcomes
    return who, {str(a) for a in meuterer.legal_actions(state)}, {}


def engine_step(engine: Engine, game: str) -> tuple[object, set[str], dict[str, Fraction]]:
    reply = engine.ask("legal", game=game)
    if reply["actor"] == "chance" and reply["actions"] is None:
        ring = reply["ring"]
        return "chance", {f"ring {ring['first']} {','.join(ring['others'])} {ring['probability']}"}, {}
    if reply["actor"] == "chance":
        outcomes = {a: Fraction(p) for a, p in zip(reply["actions"], reply["probabilities"], strict=True)}
        return "chance", set(outcomes), outcomes
    return reply["actor"], set(reply["actions"]), {}


def play(engine: Engine, seed: int, players: int, rules: dict[str, Any]) -> list[str] | None:
    """One random game; the actions up to the first difference, or None."""
    rng = random.Random(seed)
    first = rng.randrange(players)
    state = meuterer.new_game(players=players, first_captain=first, rules=_rules(rules))
    options = converter.unstructure(_rules(rules))
    game = engine.ask("new", players=players, first_captain=first, rules=options)["game"]
    actions: list[str] = []
    try:
        while True:
            mine = reference_step(state)
            theirs = engine_step(engine, game)
            ref_scores = list(meuterer.scores(state))
            their_scores = engine.ask("scores", game=game)["scores"]
            if mine != theirs or ref_scores != their_scores:
                _report(actions, mine, theirs, ref_scores, their_scores)
                return actions
            for seat in [None, *range(players)]:
                expected = dumps_view(view(state, seat))
                got = engine.ask("view", game=game, seat=seat, form="text").get("text")
                if expected != got:
                    print(f"view of {seat} differs after {len(actions)} actions; last: {actions[-6:]}")
                    print(f"  first difference: {_first_key(expected, got)}")
                    return actions
            if not mine[1]:
                global STEPS
                STEPS += len(actions)
                return None
            if state.step == meuterer.Step.RING:
                arrangements = meuterer.chance_outcomes(state)
                action = str(arrangements[rng.randrange(len(arrangements))][0])
            else:
                action = rng.choice(sorted(mine[1]))
            actions.append(action)
            state = meuterer.apply(state, meuterer.parse_action(action))
            reply = engine.ask("apply", game=game, action=action)
            if reply["status"] != "ok":
                print(f"engine refused {action!r}: {reply}")
                return actions
    finally:
        engine.ask("drop", game=game)


def _first_key(expected: str, got: str | None) -> str:
    if got is None:
        return "no view"
    mine, theirs = json.loads(expected), json.loads(got)
    for key in sorted(set(mine) | set(theirs)):
        if mine.get(key) != theirs.get(key):
            return f"{key}: reference {mine.get(key)}, engine {theirs.get(key)}"
    return "the text (same values)"


def _rules(options: dict[str, Any]) -> meuterer.Rules:
    return meuterer.Rules(**options)


def _report(
    actions: list[str],
    mine: tuple[object, set[str], dict[str, Fraction]],
    theirs: tuple[object, set[str], dict[str, Fraction]],
    ref_scores: list[int],
    their_scores: list[int],
) -> None:
    print(f"difference after {len(actions)} actions; last: {actions[-8:]}")
    if mine[0] != theirs[0]:
        print(f"  to move: reference {mine[0]}, engine {theirs[0]}")
    if mine[1] != theirs[1]:
        print(f"  only reference: {sorted(mine[1] - theirs[1])[:10]}")
        print(f"  only engine: {sorted(theirs[1] - mine[1])[:10]}")
    if mine[2] != theirs[2]:
        print(f"  chance: reference {mine[2]}, engine {theirs[2]}")
    if ref_scores != their_scores:
        print(f"  scores: reference {ref_scores}, engine {their_scores}")


STEPS = 0
HIST: dict[str, int] = {}

SAMPLES = [
    "p0 offer 1",
    "p1 offer 4",
    "draw p1 ruby",
    "draw p0 pirate",
    "p2 role mate",
    "p1 support 2",
    "p0 sell hochland:grain:1",
    "p3 discard ruby salt wine",
    "ring hochland,sandkap",
    "p0 pass",
    "p2 play pirate",
    "p0 sell none",
    "p0 offer 01",
    "p0  pass",
    "P0 pass",
    "p4 pass",
]
WORDS = ["p0", "p1", "p2", "p3", "0", "1", "2", "3", "7", "999999", "Hochland", "atlantis", "none"]


def bad_candidates(legal: list[str], rng: random.Random) -> list[str]:
    """Texts near the legal actions: a word changed, two swapped, a sample of each kind."""
    out = list(SAMPLES)
    names = [island.name for island in meuterer.ISLANDS]
    cards = [card.name.lower() for card in meuterer.Card]
    for action in rng.sample(legal, min(len(legal), 6)):
        words = action.split(" ")
        i = rng.randrange(len(words))
        for word in rng.sample(WORDS + cards, 4):
            out.append(" ".join(words[:i] + [word] + words[i + 1 :]))
        if len(words) > 3:
            j = rng.randrange(2, len(words))
            swapped = words[:]
            swapped[2], swapped[j] = swapped[j], swapped[2]
            out.append(" ".join(swapped))
        if " discard " in action:
            out.append(" ".join(words[:-1]))
            out.append(" ".join([*words, words[-1]]))
        if " sell " in action and action.split(" ")[2] != "none":
            sales = action.split(" ")[2].split(",")
            sale = sales[0].split(":")
            for name in [*rng.sample(names, 3), "atlantis", "Hochland"]:
                out.append(f"{words[0]} sell {name}:{sale[1]}:{sale[2]}")
            for card in rng.sample(cards, 3):
                out.append(f"{words[0]} sell {sale[0]}:{card}:{sale[2]}")
            out.append(f"{words[0]} sell {sale[0]}:{sale[1]}:{int(sale[2]) + 1}")
            out.append(f"{words[0]} sell {sale[0]}:{sale[1]}:0")
            out.append(f"{words[0]} sell {','.join(reversed(sales))}")
    return [text for text in out if text not in legal]


def reference_code(state: meuterer.State, text: str) -> str:
    try:
        action = meuterer.parse_action(text)
        meuterer.apply(state, action)
    except meuterer.ActionParseError:
        return "malformed"
    except meuterer.IllegalActionError as error:
        return str(getattr(error, "code", "?"))
    return "accepted"


def refusal_run(games: int, seed: int) -> int:
    """Compare the refusal codes of actions near the legal ones, at every step."""
    engine = Engine(ENGINE)
    rng = random.Random(seed)
    checked = differences = 0
    try:
        for i in range(games):
            players = 3 + i % 2
            state = meuterer.new_game(players=players, first_captain=i % players)
            game = engine.ask("new", players=players, first_captain=i % players, rules={})["game"]
            while not meuterer.is_terminal(state):
                legal = sorted(reference_step(state)[1])
                for text in bad_candidates(legal, rng):
                    reply = engine.ask("apply", game=game, action=text)
                    theirs = reply.get("code", reply["status"])
                    mine = reference_code(state, text)
                    checked += 1
                    HIST[mine] = HIST.get(mine, 0) + 1
                    if theirs != mine:
                        differences += 1
                        if differences <= 20:
                            print(f"{text!r} at {state.step}: reference {mine}, engine {theirs}")
                action = rng.choice(legal)
                state = meuterer.apply(state, meuterer.parse_action(action))
                engine.ask("apply", game=game, action=action)
            for text in SAMPLES:
                reply = engine.ask("apply", game=game, action=text)
                if reply.get("code") != reference_code(state, text):
                    differences += 1
                    print(f"{text!r} at the end: reference {reference_code(state, text)}, engine {reply}")
            engine.ask("drop", game=game)
    finally:
        engine.close()
    print(f"{checked} refused actions, {differences} with another code; codes: {HIST}")
    return 1 if differences else 0


OPTIONS: list[dict[str, Any]] = [
    {},
    {"sale_order": "round_captain"},
    {"withholding": True},
    {"discard_pool": "hand"},
    {"reshuffle": "when_empty"},
    {"rounds": 2},
    {"pirates": True},
    {"pirates": True, "pirates_rob_at_start": True},
    {"pirates": True, "pirates_return": True, "sale_order": "round_captain"},
    {"ring": "shuffled"},
    {"ring": "shuffled", "pirates": True, "withholding": True},
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--defaults-only", action="store_true")
    parser.add_argument("--refusals", type=int, metavar="N", help="compare refusal codes over N games")
    parser.add_argument("--hypothesis", type=int, metavar="N", help="check_engine with N games per setup")
    args = parser.parse_args(argv)
    if args.hypothesis:
        return hypothesis_run(args.hypothesis, args.seed)
    if args.refusals:
        return refusal_run(args.refusals, args.seed)
    engine = Engine(ENGINE)
    failures = 0
    try:
        for i in range(args.games):
            seed = args.seed * 1_000_003 + i
            players = 3 + i % 2
            rules = {} if args.defaults_only else OPTIONS[(i // 2) % len(OPTIONS)]
            if play(engine, seed, players, rules) is not None:
                print(f"  game {i}: seed {seed}, {players} players, rules {rules}")
                failures += 1
    finally:
        engine.close()
    print(f"{args.games} games ({STEPS} steps), {failures} with a difference")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
