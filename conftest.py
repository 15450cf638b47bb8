"""pytest configuration: skip collecting modules whose optional library (an extra:
``meuterer[openspiel]``, ``meuterer[pettingzoo]``, ``meuterer[gym]``, ``meuterer[vector]``,
``meuterer[docs]``, ``meuterer[server]``) is not installed, and run the tests marked
``slow``, ``browser`` or ``training`` only with ``MEUTERER_SLOW=1`` (CI sets it; select
or leave them out with ``-m``, e.g. ``-m "not browser"``)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, settings

# A complete game drawn choice by choice (tests/strategies.game_setups) is large even at
# its simplest: hypothesis's check for large minimal examples does not apply to it. No
# deadline: speed is measured in benchmarks, never asserted by a test, and on a loaded
# machine an example can take longer than hypothesis's 200 ms (a discard test failed so).
settings.register_profile("meuterer", suppress_health_check=[HealthCheck.large_base_example], deadline=None)
settings.load_profile("meuterer")

GATED = ("slow", "browser", "training")
"""The markers of tests that run only with ``MEUTERER_SLOW=1`` (registered in pyproject.toml)."""


def gated_skip(item: pytest.Item, environ: Mapping[str, str] = os.environ) -> pytest.MarkDecorator | None:
    """The skip mark for ``item`` unless it may run here (``None``): a test marked with one
    of :data:`GATED` runs only when ``MEUTERER_SLOW=1``."""
    if environ.get("MEUTERER_SLOW") == "1":
        return None
    kinds = [name for name in GATED if item.get_closest_marker(name) is not None]
    if not kinds:
        return None
    return pytest.mark.skip(reason=f"{'/'.join(kinds)} test: run with MEUTERER_SLOW=1 (CI does)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        skip = gated_skip(item)
        if skip is not None:
            item.add_marker(skip)


_OPTIONAL = {
    "src/meuterer/openspiel": ("pyspiel",),
    "src/meuterer/pettingzoo.py": ("pettingzoo",),
    "src/meuterer/gym.py": ("gymnasium",),
    "src/meuterer/gym_seeding.py": ("gymnasium",),
    "src/meuterer/envcore.py": ("numpy",),
    "src/meuterer/agents/policy.py": ("numpy",),
    "docs/policy.md": ("numpy",),
    "src/meuterer/vector": ("numpy",),
    "src/meuterer/vector/env.py": ("numpy", "gymnasium"),
    "docs/vector.md": ("numpy", "gymnasium"),
    "tests/test_vector.py": ("numpy",),
    "src/meuterer/cli/simulate_vector.py": ("numpy",),
    "tests/test_vector_env.py": ("numpy", "gymnasium"),
    "tests/test_vector_greedy.py": ("numpy", "gymnasium"),
    "tests/test_vector_policy.py": ("numpy", "gymnasium"),
    "tests/test_vector_observation.py": ("numpy",),
    "tests/test_vector_seated.py": ("numpy",),
    "tests/test_vector_streams.py": ("numpy",),
    "docs/research.md": ("pyspiel", "gymnasium"),
    "src/meuterer/server": ("starlette", "sqlalchemy"),
    "docs/server.md": ("starlette", "sqlalchemy"),
    # A build-time extension of the docs site (extra ``docs``), not part of the library.
    "docs/griffe_doctests.py": ("griffe",),
}

collect_ignore = [
    path for path, modules in _OPTIONAL.items() if any(importlib.util.find_spec(module) is None for module in modules)
]
