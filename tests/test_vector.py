"""The vector engine (meuterer.vector): proven equal to the reference step by step, its
bad-input behaviour, and its conversions."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import Rules
from meuterer.corpus import check_playthrough
from meuterer.errors import IllegalActionError, SetupError
from meuterer.testing import check_engine
from meuterer.vector import VectorGame
from meuterer.vector.align import RULE_SETS, VectorAdapter, align
from meuterer.vector.observation import observations
from tests.strategies import rule_sets

CORPUS = Path(__file__).parent / "data" / "conformance"
SLOW = os.environ.get("MEUTERER_SLOW") == "1"


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", RULE_SETS, ids=range(len(RULE_SETS)))
def test_equal_to_the_reference_at_every_step(players: int, rules: Rules) -> None:
    # Masks, chance outcomes and probabilities, scores, terminal flags, current players,
    # states; the observation of the seat to act in 8 games, every seat's in one more
    # (112 + 14 games in all; MEUTERER_SLOW=1 plays 1,400 more).
    checked = align(8, players, rules, seed=players, every_seat=False)
    assert checked.games == 8 and checked.decisions > 8 * 30 and checked.chance > 8 * 15
    assert align(1, players, rules, seed=10 + players).observations > players * 50


@pytest.mark.slow  # 100 games per rule set and player count
@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", RULE_SETS, ids=range(len(RULE_SETS)))
def test_equal_to_the_reference_slow(players: int, rules: Rules) -> None:
    assert align(100, players, rules, seed=100 + players).games == 100


def test_the_proof_catches_a_batch_with_one_rule_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The batch applies the reference's own rule functions; one changed in the batch alone
    # (a tied mutiny fails) is caught.
    from meuterer.vector import mutiny

    monkeypatch.setattr(mutiny, "mutiny_succeeds", lambda captain_side, mutineer_side: mutineer_side > captain_side)
    with pytest.raises(AssertionError, match="game"):
        align(32, 4, seed=1, every_seat=False)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), players=st.sampled_from([3, 4]), seed=st.integers(0, 2**16))
def test_equal_to_the_reference_under_any_rule_options(rules: Rules, players: int, seed: int) -> None:
    # Every combination of the options (a failure shrinks to the fewest options changed).
    assert align(2, players, rules, seed=seed, every_seat=False).games == 2


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json")), ids=lambda p: p.name)
def test_the_golden_playthroughs_replay_through_it(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert check_playthrough(data, VectorAdapter()) == []
    data["steps"][20]["scores"][0] += 1
    assert check_playthrough(data, VectorAdapter()) == ["step 20: scores differ"]


def test_the_conformance_kit_finds_no_difference() -> None:
    check_engine(VectorAdapter(), max_examples=6 if not SLOW else 200, seed=5)


def test_a_record_replays_through_it() -> None:
    actions, final = meuterer.random_game(seed=7, players=4, rules=Rules(ring="shuffled", pirates=True))
    games = VectorGame(1, 4, Rules(ring="shuffled", pirates=True), record=True)
    for action in actions:
        games.step(np.array([games.code(0, action)]))
    assert games.to_state(0) == final and bool(games.terminal[0])
    assert games.history(0) == actions


def _at_a_decision(batch: int = 5, seed: int = 3) -> VectorGame:
    games = VectorGame(batch, 4, seed=seed)
    games.advance_chance()
    return games


def test_illegal_actions_refuse_the_whole_step_naming_the_games() -> None:
    games = _at_a_decision()
    before = [games.to_state(i) for i in range(5)]
    actions = np.array([0, 50, 1, 783, 2])  # 50 and 783 are no offers
    with pytest.raises(IllegalActionError, match=r"2 game\(s\) of the batch: 1, 3 \(nothing was applied\)"):
        games.step(actions)
    assert [games.to_state(i) for i in range(5)] == before
    with pytest.raises(IllegalActionError, match="game"):
        games.step(np.array([0, -1, 0, 0, 10_000]))


def test_illegal_chance_outcomes_are_refused() -> None:
    games = VectorGame(3, 3, seed=1)
    with pytest.raises(IllegalActionError, match=": 0, 1, 2 "):
        games.step(np.array([6, 7, -1]))  # no pirate card in the deck; 7 and -1 are no cards
    ring = VectorGame(2, 3, Rules(ring="shuffled"))
    with pytest.raises(IllegalActionError, match=": 1 "):
        ring.step(np.array([0, len(ring.arrangements)]))


def test_wrong_types_and_shapes() -> None:
    games = _at_a_decision()
    with pytest.raises(TypeError, match="numpy array"):
        games.step([0, 0, 0, 0, 0])
    with pytest.raises(TypeError, match="dtype float64"):
        games.step(np.zeros(5))
    with pytest.raises(ValueError, match=r"shape \(5,\), got \(4,\)"):
        games.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(TypeError, match="booleans"):
        games.reset(np.zeros(5, dtype=np.int64))
    with pytest.raises(ValueError, match="shape"):
        games.reset(np.zeros(3, dtype=np.bool_))
    with pytest.raises(ValueError, match="batch"):
        VectorGame(0)
    with pytest.raises(ValueError, match="1 to 1,048,576"):
        VectorGame(1 << 21)
    with pytest.raises(SetupError, match="3 or 4"):
        VectorGame(2, 5)
    with pytest.raises(SetupError, match="first_captain"):
        VectorGame(2, 4, first_captain=4)
    with pytest.raises(TypeError, match="Rules"):
        VectorGame(2, 4, "pirates")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="State"):
        games.set_state(0, "state")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="players and rules"):
        games.set_state(0, meuterer.new_game(3))


def test_finished_games_ignore_their_action_and_reset_where_asked() -> None:
    games = VectorGame(4, 3, Rules(rounds=1), seed=2)
    while not games.terminal.all():
        games.step(games.random_actions())
    scores = games.scores.copy()
    games.step(np.zeros(4, dtype=np.int64))  # nothing happens in finished games
    assert (games.scores == scores).all() and (games.current_player == -2).all()
    games.reset(np.array([True, False, True, False]))
    assert games.terminal.tolist() == [False, True, False, True]
    assert games.to_state(0) == meuterer.new_game(3, 0, Rules(rounds=1))


def test_utilities_bad_kind_and_resetting_nothing() -> None:
    games = _at_a_decision(batch=2)
    with pytest.raises(ValueError, match="utility must be one of score, relative, win"):
        games.utilities("money")
    before = games.to_state(1)
    games.reset(np.zeros(2, dtype=np.bool_))
    assert games.to_state(1) == before


def test_same_seed_same_games_and_chance_probabilities_sum_to_one() -> None:
    def play(seed: int) -> list[int]:
        games = VectorGame(8, 4, Rules(pirates=True), seed=seed)
        for _ in range(120):
            chance = games.chance
            p = games.chance_probabilities()
            assert np.allclose(p[chance].sum(axis=1), 1.0) and not p[~chance].any()
            games.step(games.random_actions())
        return [int(x) for x in games.scores.ravel()] + [int(x) for x in games.step_]

    assert play(4) == play(4) and play(4) != play(5)


def test_observations_shape_dtype_and_bytes() -> None:
    games = _at_a_decision(batch=3)
    every = observations(games)
    assert every.shape == (3, 4, 164) and every.dtype == np.int32
    assert (observations(games, games.current_player) == every[np.arange(3), games.current_player]).all()
    assert 500 < games.nbytes() / games.batch < 1000  # a seat's cards in bytes
    assert games.hands.dtype == games.face_up.dtype == games.face_down.dtype == np.int8


def test_a_deck_with_over_127_of_a_kind_keeps_the_seats_cards_in_int16() -> None:
    rules = Rules(deck=(130, 5, 6, 7, 8, 6, 0), rounds=2)
    assert VectorGame(2, 4, rules).hands.dtype == np.int16
    assert align(3, 4, rules, seed=1).games == 3


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agents", "ismcts,greedy"], "random, greedy and policy players"),
        (["--agents", "policy", "--players", "3"], "plays 4-player games only"),
        (["--out", "x.csv"], "no per-game results"),
        (["--jobs", "2"], "in this process"),
        (["-n", "0"], "at least 1"),
    ],
)
def test_simulate_vector_refuses_what_it_cannot_do(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from meuterer.cli.main import main

    assert main(["simulate", "--vector", "-n", "4", *extra]) == 2
    assert message in capsys.readouterr().err


def test_simulate_vector_summarises_random_games(capsys: pytest.CaptureFixture[str]) -> None:
    from meuterer.cli.main import main

    assert main(["simulate", "--vector", "-n", "30", "--players", "3", "--pirates"]) == 0
    shown = capsys.readouterr().out
    assert "30 games, 3 players: random (vector engine, 30 in lockstep); seed " in shown
    assert shown.count("│ p") == 3 and "games/s" in shown


def test_simulate_vector_plays_greedy_and_policy_players(capsys: pytest.CaptureFixture[str]) -> None:
    from meuterer.cli.main import main

    assert main(["simulate", "--vector", "-n", "24", "--agents", "policy,greedy,random", "--seed", "2"]) == 0
    shown = capsys.readouterr().out
    assert "24 games, 4 players: policy, greedy, random, random (seats rotate) (vector engine" in shown
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in shown.splitlines() if "│" in line}
    assert "Per agent" in shown and [rows[f"p{seat}"] for seat in range(4)] == ["24"] * 4
    assert (rows["policy"], rows["greedy"], rows["random"]) == ("24", "24", "48")  # seat-games per agent


def test_agent_playouts_seat_the_agents_in_turn_and_play_their_moves() -> None:
    from meuterer.errors import SetupError
    from meuterer.vector.playouts import agent_playouts

    played = agent_playouts(40, ["greedy", "random", "random", "random"], batch=16, seed=5)
    assert played.seating is not None and played.scores.shape == (40, 4)
    # game i seats agent k in seat (k + i) % 4: every row a rotation, each seat the greedy bot's 10 times
    assert all(sorted(row) == [0, 1, 2, 3] for row in played.seating.tolist())
    assert ((played.seating - played.seating[:, :1]) % 4 == np.arange(4)).all()
    assert (np.bincount(np.argmin(played.seating, axis=1), minlength=4) == 10).all()
    greedy = played.seating == 0
    assert played.wins[greedy].sum() > 30  # of 40 games against three random players
    fixed = agent_playouts(6, ["random", "greedy", "random"], players=3, rotate=False, batch=4, seed=1)
    assert fixed.seating is not None and (fixed.seating == np.arange(3)).all()
    with pytest.raises(SetupError, match="one agent per seat"):
        agent_playouts(2, ["greedy", "ismcts", "random", "random"])
    with pytest.raises(SetupError, match="one agent per seat"):
        agent_playouts(2, ["greedy", "random"])


def test_random_playouts_bad_input_and_nothing_to_play() -> None:
    from meuterer.vector import random_playouts

    with pytest.raises(ValueError, match="games"):
        random_playouts(-1)
    with pytest.raises(ValueError, match="batch"):
        random_playouts(3, batch=0)
    played = random_playouts(0, 3)
    assert played.scores.shape == (0, 3) and played.decisions == 0


@pytest.mark.parametrize(("bound", "dense"), [(3, 1 << 21), (1 << 15, 0)])
def test_the_declaration_tables_stay_right_past_their_bound_and_in_either_lookup(
    bound: int, dense: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bounded memory (the tables start afresh past their bound), and key spaces looked up
    # in a sorted array instead of a dense one: the games still equal the reference's.
    from meuterer.vector import arrays

    monkeypatch.setattr(arrays.Choices, "MOST_ROWS", bound)
    monkeypatch.setattr(arrays.Choices, "DENSE", dense)
    monkeypatch.setattr(arrays, "CHOICE_TABLES", {})
    assert align(3, 3, Rules(rounds=2), seed=8, every_seat=False).games == 3
    assert (arrays.CHOICE_TABLES[Rules(rounds=2), "sell"].generation > 1) == (bound == 3)


def test_simulate_plays_random_players_on_the_vector_engine_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    from meuterer.cli.main import main

    assert main(["simulate", "-n", "12", "--players", "3", "--seed", "2"]) == 0
    assert "12 games, 3 players: random (vector engine, 12 in lockstep); seed 2" in capsys.readouterr().out
    assert main(["simulate", "-n", "3", "--players", "3", "--seed", "2", "--scalar", "--no-progress"]) == 0
    assert "3 games, 3 players: random, random, random (seats rotate); seed 2" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra",
    [["--jobs", "2"], ["--agents", "random,greedy"], ["--out", "{tmp}/games.csv"], ["--records", "{tmp}/records"]],
)
def test_simulate_keeps_the_scalar_path_for_what_the_vector_one_lacks(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from meuterer.cli.main import main

    argv = ["simulate", "-n", "2", "--players", "3", "--seed", "1", "--no-progress"]
    assert main([*argv, *(word.format(tmp=tmp_path) for word in extra)]) == 0
    captured = capsys.readouterr()
    assert "vector engine" not in captured.out and "(seats rotate); seed 1" in captured.out
    assert captured.err == ""


def test_simulate_without_numpy_says_so_in_one_line_and_plays_one_game_at_a_time(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from meuterer.cli import simulate
    from meuterer.cli.main import main

    monkeypatch.setattr(simulate, "find_spec", lambda name: None)
    assert main(["simulate", "-n", "2", "--players", "3", "--seed", "1", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "(seats rotate); seed 1" in captured.out
    assert captured.err.splitlines() == [
        "note: numpy is not installed: the games are played one at a time "
        '(the vector extra: pip install ".[vector]" in a checkout of meuterer)'
    ]
    assert main(["simulate", "-n", "2", "--vector", "--scalar"]) == 2
    assert "--vector or --scalar, not both" in capsys.readouterr().err


def test_a_pickled_batch_plays_on_as_the_original() -> None:
    # Pickling copies the state arrays and, separately, the views the handlers write
    # through; unpickled, the views are made again from the state arrays.
    games = VectorGame(24, 4, Rules(pirates=True), seed=9, record=True)
    for _ in range(30):
        games.step(games.random_actions())
    again = pickle.loads(pickle.dumps(games))
    for _ in range(400):
        actions = games.random_actions()
        np.testing.assert_array_equal(again.random_actions(), actions)
        games.step(actions)
        again.step(actions)
        games.reset(games.terminal)
        again.reset(again.terminal)
    assert [again.to_state(i) for i in range(24)] == [games.to_state(i) for i in range(24)]
    assert [again.history(i) for i in range(24)] == [games.history(i) for i in range(24)]


def test_histories_follow_copies_resets_and_set_state() -> None:
    games = VectorGame(3, 3, Rules(rounds=1), seed=4, record=True)
    for _ in range(20):
        games.step(games.random_actions())
    other = games.copy()
    assert [other.history(i) for i in range(3)] == [games.history(i) for i in range(3)]
    other.step(other.random_actions())
    assert len(other.history(1)) == len(games.history(1)) + 1  # its own lists
    replay = meuterer.Game.replay(games.history(2), players=3, rules=Rules(rounds=1))
    assert replay.state == games.to_state(2) and games.history(-1) == games.history(2)
    games.reset(np.array([True, False, False]))
    games.set_state(1, meuterer.new_game(3, 0, Rules(rounds=1)))
    assert games.history(0) == games.history(1) == () and len(games.history(2)) == 20
    with pytest.raises(IndexError):
        games.history(3)
    assert VectorGame(2, 3, seed=1).history(1) == ()  # not recording: nothing kept


def test_the_encoder_is_the_layouts_encode_whatever_batches_came_before() -> None:
    # Its work arrays are kept between calls: batches of other sizes, other dtypes, and
    # other threads in between change nothing.
    from concurrent.futures import ThreadPoolExecutor

    from meuterer.vector.observation import Encoder
    from meuterer.views import observation_layout, view

    layout = observation_layout(4)
    encoder = Encoder(layout)
    games = VectorGame(7, 4, seed=8)
    for _ in range(50):
        games.step(games.random_actions())
    for seat, rows in ((0, slice(None)), (1, slice(2, 5)), (2, slice(None)), (3, slice(0, 1))):
        seen = observations(games, np.full(7, seat))[rows]
        for vectors in (seen, np.ascontiguousarray(seen, dtype=np.int64)):
            expected = [layout.encode(view(games.to_state(i), seat)) for i in range(7)[rows]]
            np.testing.assert_allclose(encoder(vectors), np.array(expected, dtype=np.float32), rtol=0, atol=0)
    seen = observations(games, games.to_act)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda k: encoder(seen[k:]), range(4)))
    for k, encoded in enumerate(results):
        np.testing.assert_array_equal(encoded, encoder(seen)[k:])
    again = pickle.loads(pickle.dumps(encoder))  # it pickles, without its work arrays
    np.testing.assert_array_equal(again(seen), encoder(seen))


def test_an_observation_writes_every_entry_of_its_array() -> None:
    # The env writes its learner's vectors into one array kept between steps: nothing of
    # what was there before may stay.
    from meuterer.vector.observation import _seat_observations

    games = VectorGame(9, 4, Rules(pirates=True), seed=12)
    for step in range(200):
        if step % 20 == 0:
            seats = np.arange(9) % 4 if step % 40 else np.full(9, step // 40 % 4)
            size = observations(games, seats).shape[1]
            for junk in (-7, 99):
                written = _seat_observations(games, seats, np.full((size, 9), junk, dtype=np.int32))
                np.testing.assert_array_equal(written, observations(games, seats))
        games.step(games.random_actions())
        games.reset(games.terminal)


def test_a_copy_plays_on_without_touching_the_batch() -> None:
    games = VectorGame(8, 4, seed=3)
    for _ in range(30):
        games.step(games.random_actions())
    before = [games.to_state(i) for i in range(8)]
    other = games.copy()
    for _ in range(300):
        other.step(other.random_actions())
        other.reset(other.terminal)
    assert [games.to_state(i) for i in range(8)] == before


@pytest.mark.parametrize("change", ["set_state", "reset"])
def test_a_step_after_set_state_or_reset_moves_each_game_as_the_reference(change: str) -> None:
    games = VectorGame(6, 4, seed=3, record=True)
    games.advance_chance()
    games.random_actions()  # (the batch grouped by step before the change)
    if change == "set_state":
        games.set_state(2, meuterer.new_game(4))
    else:
        games.reset(np.arange(6) == 4)
    before = [games.to_state(i) for i in range(6)]
    games.step(games.random_actions(), checked=False)
    for i, state in enumerate(before):
        assert games.to_state(i) == meuterer.apply(state, games.history(i)[-1])


def test_the_batch_runs_every_step_and_transition_of_the_machine_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The import-time check: a transition without its batched effect or guard, a decision
    # step without its legal ids, and a registration the machine lacks are each refused.
    from meuterer.machine import TABLE
    from meuterer.phases import voyage
    from meuterer.state import Step
    from meuterer.vector import registry

    registry.compile_plan()  # the machine as declared: complete
    fewer = {key: candidates for key, candidates in TABLE.items() if key != (Step.SAIL, "advance")}
    with pytest.raises(TypeError, match="sail is registered but no transition has it"):
        registry.compile_plan(fewer)
    monkeypatch.delitem(registry.EFFECTS, voyage.clean_up)
    monkeypatch.delitem(registry.GUARDS, voyage.nobody_draws)
    monkeypatch.delitem(registry.LEGAL, Step.SELL)
    with pytest.raises(TypeError) as refused:
        registry.compile_plan()
    assert str(refused.value).count("no batched") == 3 and "clean_up" in str(refused.value)
