"""The PettingZoo adapter: PettingZoo's own tests, and agreement with the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

import meuterer
from meuterer import IllegalActionError, Rules
from meuterer.encoding import action_ids
from meuterer.errors import SetupError
from meuterer.views import observation_layout, observation_text, observation_vector, view

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
        seen = view(state, state.to_act)
        if raw.observation_kind == "vector":
            assert list(obs["observation"]) == list(observation_vector(seen))
        else:  # the scalar encoder writes exactly the layout's encoding
            expected = np.array(raw.layout.encode(seen), np.float32)
            assert obs["observation"].dtype == np.float32 and np.array_equal(obs["observation"], expected)
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
    assert raw.render() == observation_text(view(raw.game_state, None))
    with pytest.raises(ValueError, match="render_mode"):
        adapter.raw_env(render_mode="rgb_array")


def test_render_per_player() -> None:
    current = adapter.raw_env(players=3, render_mode="ansi", render_view="current")
    current.reset(seed=2)
    for _ in range(6):
        seat = current.game_state.to_act
        assert current.render() == observation_text(view(current.game_state, seat))
        assert "(you)" in current.render().splitlines()[4 + seat]  # the header lines, then one per seat
        current.step(int(np.flatnonzero(current.observe(current.agent_selection)["action_mask"])[0]))
    fixed = adapter.raw_env(players=3, render_mode="ansi", render_view="player_2")
    fixed.reset(seed=2)
    assert fixed.render() == observation_text(view(fixed.game_state, 2)) == fixed.view_text("player_2")
    with pytest.raises(SetupError):
        adapter.raw_env(players=3, render_view="player_3")


def test_observation_spaces_bound_each_entry() -> None:
    raw = adapter.raw_env(players=4)
    box = raw.observation_space("player_0")["observation"]
    layout = observation_layout(4)
    assert list(box.low) == list(layout.low) and list(box.high) == list(layout.high)
    assert box.low[layout.names.index("step")] == 0 and box.high[layout.names.index("step")] == 16
    assert box.high[layout.names.index("hand.ruby")] == Rules().deck[0]
    encoded = adapter.raw_env(players=4, observation="encoded")
    encoded.reset(seed=3)
    space = encoded.observation_space("player_1")["observation"]
    observation = encoded.observe("player_1")["observation"]
    assert space.contains(observation) and observation.dtype == np.float32
    assert list(observation) == pytest.approx(layout.encode(view(encoded.game_state, 1)))
    with pytest.raises(SetupError):
        adapter.raw_env(observation="pixels")


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
def test_the_encoded_env_passes_the_api_test() -> None:
    pettingzoo_test.api_test(adapter.env(players=3, observation="encoded"), num_cycles=300)


def test_observations_are_built_once_per_step_and_agent() -> None:
    raw = adapter.raw_env(players=3)
    raw.reset(seed=4)
    agent = raw.agent_selection
    first = raw.observe(agent)
    assert raw.observe(agent) is first
    raw.step(int(np.flatnonzero(first["action_mask"])[0]))
    assert raw.observe(agent) is not first


def test_the_wrapper_answers_last_itself_and_keeps_the_order_checks() -> None:
    environment = adapter.env(players=3)
    with pytest.raises(AttributeError, match="before reset"):
        environment.last()
    assert str(environment) == str(environment.unwrapped)
    environment.reset(seed=5)
    raw = environment.unwrapped
    observation, reward, terminated, truncated, info = environment.last()
    assert observation is raw.observe(raw.agent_selection)
    assert (reward, terminated, truncated, info) == (0.0, False, False, {})


def test_masks_are_read_only_int8_and_only_the_agent_to_act_has_legal_ids() -> None:
    raw = adapter.raw_env(players=4)
    raw.reset(seed=6)
    ids = action_ids(raw.rules)
    for agent in raw.possible_agents:
        mask = raw.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and not mask.flags.writeable
        if agent == raw.agent_selection:
            game = raw.game_state
            legal = sorted(ids.action_id(game, action) for action in meuterer.engine.legal_actions(game))
            assert np.flatnonzero(mask).tolist() == legal
        else:
            assert not mask.any()


@pytest.mark.parametrize("observation", ["vector", "encoded"])
@pytest.mark.parametrize("kwargs", VARIANTS, ids=IDS)
def test_many_seeded_games_agree_with_the_engine_at_every_step(kwargs: dict[str, Any], observation: str) -> None:
    # Observations (both kinds), masks and legal ids against views and the engine; rewards
    # add up to the scores.
    environment = adapter.env(observation=observation, **kwargs)
    for seed in range(4):
        _played, totals = play(environment, seed)
        final = environment.unwrapped.game_state
        assert [totals[f"player_{seat}"] for seat in range(final.players)] == [float(s) for s in final.scores]


def test_the_wrapper_checks_the_order_of_steps_itself(caplog: pytest.LogCaptureFixture) -> None:
    environment = adapter.env(players=3)
    for name in ("agents", "agent_selection"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(environment, name)
    with pytest.raises(AssertionError, match="reset"):
        environment.step(0)
    environment.reset(seed=1)
    assert environment.agents == environment.unwrapped.agents
    assert environment.agent_selection == environment.unwrapped.agent_selection
    for _agent in environment.agent_iter():
        observation, _, terminated, truncated, _ = environment.last()
        environment.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    assert environment.agents == []
    with caplog.at_level("WARNING"):
        environment.step(None)
    assert "after all agents are terminated" in caplog.text


@pytest.mark.parametrize("observation", ["vector", "encoded"])
@pytest.mark.parametrize("kwargs", VARIANTS, ids=IDS)
def test_seeded_games_are_the_reference_engines_games_with_the_same_generator(
    kwargs: dict[str, Any], observation: str
) -> None:
    # The environment's chance is the reference's sample_chance on random.Random(seed): the
    # same game is replayed beside it on the reference engine, and at every decision the
    # state, the observation (the layout of the view), the mask and the reward (the points
    # scored since the agent's previous decision) must agree.
    environment = adapter.env(observation=observation, **kwargs)
    raw = environment.unwrapped
    ids, layout = action_ids(raw.rules), raw.layout
    for seed in range(3):
        environment.reset(seed=seed)
        chance, choices = random.Random(seed), random.Random(-seed)
        state = meuterer.new_game(raw.game_state.players, kwargs.get("first_captain", 0), raw.rules)
        since = list(state.scores)  # each seat's score before his previous decision
        for agent in environment.agent_iter():
            while meuterer.current_player(state) == meuterer.CHANCE:
                state = meuterer.apply(state, meuterer.sample_chance(state, chance))
            obs, reward, terminated, truncated, _ = environment.last()
            assert raw.game_state == state, (seed, agent)
            seat = int(agent.removeprefix("player_"))
            assert reward == float(state.scores[seat] - since[seat]), (seed, agent)
            if terminated or truncated:
                environment.step(None)
                continue
            seen = view(state, seat)
            if observation == "vector":
                expected = np.array(layout.vector(seen), np.int64)
            else:
                expected = np.array(layout.encode(seen), np.float32)
            assert obs["observation"].dtype == expected.dtype and np.array_equal(obs["observation"], expected)
            legal = list(ids.legal_ids(state))
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            number = choices.choice(legal)
            since[seat] = state.scores[seat]
            environment.step(number)
            state = meuterer.apply(state, ids.action(state, number))
        assert meuterer.is_terminal(state)


def test_the_agent_iterator_checks_what_pettingzoos_does() -> None:
    # The wrapper's own iterator reads the environment directly: the same agents, the same
    # refusals as PettingZoo's AECOrderEnforcingIterator over the same calls.
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
    from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterator

    ours, theirs = adapter.env(players=3), OrderEnforcingWrapper(adapter.raw_env(players=3, illegal="terminate"))
    for environment in (ours, theirs):
        with pytest.raises(AssertionError, match="reset"):
            environment.agent_iter()
    sequences: list[list[str]] = []
    for environment in (ours, theirs):
        environment.reset(seed=3)
        iterator = iter(environment.agent_iter(max_iter=40))
        assert isinstance(iterator, AECOrderEnforcingIterator)
        next(iterator)
        with pytest.raises(AssertionError, match="step"):
            next(iterator)  # no step since the last agent
        environment.step(int(np.flatnonzero(environment.last()[0]["action_mask"])[0]))
        seen = [environment.agent_selection]
        for agent in iterator:
            seen.append(agent)
            observation, _, terminated, truncated, _ = environment.last()
            environment.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
        sequences.append(seen)
    assert sequences[0] == sequences[1] and len(sequences[0]) == 39


def test_step_takes_ids_of_any_integer_type_and_refuses_the_rest() -> None:
    # A plain int legal id takes the fast path; numpy ints are converted to the same step;
    # None, ids out of range and illegal ids are refused (or, with env, end the game).
    plain, other = adapter.raw_env(players=4), adapter.raw_env(players=4)
    for environment in (plain, other):
        environment.reset(seed=8)
    for turn in range(60):
        legal = np.flatnonzero(plain.observe(plain.agent_selection)["action_mask"])
        number = int(legal[turn % len(legal)])
        plain.step(number)
        other.step(np.int64(number) if turn % 2 else np.int32(number))
        assert plain.agent_selection == other.agent_selection and plain.rewards == other.rewards
        assert np.array_equal(
            plain.observe(plain.agent_selection)["observation"], other.observe(other.agent_selection)["observation"]
        )
    agent = plain.agent_selection
    with pytest.raises(TypeError, match="must act"):
        plain.step(None)
    for number in (-1, plain.ids.num_actions, np.int64(plain.ids.num_actions + 5)):
        with pytest.raises(IllegalActionError, match="action space"):
            plain.step(number)
    mask = plain.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError):
        plain.step(illegal)
    with pytest.raises(IllegalActionError):
        plain.step(np.int64(illegal))
    assert plain.agent_selection == agent and plain.observe(agent)["action_mask"] is mask  # nothing changed
    ending = adapter.raw_env(players=4, illegal="terminate")
    ending.reset(seed=8)
    first = ending.agent_selection
    wrong = int(np.flatnonzero(ending.observe(first)["action_mask"] == 0)[0])
    ending.step(np.int64(wrong))
    assert all(ending.terminations.values()) and ending.rewards[first] == -1


def test_rewards_are_each_steps_own_and_follow_the_scores_across_games() -> None:
    # The rewards are the points each seat scored during the step, worked out against the
    # scores the previous step (or reset) left, kept by the environment: refreshed at every
    # reset (a second game on the same environment starts from zero again), and each step's
    # rewards are a dict of its own (the all-zero ones are copied, so changing one changes
    # no later step's).
    raw = adapter.raw_env(players=4)
    for seed in (2, 3):
        raw.reset(seed=seed)
        rng, scored = random.Random(seed), 0
        previous = raw.rewards
        while not raw.terminations[raw.agent_selection]:
            before = raw.game_state.scores
            legal = np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])
            raw.step(int(legal[rng.randrange(len(legal))]))
            after = raw.game_state.scores
            expected = {f"player_{seat}": float(after[seat] - before[seat]) for seat in range(4)}
            assert raw.rewards == expected and raw.rewards is not previous
            scored += after != before
            previous = raw.rewards
            for agent in raw.agents:
                raw.rewards[agent] = 99.0  # the caller's to change
        assert scored > 0


def test_a_game_starts_from_a_loaded_state() -> None:
    # reset(options={"state": ...}) and load start from the given state (chance drawn from
    # the seeded generator first); a finished game loads terminated; other seats or rules refuse.
    actions, final = meuterer.random_game(seed=6, players=3)
    before_a_draw = meuterer.Game.replay(actions[:60], players=3).state
    raw = adapter.raw_env(players=3)
    raw.reset(seed=2, options={"state": before_a_draw})
    state, rng = before_a_draw, random.Random(2)
    while meuterer.is_chance_node(state):
        state = meuterer.apply(state, meuterer.sample_chance(state, rng))
    assert raw.game_state == state and raw.agent_selection == f"player_{state.to_act}"
    legal = np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"]).tolist()
    assert legal == list(raw.ids.legal_ids(state))
    raw.load(final)
    assert raw.game_state is final and all(raw.terminations.values())
    with pytest.raises(SetupError, match="seats"):
        raw.load(meuterer.new_game(4))
