"""The layers of docs/architecture.md, checked over **every** import: at module level, inside
functions, under ``TYPE_CHECKING`` and in ``try``. Every module imports only modules on its own
floor or below, the ``meuterer`` modules import one another without a cycle, the cursor of
``meuterer.fast`` moves the reference itself (it reads the engine and the machine, no rule
function of its own), and no environment adapter imports another (they share ``envcore``).

Pictures hang off the objects by registration (:func:`meuterer.svg.register_pictures`), so the
core never reaches up to draw itself.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

import meuterer

PACKAGE = Path(meuterer.__file__).parent

FLOORS: dict[int, tuple[str, ...]] = {
    0: ("cards", "islands", "errors", "_version", "_cache", "textio"),
    1: ("rules", "actions", "state"),
    2: ("phases", "rulings"),
    3: ("machine", "invariants", "serialize"),
    4: ("engine", "explain", "fast.engine"),
    5: ("views", "game", "encoding", "fast.observation"),
    6: ("record", "redact", "agents", "referee", "fast", "fast.play", "vector", "envcore"),
    7: (
        *("openspiel", "pettingzoo", "gym", "gym_seeding", "vector.env", "tournament", "svg", "svg_parts"),
        *("viewer", "testing", "corpus", "narrate", "diagram", "conform"),
    ),
    8: ("cli", "__main__", "bench", "server"),
}
"""Each module (or package) of ``meuterer`` and its floor, as drawn in docs/architecture.md."""

FLOOR = {name: floor for floor, names in FLOORS.items() for name in names}


def floor_of(module: str) -> int | None:
    """The floor of ``meuterer.a.b...``: the most specific entry of :data:`FLOORS`."""
    parts = module.split(".")[1:]
    for k in range(len(parts), 0, -1):
        found = FLOOR.get(".".join(parts[:k]))
        if found is not None:
            return found
    return None


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module under ``root`` (a package named ``meuterer``) by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(("meuterer", *parts))] = path
    return found


def imports(module: str, source: str, known: Mapping[str, Path]) -> dict[str, int]:
    """The ``meuterer`` modules that ``source`` (the text of ``module``) imports anywhere, each
    with the first line that imports it. ``from meuterer.x import y`` counts as importing
    ``meuterer.x.y`` when that is a module, else ``meuterer.x``; relative imports are resolved.
    """
    package = module if known.get(module, Path()).name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        while name not in known and "." in name:
            name = name.rpartition(".")[0]
        if name in known and name != module:
            found.setdefault(name, line)

    for node in ast.walk(ast.parse(source)):  # every node: function bodies, if and try blocks too
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "meuterer":
                    add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            if origin.split(".")[0] != "meuterer":
                continue
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                add(submodule if submodule in known else origin, node.lineno)
    return found


def import_graph(known: Mapping[str, Path]) -> dict[str, dict[str, int]]:
    """Each module's imports (see :func:`imports`)."""
    return {name: imports(name, path.read_text(encoding="utf-8"), known) for name, path in known.items()}


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of more than one
    module (and any module importing itself), each sorted (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, {})))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, {}):
                    found.append(sorted(component))
    return found


def describe(component: list[str], graph: Mapping[str, Mapping[str, int]]) -> str:
    edges = [f"{a} -> {b} (line {line})" for a in component for b, line in sorted(graph[a].items()) if b in component]
    return f"{len(component)} modules: " + "; ".join(edges)


KNOWN = modules()
GRAPH = import_graph(KNOWN)
MODULES = sorted(name for name in KNOWN if name != "meuterer")


def test_every_module_has_a_floor() -> None:
    assert [name for name in MODULES if floor_of(name) is None] == []


@pytest.mark.parametrize("name", MODULES)
def test_no_module_imports_upward(name: str) -> None:
    mine = floor_of(name)
    assert mine is not None
    upward = [
        f"{other} (floor {floor_of(other)}, line {line})"
        for other, line in sorted(GRAPH[name].items())
        if other != "meuterer" and (floor_of(other) or 0) > mine
    ]
    assert not upward, f"{name} (floor {mine}) imports upward: " + ", ".join(upward)


def test_the_imports_have_no_cycle() -> None:
    found = [describe(component, GRAPH) for component in cycles(GRAPH)]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_nothing_but_the_package_imports_the_package_itself() -> None:
    assert sorted(name for name in MODULES if "meuterer" in GRAPH[name]) == []


def test_the_walk_sees_every_kind_of_import() -> None:
    source = textwrap.dedent(
        """
        from __future__ import annotations
        from typing import TYPE_CHECKING
        import meuterer.cards
        from meuterer import rules
        from . import errors
        if TYPE_CHECKING:
            from meuterer.views import PlayerView
        try:
            from meuterer.svg import board
        except ImportError:
            pass
        def later():
            from ..engine import apply
            import meuterer.fast.engine
        """
    )
    seen = imports("meuterer.phases.common", source, KNOWN)
    expected = {"cards", "rules", "phases", "views", "svg", "engine", "fast.engine"}
    assert set(seen) == {f"meuterer.{name}" for name in expected}


def test_a_cycle_is_found_and_named() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3, "d": 4}, "d": {}, "e": {"e": 5}}
    assert cycles(graph) == [["a", "b", "c"], ["e"]]
    assert describe(["a", "b", "c"], graph) == "3 modules: a -> b (line 1); b -> c (line 2); c -> a (line 3)"
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_the_cursor_moves_the_reference_and_the_adapters_share_one_core() -> None:
    # The cursor holds a reference snapshot and runs the reference's step table: it imports
    # the engine and the machine, and no rule function (nothing of phases/ or rulings).
    cursor = set(GRAPH["meuterer.fast.engine"])
    assert {"meuterer.engine", "meuterer.machine"} <= cursor
    assert not any(other.startswith(("meuterer.phases", "meuterer.rulings")) for other in cursor)
    reference = [name for name in MODULES if (floor_of(name) or 9) <= 4 and not name.startswith("meuterer.fast")]
    for name in reference:
        assert not any(other.startswith("meuterer.fast") for other in GRAPH[name]), name
    adapters = {"meuterer.gym", "meuterer.pettingzoo", "meuterer.openspiel", "meuterer.vector.env"}
    for name in adapters:
        assert not (set(GRAPH[name]) & adapters), name
    assert {name for name in adapters if "meuterer.envcore" in GRAPH[name]} == adapters


def test_the_floor_table_is_the_one_in_the_docs() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    for floor, names in FLOORS.items():
        line = next((line for line in doc.splitlines() if line.startswith(f"floor {floor} ")), None)
        assert line is not None, f"docs/architecture.md has no 'floor {floor}' line"
        block = doc[doc.index(line) :].split("\nfloor ")[0]
        for name in names:
            shown = name.replace(".", "/") if name in ("fast.engine", "fast.play", "fast.observation") else name
            assert shown in block, f"{name} is not on floor {floor} in docs/architecture.md"
