"""pytest configuration: skip the doctests of adapter modules whose optional library
(an extra: ``meuterer[openspiel]``, ``meuterer[pettingzoo]``) is not installed."""

from __future__ import annotations

import importlib.util

_OPTIONAL = {"src/meuterer/openspiel.py": "pyspiel", "src/meuterer/pettingzoo.py": "pettingzoo"}

collect_ignore = [path for path, module in _OPTIONAL.items() if importlib.util.find_spec(module) is None]
