"""The layers of docs/architecture.md, checked over **every** import: at module level, inside
functions, under ``TYPE_CHECKING`` and in ``try``. Every module imports only modules on its own
floor or below, the ``meuterer`` modules import one another without a cycle, the cursor of
``meuterer.fast`` moves the reference itself (it reads the engine and the machine, no rule
function of its own), and no environment adapter imports another (they share ``envcore``).
No module outgrows 450 lines and no class 200 unless the "Size exceptions" of the docs list
it, and every listed one is really over.

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
    0: ("cards", "islands", "errors", "_version", "_cache", "_install", "textio"),
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


# Sizes ------------------------------------------------------------------------------------

MODULE_LIMIT = 450
"""The most lines a module of ``src/meuterer`` may have unless docs/architecture.md lists it."""
CLASS_LIMIT = 200
"""The most lines a class may have (``class`` to its last line, by ``ast``) unless listed."""
ARCHITECTURE = Path(__file__).parents[1] / "docs" / "architecture.md"


def class_sizes(module: str, source: str) -> dict[str, int]:
    """Each class of ``source`` (the text of the module shown as ``module``, e.g.
    ``server/table``) by name (``server/table.Table``, a nested one ``m.Outer.Inner``),
    with its lines from ``class`` to its last line."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}.{child.name}"
                if isinstance(child, ast.ClassDef):
                    assert child.end_lineno is not None
                    found[name] = child.end_lineno - child.lineno + 1
                visit(child, name)
            else:
                visit(child, prefix)

    visit(ast.parse(source), module)
    return found


def sizes(root: Path = PACKAGE) -> tuple[dict[str, int], dict[str, int]]:
    """The lines of every module under ``root`` (by path, ``server/app.py``) and of every
    class (see :func:`class_sizes`)."""
    module_lines: dict[str, int] = {}
    class_lines: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        module_lines[name] = len(source.splitlines())
        class_lines.update(class_sizes(name.removesuffix(".py"), source))
    return module_lines, class_lines


def size_exceptions(doc: str) -> tuple[list[str], list[str]]:
    """The names listed under "Modules:" and "Classes:" in the "## Size exceptions" section
    of ``doc`` (each entry a bullet ``- `name` (~lines): reason``; the figure is not read)."""
    assert "\n## Size exceptions\n" in doc, "docs/architecture.md has no '## Size exceptions' section"
    section = doc.split("\n## Size exceptions\n", 1)[1].split("\n## ", 1)[0]
    lists: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in section.splitlines():
        if line in ("Modules:", "Classes:"):
            current = lists.setdefault(line, [])
        elif line.startswith("- ") and current is not None:
            name = line[2:].split("`")
            assert line.startswith("- `") and len(name) >= 3, (
                f"a size exception is '- `name` (~lines): why', got {line!r}"
            )
            current.append(name[1])
    assert set(lists) == {"Modules:", "Classes:"}, "the section needs a 'Modules:' list and a 'Classes:' list"
    return lists["Modules:"], lists["Classes:"]


def test_the_size_exceptions_are_read_from_both_lists() -> None:
    doc = textwrap.dedent(
        """
        ## Size exceptions

        Text, with - a dash.

        Modules:

        - `server/app.py` (~792): the routes
          and the hub.
        - `testing.py` (~457): the kit.

        Classes:

        - `server/table.Table` (~311): one table.

        ## Next
        - `not/this.py` (~900): another section.
        """
    )
    assert size_exceptions(doc) == (["server/app.py", "testing.py"], ["server/table.Table"])
    with pytest.raises(AssertionError, match="'Classes:' list"):
        size_exceptions(doc.replace("Classes:", "Types:"))


def test_classes_are_measured_from_class_to_their_last_line() -> None:
    source = "class A:\n    x = 1\n\n    class B:\n        y = 2\n\n\ndef f():\n    class C:\n        pass\n"
    assert class_sizes("m", source) == {"m.A": 5, "m.A.B": 2, "m.f.C": 2}


def test_every_module_and_class_over_the_limit_is_a_listed_exception() -> None:
    module_lines, class_lines = sizes()
    modules_listed, classes_listed = size_exceptions(ARCHITECTURE.read_text(encoding="utf-8"))
    problems = [
        f"module {name} has {lines} lines (at most {MODULE_LIMIT}): split it along a seam"
        f" (a cohesive part into a module of its own, re-exported where users import it), or,"
        f" if it must stay whole, add '- `{name}` (~{lines}): why' under 'Modules:'"
        for name, lines in sorted(module_lines.items())
        if lines > MODULE_LIMIT and name not in modules_listed
    ]
    problems += [
        f"class {name} has {lines} lines (at most {CLASS_LIMIT}): move helpers out of it (module"
        f" functions or a small helper class), or, if it must stay whole, add '- `{name}` (~{lines}): why'"
        f" under 'Classes:'"
        for name, lines in sorted(class_lines.items())
        if lines > CLASS_LIMIT and name not in classes_listed
    ]
    assert not problems, "docs/architecture.md, '## Size exceptions':\n" + "\n".join(problems)


def test_every_listed_size_exception_is_still_over_the_limit() -> None:
    module_lines, class_lines = sizes()
    modules_listed, classes_listed = size_exceptions(ARCHITECTURE.read_text(encoding="utf-8"))
    stale = [
        f"module {name}: " + (f"{module_lines[name]} lines now" if name in module_lines else "no such module")
        for name in modules_listed
        if module_lines.get(name, 0) <= MODULE_LIMIT
    ]
    stale += [
        f"class {name}: " + (f"{class_lines[name]} lines now" if name in class_lines else "no such class")
        for name in classes_listed
        if class_lines.get(name, 0) <= CLASS_LIMIT
    ]
    assert not stale, (
        "docs/architecture.md, '## Size exceptions' lists what is not over the limit any more"
        f" ({MODULE_LIMIT} lines a module, {CLASS_LIMIT} a class): remove these entries:\n" + "\n".join(stale)
    )


MOST_EXCEPTIONS = 3
"""At most this many modules and classes together may be over their limits (issue 36)."""


def test_there_are_at_most_three_size_exceptions() -> None:
    modules_listed, classes_listed = size_exceptions(ARCHITECTURE.read_text(encoding="utf-8"))
    listed = modules_listed + classes_listed
    assert len(listed) <= MOST_EXCEPTIONS, (
        f"{len(listed)} size exceptions ({', '.join(listed)}); at most {MOST_EXCEPTIONS}: split one"
    )
