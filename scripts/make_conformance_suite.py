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
- **added in 1.2.0**: games named after the implementers' questions of issue 40
  (``why-NN-...``), each steered to what decides its question (a loadmaster with a full
  hand, an island other than Hochland with ``buys: null`` where different goods sell, the
  smallest deck, ...), from their own seeded generator, after everything above; and refused
  sales on them (a support card, a good the island does not buy). Every game lists its
  ``rule_ids`` (:func:`meuterer.conform.fixtures.rule_ids`), and the manifest counts them per
  rule id of docs/rules.md (``rule_coverage``): the build stops if an id has fewer than
  ``NEED`` games and no reason in ``RULE_REASONS``.

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
import re
import sys
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import attrs

import meuterer
from meuterer.actions import Action, Pass, Sell
from meuterer.cards import CARDS, ROLES, Card, Role
from meuterer.conform.client import rules_data
from meuterer.conform.fixtures import (
    FIXTURE_FORMAT,
    Fixture,
    coverage,
    file_digest,
    game_fixture,
    refusal_fixture,
    rule_ids,
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

SUITE_VERSION = "1.2.0"
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
    shifted = tuple(
        meuterer.Island(i.name, i.buys, (i.values[0] + 1, i.values[1] + 1, i.values[2] + 1), i.ship) for i in ISLANDS
    )
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


def _first_state(players: int, captain: int, rules: Rules, actions: Sequence[Action], step: Step) -> State | None:
    """The first state of a game at ``step`` (``None`` if it never gets there)."""
    state = new_game(players, captain, rules)
    for action in actions:
        if state.step is step:
            return state
        state = apply(state, action)
    return state if state.step is step else None


def _replayed(players: int, captain: int, rules: Rules, actions: Sequence[Action]) -> list[tuple[State, Action]]:
    state = new_game(players, captain, rules)
    found = []
    for action in actions:
        found.append((state, action))
        state = apply(state, action)
    return found


def _full_hand_discard(c: Candidate) -> bool:
    """The loadmaster holds a full hand after the clean-up (phase 7): he draws his
    ``loadmaster_extra`` cards all the same and discards as many (none with 0)."""
    players, captain, rules, actions, _ = c
    state = new_game(players, captain, rules)
    for action in actions:
        after = apply(state, action)
        if state.step is Step.SELL and after.step in (Step.DRAW, Step.LOADMASTER_DISCARD, Step.OFFER):
            seat = after.roles.index(Role.LOADMASTER) if Role.LOADMASTER in after.roles else None
            if seat is not None and sum(after.hands[seat]) == rules.hand_size and not sum(after.drawn):
                return True
        state = after
    return False


def _not_last_discard(c: Candidate) -> bool:
    """The loadmaster discards while other players are still to draw (a non-empty queue)."""
    players, captain, rules, actions, _ = c
    return any(
        state.step is Step.LOADMASTER_DISCARD and state.queue
        for state, _ in _replayed(players, captain, rules, actions)
    )


def _sold_on_any(c: Candidate) -> bool:
    """Two players sold different goods on an island other than Hochland whose ``buys`` is ``null``."""
    players, captain, rules, actions, _ = c
    null = {i.name for i in rules.islands if i.buys is None and i.name != "hochland"}
    goods: dict[str, set[Card]] = {}
    for _, action in _replayed(players, captain, rules, actions):
        if isinstance(action, Sell):
            for sale in action.sales:
                if sale.island in null:
                    goods.setdefault(sale.island, set()).add(sale.card)
    return any(len(kinds) > 1 for kinds in goods.values())


def _last_round_mutiny(c: Candidate) -> bool:
    """The last round's mutiny succeeded: the game ends with a new captain."""
    players, captain, rules, actions, _ = c
    state = new_game(players, captain, rules)
    for action in actions:
        state = apply(state, action)
    return bool(state.mutiny)


def _pirate_robs(c: Candidate) -> bool:
    return "robbery" in c[4]


def steered(players: int, rules: Rules, rng: random.Random, wanted: Any, tries: int = 60) -> Candidate:
    """The first of up to ``tries`` candidate games that ``wanted`` accepts (else the last)."""
    found: Candidate | None = None
    for _ in range(tries):
        found = candidates(players, rules, 1, rng)[0]
        if wanted(found):
            return found
    assert found is not None
    print(f"warning: no game found for {wanted.__name__} ({players} players)", file=sys.stderr)
    return found


def exercising(rule: str) -> Any:
    """A predicate on candidates: the game exercises ``rule`` (:func:`rule_ids`)."""

    def wanted(c: Candidate) -> bool:
        players, captain, rules, actions, _ = c
        steps = [{"action": str(action)} for action in actions]
        bare = {"players": players, "first_captain": captain, "rules": rules_data(rules), "steps": steps}
        return rule in rule_ids(bare)

    wanted.__name__ = f"exercising {rule}"
    return wanted


def _any_game(c: Candidate) -> bool:
    return True


def question_islands() -> tuple[tuple[str, Rules], ...]:
    """Island tables where an island other than Hochland buys any good (``buys: null``)."""
    renamed = list(ISLANDS)
    # Hochland keeps position 0 but buys cloth; Gruenland, two islands on, buys any good
    renamed[0] = meuterer.Island("hochland", Card.CLOTH, ISLANDS[0].values, ISLANDS[0].ship)
    renamed[2] = meuterer.Island("gruenland", None, ISLANDS[2].values, ISLANDS[2].ship)
    second = list(ISLANDS)
    # Hochland as printed, and Karge Zunge, three islands on, buys any good too
    second[3] = meuterer.Island("karge_zunge", None, ISLANDS[3].values, ISLANDS[3].ship)
    return (
        ("hochland-buys-cloth", Rules(islands=tuple(renamed))),
        ("two-islands-buy-any", Rules(islands=tuple(second))),
    )


def added_in_1_2(rng: random.Random) -> list[tuple[str, Candidate]]:
    """The games suite 1.2.0 adds: one or two per implementer's question of issue 40 that a
    game decides, each named after its question."""
    smallest = Rules(deck=(5, 5, 5, 5, 4, 0, 0))  # 24 cards: more than 4 x 5 + 3, no more
    games: list[tuple[str, Candidate]] = [
        ("why-01-the-deal-counts-as-drawing-3p", steered(3, Rules(), rng, _any_game)),
        ("why-02-round-increments-at-phase-10-4p", steered(4, Rules(), rng, _any_game)),
        (
            "why-03-views-at-the-loadmasters-discard-with-players-still-to-draw-3p",
            steered(3, Rules(), rng, _not_last_discard),
        ),
        (
            "why-03-views-at-the-loadmasters-discard-with-players-still-to-draw-4p",
            steered(4, Rules(), rng, _not_last_discard),
        ),
        (
            "why-04-05-queue-and-views-at-game-over-after-a-last-round-mutiny-3p",
            steered(3, Rules(), rng, _last_round_mutiny),
        ),
        (
            "why-04-05-queue-and-views-at-game-over-after-a-last-round-mutiny-4p",
            steered(4, Rules(), rng, _last_round_mutiny),
        ),
        (
            "why-06-pirates-declared-without-deck-get-the-pirate-deck-3p",
            steered(3, Rules(pirates=True), rng, _pirate_robs),
        ),
        (
            "why-06-pirates-declared-without-deck-get-the-pirate-deck-4p",
            steered(4, Rules(pirates=True), rng, _pirate_robs),
        ),
        ("why-09-own-role-only-before-the-reveal-4p", steered(4, Rules(), rng, _any_game)),
    ]
    for name, rules in question_islands():
        for players in (3, 4):
            games.append(
                (f"why-10-buys-null-not-the-name-{name}-{players}p", steered(players, rules, rng, _sold_on_any))
            )
    for players in (3, 4):
        games.append((f"why-11-the-smallest-deck-{players}p", steered(players, smallest, rng, _any_game)))
    for players in (3, 4):
        rules = Rules(hand_size=4)
        games.append(
            (f"why-12-hand-size-4-is-the-deal-and-the-refill-{players}p", steered(players, rules, rng, _any_game))
        )
    for players in (3, 4):
        found = steered(players, Rules(), rng, _full_hand_discard, tries=200)
        games.append((f"why-12-a-loadmaster-with-a-full-hand-draws-and-discards-{players}p", found))
    found = steered(4, Rules(loadmaster_extra=0), rng, _full_hand_discard, tries=200)
    games.append(("why-12-a-loadmaster-with-a-full-hand-and-no-extra-draws-nothing-4p", found))
    for players in (3, 4):
        found = steered(players, Rules(pirates=True), rng, exercising("pirates.no-effect"), tries=300)
        games.append((f"rule-pirates-no-effect-the-merchant-ship-passes-the-pirate-ship-{players}p", found))
    return games


def question_refusals(fixtures: list[Fixture], first: int) -> list[Fixture]:
    """Refusals deciding questions 8 and 10: at each 1.2.0 game's first sale, a support card
    offered to every active island, and a good offered to an island that does not buy it."""
    found: list[Fixture] = []
    for fixture in fixtures:
        rules = structure(fixture["rules"], Rules)
        actions = [meuterer.parse_action(step["action"]) for step in fixture["steps"] if "action" in step]
        state = new_game(fixture["players"], fixture["first_captain"], rules)
        first_sale = True
        for index, action in enumerate(actions):
            elsewhere = any(
                state.island(pos).buys is None and state.island(pos).name != "hochland" for pos in state.active
            )
            if state.step is Step.SELL and any(state.face_up[state.to_act][:5]) and (first_sale or elsewhere):
                p = state.to_act
                texts = [f"p{p} sell {state.island(pos).name}:support:1" for pos in state.active]
                for pos in state.active:
                    island = state.island(pos)
                    texts += [f"p{p} sell {island.name}:{c}:1" for c in CARDS[:5] if not island.buys_card(c)][:1]
                for text in texts:
                    code = refusal_code(state, text)
                    if code is not None:
                        found.append(refusal_fixture(f"refusal-{first + len(found):03d}", fixture, index, text, code))
                if elsewhere or not any(i.buys is None and i.name != "hochland" for i in rules.islands):
                    break
                first_sale = False
            state = apply(state, action)
    return found


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


RULES_MD = Path(__file__).parent.parent / "docs" / "rules.md"
RULE_REASONS: dict[str, str] = {}
"""Why a rule id is exercised by fewer than ``NEED`` games (none is, in 1.2.0)."""
CHANGELOG = {
    "1.2.0": "every game lists the rule ids it exercises (rule_ids) and the manifest counts them "
    "(rule_coverage); 20 games named after the implementers' questions of issue 40 (why-NN-...) "
    "and 2 where the merchant ship passes the pirate ship (rule-pirates-no-effect-...), "
    "and refused sales on them (support cards, and goods an island does not buy: not-bought)",
    "1.1.0": "10 games where the loadmaster discards no card (loadmaster_extra 0, pN discard none), "
    "and 32 refused actions drawn from them",
    "1.0.0": "208 games and 170 refused actions",
}
"""What each suite version added (also in ``docs/conformance.md``)."""


def rule_id_list() -> list[str]:
    """The rule ids of docs/rules.md's "Rule ids" table, in its order."""
    text = RULES_MD.read_text(encoding="utf-8").split("\n## Rule ids\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", text, re.M)


def rule_coverage(fixtures: Sequence[Fixture]) -> dict[str, dict[str, Any]]:
    """Per rule id, the games that exercise it, and the reason when fewer than ``NEED`` do."""
    counts = Counter(ident for fixture in fixtures for ident in fixture["rule_ids"])
    unknown = set(counts) - set(rule_id_list())
    if unknown:
        raise SystemExit(f"rule ids missing from docs/rules.md: {sorted(unknown)}")
    table: dict[str, dict[str, Any]] = {}
    for ident in rule_id_list():
        table[ident] = {"games": counts[ident]}
        if counts[ident] < NEED:
            if ident not in RULE_REASONS:
                raise SystemExit(f"{ident}: {counts[ident]} games exercise it, and RULE_REASONS gives no reason")
            table[ident]["reason"] = RULE_REASONS[ident]
    return table


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
    if sample is None or sample > 0:
        asked = [game_fixture(ident, *c[:4], covers=c[4]) for ident, c in added_in_1_2(random.Random(20261203))]
        refusals += question_refusals(asked, first=len(refusals))
        fixtures += asked
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
        "rule_coverage": rule_coverage(fixtures),
        "changelog": CHANGELOG,
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
