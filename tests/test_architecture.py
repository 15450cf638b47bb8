"""The layers of docs/architecture.md, checked: every module imports (at module level) only
modules on its own floor or below, and the fast engine's core reads only floors 0 and 1.

A function-level import may reach upward on purpose (``State._repr_svg_`` draws with
:mod:`meuterer.svg`); such imports are lazy and never run when the module loads.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import meuterer

PACKAGE = Path(meuterer.__file__).parent

FLOORS: dict[int, tuple[str, ...]] = {
    0: ("cards", "islands", "errors", "_version", "_cache"),
    1: ("rules", "actions", "state"),
    2: ("phases", "rulings"),
    3: ("machine", "invariants", "serialize"),
    4: ("engine", "explain", "fast.engine"),
    5: ("views", "game", "encoding", "fast.observation"),
    6: ("record", "redact", "agents", "referee", "fast", "fast.play", "vector"),
    7: (
        *("openspiel", "pettingzoo", "gym", "vector.env", "tournament", "svg"),
        *("viewer", "testing", "corpus", "narrate", "diagram", "conform"),
    ),
    8: ("cli", "__main__", "cli_play", "cli_simulate", "bench", "server"),
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


def modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found.append((".".join(("meuterer", *parts)), path))
    return found


def imported_at_load(module: str, path: Path) -> set[str]:
    """The ``meuterer`` modules that ``path`` imports at module level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "meuterer":
                names |= {f"meuterer.{alias.name}" for alias in node.names}
            elif node.module.startswith("meuterer."):
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("meuterer.")}
    return names


MODULES = [(name, path) for name, path in modules() if name != "meuterer"]


def test_every_module_has_a_floor() -> None:
    assert [name for name, _ in MODULES if floor_of(name) is None] == []


@pytest.mark.parametrize(("name", "path"), MODULES, ids=[name for name, _ in MODULES])
def test_no_module_imports_upward(name: str, path: Path) -> None:
    mine = floor_of(name)
    assert mine is not None
    upward = [
        f"{other} (floor {floor_of(other)})"
        for other in sorted(imported_at_load(name, path))
        if floor_of(other) is not None and floor_of(other) > mine  # type: ignore[operator]
    ]
    assert upward == [], f"{name} (floor {mine}) imports upward"


def test_the_fast_engine_reads_only_the_core_data() -> None:
    path = PACKAGE / "fast" / "engine.py"
    if not path.exists():
        pytest.skip("no fast engine in this tree")
    floors = {floor_of(other) for other in imported_at_load("meuterer.fast.engine", path) - {"meuterer.fast.engine"}}
    assert floors <= {0, 1}
    reference = [name for name, p in MODULES if (floor_of(name) or 9) <= 4 and not name.startswith("meuterer.fast")]
    for name in reference:
        path = dict(MODULES)[name]
        assert not any(other.startswith("meuterer.fast") for other in imported_at_load(name, path)), name


def test_the_floor_table_is_the_one_in_the_docs() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    for floor, names in FLOORS.items():
        line = next((line for line in doc.splitlines() if line.startswith(f"floor {floor} ")), None)
        assert line is not None, f"docs/architecture.md has no 'floor {floor}' line"
        block = doc[doc.index(line) :].split("\nfloor ")[0]
        for name in names:
            shown = name.replace(".", "/") if name in ("fast.engine", "fast.play", "fast.observation") else name
            assert shown in block, f"{name} is not on floor {floor} in docs/architecture.md"
