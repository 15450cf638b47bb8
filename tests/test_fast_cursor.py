"""The cursor of ``meuterer.fast``: it moves a reference state by its legal actions, refuses
anything else, shares snapshots with its clones, and plays chance and random seats as
``sample_chance`` and ``RandomAgent`` would, one call per move."""

from __future__ import annotations

import random

import pytest

import meuterer
from meuterer import IllegalActionError, Rules
from meuterer.agents import RandomAgent
from meuterer.fast import CHANCE, FastGame
from meuterer.views import view


def test_a_game_moves_by_its_legal_actions_and_refuses_others() -> None:
    actions, final = meuterer.random_game(seed=3, players=3, rules=Rules(pirates=True))
    game = FastGame.new(3, 0, Rules(pirates=True))
    assert game.current_player == CHANCE and game.is_chance_node()
    for action in actions[:30]:
        game.apply(action)
    before = game.state
    with pytest.raises(IllegalActionError):
        game.apply(meuterer.parse_action("p2 offer 9"))
    with pytest.raises(IllegalActionError, match="numbered from 0"):
        game.apply_at(len(game.legal_actions()))
    with pytest.raises(IllegalActionError):
        game.apply_at(-1)
    assert game.state is before  # refused: unchanged
    copy = game.clone()
    for action in actions[30:]:
        game.apply_at(list(game.legal_actions()).index(action))
    assert game.to_state() == final and game.is_terminal() and game.current_player is None
    assert copy.state is before and copy.current_player == before.to_act  # the clone did not move
    assert game.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(actions[-1])


def test_chance_is_drawn_as_the_reference_draws_it() -> None:
    game, state = FastGame.new(4), meuterer.new_game(4)
    first, second = random.Random(5), random.Random(5)
    while game.is_chance_node():
        assert game.sample_chance(random.Random(1)) == meuterer.sample_chance(state, random.Random(1))
        state = meuterer.apply(state, meuterer.sample_chance(state, second))
        game.apply_chance(first)
    assert game.state == state


@pytest.mark.parametrize("seed", range(4))
def test_play_random_is_chance_and_random_agents_move_by_move(seed: int) -> None:
    # Seats 1 and 2 play at random from their own generators, seat 0 (and seat 3 with four
    # players) decides: play_random stops at each of their decisions, and the game is the
    # one played a move at a time with sample_chance and RandomAgent.
    players = 3 + seed % 2
    rules = Rules(ring="shuffled") if seed == 1 else Rules()
    game, state = FastGame.new(players, seed % players, rules), meuterer.new_game(players, seed % players, rules)
    chance, again = random.Random(seed), random.Random(seed)
    mine = [random.Random(10 + seed), random.Random(20 + seed)]
    theirs = [random.Random(10 + seed), random.Random(20 + seed)]
    seats: list[random.Random | None] = [None, mine[0], mine[1], None][:players]
    agent, decide = RandomAgent(), random.Random(seed)
    while True:
        game.play_random(chance, seats)
        while (player := meuterer.current_player(state)) in (CHANCE, 1, 2):
            if player == CHANCE:
                state = meuterer.apply(state, meuterer.sample_chance(state, again))
            else:
                legal = meuterer.legal_actions(state)
                state = meuterer.apply(state, agent.act(view(state, player), legal, theirs[player - 1]))
        assert game.state == state
        if meuterer.is_terminal(state):
            break
        index = decide.randrange(len(game.legal_actions()))
        state = meuterer.apply(state, meuterer.legal_actions(state)[index])
        game.apply_at(index)


def test_a_snapshot_handed_out_never_changes() -> None:
    # The game moves its own snapshots on in place; one it handed out (state, to_state, a
    # clone's) stays as it was, whatever the game plays after.
    rng = random.Random(7)
    game = FastGame.new(4, 0, Rules(pirates=True))
    seen: list[tuple[meuterer.State, dict[str, object]]] = []
    clones: list[tuple[FastGame, meuterer.State]] = []
    while not game.is_terminal():
        draw = rng.random()
        if draw < 0.2:
            state = game.state if draw < 0.1 else game.to_state()
            seen.append((state, dict(vars(state))))
        elif draw < 0.25:
            copy = game.clone()
            clones.append((copy, copy.state))
        assert game.read(lambda state: state.scores) == game.scores
        if game.is_chance_node():
            game.apply_chance(rng)
        elif draw < 0.5:
            game.play_random(rng, [rng, None, rng, rng])
        else:
            game.apply_at(rng.randrange(len(game.legal_actions())))
    assert len(seen) > 20 and clones
    for state, fields in seen:
        assert dict(vars(state)) == fields
    for copy, state in clones:
        assert copy.state is state
