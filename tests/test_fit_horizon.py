"""``scripts/fit_horizon.py``, which fits ISMCTS's ``HORIZON``: its least squares recover known
weights, and the rows it collects from greedy games carry every feature."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from meuterer.agents.ismcts import FEATURES


def _script() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "scripts" / "fit_horizon.py"
    spec = importlib.util.spec_from_file_location("fit_horizon", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fit_horizon", module)
    spec.loader.exec_module(module)
    return module


def test_least_squares_recovers_known_weights() -> None:
    rng = random.Random(1)
    rows = []
    for _ in range(500):
        x = [1.0, float(rng.randint(0, 3)), float(rng.randint(0, 1)), float(rng.randint(0, 5))]
        rows.append((x, 0.5 + 2.0 * x[1] - 1.0 * x[2] + 0.25 * x[3] + rng.gauss(0, 0.1)))
    beta, errors = _script().least_squares(rows)
    assert beta == pytest.approx([0.5, 2.0, -1.0, 0.25], abs=0.05)
    assert all(0 < error < 0.05 for error in errors)


def test_the_rows_of_greedy_games_carry_every_feature_and_the_rounds_left() -> None:
    rows = _script().collect(3, 0)  # seed 0: 3 players; seeds 1 and 2: 4 players
    assert len(rows[3]) == 3 * 8 and len(rows[4]) == 2 * 4 * 7
    for players, found in rows.items():
        for x, _ in found:
            assert len(x) == len(FEATURES) + 2 and x[0] == 1.0
        assert {x[-1] for x, _ in found} == set(range(1, 9 if players == 3 else 8))
