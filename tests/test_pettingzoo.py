"""The PettingZoo adapter: PettingZoo's own tests, and agreement with the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

import meuterer
from meuterer import IllegalActionError, Rules
from meuterer.encoding import action_ids
from meuterer.views import view

pettingzoo_test = pytest.importorskip("pettingzoo.test")
np = pytest.importorskip("numpy")
adapter = pytest.importorskip("meuterer.pettingzoo")

VARIANTS: list[dict[str, Any]] = [
    {"players": 4},
    {"players": 3, "rules": Rules(pirates=True, ring="shuffled", withholding=True)},
    {"players": 4, "first_captain": 3, "rules": Rules(discard_pool="hand", reshuffle="when_empty", rounds=3)},
]
IDS = ["4p", "3p-pirates-shuffled", "4p-variants"]


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")  # a dict with an action mask, as classic games
@pytest.mark.parametrize("kwargs", VARIANTS, ids=IDS)
def test_api_test(kwargs: dict[str, Any]) -> None:
    pettingzoo_test.api_test(adapter.env(**kwargs), num_cycles=1000)
    pettingzoo_test.api_test(adapter.raw_env(**kwargs), num_cycles=1000)


@pytest.mark.parametrize("kwargs", VARIANTS, ids=IDS)
def test_seed_test(kwargs: dict[str, Any]) -> None:
    pettingzoo_test.seed_test(lambda: adapter.env(**kwargs), num_cycles=500)


def play(environment: Any, seed: int) -> tuple[list[str], dict[str, float]]:
    """A whole game with random legal actions: the actions in notation, each agent's total reward."""
    rng = random.Random(seed)
    environment.reset(seed=seed)
    raw = environment.unwrapped
    played: list[str] = []
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    for agent in environment.agent_iter():
        obs, reward, terminated, truncated, _ = environment.last()
        totals[agent] += reward
        if terminated or truncated:
            environment.step(None)
            continue
        state = raw.game_state
        assert agent == f"player_{state.to_act}"
        legal = list(np.flatnonzero(obs["action_mask"]))
        assert legal == list(action_ids(raw.rules).legal_ids(state))
        assert sorted(raw.action_to_string(a) for a in legal) == sorted(map(str, meuterer.legal_actions(state)))
        assert list(obs["observation"]) == list(view(state, state.to_act).observation_vector())
        for other in environment.agents:
            if other != agent:
                assert not environment.observe(other)["action_mask"].any()
        action = rng.choice(legal)
        played.append(raw.action_to_string(action))
        environment.step(action)
    return played, totals


def test_a_game_agrees_with_the_engine() -> None:
    environment = adapter.env(players=4, rules=Rules(pirates=True))
    played, totals = play(environment, 11)
    assert environment.agents == []
    # The same game from the engine: chance drawn by random.Random(seed), as documented.
    rng = random.Random(11)
    state = meuterer.new_game(4, 0, Rules(pirates=True))
    for text in played:
        while meuterer.is_chance_node(state):
            state = meuterer.apply(state, meuterer.sample_chance(state, rng))
        state = meuterer.apply(state, meuterer.parse_action(text))
    assert state == environment.unwrapped.game_state
    assert meuterer.is_terminal(state)
    assert [totals[f"player_{seat}"] for seat in range(4)] == [float(score) for score in state.scores]


def test_chance_is_seeded() -> None:
    first = play(adapter.env(players=3), 5)
    assert play(adapter.env(players=3), 5) == first
    assert play(adapter.env(players=3), 6) != first


def test_illegal_actions(caplog: pytest.LogCaptureFixture) -> None:
    raw = adapter.raw_env(players=3)
    raw.reset(seed=1)
    before = raw.game_state
    illegal = next(a for a in range(raw.ids.num_actions) if a not in raw.ids.legal_ids(before))
    with pytest.raises(IllegalActionError):
        raw.step(illegal)
    assert raw.game_state is before
    wrapped = adapter.env(players=3)
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    wrapped.step(illegal)
    assert "Illegal move" in caplog.text
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -1


def test_render() -> None:
    raw = adapter.raw_env(players=3, render_mode="ansi")
    raw.reset(seed=2)
    assert raw.render() == view(raw.game_state, None).observation_text()
    with pytest.raises(ValueError, match="render_mode"):
        adapter.raw_env(render_mode="rgb_array")
