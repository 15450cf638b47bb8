"""The rule ids of docs/rules.md traced to the code, the tests and the suite.

Reads the rule ids (the table under "## Rule ids" of docs/rules.md), the stated reasons of
ids without a rule function, the functions marked with ``@rule`` (``meuterer.phases.ids``)
and the tests marked with ``@pytest.mark.rule`` (read from the test files' source), and
writes docs/traceability.md, with the table of one mutant per rule function and the
tests that caught it::

    PYTHONPATH=src python scripts/traceability.py             # rewrite docs/traceability.md
    PYTHONPATH=src python scripts/traceability.py --check     # exit 1 if the page is stale
    PYTHONPATH=src python scripts/traceability.py --mutants   # run every mutant (minutes), then rewrite
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = ROOT / "docs" / "rules.md"
ROW = re.compile(r"^\| `(?P<id>[^`]+)` \| (?P<rule>[^|]+) \| (?P<source>[^|]+) \|(?P<options>[^|]*)\|$", re.M)
REASON = re.compile(r"^- `(?P<id>[^`]+)`: (?P<reason>.+)$", re.M)
NAMED = re.compile(r"`(meuterer(?:\.\w+)*):([\w.]+)`")


def _section() -> str:
    return RULES_MD.read_text(encoding="utf-8").split("\n## Rule ids\n", 1)[1].split("\n## ", 1)[0]


@functools.cache
def rule_rows() -> list[dict[str, str]]:
    """The rows of the rule-id table, in order: id, rule, source, options."""
    return [{k: v.strip() for k, v in m.groupdict().items()} for m in ROW.finditer(_section())]


@functools.cache
def reasons() -> dict[str, str]:
    """The ids stated without a rule function, with the reason given (docs/rules.md)."""
    text = _section().split("\n### Where each rule is stated in the code\n", 1)[1]
    return {m["id"]: m["reason"].strip() for m in REASON.finditer(text)}


def resolve(module: str, qualname: str) -> Any:
    """The object named ``module:qualname``."""
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def named_functions(reason: str) -> list[str]:
    """The ``module:qualname`` names a reason gives (the place a rule is stated instead)."""
    return [f"{m[1]}:{m[2]}" for m in NAMED.finditer(reason)]


@functools.cache
def rule_functions() -> dict[str, list[Callable[..., Any]]]:
    """Every id marked with ``@rule`` and its functions, once every rule module is imported."""
    import meuterer.phases
    import meuterer.rulings  # (rulings would mark its own rules, if it stated any)
    from meuterer.phases.ids import RULE_FUNCTIONS

    for info in pkgutil.iter_modules(meuterer.phases.__path__, "meuterer.phases."):
        importlib.import_module(info.name)
    return {ident: list(functions) for ident, functions in RULE_FUNCTIONS.items()}


def qualified(function: Callable[..., Any]) -> str:
    """``module:qualname`` of a function."""
    return f"{function.__module__}:{function.__qualname__}"


def _rule_marks(decorators: list[ast.expr]) -> list[str]:
    """The ids of the ``@pytest.mark.rule(...)`` decorators of a test."""
    ids: list[str] = []
    for decorator in decorators:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "rule"
            and ast.unparse(decorator.func.value) == "pytest.mark"
        ):
            for arg in decorator.args:
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    raise ValueError(f"a rule mark takes rule ids as string literals, got {ast.unparse(arg)}")
                ids.append(arg.value)
    return ids


@functools.cache
def tagged_tests(tests: Path = ROOT / "tests") -> dict[str, list[str]]:
    """Each rule id with the tests marked ``@pytest.mark.rule(id)`` (pytest node ids, read
    from the source of ``tests/``, in file and line order)."""
    found: dict[str, list[str]] = {}
    for path in sorted(tests.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(tests.parent).as_posix()
        items: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                items.append((f"{where}::{node.name}", node))
            elif isinstance(node, ast.ClassDef):
                items += [
                    (f"{where}::{node.name}::{item.name}", item)
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
        for nodeid, function in items:
            for ident in _rule_marks(function.decorator_list):
                found.setdefault(ident, []).append(nodeid)
    return found


# Fixtures --------------------------------------------------------------------------------


def fixtures_by_rule() -> dict[str, list[str]]:
    """Each rule id with the suite's game fixtures exercising it, as the suite lists them
    (each fixture's ``rule_ids``, computed by ``meuterer.conform.fixtures.rule_ids`` when the
    suite was built): the games whose names mention the rule first (``tie`` for ``p4.tie``),
    then the others, by name."""
    from meuterer.conform.fixtures import load_suite

    by_rule: dict[str, list[str]] = {}
    for game in load_suite()[1]:
        for ident in game["rule_ids"]:
            by_rule.setdefault(ident, []).append(game["id"])

    def first(ident: str) -> Callable[[str], tuple[bool, str]]:
        return lambda name: (ident.split(".")[1] not in name, name)

    return {ident: sorted(names, key=first(ident)) for ident, names in by_rule.items()}


def _fixtures(names: list[str], shown: int = 3) -> str:
    """A fixtures cell: how many games, and the first few of them."""
    if not names:
        return "**none**"
    first = ", ".join(f"`{name}`" for name in names[:shown])
    return f"{len(names)}: {first}" + (", ..." if len(names) > shown else "")


# Mutants ---------------------------------------------------------------------------------


MUTANTS: dict[str, tuple[str, str, str]] = {
    # function: (text found exactly once in its module, the text put instead, what it breaks)
    "meuterer.phases.setup:initial_state": (
        "others = tuple((first_captain + i) % players",
        "others = tuple((first_captain - i) % players",
        "the deal goes counter-clockwise",
    ),
    "meuterer.phases.common:next_unpassed": (
        "seat = (after + 1) % players",
        "seat = (after - 1) % players",
        "the turn passes counter-clockwise",
    ),
    "meuterer.phases.offer_cargo:legal_offer": (
        "for n in range(key[1] + 1)",
        "for n in range(key[1])",
        "the highest offer is missing",
    ),
    "meuterer.phases.offer_cargo:plays": (
        "for c in CARDS if key[1][c])",
        "for c in CARDS if key[1][c] > 1)",
        "a player's only card of a kind cannot be played",
    ),
    "meuterer.phases.offer_cargo:pass_turn": (
        "face_down[p] = hand",
        "face_down[p] = EMPTY",
        "the passed cards vanish instead of lying face down",
    ),
    "meuterer.phases.offer_cargo:destination_from": (
        "return (start + cards) % islands",
        "return (start - cards) % islands",
        "destinations are counted counter-clockwise",
    ),
    "meuterer.phases.offer_cargo:roles_left": (
        "strict=True) if r not in key[1])",
        "strict=True))",
        "a role card already taken can be taken again",
    ),
    "meuterer.phases.offer_cargo:roles_seen": (
        "before = order[: order.index(player)]",
        "before = order[: order.index(player) + 1]",
        "a player remembers his own role as gone from the centre",
    ),
    "meuterer.phases.mutiny:reveal": (
        "or state.roles[p] in _SIDES)",
        "or state.roles[p] is not None)",
        "the merchant and the loadmaster are asked for support too",
    ),
    "meuterer.phases.mutiny:has_mutineer": (
        "return _MUTINEER in state.roles",
        "return _MUTINEER in state.roles or _CABIN_BOY in state.roles",
        "a cabin boy without a mutineer starts phase 4",
    ),
    "meuterer.phases.mutiny:strengths": (
        "elif role is _MUTINEER or role is _CABIN_BOY:",
        "elif role is not None:",
        "the merchant's and loadmaster's supports count for the mutineer",
    ),
    "meuterer.phases.mutiny:side_strengths": (
        "mates * (mate_up + 1)",
        "mates * mate_up",
        "the mate adds no strength of his own",
    ),
    "meuterer.phases.mutiny:mutiny_succeeds": (
        "return mutineer_side >= captain_side",
        "return mutineer_side > captain_side",
        "a tie goes to the captain",
    ),
    "meuterer.phases.scoring:role_payouts": (
        "return ship - offer * kept,",
        "return ship,",
        "the captain does not pay the offer",
    ),
    "meuterer.phases.scoring:role_points": (
        "destination, captain = state.mutineer_destination, mutineer",
        "destination = state.mutineer_destination",
        "a successful mutineer scores but the captain cards stay",
    ),
    "meuterer.phases.scoring:score_roles": (
        "first = captain if state.rules.sale_order is SaleOrder.NEW_CAPTAIN else state.captain",
        "first = state.captain",
        "sales start with the old captain after a mutiny",
    ),
    "meuterer.phases.scoring:sale_declarations": (
        "if sold[card] and sold[card] != goods[card]:",
        "if sold[card] and sold[card] > goods[card]:",
        "a player may keep back part of a kind he sells",
    ),
    "meuterer.phases.scoring:shared_value": (
        "return values[leaders - 1] if",
        "return values[max(leaders - 2, 0)] if",
        "two tied leaders score I each",
    ),
    "meuterer.phases.scoring:leader_points": (
        "merchant * first + (1 - merchant) * shared",
        "merchant * shared + (1 - merchant) * shared",
        "the merchant scores like any other leader",
    ),
    "meuterer.phases.scoring:is_last_round": (
        "return round_ >= rounds",
        "return round_ > rounds",
        "the game lasts one round more",
    ),
    "meuterer.phases.scoring:leaders": (
        "if score == best)",
        "if score == best)[:1]",
        "a tie for the most points goes to the first seat",
    ),
    "meuterer.phases.voyage:sail": (
        "active = (start,) if start == destination else",
        "active = (destination,) if True else",
        "the island the ship left does not stay active",
    ),
    "meuterer.phases.voyage:clean_up": (
        '"discard": discarded(state.discard, state.face_up),',
        '"discard": state.discard,',
        "the face-up cards leave the game instead of going to the discard pile",
    ),
    "meuterer.phases.voyage:drawers": (
        "for p in clockwise_from(state, state.captain):",
        "for p in clockwise_from(state, (state.captain + 1) % state.players):",
        "drawing starts left of the captain",
    ),
    "meuterer.phases.voyage:cards_to_fill": (
        "return hand_size - held + extra * loadmaster",
        "return hand_size - held + extra * loadmaster * (held < hand_size)",
        "a loadmaster with a full hand draws no extra cards",
    ),
    "meuterer.phases.voyage:loadmaster_draws": (
        "return state.roles[state.to_act] is _LOADMASTER",
        "return state.roles[state.to_act] is _LOADMASTER and not state.queue",
        "the loadmaster discards only when nobody draws after him",
    ),
    "meuterer.phases.voyage:reshuffles": (
        "return (cards_left == 0) & (drawing | when_empty)",
        "return (cards_left == 0) & drawing",
        "the pile is reshuffled only at the next draw, whatever the option",
    ),
    "meuterer.phases.voyage:return_roles": (
        'return {"roles": (None,) * state.players, "role_order": ()}',
        'return {"role_order": ()}',
        "the role cards stay with their holders",
    ),
    "meuterer.phases.voyage:next_round": (
        '"round": state.round + 1,',
        '"round": state.round,',
        "the round counter does not move on",
    ),
    "meuterer.phases.pirates:piratennest": (
        'rules.islands[index].name == "piratennest"',
        'rules.islands[index].name == "hochland"',
        "the pirate ship starts at Hochland",
    ),
    "meuterer.phases.pirates:pirate_moves_to": (
        "return (pirate - left) % islands",
        "return (pirate + left) % islands",
        "the pirate ship sails clockwise",
    ),
    "meuterer.phases.pirates:robs": (
        "return (left > 0) & (behind | alongside)",
        "return behind | alongside",
        "the pirate card played last robs from where the ship lies",
    ),
    "meuterer.phases.pirates:Pirates.clean_up": (
        "if state.rules.pirates_return:",
        "if not state.rules.pirates_return:",
        "the pirate ship goes home unless the option says so",
    ),
    "meuterer.rules:Rules.rounds_for": (
        "return 9 if players == 3 else 8",
        "return 8 if players == 3 else 9",
        "the round counts of 3 and 4 players swapped",
    ),
    "meuterer.islands:Island.buys_card": (
        "return card in GOODS and (self.buys is None or self.buys == card)",
        "return self.buys is None or self.buys == card",
        "Hochland buys support and pirate cards",
    ),
    "meuterer.rules:Rules.__attrs_post_init__": (
        "if sum(self.deck) <= most_out:",
        "if sum(self.deck) < most_out:",
        "a deck of exactly 4 x hand_size + loadmaster_extra cards is accepted",
    ),
}
"""One plausible mutant of each rule function: a small edit of its module, which the tests
tagged with the function's rule ids must catch."""

MUTANT_RESULTS = ROOT / "tests" / "data" / "rule-mutants.json"
MAX_SECONDS = 300.0
"""The bound on one mutant's run of its tests (a mutant that loops is stopped there)."""


NO_SHRINKING = """from hypothesis import Phase, settings


def pytest_configure(config):  # after conftest.py has loaded its profile
    base = settings.get_profile("meuterer")
    settings.register_profile("mutant", base, phases=(Phase.explicit, Phase.reuse, Phase.generate))
    settings.load_profile("mutant")
"""
"""A pytest plugin for the mutant runs: a hypothesis test that fails is not shrunk (a
killed mutant needs a failure, not the smallest one; shrinking took minutes)."""


def module_file(module: str) -> Path:
    """The source file of a ``meuterer`` module, under ``src/``."""
    return ROOT / "src" / Path(*module.split(".")).with_suffix(".py")


@functools.cache
def function_ids() -> dict[str, list[str]]:
    """Each rule function (``module:qualname``) with the rule ids it states: the ``@rule``
    marks, and the ids whose stated reason names the function instead."""
    found: dict[str, list[str]] = {}
    for ident, functions in rule_functions().items():
        for function in functions:
            found.setdefault(qualified(function), []).append(ident)
    for ident, reason in reasons().items():
        for name in named_functions(reason):
            if name in MUTANTS:
                found.setdefault(name, []).append(ident)
    order = [row["id"] for row in rule_rows()]
    return {name: sorted(ids, key=order.index) for name, ids in found.items()}


def killing_tests(name: str) -> list[str]:
    """The tests that must catch the mutant of ``name``: those tagged with its rule ids."""
    tagged = tagged_tests()
    return sorted({test for ident in function_ids().get(name, []) for test in tagged.get(ident, [])})


def mutated(name: str) -> str:
    """The module source of ``name`` with its mutant applied (the text must occur once)."""
    find, replace, _ = MUTANTS[name]
    source = module_file(name.split(":")[0]).read_text(encoding="utf-8")
    if source.count(find) != 1:
        raise ValueError(f"the mutant of {name} finds {find!r} {source.count(find)} times, not once")
    return source.replace(find, replace)


def run_tests(
    tests: list[str], module: str | None = None, source: str = "", timeout: float = MAX_SECONDS
) -> dict[str, Any]:
    """Run ``tests`` in a subprocess on a copy of ``src/`` whose ``module`` (if any) holds
    ``source``: the failing tests, the time taken and the outcome."""
    with tempfile.TemporaryDirectory(prefix="meuterer-mutant-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
        if module is not None:
            (src / module_file(module).relative_to(ROOT / "src")).write_text(source, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "MEUTERER_SLOW"}
        (Path(tmp) / "meuterer_mutant_run.py").write_text(NO_SHRINKING, encoding="utf-8")
        env["PYTHONPATH"] = os.pathsep.join((str(src), str(ROOT), tmp))
        # (-o pythonpath= drops pyproject's src/, which would win over the copy)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "pythonpath="]
        command += ["-p", "meuterer_mutant_run"]
        command += ["--tb=no", "-rf"]
        start = time.perf_counter()
        try:
            done = subprocess.run(  # noqa: S603 (our own interpreter and tests)
                command + tests, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
            )
            output, code = done.stdout, done.returncode
        except subprocess.TimeoutExpired:
            output, code = "", None
        seconds = time.perf_counter() - start
    failed = sorted({line.split()[1].split("[")[0] for line in output.splitlines() if line.startswith("FAILED ")})
    return {"failed": failed, "seconds": round(seconds, 1), "outcome": "timeout" if code is None else f"exit {code}"}


def run_mutant(name: str, timeout: float = MAX_SECONDS) -> dict[str, Any]:
    """Apply the mutant of ``name`` to a copy of ``src/`` and run its killing tests there in
    a subprocess: killed when some of them fail (the killers)."""
    tests = killing_tests(name)
    ran = run_tests(tests, name.split(":")[0], mutated(name), timeout)
    find, replace, _ = MUTANTS[name]
    return {
        "function": name,
        "find": find,
        "replace": replace,
        "killed": ran["outcome"] == "exit 1" and bool(ran["failed"]),
        "killers": ran["failed"],
        "tests": len(tests),
        "seconds": ran["seconds"],
        "outcome": ran["outcome"],
    }


def load_results() -> dict[str, dict[str, Any]]:
    """The recorded mutant runs, by function."""
    if not MUTANT_RESULTS.exists():
        return {}
    return {entry["function"]: entry for entry in json.loads(MUTANT_RESULTS.read_text(encoding="utf-8"))}


def run_mutants(names: list[str]) -> list[dict[str, Any]]:
    """Run the mutants of ``names`` one after the other, printing each outcome as it comes,
    and record them in tests/data/rule-mutants.json (the other functions' entries kept)."""
    control = run_tests(sorted({test for name in names for test in killing_tests(name)}))
    print(f"[control] the tests on an unchanged copy: {control['outcome']} in {control['seconds']} s", flush=True)
    if control["outcome"] != "exit 0":
        raise SystemExit(f"the tagged tests fail without a mutant: {control['failed']}")
    results = load_results()
    for i, name in enumerate(names, 1):
        entry = run_mutant(name)
        results[name] = entry
        state = "killed" if entry["killed"] else f"SURVIVED ({entry['outcome']})"
        by = f"by {len(entry['killers'])} tests"
        print(f"[{i}/{len(names)}] {name}: {state} in {entry['seconds']} s {by}", flush=True)
    ordered = [results[name] for name in MUTANTS if name in results]
    MUTANT_RESULTS.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return [results[name] for name in names]


# The page --------------------------------------------------------------------------------


PAGE = ROOT / "docs" / "traceability.md"
REGENERATE = "PYTHONPATH=src python scripts/traceability.py"


def _tests(nodeids: list[str]) -> str:
    return "<br>".join(f"`{nodeid.removeprefix('tests/')}`" for nodeid in nodeids) or "**none**"


def render() -> str:
    """The text of docs/traceability.md."""
    rows, why = rule_rows(), reasons()
    functions, tagged, fixtures = rule_functions(), tagged_tests(), fixtures_by_rule()
    results = load_results()
    owners = function_ids()
    with_function = sum(1 for row in rows if functions.get(row["id"]))
    with_tests = sum(1 for row in rows if tagged.get(row["id"]))
    lines = [
        "# Traceability",
        "",
        "<!-- Generated by scripts/traceability.py: do not edit; run " + REGENERATE + " -->",
        "",
        "Every rule of [the rules](rules.md#rule-ids) followed from the printed rulebook to the",
        "function of `meuterer.phases` that states it (marked `@rule(id)`), to the tests that",
        "hold it (marked `@pytest.mark.rule(id)`) and to the conformance fixtures that exercise",
        "it. The page is generated from those marks, so it cannot drift from the code: a test",
        f"fails when it is out of date (regenerate it with `{REGENERATE}`), when an id has no",
        "function and no stated reason, or two functions, and when an id has no tagged test.",
        "",
        f"{len(rows)} rule ids: {with_function} stated by a marked function, {len(rows) - with_function} with a",
        f"reason given in [the rules](rules.md#where-each-rule-is-stated-in-the-code); {with_tests} with tagged tests.",
        "",
        "The fixtures column counts the suite's games that exercise each rule (each game lists",
        "its rule ids, computed when the suite is built by replaying it on the reference: see",
        "[the conformance suite](conformance.md)) and names the first few.",
        "",
        "| id | rulebook | function | tests | fixtures |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        ident = row["id"]
        if functions.get(ident):
            function = "<br>".join(f"`{qualified(f)}`" for f in functions[ident])
        else:
            function = "none: " + why.get(ident, "**no reason given**")
        listed = _fixtures(fixtures.get(ident, []))
        lines.append(f"| `{ident}` | {row['source']} | {function} | {_tests(tagged.get(ident, []))} | {listed} |")
    killed = sum(1 for name in MUTANTS if results.get(name, {}).get("killed") and _current(name, results[name]))
    lines += [
        "",
        "## Mutants",
        "",
        "Each rule function has one mutant: a small, plausible edit of its source, the kind of",
        "slip an implementer could make. The tests tagged with the function's rule ids must",
        "catch it. A run applies each mutant to a copy of `src/` and runs those tests there in",
        "a subprocess (it takes minutes, so it is not part of the ordinary test run):",
        "",
        "```",
        "PYTHONPATH=src python scripts/traceability.py --mutants          # every mutant",
        "PYTHONPATH=src python scripts/traceability.py --mutants robs      # the mutants of matching functions",
        "```",
        "",
        "It records the outcome in `tests/data/rule-mutants.json` and rewrites this page; a fast",
        "test checks that each mutant's text is still found exactly once in its module, and that",
        "the recorded run covers every mutant as it stands now.",
        "",
        f"{killed} of {len(MUTANTS)} mutants killed.",
        "",
        "| function | rule ids | mutant | killed by |",
        "|---|---|---|---|",
    ]
    for name, (find, replace, what) in MUTANTS.items():
        entry = results.get(name)
        if entry is None or not _current(name, entry):
            verdict = "not run since the mutant changed"
        elif entry["killed"]:
            verdict = f"{len(entry['killers'])} of {entry['tests']}: " + _tests(entry["killers"])
        else:
            verdict = f"**survived** ({entry['outcome']}, {entry['tests']} tests)"
        ids = ", ".join(f"`{ident}`" for ident in owners.get(name, []))
        lines.append(f"| `{name}` | {ids} | {what}: `{find}` → `{replace}` | {verdict} |")
    return "\n".join(lines) + "\n"


def _current(name: str, entry: dict[str, Any]) -> bool:
    find, replace, _ = MUTANTS[name]
    return bool(entry["find"] == find and entry["replace"] == replace)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/traceability.md is out of date")
    parser.add_argument("--mutants", nargs="*", metavar="NAME", help="run the mutants (of functions matching NAME)")
    args = parser.parse_args(argv)
    if args.check:
        if PAGE.read_text(encoding="utf-8") != render():
            print(f"docs/traceability.md is out of date: run {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    status = 0
    if args.mutants is not None:
        names = [name for name in MUTANTS if not args.mutants or any(part in name for part in args.mutants)]
        start = time.perf_counter()
        entries = run_mutants(names)
        survived = [entry["function"] for entry in entries if not entry["killed"]]
        print(f"{len(entries) - len(survived)} of {len(entries)} killed in {time.perf_counter() - start:.0f} s")
        status = 1 if survived else 0
    PAGE.write_text(render(), encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
