"""The library's caches: each is made by the one helper (``meuterer._cache``) or listed,
with its owner, key and bound, in the caches table of ``docs/architecture.md``; nothing
is remembered by ``id()`` but what that table says; and the bounds it states are the code's."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import meuterer
from meuterer._cache import Memo, bounded

SRC = Path(meuterer.__file__).parent
DOCS = SRC.parents[1] / "docs" / "architecture.md"

Site = tuple[str, str]
"""A cache's file (relative to the package) and name (module global, or the qualified
name of the function or class that makes it)."""


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


class _Finder(ast.NodeVisitor):
    """The cache sites of one module, each with what makes it one."""

    def __init__(self) -> None:
        self.sites: dict[str, set[str]] = {}
        self.id_keyed: set[str] = set()
        self.scope: list[str] = []
        self.module_target: str | None = None
        self.globals: set[str] = set()

    def _add(self, name: str, why: str) -> None:
        self.sites.setdefault(name, set()).add(why)

    def _where(self) -> str:
        return self.module_target or ".".join(self.scope) or "<module>"

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = ".".join([*self.scope, node.name])
        for decorator in node.decorator_list:
            name = _decorator_name(decorator)
            if name in ("cache", "lru_cache", "bounded"):
                self._add(qualname, name)
        self.scope.append(node.name)
        for statement in node.body:
            if isinstance(statement, ast.Global):
                for name in statement.names:
                    self._add(name, "global")
            self.visit(statement)
        self.scope.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = {_decorator_name(base) for base in node.bases} | {
            _decorator_name(base.value) for base in node.bases if isinstance(base, ast.Subscript)
        }
        if "dict" in bases and any(isinstance(s, ast.FunctionDef) and s.name == "__missing__" for s in node.body):
            self._add(".".join([*self.scope, node.name]), "dict with __missing__")
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_Module(self, node: ast.Module) -> None:
        self.globals = {
            target.id
            for statement in node.body
            if isinstance(statement, ast.Assign | ast.AnnAssign)
            for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
            if isinstance(target, ast.Name)
        }
        for statement in node.body:
            target: str | None = None
            value: ast.expr | None = None
            if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                target, value = statement.targets[0].id, statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                target, value = statement.target.id, statement.value
            if target is not None and value is not None:
                empty = (isinstance(value, ast.Dict) and not value.keys) or (
                    isinstance(value, ast.Call) and _decorator_name(value) in ("dict", "defaultdict") and not value.args
                )
                if empty:
                    self._add(target, "empty dict filled at run time")
            self.module_target = target
            self.visit(statement)
            self.module_target = None

    def visit_Call(self, node: ast.Call) -> None:
        name = _decorator_name(node)
        if name == "Memo":
            self._add(self._where(), "Memo")
        elif name in ("cache", "lru_cache") and self.module_target is None and not self.scope:
            self._add(self._where(), name)
        if name in ("get", "put", "pop", "setdefault") and node.args and _is_id_call(node.args[0]):
            self.id_keyed.add(self._where())
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:  # a module global's item set inside a function
            subject = target.value if isinstance(target, ast.Subscript) else None
            if self.scope and isinstance(subject, ast.Name) and subject.id in self.globals:
                self._add(subject.id, "item set at run time")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if _is_id_call(node.slice):
            self.id_keyed.add(self._where())
        self.generic_visit(node)


def _is_id_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative != "_cache.py":  # the helper itself
            yield relative, ast.parse(path.read_text(encoding="utf-8"))


def _found() -> tuple[dict[Site, set[str]], set[Site]]:
    sites: dict[Site, set[str]] = {}
    id_keyed: set[Site] = set()
    for relative, tree in _modules():
        finder = _Finder()
        finder.visit(tree)
        sites.update({(relative, name): why for name, why in finder.sites.items()})
        id_keyed |= {(relative, name) for name in finder.id_keyed}
    for site in id_keyed:
        sites.setdefault(site, set()).add("keyed on id()")
    return sites, id_keyed


_ROW = re.compile(
    r"^\| `(?P<path>[^`]+)` \| `(?P<name>[^`]+)` \| (?P<owner>[^|]+) \| (?P<key>[^|]+) \| (?P<bound>[^|]+) \|$"
)


def _table() -> dict[Site, dict[str, str]]:
    """The caches table of ``docs/architecture.md``: (file, name) to its owner, key and bound."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Caches") :]
    rows = {}
    for line in section.splitlines():
        match = _ROW.match(line.strip())
        if match:
            rows[match["path"], match["name"]] = {k: match[k].strip() for k in ("owner", "key", "bound")}
    return rows


def test_every_cache_site_is_in_the_table_and_every_row_is_a_site() -> None:
    sites, _ = _found()
    table = _table()
    missing = sorted(
        f"{path} {name} ({', '.join(sorted(why))})" for (path, name), why in sites.items() if (path, name) not in table
    )
    found_by_hand = ("an instance", "module, through an alias")  # caches no ast pattern finds
    stale = sorted(
        f"{path} {name}"
        for (path, name), row in table.items()
        if (path, name) not in sites and not row["owner"].startswith(found_by_hand)
    )
    assert not missing, f"caches not listed in docs/architecture.md's caches table: {missing}"
    assert not stale, f"rows of docs/architecture.md's caches table with no cache in the code: {stale}"


def test_nothing_is_remembered_by_id_but_what_the_table_says() -> None:
    _, id_keyed = _found()
    table = _table()
    stated = {site for site, row in table.items() if "id()" in row["key"]}
    unstated = sorted(id_keyed - stated)
    assert not unstated, f"memos keyed on id() (compare held objects by identity instead): {unstated}"


def _resolve(path: str, name: str) -> Any:
    dotted = "meuterer." + path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    try:  # an adapter's module needs its extra installed
        module = importlib.import_module(dotted)
    except ImportError:
        return None
    found: Any = module
    for part in name.split("."):
        found = getattr(found, part, None)
        if found is None:
            return None
    return found


def _size(cache: Any) -> int | str | None:
    """The bound of a cache object: a memo's size, an ``lru_cache``'s ``maxsize`` (``None``:
    unbounded), or ``"?"`` when the object is not one of the two."""
    owner = getattr(cache, "__self__", cache)  # a memo's bound __getitem__
    if isinstance(owner, Memo):
        return owner.size
    parameters = getattr(cache, "cache_parameters", None)
    if parameters is not None:
        size: int | None = parameters()["maxsize"]
        return size
    return "?"


def test_the_table_states_each_module_caches_bound_as_the_code_has_it() -> None:
    checked = 0
    for (path, name), row in _table().items():
        cache = _resolve(path, name)
        size = _size(cache) if cache is not None else "?"
        if size == "?":
            continue  # a global filled by hand, or a cache made per call: the row's words say
        bound = row["bound"]
        if size is None:
            assert bound.startswith("unbounded"), f"{path} {name} is unbounded, the table says {bound!r}"
        else:
            stated = re.match(r"[\d,]+", bound)
            said = int(stated[0].replace(",", "")) if stated else None
            assert said == size, f"{path} {name}: bound {size}, the table says {bound!r}"
        checked += 1
    assert checked >= 20  # the module memos and decorated functions, read back


def test_the_helper_states_a_bound_and_keeps_it() -> None:
    calls: list[int] = []

    def successor(n: int) -> int:
        calls.append(n)
        return n + 1

    memo: Memo[int, int] = Memo(successor, size=3)
    assert [memo[n] for n in (1, 2, 1, 3)] == [2, 3, 2, 4] and calls == [1, 2, 3]
    assert memo[4] == 5 and len(memo) == 1  # full: it forgot the others
    assert memo.put(4, 6) == 6 and len(memo) == 1  # replacing a key forgets nothing
    with pytest.raises(KeyError):
        Memo[int, int](size=2)[1]
    for size in (0, -1, 2.5, None):
        with pytest.raises(ValueError, match="at least one entry"):
            Memo(size=size)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="at least one entry"):
            bounded(size=size)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Memo()  # type: ignore[call-arg]

    @bounded(size=2)
    def double(n: int) -> int:
        calls.append(n)
        return 2 * n

    calls.clear()
    assert [double(n) for n in (1, 2, 1, 3, 1)] == [2, 4, 2, 6, 2] and calls == [1, 2, 3]


def test_rule_set_keyed_caches_stay_bounded_whatever_rule_sets_come() -> None:
    # A server fed arbitrary rule sets: the layouts, arrangements and sale memos keep at
    # most their bound.
    import attrs

    from meuterer.phases import scoring, setup
    from meuterer.state import Step
    from meuterer.views import observation

    hochland, *others = meuterer.ISLANDS
    many = [
        meuterer.Rules(rounds=n, ring="shuffled", islands=(attrs.evolve(hochland, ship=n % 10), *others))
        for n in range(1, 41)
    ]
    for rules in many:
        state = meuterer.new_game(4, 0, rules)
        observation.observation_layout(4, rules)
        observation.history_layout(4, rules)
        setup.legal_ring(state)
        selling = attrs.evolve(state, step=Step.SELL, face_up=((0, 0, 2, 0, 0, 0, 0),) * 4)
        assert [str(a) for a in scoring.legal_sell(selling)] == ["p0 sell hochland:wine:2"]
    assert observation.observation_layout.cache_info().currsize <= 32  # type: ignore[attr-defined]
    assert observation.history_layout.cache_info().currsize <= 32  # type: ignore[attr-defined]
    assert len(setup._ARRANGEMENTS) <= setup._ARRANGEMENTS.size == 16
    assert len(scoring._SELL_MEMOS) <= scoring._SELL_MEMOS.size
