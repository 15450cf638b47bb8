"""The research examples run (in their quick configuration), and say what is missing."""

from __future__ import annotations

import os
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
