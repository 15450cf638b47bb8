"""The rule ids of docs/rules.md traced to the code, the tests and the suite.

Reads the rule ids (the table under "## Rule ids" of docs/rules.md), the stated reasons of
ids without a rule function, the functions marked with ``@rule`` (``meuterer.phases.ids``)
and the tests marked with ``@pytest.mark.rule`` (read from the test files' source), and
writes docs/traceability.md::

    PYTHONPATH=src python scripts/traceability.py            # rewrite docs/traceability.md
    PYTHONPATH=src python scripts/traceability.py --check    # exit 1 if the page is stale
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
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


def rule_rows() -> list[dict[str, str]]:
    """The rows of the rule-id table, in order: id, rule, source, options."""
    return [{k: v.strip() for k, v in m.groupdict().items()} for m in ROW.finditer(_section())]


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
