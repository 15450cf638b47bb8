"""Greedy playouts read off the fast engine (``meuterer.agents._rollout``): the same views
and the same sales as the reference's."""

from __future__ import annotations

import random

import meuterer
from meuterer.actions import Sell
from meuterer.agents import GreedyAgent
from meuterer.agents._rollout import greedy_sell, seat_view
from meuterer.fast import FastGame
from meuterer.views import view


def test_the_seat_view_of_a_fast_game_is_the_view_of_its_state() -> None:
    checked = 0
    for seed in range(6):
        rules = meuterer.Rules(pirates=seed % 2 == 1)
        actions, _ = meuterer.random_game(seed=seed, players=3 + seed % 2, rules=rules)
        game = FastGame.new(players=3 + seed % 2, rules=rules)
        for action in actions:
            state = game.to_state()
            for seat in range(game.players):
                assert seat_view(game, seat) == view(state, seat)
                checked += 1
            game.apply(action)
    assert checked > 3000


def test_the_greedy_sale_off_the_fast_engine_is_greedy_s() -> None:
    greedy = GreedyAgent()
    checked = 0
    for seed in range(60):
        rules = meuterer.Rules(pirates=seed % 2 == 1)
        actions, _ = meuterer.random_game(seed=seed, players=3 + seed % 2, rules=rules)
        game = FastGame.new(players=3 + seed % 2, rules=rules)
        for action in actions:
            legal = game.legal_actions()
            if not game.is_chance_node() and len(legal) > 1 and isinstance(legal[0], Sell):
                expected = greedy.act(view(game.to_state(), game.to_act), legal, random.Random(0))
                assert legal[greedy_sell(game)] == expected
                checked += 1
            game.apply(action)
    assert checked > 300
