"""pytest configuration: skip collecting modules whose optional library (an extra:
``meuterer[openspiel]``, ``meuterer[pettingzoo]``, ``meuterer[gym]``, ``meuterer[vector]``,
``meuterer[docs]``, ``meuterer[server]``) is not installed."""

from __future__ import annotations

import importlib.util

_OPTIONAL = {
    "src/meuterer/openspiel.py": ("pyspiel",),
    "src/meuterer/pettingzoo.py": ("pettingzoo",),
    "src/meuterer/gym.py": ("gymnasium",),
    "src/meuterer/vector": ("numpy",),
    "src/meuterer/vector/env.py": ("numpy", "gymnasium"),
    "docs/vector.md": ("numpy", "gymnasium"),
    "tests/test_vector.py": ("numpy",),
    "tests/test_vector_env.py": ("numpy", "gymnasium"),
    "docs/research.md": ("pyspiel", "gymnasium"),
    "src/meuterer/server/store.py": ("sqlalchemy",),
    "src/meuterer/server/app.py": ("starlette", "sqlalchemy"),
    "docs/server.md": ("starlette", "sqlalchemy"),
    # A build-time extension of the docs site (extra ``docs``), not part of the library.
    "docs/griffe_doctests.py": ("griffe",),
}

collect_ignore = [
    path for path, modules in _OPTIONAL.items() if any(importlib.util.find_spec(module) is None for module in modules)
]
