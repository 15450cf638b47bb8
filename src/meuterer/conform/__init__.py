"""Conformance across languages: the engine protocol, the reference behind it, the
versioned suite of fixtures and the driver (``meuterer conform``, ``meuterer engine``).

See ``docs/protocol.md`` and ``docs/conformance.md``.
"""

from meuterer.conform.client import EngineFailure, EngineProcess, ProcessAdapter
from meuterer.conform.engine import PROTOCOL, ReferenceEngine, serve
from meuterer.conform.fixtures import FIXTURE_FORMAT, check_manifest, game_fixture, load_suite, suite_dir

__all__ = [
    "FIXTURE_FORMAT",
    "PROTOCOL",
    "EngineFailure",
    "EngineProcess",
    "ProcessAdapter",
    "ReferenceEngine",
    "check_manifest",
    "game_fixture",
    "load_suite",
    "serve",
    "suite_dir",
]
