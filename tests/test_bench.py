"""The speed table: each figure next to the yardstick, as a ratio."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from meuterer.bench import find_yardstick, yardstick_table

FAKE = """
import time

def play_game(rng, n_players=4, pirates=False):
    time.sleep(0)  # a yardstick that plays very fast games
    return [0] * n_players, 1
"""


def test_the_table_shows_every_figure_next_to_the_yardstick(tmp_path: Path) -> None:
    path = tmp_path / "ref_sim.py"
    path.write_text(FAKE, encoding="utf-8")
    lines = yardstick_table(games=4, players=(3,), yardstick=path)
    assert lines[1] == f"yardstick: {path}"
    rows = {line[9:60].strip(): line[60:].split() for line in lines[3:]}
    assert rows["yardstick random playouts, games/s"][-1] == "1.000x"
    value, ratio = rows["meuterer.random_game, games/s"]
    assert float(value.replace(",", "")) > 0 and ratio.endswith("x") and 0 < float(ratio[:-1]) < 1
    ismcts = next(v for k, v in rows.items() if k.startswith("ISMCTSAgent()"))
    assert ismcts[-1] == "games" and float(ismcts[-2]) > 0
    assert rows["verify, complete record with digests, ms"][-1] == "games"
    if importlib.util.find_spec("numpy") is None:  # meuterer[vector] not installed: the row says so
        assert rows["meuterer.vector random playouts, games/s"] == ["not", "installed", "-"]
    else:
        value, ratio = rows["meuterer.vector random playouts (B=64), games/s"]  # a small batch for few games
        assert float(value.replace(",", "")) > 0 and ratio.endswith("x")


def test_without_a_yardstick_the_figures_stand_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEUTERER_YARDSTICK", str(tmp_path / "missing.py"))
    assert find_yardstick() == tmp_path / "missing.py"
    lines = yardstick_table(games=4, players=(4,))
    assert "not found" in lines[1]
    assert all(line.split()[-1] == "-" for line in lines[3:])
