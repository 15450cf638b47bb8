"""The Gymnasium adapter: Gymnasium's checker, SB3's vector envs, and agreement with the engine."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import Action, IllegalActionError, Rules
from meuterer.encoding import utilities
from meuterer.errors import SetupError
from meuterer.views import PlayerView, observation_layout, observation_text, observation_vector, view

gymnasium = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")
env_checker = pytest.importorskip("gymnasium.utils.env_checker")
adapter = pytest.importorskip("meuterer.gym")


def play(env: Any, seed: int, steps: int | None = None) -> tuple[list[float], list[Any], bool, bool]:
    """An episode with random legal actions: rewards, observations, terminated, truncated."""
    rng = random.Random(seed)
    observation, info = env.reset(seed=seed)
    rewards, observations = [], [observation]
    terminated = truncated = False
    while not (terminated or truncated):
        mask = env.action_masks()
        assert (mask == info["action_mask"]).all() and mask.any()
        observation, reward, terminated, truncated, info = env.step(rng.choice(list(np.flatnonzero(mask))))
        rewards.append(reward)
        observations.append(observation)
        if steps is not None and len(rewards) >= steps:
            break
    return rewards, observations, terminated, truncated


@pytest.mark.filterwarnings("ignore:.*maximum and minimum values are equal")  # no pirate cards in the deck
@pytest.mark.filterwarnings("ignore:.*not having a spec")
@pytest.mark.parametrize("observation", ["encoded", "vector"])
def test_gymnasiums_env_checker(observation: str) -> None:
    env = adapter.MeutererEnv(players=3, opponents="greedy", observation=observation, rounds=1)
    env_checker.check_env(env, skip_render_check=False)
    env_checker.check_env(adapter.MeutererEnv(players=4, seat="rotate", render_mode="ansi", rounds=1))


def test_gymnasium_make_and_the_registered_id() -> None:
    env = gymnasium.make("meuterer/Meuterer-v0", players=4, opponents="greedy", rounds=1)
    observation, _info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    assert env.unwrapped.seat == 0 and len(env.unwrapped._policies) == 3
    env.close()
    # The module:id form imports the module first (no prior import needed).
    prefixed = gymnasium.make("meuterer.gym:meuterer/Meuterer-v0", players=3, rounds=1)
    assert prefixed.unwrapped.players == 3


@pytest.mark.parametrize("utility", ["relative", "score", "win"])
def test_step_rewards_add_up_to_the_learners_utility(utility: str) -> None:
    env = adapter.MeutererEnv(players=4, opponents="random", utility=utility, rounds=3, seat=2)
    rewards, _observations, terminated, truncated = play(env, 7)
    assert terminated and not truncated
    final = env.unwrapped.state
    assert meuterer.is_terminal(final)
    assert sum(rewards) == pytest.approx(utilities(final, utility)[2])
    terminal = adapter.MeutererEnv(players=4, opponents="random", utility=utility, rounds=3, seat=2, reward="terminal")
    rewards, _, _, _ = play(terminal, 7)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == pytest.approx(utilities(terminal.state, utility)[2])


def test_observations_are_the_learners_view() -> None:
    env = adapter.MeutererEnv(players=3, opponents="greedy", observation="vector", seat=1, rounds=2)
    observation, _ = env.reset(seed=4)
    layout = observation_layout(3, env.rules)
    assert list(observation) == list(observation_vector(view(env.state, 1)))
    assert env.state.to_act == 1 and (observation >= np.array(layout.low)).all()
    encoded = adapter.MeutererEnv(players=3, opponents="greedy", seat=1, rounds=2)
    observation, _ = encoded.reset(seed=4)
    assert list(observation) == pytest.approx(layout.encode(view(encoded.state, 1)))
    with pytest.warns(UserWarning, match="render_mode"):
        assert encoded.render() is None
    shown = adapter.MeutererEnv(players=3, seat=1, rounds=2, render_mode="ansi")
    shown.reset(seed=4)
    assert shown.render() == observation_text(view(shown.state, 1))


def test_seeding_seats_and_truncation() -> None:
    first = play(adapter.MeutererEnv(players=3, opponents="greedy", rounds=2), 11)
    again = play(adapter.MeutererEnv(players=3, opponents="greedy", rounds=2), 11)
    assert first[0] == again[0] and all((a == b).all() for a, b in zip(first[1], again[1], strict=True))
    rotating = adapter.MeutererEnv(players=4, seat="rotate", rounds=1)
    seats = []
    for episode in range(5):
        rotating.reset(seed=9 if episode == 0 else None)
        seats.append(rotating.seat)
    assert seats == [0, 1, 2, 3, 0]
    rotating.reset(seed=9)
    assert rotating.seat == 0  # a seeded reset starts the rotation over
    chosen = adapter.MeutererEnv(players=4, seat="random", rounds=1)
    chosen.reset(seed=5)
    seat = chosen.seat
    chosen.reset(seed=5)
    assert chosen.seat == seat
    short = adapter.MeutererEnv(players=4, max_steps=4)
    rewards, _, terminated, truncated = play(short, 2)
    assert len(rewards) == 4 and truncated and not terminated
    rounds = adapter.MeutererEnv(players=4, rounds=1)
    play(rounds, 2)
    assert rounds.state.round == 1 and rounds.rules.rounds == 1


def test_opponents_may_be_names_agents_or_policies() -> None:
    calls: list[int] = []

    def first_legal(v: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        calls.append(v.player or 0)
        return legal[0]

    from meuterer import agents

    env = adapter.MeutererEnv(players=4, opponents=[first_legal, agents.GreedyAgent(), "random"], rounds=1)
    play(env, 1)
    assert set(calls) == {1}
    for bad in ("clever", 3, ["random"]):
        with pytest.raises(SetupError):
            adapter.MeutererEnv(players=4, opponents=bad)
    for kwargs in ({"seat": 4}, {"reward": "often"}, {"utility": "joy"}, {"observation": "image"}, {"illegal": "x"}):
        with pytest.raises(SetupError):
            adapter.MeutererEnv(**kwargs)


def test_illegal_actions() -> None:
    env = adapter.MeutererEnv(players=3, rounds=1)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    before = env.state
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal"] and env.state is before
    strict = adapter.MeutererEnv(players=3, rounds=1, illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    over = adapter.MeutererEnv(players=3, rounds=1)
    play(over, 3)
    with pytest.raises(gymnasium.error.ResetNeeded):
        over.step(0)


@pytest.mark.training
def test_sb3_vector_envs_and_maskable_ppo() -> None:
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
    sb3_contrib = pytest.importorskip("sb3_contrib")

    def make() -> Any:
        return adapter.MeutererEnv(players=3, opponents="random", rounds=1)

    for kind in (vec_env.DummyVecEnv, vec_env.SubprocVecEnv):
        envs = kind([make, make])
        envs.seed(1)
        observations = envs.reset()
        assert observations.shape == (2, make().observation_space.shape[0])
        masks = np.stack(envs.env_method("action_masks"))
        actions = [int(np.flatnonzero(mask)[0]) for mask in masks]
        observations, rewards, _dones, _infos = envs.step(np.array(actions))
        assert len(rewards) == 2
        envs.close()
    model = sb3_contrib.MaskablePPO("MlpPolicy", vec_env.DummyVecEnv([make]), n_steps=64, batch_size=32, seed=0)
    model.learn(64)


def test_rules_and_rounds_combine() -> None:
    env = adapter.MeutererEnv(players=3, rules=Rules(pirates=True), rounds=2)
    assert env.rules == Rules(pirates=True, rounds=2)


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    players=st.sampled_from([3, 4]),
    seat=st.integers(0, 2),
    utility=st.sampled_from(["relative", "score", "win"]),
    pirates=st.booleans(),
)
def test_episode_rewards_always_add_up_to_the_final_utility(
    seed: int, players: int, seat: int, utility: str, pirates: bool
) -> None:
    env = adapter.MeutererEnv(players=players, seat=seat, utility=utility, rules=Rules(pirates=pirates), rounds=2)
    rewards, observations, terminated, _ = play(env, seed)
    assert terminated and all(env.observation_space.contains(o) for o in observations)
    assert sum(rewards) == pytest.approx(utilities(env.state, utility)[seat])


def test_opponents_never_get_the_dealers_generator() -> None:
    # issue 19.3: a policy handed the dealer's generator could read or reseed the deck
    given: dict[int, list[random.Random]] = {}

    def meddler(seat: int, meddle: bool) -> Any:
        def policy(v: Any, legal: Any, rng: random.Random) -> Any:
            given.setdefault(seat, []).append(rng)
            if meddle:
                rng.seed(0)  # reseeding its own generator must not touch the deck
                rng.random()
            return legal[0]

        return policy

    runs = []
    for meddle in (False, True):
        env = adapter.MeutererEnv(players=4, opponents=[meddler(s, meddle) for s in (1, 2, 3)], rounds=1)
        env.reset(seed=7)
        states = []
        while not meuterer.is_terminal(env.state):
            assert all(rng is not env._rng for rngs in given.values() for rng in rngs)
            states.append(env.state)
            env.step(int(np.flatnonzero(env.action_masks())[0]))
        runs.append(states)
        assert {len({id(rng) for rng in rngs}) for rngs in given.values()} == {1}  # one generator each
        assert len({id(rngs[0]) for rngs in given.values()}) == 3  # and not shared
        given.clear()
    assert runs[0] == runs[1]  # the same deals whatever the opponents do with their generators


def test_step_refuses_what_is_not_an_action_id() -> None:
    # issue 19.16: step("abc") raised a plain ValueError and step(1.7) played action 1
    env = adapter.MeutererEnv(players=3, rounds=1, illegal="raise")
    _, info = env.reset(seed=1)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    for bad in ("abc", 1.7, float(legal), None, True, np.float64(legal), np.array([legal, legal]), [legal]):
        with pytest.raises(TypeError, match="an action id is an int, got "):
            env.step(bad)
    assert env.step(np.array(legal))[2] in (True, False)  # a 0-d integer array is an id
    env.reset(seed=1)
    assert env.step(np.int32(legal))[2] in (True, False)


def test_any_render_mode_is_accepted_with_a_warning() -> None:
    # issue 19.17: Stable-Baselines3's make_vec_env asks for render_mode="rgb_array"
    with pytest.warns(UserWarning, match="render_mode 'rgb_array' is not one of ansi, human"):
        env = gymnasium.make(adapter.ENV_ID, players=3, rounds=1, render_mode="rgb_array")
    env.reset(seed=1)
    with pytest.warns(UserWarning, match="nothing rendered"):
        assert env.unwrapped.render() is None
    with pytest.raises(TypeError):
        adapter.MeutererEnv(render_mode=3)
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    with pytest.warns(UserWarning, match="render_mode 'rgb_array'"):
        vec = env_util.make_vec_env(adapter.ENV_ID, n_envs=2, seed=0, env_kwargs={"players": 3, "rounds": 1})
    assert vec.reset().shape[0] == 2
    vec.close()


def test_no_view_is_built_for_random_opponents_and_episodes_match_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Random opponents read no view, so none is built (issue 22); a policy that reads one
    # still gets it. The episode is the one the reference engine plays with the same seed.
    seen: list[int] = []

    def policy(v: Any, legal: Any, rng: random.Random) -> Any:
        seen.append(v.player)
        return legal[rng.randrange(len(legal))]

    def no_view(*args: object) -> None:
        raise AssertionError("a view was built")

    env = adapter.MeutererEnv(players=3, opponents=["random", policy])
    with monkeypatch.context() as patch:
        patch.setattr(adapter, "view", no_view)
        blind = adapter.MeutererEnv(players=3, opponents="random")
        blind.reset(seed=4)
        while not meuterer.is_terminal(blind.state):
            blind.step(int(np.flatnonzero(blind.action_masks())[0]))
    env.reset(seed=4)
    state = meuterer.new_game(3)
    rng, opponents = random.Random(4), [random.Random(f"4/opponent/{i}") for i in range(2)]
    while not meuterer.is_terminal(env.state):
        while (player := meuterer.current_player(state)) not in (None, 0):
            if player == meuterer.CHANCE:
                action = meuterer.sample_chance(state, rng)
            else:
                legal = meuterer.legal_actions(state)
                action = legal[opponents[player - 1].randrange(len(legal))]
            state = meuterer.apply(state, action)
        assert env.state == state
        if meuterer.is_terminal(state):
            break
        number = int(np.flatnonzero(env.action_masks())[-1])
        env.step(number)
        state = meuterer.apply(state, env.ids.action(state, number))
    assert seen and set(seen) == {2}


def test_the_mask_handed_out_is_the_learners_own_copy() -> None:
    env = adapter.MeutererEnv(players=3)
    _, info = env.reset(seed=2)
    info["action_mask"][:] = False
    assert env.action_masks().any() and env.action_masks().flags.writeable


def reference_episode(env: Any, seed: int, learner: random.Random) -> int:
    """Play a seeded episode of ``env`` (random opponents) and, beside it, the same episode
    on the reference engine with the documented generators; at every learner step the
    observation, the mask and the reward must be the reference's (views, legal ids,
    utilities). Returns the learner's steps."""
    observation, info = env.reset(seed=seed)
    seat, players, layout = env.seat, env.players, env.layout
    ids = env.ids
    chance = random.Random(seed)
    if env.seat_choice == "random":
        chance.randrange(players)  # the seat was drawn from the dealer's generator first
    opponents = [random.Random(f"{seed}/opponent/{i}") for i in range(players - 1)]
    state = meuterer.new_game(players, 0, env.rules)
    base = utilities(state, env.utility)[seat]
    steps, reward, terminated = 0, 0.0, False
    while True:
        while (player := meuterer.current_player(state)) not in (None, seat):
            if player == meuterer.CHANCE:
                state = meuterer.apply(state, meuterer.sample_chance(state, chance))
            else:
                legal = meuterer.legal_actions(state)
                which = player if player < seat else player - 1
                state = meuterer.apply(state, legal[opponents[which].randrange(len(legal))])
        over = meuterer.is_terminal(state)
        if steps:  # the learner's change of utility since his previous decision
            now = utilities(state, env.utility)[seat]
            assert reward == pytest.approx(now - base) and terminated == over, (seed, steps)
            base = now
        seen = view(state, seat)
        if env.observation_kind == "vector":
            expected = np.array(layout.vector(seen), np.int64)
        else:
            expected = np.array(layout.encode(seen), np.float32)
        assert observation.dtype == expected.dtype and np.array_equal(observation, expected), (seed, steps)
        legal_ids = [] if over else list(ids.legal_ids(state))
        assert np.flatnonzero(info["action_mask"]).tolist() == legal_ids, (seed, steps)
        assert info["scores"] == state.scores and info["seat"] == seat
        if over:
            return steps
        number = learner.choice(legal_ids)
        observation, reward, terminated, truncated, info = env.step(number)
        assert not truncated
        state = meuterer.apply(state, ids.action(state, number))
        steps += 1


@pytest.mark.parametrize("observation", ["encoded", "vector"])
@pytest.mark.parametrize(
    ("players", "options"),
    [
        (4, {}),
        (3, {"rules": Rules(pirates=True, ring="shuffled", withholding=True), "seat": "rotate"}),
        (4, {"rules": Rules(discard_pool="hand", reshuffle="when_empty", rounds=3), "seat": "random"}),
        (3, {"rules": Rules(rounds=4, hand_size=4, loadmaster_extra=2, max_offer=5), "utility": "win"}),
    ],
    ids=["4p", "3p-pirates-shuffled-rotate", "4p-variants-random-seat", "3p-options-win"],
)
def test_every_step_of_many_seeded_episodes_equals_the_reference(
    observation: str, players: int, options: dict[str, Any]
) -> None:
    # The observation writer, the scalar encoder, the memoised legal ids and the utilities
    # from the scores, step by step against views and the engine.
    env = adapter.MeutererEnv(players=players, observation=observation, **options)
    learner = random.Random(players)
    assert sum(reference_episode(env, seed, learner) for seed in range(20)) > 300


@pytest.mark.parametrize("players", [3, 4])
def test_the_scalar_encoder_writes_the_layouts_encoding(players: int) -> None:
    rules = Rules(pirates=True, hand_size=4, loadmaster_extra=2, max_offer=5)
    layout = observation_layout(players, rules)
    encode = adapter.ScalarEncoder(layout)
    from_list = encode.from_list()
    rng = random.Random(players)
    earlier: list[tuple[Any, list[int]]] = []
    drawn = [[rng.randint(low, high) for low, high in zip(layout.low, layout.high, strict=True)] for _ in range(50)]
    for values in [list(layout.low), list(layout.high), *drawn]:  # every entry at its low, at its high, at random
        encoded = encode(np.array(values, np.int64))
        assert encoded.dtype == np.float32 and encoded.shape == (layout.encoded_size,)
        assert np.array_equal(encoded, np.array(layout.encode_values(values), np.float32))
        listed = from_list(values)  # the same, from a list, through its own scratch arrays
        assert listed.dtype == np.float32 and listed.flags.writeable and np.array_equal(listed, encoded)
        earlier.append((listed, values))
    for listed, values in earlier:  # no encoding handed out changes with the later ones
        assert np.array_equal(listed, np.array(layout.encode_values(values), np.float32))
    # the columns share one small table (laid end to end they would take over 20 KiB)
    assert encode._table.nbytes < 4096


def test_the_scalar_encoders_vector_is_a_new_writable_int64_array() -> None:
    layout = observation_layout(4)
    encode = adapter.ScalarEncoder.of(layout)
    values = [low + (i % 3) * (high > low) for i, (low, high) in enumerate(zip(layout.low, layout.high, strict=True))]
    first, second = encode.vector(values), encode.vector(values)
    assert first.dtype == np.int64 and first.flags.writeable and first is not second
    assert first.tolist() == values == second.tolist()
    first[:] = 0
    assert second.tolist() == values


def test_the_blind_seats_follow_the_learners_seat_and_the_opponents_generators() -> None:
    # The game plays the random opponents from a per-seat list of their generators,
    # kept between steps: it must be worked out again when the seat or the generators change.
    def policy(v: Any, legal: Any, rng: random.Random) -> Any:
        return legal[0]

    env = adapter.MeutererEnv(players=4, opponents=["random", policy, "random"], seat="rotate", rounds=1)
    for seed in (1, None, None, 2):
        env.reset(seed=seed)
        seats = env._blind_seats()
        others = [s for s in range(4) if s != env.seat]
        assert seats[env.seat] is None and seats[others[1]] is None
        assert seats[others[0]] is env._opponent_rngs[0] and seats[others[2]] is env._opponent_rngs[2]


def test_gymnasiums_generators_are_the_seeded_ones_made_when_first_read() -> None:
    # A seeded reset keeps the seed of np_random and of the action space's generator, and
    # makes each when first read: the generator Gymnasium's seeding makes, in the same state.
    from gymnasium.utils import seeding

    env = adapter.MeutererEnv(players=3)
    plain = gymnasium.spaces.Discrete(env.action_space.n)
    for seed in (4, 4, 2**40):
        env.reset(seed=seed)
        env.reset()  # an unseeded reset leaves the generators as they are
        expected, _ = seeding.np_random(seed)
        assert env.np_random_seed == seed
        assert env.np_random.integers(1000, size=5).tolist() == expected.integers(1000, size=5).tolist()
        env.reset()
        assert env.np_random.integers(1000, size=5).tolist() == expected.integers(1000, size=5).tolist()
        plain.seed(seed)
        assert [int(env.action_space.sample()) for _ in range(5)] == [int(plain.sample()) for _ in range(5)]
        assert env.action_space == plain and isinstance(env.action_space, gymnasium.spaces.Discrete)
    env.reset(seed=9)
    assert env.unwrapped._np_random is not None and env.unwrapped._np_random is env.np_random  # the checker's read
    generator = np.random.default_rng(1)
    env.np_random = generator
    assert env.np_random is generator and env.np_random_seed == -1
    env.reset(seed=9)
    assert env.np_random is not generator and env.np_random_seed == 9
    fresh = adapter.MeutererEnv(players=3)
    fresh.reset()
    assert isinstance(fresh.np_random, np.random.Generator)  # an unseeded generator, made when read
    assert env.action_space.seed(None) != 9 and isinstance(env.action_space.np_random, np.random.Generator)
    for bad, error in ((-1, "greater or equal to zero"), (1.5, "python integer")):
        with pytest.raises(gymnasium.error.Error, match=error):
            env.reset(seed=bad)


def test_an_episode_starts_from_a_loaded_state() -> None:
    # reset(options={"state": ...}) and load start from the given state; chance and the
    # opponents play on until the learner's turn, as after a new game's deal.
    actions, final = meuterer.random_game(seed=8, players=3)
    middle = meuterer.Game.replay(actions[:40], players=3).state
    env = adapter.MeutererEnv(players=3, seat=1)
    observation, info = env.reset(seed=3, options={"state": middle})
    state = middle
    chance, opponents = random.Random(3), [random.Random(f"3/opponent/{i}") for i in range(2)]
    while (player := meuterer.current_player(state)) not in (None, 1):
        if player == meuterer.CHANCE:
            state = meuterer.apply(state, meuterer.sample_chance(state, chance))
        else:
            legal = meuterer.legal_actions(state)
            state = meuterer.apply(state, legal[opponents[player if player < 1 else player - 1].randrange(len(legal))])
    assert env.state == state
    assert np.flatnonzero(info["action_mask"]).tolist() == list(env.ids.legal_ids(state))
    assert np.array_equal(observation, np.array(env.layout.encode(view(state, 1)), np.float32))
    _, info = env.load(final)
    assert env.state is final and not info["action_mask"].any() and info["scores"] == final.scores
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    with pytest.raises(SetupError, match="seats"):
        env.load(meuterer.new_game(4))
    with pytest.raises(SetupError, match="rules"):
        env.reset(options={"state": meuterer.new_game(3, rules=Rules(pirates=True))})
