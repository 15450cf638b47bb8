"""The conformance suite's fixtures: games step by step and refused actions, as JSON.

A **game fixture** is a complete game with, at every step, who acts, the legal actions
(or the chance outcomes with their exact probabilities), the scores, a digest of the
spectator's and of each seat's view, and the action taken. A **refusal fixture** is a
prefix of a game fixture, an action that must be refused, and its refusal code. The
formats are documented in ``docs/conformance.md`` and have a JSON Schema each
(``suite/schemas/``). The shipped suite is read with :func:`load_suite`.

>>> import meuterer
>>> actions, _ = meuterer.random_game(seed=3, players=3)
>>> fixture = game_fixture("example", 3, 0, meuterer.Rules(), actions)
>>> first = fixture["steps"][0]
>>> first["actor"], first["legal"][:2], first["probabilities"][:2], len(fixture["steps"]) == len(actions) + 1
('chance', ['draw p0 cloth', 'draw p0 grain'], ['7/36', '2/9'], True)
>>> fixture["steps"][15]["legal"], fixture["steps"][15]["action"]
(['p0 offer 0', 'p0 offer 1', 'p0 offer 2', 'p0 offer 3'], 'p0 offer 1')
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sell, Support, parse_action
from meuterer.cards import Card, Role
from meuterer.conform.client import rules_data
from meuterer.conform.engine import OPTIONS, legal_reply
from meuterer.engine import apply, current_player, new_game, winners
from meuterer.rules import Rules
from meuterer.rulings import robbery, strengths
from meuterer.serialize import structure
from meuterer.state import State, Step
from meuterer.views import dumps_view, view

FIXTURE_FORMAT: Final = 1
"""The version of the fixture format (``docs/conformance.md``)."""
VIEW_DIGEST_CHARS: Final = 16
"""Hex digits of each view's SHA-256 kept in a fixture (the first 16: 64 bits)."""

Fixture = dict[str, Any]


def view_digests(state: State) -> list[str]:
    """The spectator's and each seat's view digest (first :data:`VIEW_DIGEST_CHARS` hex digits)."""
    seats: list[int | None] = [None, *range(state.players)]
    return [hashlib.sha256(dumps_view(view(state, s)).encode()).hexdigest()[:VIEW_DIGEST_CHARS] for s in seats]


def step_record(state: State, views: bool = True) -> Fixture:
    """One step of a game fixture, without the action taken (``views=False``: without the
    view digests, for a comparison that leaves views out)."""
    reply = legal_reply(state)
    step: Fixture = {"actor": reply["actor"]}
    if reply["actions"] is None:
        step["legal"] = None
        step["ring"] = reply["ring"]
    elif "probabilities" in reply:
        pairs = sorted(zip(reply["actions"], reply["probabilities"], strict=True))
        step["legal"] = [a for a, _ in pairs]
        step["probabilities"] = [p for _, p in pairs]
    else:
        step["legal"] = sorted(reply["actions"])
    step["scores"] = list(state.scores)
    step["views"] = view_digests(state) if views else []
    return step


def game_fixture(
    ident: str,
    players: int,
    first_captain: int,
    rules: Rules,
    actions: Sequence[Action],
    covers: Sequence[str] | None = None,
    views: bool = True,
    ids: Sequence[str] | None = None,
) -> Fixture:
    """The fixture of a game (any legal sequence of actions from a new game); ``views=False``
    leaves the view digests out (not a valid fixture: for comparisons without views).
    ``covers`` and ``ids`` (the rule ids, :func:`rule_ids`) are computed when not given."""
    state = new_game(players, first_captain, rules)
    steps = []
    for action in actions:
        record = step_record(state, views)
        record["action"] = str(action)
        steps.append(record)
        state = apply(state, action)
    steps.append(step_record(state, views))
    fixture: Fixture = {
        "kind": "game",
        "id": ident,
        "players": players,
        "first_captain": first_captain,
        "rules": rules_data(rules),
        "covers": sorted(covers) if covers is not None else coverage(players, first_captain, rules, actions),
        "rule_ids": [],
        "steps": steps,
    }
    fixture["rule_ids"] = list(rule_ids(fixture) if ids is None else sorted(ids))
    return fixture


def refusal_fixture(ident: str, game: Fixture, step: int, action: str, code: str) -> Fixture:
    """A refusal fixture: ``action`` after the first ``step`` actions of ``game`` is refused with ``code``."""
    return {"kind": "refusal", "id": ident, "game": game["id"], "step": step, "action": action, "code": code}


def fixture_rules(fixture: Fixture) -> Rules:
    """The rule set of a game fixture."""
    return structure(fixture["rules"], Rules, "$.rules")


def fixture_actions(fixture: Fixture) -> list[str]:
    """The actions of a game fixture, in order."""
    return [step["action"] for step in fixture["steps"] if "action" in step]


# Coverage -------------------------------------------------------------------------------

_DEFAULTS = Rules()


def option_labels(players: int, rules: Rules) -> list[str]:
    """``players-N`` and ``option:NAME`` for each option away from its default.

    >>> option_labels(4, Rules(pirates=True, max_offer=5))
    ['players-4', 'option:pirates', 'option:max_offer']
    """
    base = Rules(pirates=rules.pirates)  # the default deck depends on pirates
    labels = [f"players-{players}"]
    for name in OPTIONS:
        default = getattr(base if name == "deck" else _DEFAULTS, name)
        if getattr(rules, name) != default:
            labels.append(f"option:{name}")
    return labels


def coverage(players: int, first_captain: int, rules: Rules, actions: Sequence[Action]) -> list[str]:
    """The edge cases a game reaches (sorted labels; ``docs/conformance.md`` lists them)."""
    labels = set(option_labels(players, rules))
    state = new_game(players, first_captain, rules)
    for action in actions:
        after = apply(state, action)
        labels |= _events(state, action, after)
        state = after
    if len(winners(state)) > 1:
        labels.add("shared-win")
    return sorted(labels)


def _events(state: State, action: Action, after: State) -> set[str]:
    found: set[str] = set()
    if sum(after.deck) > sum(state.deck):
        found.add("reshuffle")
    if isinstance(action, Offer):
        found.add("offer-0" if action.amount == 0 else "offer-max" if action.amount == state.rules.max_offer else "")
    elif isinstance(action, Pass) and not sum(state.hands[action.player]):
        found.add("pass-with-empty-hand")
        if action.player == state.captain:
            found.add("captain-with-empty-hand")
    elif isinstance(action, Play) and action.card is Card.PIRATE:
        left = sum(state.hands[action.player]) - 1
        found.add("pirate-played")
        found.add("robbery" if robbery(state, left) else "pirate-no-robbery")
    elif isinstance(action, Discard):
        found.add("loadmaster-discard")
    elif isinstance(action, Sell) and not action.sales and any(state.face_up[action.player][:5]):
        found.add("sell-none-with-goods")
    if after.mutiny is not None and state.mutiny is None:
        found |= _mutiny(after)
    if after.step is not Step.SELL and state.step is Step.SELL:
        found |= _sales(after)
    leaves_play = state.step is Step.PLAY and after.step not in (Step.PLAY, Step.CHOOSE_ROLE)
    if leaves_play and Role.MUTINEER not in after.roles:
        found.add("no-mutineer")
    found.discard("")
    return found


def _mutiny(state: State) -> set[str]:
    captain_side, mutineer_side = strengths(state)
    roles = state.roles
    found = {"mutiny", "mutiny-succeeded" if state.mutiny else "mutiny-failed"}
    if captain_side == mutineer_side:
        found.add("mutiny-tied")
    found.add("mutiny-with-mate" if Role.MATE in roles else "mutiny-without-mate")
    if Role.CABIN_BOY in roles:
        found.add("mutiny-with-cabin-boy")
    supports = [state.face_up[seat][Card.SUPPORT] for seat in range(state.players)]
    if Role.MATE in roles and supports[roles.index(Role.MATE)]:
        found.add("mutiny-mate-support")
    if Role.MERCHANT in roles and supports[roles.index(Role.MERCHANT)]:
        found.add("mutiny-merchant-support-ignored")
    if Role.LOADMASTER in roles and supports[roles.index(Role.LOADMASTER)]:
        found.add("mutiny-loadmaster-support-ignored")
    return found


def _sales(state: State) -> set[str]:
    found: set[str] = set()
    per_island: dict[str, list[int]] = {}
    for declared in state.sales:
        for sale in declared or ():
            per_island.setdefault(sale.island, []).append(sale.count)
        if declared is not None and len(declared) > 1:
            found.add("sale-on-several-islands")
    for counts in per_island.values():
        top = max(counts)
        tied = counts.count(top)
        if tied > 1:
            found.add(f"sale-tie-{tied}")
    return found


# Rule ids -------------------------------------------------------------------------------

ALWAYS: Final = (
    "setup.seats",
    "setup.ring",
    "setup.active",
    "setup.deal",
    "setup.rounds",
    "end.last-round",
    "end.winner",
)
"""The rules every complete game applies (a fixture's game is always complete)."""


def rule_ids(fixture: Fixture) -> tuple[str, ...]:
    """The ids of the rules (``docs/rules.md``, "Rule ids") a game fixture exercises, sorted.

    Computed by replaying the fixture's actions with the reference and asking, at each
    step, which rule decided it (:mod:`meuterer.rulings` for the mutiny's strengths and
    the pirates' robberies): a tied mutiny exercises ``p4.tie``, a sale on an island whose
    ``buys`` is ``null`` exercises ``p5.buys``, the loadmaster's discard ``p8.loadmaster``.

    >>> import meuterer
    >>> actions, _ = meuterer.random_game(seed=3, players=3)
    >>> ids = rule_ids(game_fixture("example", 3, 0, meuterer.Rules(), actions))
    >>> "p4.tie" in ids, "p8.loadmaster" in ids, "pirates.rob" in ids
    (True, True, False)
    """
    rules = fixture_rules(fixture)
    found = set(ALWAYS)
    state = new_game(fixture["players"], fixture["first_captain"], rules)
    if rules.pirates:
        found.add("pirates.setup")
    if sum(rules.deck) == 4 * rules.hand_size + rules.loadmaster_extra + 1 or rules.pirates:
        found.add("rules.deck")  # the smallest deck allowed, or the pirate card in it
    pirate_moved = False
    for text in fixture_actions(fixture):
        action = parse_action(text)
        after = apply(state, action)
        found |= _rules_of(state, action, after)
        if isinstance(action, Play) and action.card is Card.PIRATE:
            pirate_moved = pirate_moved or after.pirate != state.pirate
        if after.round > state.round and pirate_moved:
            found.add("pirates.return")  # the ship stays where it stopped, or sails home
            pirate_moved = False
        state = after
    return tuple(sorted(found))


def _rules_of(state: State, action: Action, after: State) -> set[str]:
    """The rules that decided the step from ``state`` by ``action`` to ``after``."""
    found: set[str] = set()
    if sum(after.deck) > sum(state.deck):
        found.add("p8.reshuffle")
    if any(after.discard) or any(state.discard):
        found.add("hidden.discard")
    if state.step is Step.DRAW:
        found.add("p8.draw")
    elif isinstance(action, Offer):
        found.add("p1.offer")
    elif isinstance(action, Play):
        found |= {"p2.turns", "p2.play"}
        if action.card is Card.PIRATE:
            left = sum(state.hands[action.player]) - 1
            found.add("pirates.move" if left else "pirates.last-card")
            if robbery(state, left):
                found.add("pirates.rob")
    elif isinstance(action, Pass) and state.step is Step.PLAY:
        found |= {"p2.turns", "p2.pass"}
        if not sum(state.hands[action.player]):
            found.add("p2.empty-hand")
        if action.player == state.captain:
            found.add("p2.captain-destination")
    elif isinstance(action, ChooseRole):
        found |= {"p2.role", "hidden.roles"}
    elif isinstance(action, Support):
        found.add("p4.support-order")
    elif isinstance(action, Sell):
        found |= _sale_rules(state, action)
    elif isinstance(action, Discard):
        found.add("p8.loadmaster")
        if after.step is Step.DRAW and after.to_act != action.player:
            found.add("p8.loadmaster-when")  # the next player draws after the discard
    leaves_play = state.step in (Step.PLAY, Step.CHOOSE_ROLE) and after.step not in (Step.PLAY, Step.CHOOSE_ROLE)
    if leaves_play:
        found.add("p3.reveal")
        if Role.MUTINEER not in after.roles:
            found.add("p4.skip")
    if after.mutiny is not None and state.mutiny is None:
        captain_side, mutineer_side = strengths(after)
        found |= {"p4.sides", "p4.strength"}
        if captain_side == mutineer_side:
            found.add("p4.tie")
    decided = leaves_play or (after.mutiny is not None and state.mutiny is None)
    if decided and after.step is not Step.MUTINY:  # phase 5's role points are scored
        found.add("p5.mutiny-succeeds" if after.mutiny else "p5.captain-keeps")
        if not after.mutiny and Role.MATE not in after.roles:
            found.add("p5.no-mate")
    if state.step is Step.SELL and after.step is not Step.SELL and any(after.sales):
        found.add("p5.leaders")
        found.add("p5.sale-order")
        if _merchant_leads(after):
            found.add("p5.merchant")
    if after.round > state.round:
        found |= {"p6.sail", "p7.clean-up", "p9.roles-return", "p10.next-round"}
        if state.pirate is not None and _passes(state.start, after.start, state.pirate, len(state.ring)):
            found.add("pirates.no-effect")  # the merchant ship reaches or passes the pirate ship
    return found


def _passes(start: int, end: int, position: int, islands: int) -> bool:
    """Whether a ship sailing clockwise from ``start`` to ``end`` reaches or passes ``position``."""
    return 0 < (position - start) % islands <= (end - start) % islands


def _sale_rules(state: State, action: Sell) -> set[str]:
    """The rules of phase 5 that decide which sales ``action``'s seller may declare."""
    found: set[str] = set()
    up = state.face_up[action.player]
    islands = [state.island(position) for position in state.active]
    if up[Card.SUPPORT] or up[Card.PIRATE]:
        found.add("p5.goods")  # face-up cards that never sell
    goods = [card for card in Card if up[card] and any(island.buys_card(card) for island in islands)]
    if goods:
        found.add("p5.withholding")  # he could sell: may he keep them back?
    if len(goods) > 1:
        found.add("p5.one-kind")
    if any(not island.buys_card(card) for island in islands for card in Card if up[card] and card < Card.SUPPORT):
        found.add("p5.buys")  # a good face up that an active island does not buy
    by_name = {island.name: island for island in islands}
    if any(by_name[sale.island].buys is None for sale in action.sales):
        found.add("p5.buys")  # sold on an island that buys any good
    return found


def _merchant_leads(state: State) -> bool:
    """Whether the merchant is among the leaders on an island after the sales."""
    if Role.MERCHANT not in state.roles:
        return False
    merchant = state.roles.index(Role.MERCHANT)
    counts: dict[str, dict[int, int]] = {}
    for seat, declared in enumerate(state.sales):
        for sale in declared or ():
            counts.setdefault(sale.island, {})[seat] = sale.count
    return any(merchant in sold and sold[merchant] == max(sold.values()) for sold in counts.values())


# The shipped suite ----------------------------------------------------------------------


def suite_dir() -> Path:
    """The directory of the shipped suite (package data ``meuterer/conform/suite``)."""
    return Path(str(resources.files("meuterer.conform") / "suite"))


def read_lines(path: Path) -> Iterator[Fixture]:
    """The fixtures of a JSON-lines file (gzipped if its name ends in ``.gz``)."""
    opener: Any = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def write_lines(path: Path, fixtures: Sequence[Fixture]) -> None:
    """Write fixtures as JSON lines (gzipped, reproducibly, if the name ends in ``.gz``)."""
    text = "".join(json.dumps(f, separators=(",", ":"), ensure_ascii=False) + "\n" for f in fixtures).encode()
    if path.name.endswith(".gz"):
        text = gzip.compress(text, compresslevel=9, mtime=0)
    path.write_bytes(text)


def load_suite(directory: Path | None = None) -> tuple[Fixture, list[Fixture], list[Fixture]]:
    """The manifest, the game fixtures and the refusal fixtures of a suite directory."""
    directory = suite_dir() if directory is None else directory
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    games: list[Fixture] = []
    refusals: list[Fixture] = []
    for name, entry in sorted(manifest["files"].items()):
        target = games if entry["kind"] == "game" else refusals
        target.extend(read_lines(directory / name))
    return manifest, games, refusals


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_manifest(directory: Path | None = None) -> list[str]:
    """Problems with a suite directory's manifest (wrong or missing file digests); ``[]`` if none."""
    directory = suite_dir() if directory is None else directory
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    problems = []
    for name, entry in sorted(manifest["files"].items()):
        path = directory / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif file_digest(path) != entry["sha256"]:
            problems.append(f"{name}: SHA-256 differs from the manifest")
    return problems


def prefix_actions(game: Fixture, step: int) -> list[Action]:
    """The first ``step`` actions of a game fixture, parsed."""
    return [parse_action(text) for text in fixture_actions(game)[:step]]


def actor_of(state: State) -> int | str | None:
    """Who acts in ``state`` as the protocol says it: a seat, ``"chance"`` or ``None``."""
    actor = current_player(state)
    return "chance" if actor is not None and actor < 0 else actor
