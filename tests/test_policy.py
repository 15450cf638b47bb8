"""The learned policy: its shipped weights play with numpy only, legally, under the rules
they were trained for, refuse others, and the training command makes weights that play."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import meuterer
from meuterer.agents import GreedyAgent, Move, make_agent, play_game
from meuterer.agents.registry import agent_names
from meuterer.engine import legal_actions
from meuterer.errors import SetupError
from meuterer.views import view

np = pytest.importorskip("numpy")

from meuterer.agents.policy import DEFAULT_WEIGHTS, PolicyAgent, PolicyNet, PolicyRulesError  # noqa: E402

ROOT = Path(__file__).parent.parent
SHIPPED = ROOT / "src" / "meuterer" / "agents" / "data" / DEFAULT_WEIGHTS
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=ENV, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_the_shipped_weights_are_small_and_inside_the_package() -> None:
    assert SHIPPED.is_file() and SHIPPED.stat().st_size <= 2_000_000
    net = PolicyAgent().net
    assert net.players == 4 and net.rules == meuterer.Rules() and net.name == "policy-v2"
    assert {"command", "commit", "eval"} <= set(net.meta)


def test_the_shipped_weights_play_with_numpy_only() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from meuterer.agents import make_agent, play_game\n"
        "agents = [make_agent('policy'), make_agent('greedy'), make_agent('greedy'), make_agent('greedy')]\n"
        "_, final = play_game(agents, seed=11)\n"
        "assert sys.modules['torch'] is None\n"
        "print(final.step.name, len(final.scores))\n"
    )
    done = run("-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["GAME_OVER", "4"]


def _legal_games(agent: PolicyAgent, seeds: range, seats: int = 4) -> int:
    """Whole games with the policy in every seat: each of its moves is checked against the
    legal actions of the state it was made in. Returns the moves checked."""
    checked = 0

    def hook(move: Move) -> None:
        nonlocal checked
        if move.seconds is not None:  # a decision (draws have no thinking time)
            assert move.action in legal_actions(move.before)
            checked += 1

    for seed in seeds:
        _, final = play_game([agent] * seats, seed=seed, hook=hook)
        assert meuterer.is_terminal(final)
    return checked


def test_it_plays_only_legal_moves_over_whole_games() -> None:
    assert _legal_games(PolicyAgent(), range(3)) > 300


def test_its_choice_is_the_best_scored_legal_action() -> None:
    agent = PolicyAgent()
    state = meuterer.new_game(4)
    rng = random.Random(2)
    while meuterer.is_chance_node(state):
        state = meuterer.apply(state, meuterer.sample_chance(state, rng))
    v, legal = view(state, state.to_act), legal_actions(state)
    scores = agent.scores(v, legal)
    assert len(scores) == len(legal) > 1
    assert agent.act(v, legal, rng) == legal[int(np.argmax(scores))]


@pytest.mark.parametrize(
    ("players", "rules", "words"),
    [
        (3, meuterer.Rules(), "4-player games only"),
        (4, meuterer.Rules(pirates=True), r"does not play Rules\(pirates=True.*\), only Rules\(\);"),
    ],
)
def test_it_refuses_games_it_was_not_trained_for(players: int, rules: meuterer.Rules, words: str) -> None:
    agent = make_agent("policy")
    state = meuterer.new_game(players, rules=rules)
    rng = random.Random(1)
    while meuterer.is_chance_node(state):
        state = meuterer.apply(state, meuterer.sample_chance(state, rng))
    with pytest.raises(PolicyRulesError, match=words) as refused:
        agent.act(view(state, state.to_act), legal_actions(state), rng)
    assert isinstance(refused.value, SetupError)
    with pytest.raises(PolicyRulesError):
        play_game([agent, GreedyAgent(), GreedyAgent(), GreedyAgent()][:players], seed=1, rules=rules)


def test_it_is_a_registered_spec_and_a_quick_server_bot() -> None:
    pytest.importorskip("starlette")
    from meuterer.server.bots import check_spec, is_quick

    assert "policy" in agent_names()
    assert isinstance(make_agent("policy"), PolicyAgent)
    assert is_quick("policy")
    assert isinstance(check_spec("policy", 4, meuterer.Rules()), PolicyAgent)
    with pytest.raises(PolicyRulesError):
        check_spec("policy", 3, meuterer.Rules())


def test_the_server_lists_it_and_refuses_a_table_it_does_not_play(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient

    from meuterer.server.app import create_app

    with TestClient(create_app(f"sqlite:///{tmp_path / 'app.db'}")) as client:
        assert "policy" in client.get("/api/tables").json()["bots"]
        opened = client.post("/api/tables", json={"players": 4, "bots": {"1": "policy"}, "name": "ann", "seat": 0})
        assert opened.status_code == 200, opened.text
        refused = client.post("/api/tables", json={"players": 3, "bots": {"1": "policy"}, "name": "ann", "seat": 0})
        assert refused.status_code == 400 and "4-player games only" in refused.json()["error"]


def test_meuterer_play_refuses_it_before_the_game_starts() -> None:
    from meuterer.cli.play import make_bots

    assert isinstance(make_bots("policy", 4, 0, seed=1, rules=meuterer.Rules())[1][1], PolicyAgent)
    with pytest.raises(PolicyRulesError, match="4-player games only"):
        make_bots("policy", 3, 0, seed=1, rules=meuterer.Rules())


def test_a_saved_network_loads_as_it_was(tmp_path: Path) -> None:
    draw = np.random.default_rng(5)
    rules = meuterer.Rules()
    shapes = [(579, 8), (8, 784)]
    weights = tuple(draw.normal(size=shape).astype(np.float32) for shape in shapes)
    biases = tuple(draw.normal(size=shape[1]).astype(np.float32) for shape in shapes)
    net = PolicyNet(weights, biases, 4, rules, {"name": "tiny", "command": "a test"})
    net.save(tmp_path / "tiny.npz")
    again = PolicyNet.load(tmp_path / "tiny.npz")
    assert (again.name, again.players, again.rules, again.meta["command"]) == ("tiny", 4, rules, "a test")
    assert [w.shape for w in again.weights] == shapes
    x = draw.random((3, 579)).astype(np.float32)
    assert np.allclose(again.scores(x), net.scores(x), rtol=0.01, atol=0.05)  # float16 on disk
    assert np.ptp(again.scores(x)) > 1.0  # not a blank network


@pytest.mark.training  # torch
def test_the_training_command_makes_weights_that_play(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the training smoke run needs torch (pip install torch)")
    out = tmp_path / "smoke.npz"
    done = run(
        str(ROOT / "scripts" / "train_policy.py"),
        *("--budget-minutes", "0.15", "--seed", "3", "--out", str(out), "--teacher-iterations", "4"),
        *("--hidden", "32", "--eval-games", "4", "--validation-games", "4", "--jobs", "1", "--reinforce-share", "0.2"),
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "DAgger done" in done.stdout and "evaluation: win share" in done.stdout
    assert "policy gradient:" in done.stdout  # the optional stage runs too
    agent = PolicyAgent(out)
    assert agent.net.name == "smoke" and agent.net.weights[0].shape[1] == 32
    assert _legal_games(agent, range(1)) > 100
