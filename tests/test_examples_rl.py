"""The research examples run (in their quick configuration), and say what is missing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent.parent / "examples"
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "src"), "MEUTERER_EXAMPLE_QUICK": "1"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], env=ENV, capture_output=True, text=True, timeout=300, check=False)


def test_openspiel_mcts_example() -> None:
    pytest.importorskip("pyspiel")
    done = run(str(EXAMPLES / "openspiel_mcts.py"))
    assert done.returncode == 0, done.stderr
    assert "MCTSBot" in done.stdout and "ISMCTSBot" in done.stdout


def test_train_ppo_says_what_is_missing_and_exits_0() -> None:
    hide = "import sys, runpy; sys.modules['sb3_contrib'] = None; sys.argv = ['train_ppo.py']; "
    hide += f"runpy.run_path({str(EXAMPLES / 'train_ppo.py')!r}, run_name='__main__')"
    done = run("-c", hide)
    assert done.returncode == 0, done.stderr
    # It names the first missing module: sb3_contrib (hidden here), or numpy where the
    # extras are not installed at all.
    assert "needs torch and sb3-contrib" in done.stdout
    assert "sb3_contrib is missing" in done.stdout or "numpy is missing" in done.stdout


def test_vector_selfplay_example_measures_its_baselines_and_intervals(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("gymnasium")
    plot = tmp_path / "curve.png"
    done = run(str(EXAMPLES / "train_vector_selfplay.py"), "--plot", str(plot))
    assert done.returncode == 0, done.stderr
    # seat 0's baselines measured, the untrained policy measured (a first point at 0 steps),
    # every share with its interval, greedy opponents on the vector env
    assert "seat 0's baselines:" in done.stdout and "among random players" in done.stdout
    assert re.search(r"^\s+0 learner steps .*% \[[\d.]+, [\d.]+\] against greedy bots", done.stdout, re.M)
    assert plot.read_bytes().startswith(b"\x89PNG") or "no plot" in done.stdout
