"""meuterer.Game: a game with its history (push, pop, redo, at, replay, from_record)."""

from __future__ import annotations

import copy
import pickle
import random
import sys
import threading
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import (
    Action,
    ActionParseError,
    Game,
    HistoryError,
    IllegalActionError,
    MeutererError,
    Rules,
    SetupError,
    State,
)
from tests.strategies import GameSetup, game_setups, walk

GAMES = settings(max_examples=15, deadline=None)


@cache
def four_player_game() -> tuple[tuple[Action, ...], State]:
    """A complete seeded 4-player game: its actions and final state."""
    actions, final = meuterer.random_game(seed=7, players=4)
    return tuple(actions), final


def texts(actions: tuple[Action, ...] | list[Action]) -> list[str]:
    return [str(a) for a in actions]


def snapshot(game: Game) -> tuple[State, tuple[Action, ...], tuple[State, ...], int]:
    return game.state, game.actions, game.states, len(game)


def candidate_texts(players: int) -> list[str]:
    """Action texts of every kind for every seat; in any state most are illegal."""
    found = []
    for p in range(players):
        found += [f"draw p{p} grain", f"draw p{p} ruby", f"p{p} offer 0", f"p{p} offer 3", f"p{p} play wine"]
        found += [f"p{p} play support", f"p{p} pass", f"p{p} role mate", f"p{p} role mutineer", f"p{p} support 1"]
        found += [f"p{p} sell none", f"p{p} sell hochland:cloth:1", f"p{p} discard grain grain salt"]
    return found


def illegal_texts(state: State) -> list[str]:
    """The candidates that are illegal in ``state``, found by membership in the legal actions
    (never by listing them: at the shuffled ring's arrangement that list has 11! entries)."""
    legal = meuterer.legal_actions(state)
    return [t for t in candidate_texts(state.players) if meuterer.parse_action(t) not in legal]


# Game.new -------------------------------------------------------------------------------


def test_new_game_is_the_engine_start_with_an_empty_history() -> None:
    rules = Rules(withholding=True)
    game = Game.new(players=3, first_captain=2, rules=rules)
    assert game.state == meuterer.new_game(3, 2, rules)
    assert game.rules == rules and game.players == 3 and game.first_captain == 2
    assert game.actions == () and len(game) == 0
    assert game.states == (game.state,)
    assert game.at(0) is game.state and game.at(-1) is game.state


def test_new_game_defaults_to_four_players_and_default_rules() -> None:
    game = Game.new()
    assert game.players == 4 and game.first_captain == 0 and game.rules == Rules()
    assert game.state == meuterer.new_game()


@pytest.mark.parametrize(("players", "first_captain"), [(2, 0), (5, 0), (3, 3), (4, -1)])
def test_new_game_refuses_a_bad_setup(players: int, first_captain: int) -> None:
    with pytest.raises(SetupError):
        Game.new(players=players, first_captain=first_captain)


# push, pop, redo ------------------------------------------------------------------------


def test_push_typed_and_text_give_the_same_game() -> None:
    actions, _ = four_player_game()
    typed, text = Game.new(), Game.new()
    for action in actions[:40]:
        after = typed.push(action)
        assert after is typed.state
        assert text.push(str(action)) == after
    assert typed.actions == text.actions == actions[:40]
    assert typed.states == text.states
    assert all(isinstance(a, Action) for a in text.actions)  # text is parsed, not stored as text


def test_push_returns_the_engine_state() -> None:
    actions, _ = four_player_game()
    game = Game.new()
    state = game.state
    for action in actions[:25]:
        expected = meuterer.apply(state, action)
        state = game.push(action)
        assert state == expected


def test_pop_returns_the_action_and_undoes_it() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:30])
    before = game.at(29)
    undone = game.pop()
    assert undone == actions[29]
    assert game.state is before
    assert len(game) == 29 and game.actions == actions[:29] and len(game.states) == 30


def test_pop_on_an_empty_history_raises_history_error() -> None:
    game = Game.new()
    with pytest.raises(HistoryError):
        game.pop()
    game.push("draw p0 grain")
    game.pop()
    with pytest.raises(HistoryError) as info:
        game.pop()
    assert isinstance(info.value, MeutererError) and isinstance(info.value, ValueError)
    assert game.state == meuterer.new_game()


def test_redo_plays_the_undone_action_again_exactly() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:30])
    after = game.state
    states = game.states
    assert game.pop() == actions[29]
    assert game.pop() == actions[28]
    assert game.redo() == actions[28]
    assert game.redo() == actions[29]
    assert game.state is after and game.states == states
    with pytest.raises(HistoryError):
        game.redo()


def test_redo_on_a_fresh_game_raises_history_error() -> None:
    with pytest.raises(HistoryError):
        Game.new().redo()


def test_push_after_pop_forgets_what_could_be_redone() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:20])
    game.pop()
    game.pop()
    game.push(actions[18])
    with pytest.raises(HistoryError):
        game.redo()
    assert game.actions == actions[:19]


def test_push_after_pop_of_a_different_action_replaces_the_future() -> None:
    game = Game.new()
    game.push("draw p0 grain")
    game.pop()
    game.push("draw p0 salt")
    assert texts(game.actions) == ["draw p0 salt"]
    with pytest.raises(HistoryError):
        game.redo()


@pytest.mark.parametrize("bad", ["p0 offer 9", "p1 pass", "draw p1 grain", "p0 dance", "p0  pass", "", 42, None])
def test_a_push_that_raises_leaves_the_game_unchanged(bad: object) -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:40])
    game.pop()  # something to redo
    before = snapshot(game)
    with pytest.raises(MeutererError):
        game.push(bad)  # type: ignore[arg-type]
    assert snapshot(game) == before
    assert game.state is before[0]
    assert game.redo() == actions[39]
    assert game.state == game.at(40)


def test_an_unparsable_push_raises_action_parse_error() -> None:
    game = Game.new()
    with pytest.raises(ActionParseError):
        game.push("p0 dance")


def test_an_illegal_push_says_why() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:23])  # p2 to play, without a ruby
    assert meuterer.current_player(game.state) == 2
    with pytest.raises(IllegalActionError) as info:
        game.push("p2 play ruby")
    assert info.value.reason == "p2 cannot play ruby: no ruby in hand"
    assert str(info.value.action) == "p2 play ruby"


# at, actions, states --------------------------------------------------------------------


def test_at_counts_from_the_start_and_from_the_end() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:10])
    assert game.at(0) == meuterer.new_game()
    assert game.at(10) is game.state and game.at(-1) is game.state
    assert game.at(-11) is game.at(0)
    assert game.at(-2) is game.at(9)
    assert game.at(3) == meuterer.apply(game.at(2), actions[2])


@pytest.mark.parametrize("k", [11, 12, 1000, -12, -1000])
def test_at_outside_the_history_raises_history_error(k: int) -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:10])
    with pytest.raises(HistoryError):
        game.at(k)


def test_at_does_not_reach_undone_steps() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:10])
    game.pop()
    with pytest.raises(HistoryError):
        game.at(10)
    assert game.at(-1) is game.at(9) is game.state


def test_actions_and_states_lengths_follow_the_cursor() -> None:
    actions, final = four_player_game()
    game = Game.replay(actions)
    assert len(game.actions) == len(game) == len(actions)
    assert len(game.states) == len(actions) + 1
    assert game.state == final and meuterer.is_terminal(game.state)
    for _ in range(5):
        game.pop()
    assert len(game.actions) == len(game) == len(actions) - 5
    assert len(game.states) == len(actions) - 4
    game.redo()
    assert len(game.actions) == len(actions) - 4 and len(game.states) == len(actions) - 3


def test_states_are_shared_never_copied() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:60])
    states = game.states
    for k in range(len(states)):
        assert game.states[k] is game.at(k) is states[k]
    for _ in range(10):
        game.pop()
    for k in range(len(game.states)):
        assert game.states[k] is states[k]
    for _ in range(10):
        game.redo()
    assert all(a is b for a, b in zip(game.states, states, strict=True))


def test_actions_and_states_are_read_only_views() -> None:
    game = Game.replay(["draw p0 grain", "draw p0 salt"])
    assert isinstance(game.actions, tuple) and isinstance(game.states, tuple)


# replay and from_record -----------------------------------------------------------------


def test_replay_of_typed_and_text_actions_gives_the_same_history() -> None:
    actions, final = four_player_game()
    typed = Game.replay(actions)
    text = Game.replay(texts(actions))
    assert typed.states == text.states and typed.actions == text.actions == actions
    assert typed.state == final


def test_replay_with_setup_and_rules() -> None:
    rules = Rules(sale_order="round_captain", reshuffle="when_empty")
    actions, final = meuterer.random_game(seed=11, players=3, first_captain=1, rules=rules)
    game = Game.replay(texts(actions), players=3, first_captain=1, rules=rules)
    assert game.state == final and game.rules == rules and game.first_captain == 1 and game.players == 3


def test_replay_of_a_generator() -> None:
    actions, final = four_player_game()
    assert Game.replay(a for a in actions).state == final


def test_replay_of_nothing_is_a_new_game() -> None:
    assert Game.replay([], players=3).states == (meuterer.new_game(3),)


@pytest.mark.parametrize("step", [0, 15, 100])
def test_replay_of_an_illegal_step_raises_and_names_the_step(step: int) -> None:
    actions, _ = four_player_game()
    broken = texts(actions)
    broken[step] = "p3 support 7"
    with pytest.raises(IllegalActionError) as info:
        Game.replay(broken)
    notes = getattr(info.value, "__notes__", [])
    assert any(f"step {step}" in note for note in notes), notes
    assert str(info.value.action) == "p3 support 7"


def test_replay_of_unparsable_text_raises_and_names_the_step() -> None:
    actions, _ = four_player_game()
    broken = texts(actions)
    broken[7] = "p1 dance"
    with pytest.raises(ActionParseError) as info:
        Game.replay(broken)
    assert any("step 7" in note for note in getattr(info.value, "__notes__", []))


def test_replay_with_a_wrong_first_captain_fails_at_step_zero() -> None:
    actions, _ = four_player_game()
    with pytest.raises(IllegalActionError) as info:
        Game.replay(actions, first_captain=1)
    assert any("step 0" in note for note in getattr(info.value, "__notes__", []))


def test_from_record_rebuilds_the_game() -> None:
    actions, _ = four_player_game()
    game = Game.replay(actions[:100])
    record = meuterer.read_record(meuterer.write_record(game))
    again = Game.from_record(record)
    assert again.states == game.states and again.actions == game.actions
    assert again.first_captain == game.first_captain and again.rules == game.rules
    # it is a full history: undo works
    assert again.pop() == actions[99]


def test_from_record_with_three_players_and_another_captain() -> None:
    rules = Rules(withholding=True)
    actions, final = meuterer.random_game(seed=3, players=3, first_captain=2, rules=rules)
    game = Game.replay(actions, players=3, first_captain=2, rules=rules)
    record = meuterer.read_record(meuterer.write_record(game, names=("Ann", "Bob", "Cy")))
    again = Game.from_record(record)
    assert again.state == final and again.players == 3 and again.first_captain == 2 and again.rules == rules


def test_from_record_of_an_illegal_record_raises() -> None:
    actions, _ = four_player_game()
    record = meuterer.read_record(meuterer.write_record(Game.replay(actions[:30])))
    bad = meuterer.Record(record.rules, record.players, 1, record.actions)
    with pytest.raises(IllegalActionError):
        Game.from_record(bad)


def test_repr_mentions_the_size() -> None:
    actions, _ = four_player_game()
    assert "30 actions" in repr(Game.replay(actions[:30]))


# Properties over random games -----------------------------------------------------------


@GAMES
@given(game_setups(), st.data())
def test_undo_and_push_again_give_equal_states(setup: GameSetup, data: st.DataObject) -> None:
    _, players, first_captain, rules = setup
    steps = [(before, action, after) for before, action, after in walk(*setup)]
    actions = [action for _, action, _ in steps]
    originals = [steps[0][0], *(after for _, _, after in steps)]
    game = Game.replay(actions, players, first_captain, rules)
    assert list(game.states) == originals
    assert list(game.actions) == actions

    undo = data.draw(st.integers(0, len(actions)), label="undo")
    for n in range(undo):
        assert game.pop() == actions[-1 - n]
        assert game.state == originals[-2 - n]
    assert len(game) == len(actions) - undo
    assert list(game.states) == originals[: len(actions) - undo + 1]

    for k in range(len(actions) - undo, len(actions)):
        assert game.push(actions[k]) == originals[k + 1]
    assert list(game.states) == originals and game.state == originals[-1]
    assert meuterer.is_terminal(game.state)


@GAMES
@given(game_setups(), st.data())
def test_redo_after_pop_restores_exactly(setup: GameSetup, data: st.DataObject) -> None:
    _, players, first_captain, rules = setup
    actions = [action for _, action, _ in walk(*setup)]
    game = Game.replay(actions, players, first_captain, rules)
    states, history = game.states, game.actions
    undo = data.draw(st.integers(1, len(actions)), label="undo")
    popped = [game.pop() for _ in range(undo)]
    assert popped == actions[::-1][:undo]
    redone = [game.redo() for _ in range(undo)]
    assert redone == popped[::-1]
    assert game.states == states and game.actions == history
    assert all(a is b for a, b in zip(game.states, states, strict=True))
    with pytest.raises(HistoryError):
        game.redo()


@GAMES
@given(game_setups(), st.data())
def test_a_push_that_raises_leaves_the_game_unchanged_anywhere(setup: GameSetup, data: st.DataObject) -> None:
    _, players, first_captain, rules = setup
    actions = [action for _, action, _ in walk(*setup)]
    cut = data.draw(st.integers(0, len(actions)), label="cut")
    game = Game.replay(actions[:cut], players, first_captain, rules)
    can_redo = cut > 0 and data.draw(st.booleans(), label="pop first")
    if can_redo:
        game.pop()
    before = snapshot(game)
    bad = data.draw(st.sampled_from(illegal_texts(game.state)), label="illegal")
    typed = data.draw(st.booleans(), label="typed")
    with pytest.raises(IllegalActionError):
        game.push(meuterer.parse_action(bad) if typed else bad)
    assert snapshot(game) == before
    assert game.state is before[0]
    assert all(a is b for a, b in zip(game.states, before[2], strict=True))
    if can_redo:
        assert game.redo() == actions[cut - 1]
        assert game.state == game.at(cut)
    else:
        with pytest.raises(HistoryError):
            game.redo()


@GAMES
@given(game_setups())
def test_every_snapshot_is_shared_with_at(setup: GameSetup) -> None:
    _, players, first_captain, rules = setup
    game = Game.replay((a for _, a, _ in walk(*setup)), players, first_captain, rules)
    states = game.states
    n = len(game)
    for k in range(n + 1):
        assert states[k] is game.at(k) is game.at(k - n - 1)


# Threads (issue 11, item 13) ------------------------------------------------------------------


def _race(game: Game, seed: int, moves: int, undo: bool) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        try:
            if undo and rng.random() < 0.2:
                game.pop() if rng.random() < 0.5 else game.redo()
                continue
            state = game.state
            if meuterer.is_terminal(state):
                return
            action = (
                meuterer.sample_chance(state, rng)
                if meuterer.is_chance_node(state)
                else rng.choice(meuterer.legal_actions(state))
            )
            game.push(action)
        except (IllegalActionError, HistoryError):
            pass  # another thread moved first: expected, and harmless


def _consistent(game: Game) -> bool:
    states, actions, cursor = list(game._states), list(game._actions), game._cursor  # the threads are done
    if len(states) != len(actions) + 1 or not 0 <= cursor <= len(actions):
        return False
    return all(meuterer.apply(states[k], actions[k]) == states[k + 1] for k in range(len(actions)))


@pytest.mark.parametrize("undo", [False, True])
def test_threads_pushing_onto_one_game_never_tear_its_history(undo: bool) -> None:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for trial in range(10):
            game = Game.new(4)
            threads = [threading.Thread(target=_race, args=(game, 10 * trial + t, 150, undo)) for t in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert _consistent(game), f"trial {trial}"
            assert game.states[-1] is game.state and len(game.states) == len(game) + 1
    finally:
        sys.setswitchinterval(interval)


def test_push_after_refuses_when_another_action_came_first() -> None:
    game = Game.new(4)
    game.push("draw p0 ruby")
    with pytest.raises(HistoryError, match="another action came first"):
        game.push("draw p0 salt", after=0)
    assert game.push("draw p0 salt", after=1) is game.state and len(game) == 2


def test_a_game_pickles_and_copies_with_a_fresh_lock() -> None:
    game = Game.replay(["draw p0 ruby", "draw p0 salt"], players=3)
    for twin in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert twin.actions == game.actions and twin.states == game.states and twin._lock is not game._lock
        twin.push("draw p0 wine")
        assert len(twin) == 3 and len(game) == 2
