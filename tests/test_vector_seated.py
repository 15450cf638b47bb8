"""Seated games on the batch engine (``meuterer.vector.seated``): each game's own chance and
choices, whatever the batch, duplicate deals, and the counts a league reads."""

from __future__ import annotations

import random
from typing import Any

import pytest

from meuterer import Rules, engine
from meuterer.actions import Action
from meuterer.agents import GreedyAgent
from meuterer.agents.policy import PolicyAgent
from meuterer.cards import Role
from meuterer.errors import SetupError
from meuterer.state import State
from meuterer.tournament import seating
from meuterer.vector.align import INTERACTIONS
from meuterer.vector.seated import PlayedGame, SeatedGame, play_seated
from meuterer.views import view

TABLE = ("greedy", "random", "greedy", "random")


def rotations(table: tuple[str, ...], deal: int, chance: int) -> list[SeatedGame]:
    """The games of one duplicate deal: ``table`` in every rotation, one chance key."""
    players = len(table)
    return [
        SeatedGame(
            deal * players + r, tuple(map(str, seating(table, r))), chance=chance, choices=1000 + deal * players + r
        )
        for r in range(players)
    ]


def replayed(game: PlayedGame, players: int, rules: Rules) -> tuple[State, list[tuple[State, Action]]]:
    """The reference's final state of a recorded game, and each decision with its state."""
    assert game.history is not None
    state = engine.new_game(players, 0, rules)
    decisions = []
    for action in game.history:
        if not engine.is_chance_node(state):
            decisions.append((state, action))
        state = engine.apply(state, action)
    return state, decisions


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", INTERACTIONS, ids=range(len(INTERACTIONS)))
def test_seated_games_are_reference_games_with_the_counts_a_league_reads(rules: Rules, players: int) -> None:
    """Every game replays on the reference to its scores; the greedy seats chose as
    :class:`GreedyAgent`; rounds, actions, decisions per seat and mutinies led and won are
    the reference's."""
    table = TABLE[:players]
    games = [game for deal in range(2) for game in rotations(table, deal, chance=deal)]
    agent = GreedyAgent()
    for game in play_seated(games, players, rules, batch=3, record=True):
        final, decisions = replayed(game, players, rules)
        assert engine.is_terminal(final) and final.scores == game.scores
        assert game.rounds == final.round and game.actions == len(game.history or ())
        moves, led, won = [0] * players, [0] * players, [0] * players
        state = engine.new_game(players, 0, rules)
        for before, action in decisions:
            moves[action.player] += 1
            seat_agent = games[game.index].agents[action.player]
            if seat_agent == "greedy":
                assert agent.act(view(before, action.player), engine.legal_actions(before), random.Random(0)) == action
        for action in game.history or ():
            after = engine.apply(state, action)
            if state.mutiny is None and after.mutiny is not None:
                leader = after.roles.index(Role.MUTINEER)
                led[leader] += 1
                won[leader] += int(after.mutiny)
            state = after
        assert (game.moves, game.mutineers, game.mutinies_won) == (tuple(moves), tuple(led), tuple(won))
        assert len(game.think) == players and all(t >= 0 for t in game.think)


def test_the_policy_plays_its_seats_as_the_policy_agent() -> None:
    games = rotations(("policy", "greedy", "random", "greedy"), 0, chance=7)
    agent = PolicyAgent()
    checked = 0
    for game in play_seated(games, 4, batch=4, record=True):
        _, decisions = replayed(game, 4, Rules())
        for before, action in decisions:
            if games[game.index].agents[action.player] == "policy":
                assert agent.act(view(before, action.player), engine.legal_actions(before), random.Random(0)) == action
                checked += 1
    assert checked > 100


def test_a_game_is_the_same_whatever_else_the_batch_plays() -> None:
    games = [game for deal in range(3) for game in rotations(TABLE, deal, chance=10 + deal)]
    alone = {game.index: game for game in play_seated(games, batch=1)}
    together = {game.index: game for game in play_seated(games, batch=5)}
    mixed = {game.index: game for game in play_seated(games[::-1][:7], batch=7)}
    assert alone == together
    assert all(mixed[i] == alone[i] for i in mixed)
    assert len({game.scores for game in alone.values()}) > 6  # not one game repeated


def test_the_rotations_of_a_deal_get_the_same_ring_hands_and_draws() -> None:
    """Same chance key: the same shuffled ring and opening hands in every rotation, and the
    same cards off the deck until the discards are reshuffled; another key deals otherwise."""
    rules = Rules(ring="shuffled")
    games = rotations(TABLE, 0, chance=3) + rotations(TABLE, 1, chance=4)
    played = sorted(play_seated(games, 4, rules, batch=8, record=True), key=lambda game: game.index)
    openings = []
    for game in played:
        state = engine.new_game(4, 0, rules)
        drawn: list[Any] = []
        for action in game.history or ():
            if engine.is_chance_node(state):
                drawn.append(action)
            state = engine.apply(state, action)
        opening = 1 + 4 * rules.hand_size  # the ring, then every hand
        later = tuple(action.card for action in drawn[opening : opening + 6])  # (whoever draws)
        openings.append((tuple(drawn[:opening]), later))
    first, second = openings[:4], openings[4:]
    assert len({opening for opening, _ in first}) == 1 and len({opening for opening, _ in second}) == 1
    assert first[0][0] != second[0][0]
    assert len({later for _, later in first}) == 1  # the first draws of phase 8 (no reshuffle this early)
    assert len({game.scores for game in played[:4]}) > 1  # the games themselves differ


def test_random_seats_draw_from_their_own_stream() -> None:
    same = [SeatedGame(i, ("random",) * 3, chance=1, choices=5) for i in range(2)]
    other = [SeatedGame(0, ("random",) * 3, chance=1, choices=6)]
    a, b = play_seated(same, 3, batch=2)
    (c,) = play_seated(other, 3)
    assert a.scores == b.scores and a.moves == b.moves
    assert (c.scores, c.moves) != (a.scores, a.moves)


def test_seated_games_refuse_what_the_batch_cannot_play() -> None:
    with pytest.raises(SetupError, match="one agent per seat"):
        list(play_seated([SeatedGame(0, ("greedy", "ismcts", "random"), 0, 0)], 3))
    with pytest.raises(SetupError, match="one agent per seat"):
        list(play_seated([SeatedGame(0, ("greedy", "random"), 0, 0)], 3))
    with pytest.raises(SetupError, match="batch"):
        list(play_seated([SeatedGame(0, ("greedy",) * 3, 0, 0)], 3, batch=0))
    assert list(play_seated([], 4)) == []
