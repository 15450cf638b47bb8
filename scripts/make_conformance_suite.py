"""Generate the conformance suite shipped in src/meuterer/conform/suite/.

    PYTHONPATH=src python scripts/make_conformance_suite.py [--out DIR] [--check]

How the games are chosen (everything is seeded, so the output is the same every time):

- **base**: the default rules, 3 and 4 players. Candidate games are played with the kit's
  play styles (``meuterer.testing.STYLES``: uniform, hoard, dump, fight, sell_most) from
  many seeds; games are then picked greedily so that every edge case (tied mutinies,
  mutinies with and without a mate, supports the merchant or loadmaster played for
  nothing, 2-, 3- and 4-way sale ties, empty hands, captains with no card, reshuffles,
  the loadmaster's discard, sales that withhold, shared wins, ...) appears in at least
  ``NEED`` games per player count, then filled up with the games that cover most;
- **option**: every rule option alone away from its default, 3 and 4 players, each
  steered to the edge cases that option touches;
- **pirates**: the pirate variant with each of its options and the shuffled ring, steered
  to robberies;
- **combo**: random combinations of every option, sizes included;
- **added in 1.1.0**: games whose loadmaster discards no card (``loadmaster_extra=0``,
  ``pN discard none``), the option alone and in random combinations. They are drawn from
  their own seeded generator after everything above, so the games and refused actions of
  suite 1.0.0 are unchanged, byte for byte, and keep their ids.

Refused actions are drawn from states of the chosen games: for each state, candidate
bad actions of every kind; the reference's refusal code of each is recorded, and up to
``PER_CODE`` per code are kept, spread over games and steps.

``tests/test_conform_suite.py`` regenerates a sample of the fixtures from their actions and
compares them with the shipped ones, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import attrs

import meuterer
from meuterer.actions import Action, Pass
from meuterer.cards import CARDS, ROLES, Card
from meuterer.conform.fixtures import (
    FIXTURE_FORMAT,
    Fixture,
    coverage,
    file_digest,
    game_fixture,
    refusal_fixture,
    suite_dir,
    write_lines,
)
from meuterer.engine import apply, is_chance_node, is_terminal, legal_actions, new_game, sample_chance
from meuterer.errors import ActionParseError, IllegalActionError
from meuterer.islands import ISLANDS
from meuterer.rules import BASE_DECK, DiscardPool, Reshuffle, Ring, Rules, SaleOrder
from meuterer.serialize import structure
from meuterer.state import State, Step
from meuterer.testing import STYLES, style_weights

SUITE_VERSION = "1.1.0"
NEED = 3
PER_CODE = 10
EVENTS = (
    "mutiny-tied",
    "mutiny-succeeded",
    "mutiny-failed",
    "mutiny-with-mate",
    "mutiny-without-mate",
    "mutiny-mate-support",
    "mutiny-merchant-support-ignored",
    "mutiny-loadmaster-support-ignored",
    "mutiny-with-cabin-boy",
    "no-mutineer",
    "sale-tie-2",
    "sale-tie-3",
    "sale-on-several-islands",
    "pass-with-empty-hand",
    "captain-with-empty-hand",
    "reshuffle",
    "loadmaster-discard",
    "offer-0",
    "offer-max",
    "shared-win",
)


def steered_game(players: int, first_captain: int, rules: Rules, style: str, rng: random.Random) -> list[Action]:
    """A complete game: chance draws with their probabilities, choices weighted by ``style``."""
    state = new_game(players, first_captain, rules)
    actions: list[Action] = []
    while not is_terminal(state):
        if is_chance_node(state):
            action = sample_chance(state, rng)
        else:
            legal = legal_actions(state)
            options = sorted(legal, key=lambda a: not isinstance(a, Pass))
            weights = style_weights(state, options, style)
            ticket = rng.randrange(sum(weights))
            action = options[bisect_right(list(accumulate(weights)), ticket)]
        actions.append(action)
        state = apply(state, action)
    return actions


Candidate = tuple[int, int, Rules, list[Action], list[str]]


def candidates(players: int, rules: Rules, count: int, rng: random.Random) -> list[Candidate]:
    found = []
    for _ in range(count):
        captain = rng.randrange(players)
        actions = steered_game(players, captain, rules, rng.choice(STYLES), rng)
        found.append((players, captain, rules, actions, coverage(players, captain, rules, actions)))
    return found


def pick(pool: list[Candidate], wanted: Sequence[str], need: int, total: int) -> list[Candidate]:
    """Greedy: games covering the wanted labels still short of ``need``, then the broadest."""
    chosen: list[Candidate] = []
    have: Counter[str] = Counter()
    left = list(pool)
    while left and len(chosen) < total:

        def gain(c: Candidate) -> tuple[int, int]:
            short = sum(1 for label in c[4] if label in wanted and have[label] < need)
            return short, len(c[4])

        best = max(left, key=gain)
        if gain(best)[0] == 0 and all(have[label] >= need for label in wanted if any(label in c[4] for c in pool)):
            best = max(left, key=lambda c: len(c[4]))
        left.remove(best)
        chosen.append(best)
        have.update(best[4])
    return chosen


def option_variants() -> list[tuple[str, Rules]]:
    """Each rule option alone, away from its default."""
    shifted = tuple(meuterer.Island(i.name, i.buys, tuple(v + 1 for v in i.values), i.ship) for i in ISLANDS)
    reordered = (ISLANDS[0], *reversed(ISLANDS[1:]))
    return [
        ("pirates", Rules(pirates=True)),
        ("ring", Rules(ring=Ring.SHUFFLED)),
        ("rounds", Rules(rounds=3)),
        ("sale_order", Rules(sale_order=SaleOrder.ROUND_CAPTAIN)),
        ("withholding", Rules(withholding=True)),
        ("discard_pool", Rules(discard_pool=DiscardPool.HAND)),
        ("reshuffle", Rules(reshuffle=Reshuffle.WHEN_EMPTY)),
        ("hand_size", Rules(hand_size=4)),
        ("hand_size", Rules(hand_size=6)),
        ("loadmaster_extra", Rules(loadmaster_extra=1)),
        ("loadmaster_extra", Rules(loadmaster_extra=2)),
        ("max_offer", Rules(max_offer=5)),
        ("max_offer", Rules(max_offer=0)),
        ("cabin_boy_points", Rules(cabin_boy_points=4)),
        ("deck", Rules(deck=(5, 5, 5, 5, 5, 7, 0))),
        ("islands", Rules(islands=shifted)),
        ("islands", Rules(islands=reordered)),
    ]


def pirate_variants() -> list[tuple[str, Rules]]:
    return [
        ("pirates", Rules(pirates=True)),
        ("pirates-rob-at-start", Rules(pirates=True, pirates_rob_at_start=True)),
        ("pirates-return", Rules(pirates=True, pirates_return=True)),
        ("pirates-both", Rules(pirates=True, pirates_rob_at_start=True, pirates_return=True)),
        ("pirates-shuffled", Rules(pirates=True, ring=Ring.SHUFFLED)),
        (
            "pirates-shuffled-both",
            Rules(pirates=True, ring=Ring.SHUFFLED, pirates_rob_at_start=True, pirates_return=True),
        ),
    ]


def random_rules(rng: random.Random) -> Rules:
    pirates = rng.random() < 0.5
    deck = BASE_DECK[:6] + (1 if pirates else 0,)
    if rng.random() < 0.2:
        deck = tuple(rng.randint(4, 9) for _ in range(5)) + (rng.randint(4, 8), 1 if pirates else 0)
    options: dict[str, Any] = {
        "pirates": pirates,
        "deck": deck,
        "ring": rng.choice(list(Ring)),
        "sale_order": rng.choice(list(SaleOrder)),
        "withholding": rng.random() < 0.5,
        "discard_pool": rng.choice(list(DiscardPool)),
        "reshuffle": rng.choice(list(Reshuffle)),
        "pirates_rob_at_start": pirates and rng.random() < 0.5,
        "pirates_return": pirates and rng.random() < 0.5,
    }
    if rng.random() < 0.3:
        options["rounds"] = rng.randint(2, 5)
    if rng.random() < 0.3:
        options["hand_size"] = rng.randint(3, 6)
        # 0 ("pN discard none") became notation after suite 1.0.0: drawing it changes the suite
        options["loadmaster_extra"] = rng.randint(1, 4)
    if rng.random() < 0.3:
        options["max_offer"] = rng.randint(0, 5)
        options["cabin_boy_points"] = rng.randint(0, 4)
    try:
        return Rules(**options)
    except meuterer.RulesError:
        options.pop("deck")
        return Rules(**options)


def choose_games(rng: random.Random) -> list[tuple[str, Candidate]]:
    games: list[tuple[str, Candidate]] = []
    for players, count in ((3, 45), (4, 45)):
        pool = candidates(players, Rules(), 400, rng)
        four = ("sale-tie-4",) if players == 4 else ()
        for n, c in enumerate(pick(pool, EVENTS + four, NEED, count)):
            games.append((f"base-{players}p-{n:02d}", c))
    for name, rules in option_variants():
        for players in (3, 4):
            pool = candidates(players, rules, 12, rng)
            n = sum(1 for ident, _ in games if ident.startswith(f"option-{name}-{players}p"))
            for c in pick(pool, EVENTS, 1, 1):
                games.append((f"option-{name}-{players}p-{n}", c))
    for name, rules in pirate_variants():
        for players in (3, 4):
            pool = candidates(players, rules, 30, rng)
            for n, c in enumerate(pick(pool, ("robbery", "pirate-no-robbery", "pirate-played", *EVENTS), 1, 2)):
                games.append((f"{name}-{players}p-{n}", c))
    combos: list[Candidate] = []
    for _ in range(60):
        players = rng.choice((3, 4))
        combos += candidates(players, random_rules(rng), 1, rng)
    for n, c in enumerate(combos):
        games.append((f"combo-{n:03d}", c))
    return games


def added_in_1_1(rng: random.Random) -> list[tuple[str, Candidate]]:
    """The games suite 1.1.0 adds: the loadmaster discards no card (``pN discard none``)."""
    games: list[tuple[str, Candidate]] = []
    for players in (3, 4):
        pool = candidates(players, Rules(loadmaster_extra=0), 12, rng)
        for n, c in enumerate(pick(pool, EVENTS, 1, 2)):
            games.append((f"option-loadmaster_extra-0-{players}p-{n}", c))
    for n in range(6):
        rules = attrs.evolve(random_rules(rng), loadmaster_extra=0)
        games += [(f"combo-loadmaster_extra-0-{n}", c) for c in candidates(rng.choice((3, 4)), rules, 1, rng)]
    return games


MALFORMED = (
    "",
    "pass",
    "P0 pass",
    "p0  pass",
    " p0 pass",
    "p0 pass ",
    "p9 pass",
    "p0 dance",
    "p0 offer 01",
    "p0 offer -1",
    "p0 play diamond",
    "p0 role captain",
    "p0 sell",
    "p0 sell hochland:grain",
    "p0 sell hochland:grain:1,",
    "p0 discard",
    "draw p0",
    "draw p0 ruby wine",
    "ring",
    "p0 support one",
)


def bad_actions(state: State, rng: random.Random) -> list[str]:
    """Candidate actions that are (mostly) illegal in ``state``, of every kind."""
    n = state.players
    p = state.to_act
    other = (p + 1 + rng.randrange(n - 1)) % n
    found = [rng.choice(MALFORMED)]
    if n == 3:
        found.append(rng.choice(["p3 pass", "draw p3 ruby", "p3 offer 1", "p3 sell none"]))
    step = state.step
    if step is Step.GAME_OVER:
        return [*found, "p0 pass", f"draw p{rng.randrange(n)} ruby", "p1 sell none"]
    if step is Step.RING:
        names = [i.name for i in state.rules.islands]
        shuffled = names[1:]
        rng.shuffle(shuffled)
        found += [
            "ring " + ",".join(shuffled + names[:1]),
            "ring " + ",".join(names[:-1]),
            "ring " + ",".join(names[:-1] + names[1:2]),
            "ring " + ",".join(names[:-1] + ["atlantis"]),
            "draw p0 ruby",
            "p0 offer 1",
        ]
        return found
    if step in (Step.DEAL, Step.DRAW):
        pool = state.deck if any(state.deck) else state.discard
        found += [f"draw p{p} {c}" for c in CARDS if not pool[c]]
        found += [f"draw p{other} {rng.choice(CARDS)}", f"p{p} pass", f"p{p} offer 1"]
        return found
    found.append(f"draw p{p} {rng.choice(CARDS)}")
    legal = [str(a) for a in legal_actions(state)]
    if legal:
        mine = rng.choice(legal)
        found.append(f"p{other}" + mine[mine.index(" ") :])
    if step is Step.OFFER:
        found += [f"p{p} offer {state.rules.max_offer + 1}", f"p{p} offer 100", f"p{p} play ruby", f"p{p} pass"]
    elif step is Step.PLAY:
        found += [f"p{p} play {c}" for c in CARDS if not state.hands[p][c]]
        found += [f"p{p} role mutineer", f"p{p} support 0", f"p{p} offer 1"]
    elif step is Step.CHOOSE_ROLE:
        found += [f"p{p} role {r}" for r in ROLES if r in state.roles]
        found += [f"p{p} play ruby", f"p{p} pass"]
    elif step is Step.MUTINY:
        have = state.face_down[p][Card.SUPPORT]
        found += [f"p{p} support {have + 1}", f"p{p} support {have + 5}", f"p{p} pass", f"p{p} sell none"]
    elif step is Step.SELL:
        active = [state.island(pos) for pos in state.active]
        inactive = [state.island(pos) for pos in range(len(state.ring)) if pos not in state.active]
        goods = [c for c in CARDS[:5] if state.face_up[p][c]] or [Card.GRAIN]
        good = rng.choice(goods)
        have = state.face_up[p][good]
        found += [
            f"p{p} sell atlantis:{good}:1",
            f"p{p} sell {rng.choice(inactive).name}:{good}:1" if inactive else f"p{p} sell atlantis:ruby:1",
            f"p{p} sell hochland:{good}:0",
            f"p{p} sell hochland:{good}:{have + 1}",
            f"p{p} sell hochland:support:1",
            f"p{p} sell none",
            f"p{p} support 0",
        ]
        for island in active:
            wrong = [c for c in CARDS[:5] if not island.buys_card(c)]
            if wrong:
                found.append(f"p{p} sell {island.name}:{rng.choice(wrong)}:1")
        if len(active) > 1:
            first, second = active[0], active[-1]
            found.append(f"p{p} sell {second.name}:{good}:1,{first.name}:{good}:1")
            found.append(f"p{p} sell {first.name}:{good}:1,{first.name}:{good}:1")
    elif step is Step.LOADMASTER_DISCARD:
        extra = state.rules.loadmaster_extra
        hand = [c for c in CARDS for _ in range(state.hands[p][c])]
        if hand:
            found.append(f"p{p} discard " + " ".join(str(c) for c in sorted(hand)[: extra + 1]))
            found.append(f"p{p} discard " + " ".join(str(c) for c in sorted(hand, reverse=True)[:extra]))
        missing = [c for c in CARDS if not state.hands[p][c]]
        if missing and extra:
            found.append(f"p{p} discard " + " ".join(str(c) for c in sorted([missing[0]] * extra)))
        found.append(f"p{p} pass")
    return found


def refusal_code(state: State, text: str) -> str | None:
    try:
        action = meuterer.parse_action(text)
    except ActionParseError as error:
        return error.code
    try:
        apply(state, action)
    except IllegalActionError as error:
        return error.code
    return None


def choose_refusals(
    fixtures: list[Fixture], rng: random.Random, per_code: int = PER_CODE, first: int = 0
) -> list[Fixture]:
    by_code: dict[str, list[tuple[Fixture, int, str]]] = {}
    for fixture in fixtures:
        rules = structure(fixture["rules"], Rules)
        actions = [step["action"] for step in fixture["steps"] if "action" in step]
        wanted = {0, len(actions), *rng.sample(range(len(actions)), min(12, len(actions)))}
        state = new_game(fixture["players"], fixture["first_captain"], rules)
        for index in range(len(actions) + 1):
            if index in wanted:
                for text in bad_actions(state, rng):
                    code = refusal_code(state, text)
                    if code is not None:
                        by_code.setdefault(code, []).append((fixture, index, text))
            if index < len(actions):
                state = apply(state, meuterer.parse_action(actions[index]))
    chosen = []
    for code in sorted(by_code):
        found = by_code[code]
        rng.shuffle(found)
        seen_games: set[str] = set()
        kept = 0
        for fixture, index, text in found:
            if kept >= per_code:
                break
            if fixture["id"] in seen_games and len({f["id"] for f, _, _ in found}) > per_code:
                continue
            seen_games.add(fixture["id"])
            chosen.append((fixture, index, text, code))
            kept += 1
    chosen.sort(key=lambda item: (item[0]["id"], item[1], item[2]))
    return [refusal_fixture(f"refusal-{n:03d}", f, i, t, c) for n, (f, i, t, c) in enumerate(chosen, first)]


SCHEMAS = ("game.schema.json", "refusal.schema.json", "manifest.schema.json")
"""The JSON Schemas, kept by hand in the suite's schemas/ directory."""


def build(out: Path, sample: int | None = None) -> dict[str, Any]:
    chosen = choose_games(random.Random(20261201))
    added = added_in_1_1(random.Random(20261202))
    if sample is not None:
        chosen, added = chosen[:sample], added[:sample]
    fixtures = [game_fixture(ident, *c[:4], covers=c[4]) for ident, c in chosen]
    refusals = choose_refusals(fixtures, random.Random(7))
    new = [game_fixture(ident, *c[:4], covers=c[4]) for ident, c in added]
    refusals += choose_refusals(new, random.Random(11), per_code=2, first=len(refusals))
    fixtures += new
    out.mkdir(parents=True, exist_ok=True)
    (out / "schemas").mkdir(exist_ok=True)
    write_lines(out / "games.jsonl.gz", fixtures)
    write_lines(out / "refusals.jsonl.gz", refusals)
    files: dict[str, Any] = {
        "games.jsonl.gz": {"kind": "game", "count": len(fixtures), "schema": "schemas/game.schema.json"},
        "refusals.jsonl.gz": {"kind": "refusal", "count": len(refusals), "schema": "schemas/refusal.schema.json"},
    }
    for name in SCHEMAS:
        if out != suite_dir():
            (out / "schemas" / name).write_bytes((suite_dir() / "schemas" / name).read_bytes())
    for name in files:
        files[name]["sha256"] = file_digest(out / name)
    coverage_counts: Counter[str] = Counter(label for f in fixtures for label in f["covers"])
    manifest = {
        "name": "meuterer-conformance-suite",
        "suite_version": SUITE_VERSION,
        "fixture_format": FIXTURE_FORMAT,
        "protocol": 1,
        "generated_by": f"meuterer {meuterer.__version__} (scripts/make_conformance_suite.py)",
        "files": files,
        "schemas": {f"schemas/{name}": file_digest(out / "schemas" / name) for name in SCHEMAS},
        "games": len(fixtures),
        "steps": sum(len(f["steps"]) for f in fixtures),
        "refusals": len(refusals),
        "refusal_codes": dict(sorted(Counter(r["code"] for r in refusals).items())),
        "coverage": dict(sorted(coverage_counts.items())),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=suite_dir())
    args = parser.parse_args()
    manifest = build(args.out)
    print(json.dumps({k: manifest[k] for k in ("games", "steps", "refusals", "refusal_codes", "coverage")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
