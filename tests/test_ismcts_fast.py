"""ISMCTS searches on the fast engine: its rollouts are the reference's rollouts, the
quick rollout policy plays legal, reproducible moves, and the horizon counts what each seat
takes into the next round."""

from __future__ import annotations

import random

import pytest

import meuterer
from meuterer import Card, State
from meuterer.actions import Sell
from meuterer.agents import ISMCTSAgent
from meuterer.agents.ismcts import FEATURES, HORIZON, _quick, horizon_features, margins
from meuterer.cards import GOODS
from meuterer.fast import FastGame
from meuterer.views import view


def _states() -> list[State]:
    found = []
    for seed in range(3):
        rules = meuterer.Rules(pirates=seed == 1)
        actions, _ = meuterer.random_game(seed=seed, rules=rules)
        state = meuterer.new_game(rules=rules)
        for index, action in enumerate(actions):
            if index % 11 == 0 and not meuterer.is_chance_node(state) and state.phase <= meuterer.Phase.SCORING:
                found.append(state)
            state = meuterer.apply(state, action)
    return found


def _reference_rollout(state: State, rng: random.Random) -> list[float]:
    """The random rollout to the end of phase 5, on the reference engine."""
    round_ = state.round
    while state.round == round_ and state.phase <= meuterer.Phase.SCORING:
        if meuterer.is_chance_node(state):
            action = meuterer.sample_chance(state, rng)
        else:
            legal = meuterer.legal_actions(state)
            action = legal[0] if len(legal) == 1 else legal[rng.randrange(len(legal))]
        state = meuterer.apply(state, action)
    return [m / 10 for m in margins(state)]


def test_a_rollout_on_the_fast_engine_is_the_reference_rollout() -> None:
    agent = ISMCTSAgent(rollout="random")
    states = _states()
    assert len(states) > 30
    for index, state in enumerate(states):
        expected = _reference_rollout(state, random.Random(index))
        assert agent.simulate(state, state.round, random.Random(index)) == pytest.approx(expected)


@pytest.mark.parametrize("rollout", ["quick", "greedy", "random"])
def test_every_rollout_policy_chooses_legal_reproducible_moves(rollout: str) -> None:
    agent = ISMCTSAgent(iterations=15, rollout=rollout, seed=5)  # type: ignore[arg-type]
    for state in _states()[::4]:
        mine = view(state, state.to_act)
        legal = meuterer.legal_actions(state)
        choice = agent.act(mine, legal, random.Random(1))
        assert choice in legal
        assert agent.act(mine, legal, random.Random(1)) == choice


def test_the_quick_rollout_sells_the_most_cards() -> None:
    sells = 0
    for seed in range(4):
        actions, _ = meuterer.random_game(seed=seed)
        game = FastGame.new()
        for action in actions:
            legal = game.legal_actions()
            if game.phase is meuterer.Phase.SCORING and len(legal) > 1:
                sold = [sum(sale.count for sale in a.sales) for a in legal if isinstance(a, Sell)]
                assert sold[_quick(game, legal, random.Random(0))] == max(sold)
                sells += 1
            game.apply(action)
    assert sells > 10


def _round_ends(games: int) -> list[FastGame]:
    """Each round's end but the last (phase 5 over) in seeded random games."""
    found: list[FastGame] = []
    for seed in range(games):
        players = 3 + seed % 2
        actions, _ = meuterer.random_game(seed=seed, players=players)
        game = FastGame.new(players)
        for action in actions:
            game.apply(action)
            fresh = not found or found[-1].round != game.round or found[-1].players != players
            if game.phase > meuterer.Phase.SCORING and not game.is_terminal() and fresh:
                found.append(game.clone())
    return found


def test_the_horizon_counts_what_each_seat_takes_into_the_next_round() -> None:
    ends = _round_ends(4)
    assert len(ends) > 25
    seen: set[str] = set()
    for game in ends:
        state = game.to_state()
        islands = [state.island(position) for position in state.active]
        for seat in range(game.players):
            hand = state.hands[seat]
            sellable = sum(hand[card] for card in GOODS if any(i.buys_card(card) for i in islands))
            expected = [
                float(seat == state.captain),
                float(state.roles[seat] is meuterer.Role.LOADMASTER),
                float(hand[Card.SUPPORT]),
                float(sellable),
                float(sum(hand[card] for card in GOODS) - sellable),
            ]
            assert horizon_features(game, seat) == expected
            seen.update(name for name, x in zip(FEATURES, expected, strict=True) if x)
        worth = [
            score + sum(w * x for w, x in zip(HORIZON[game.players], horizon_features(game, seat), strict=True))
            for seat, score in enumerate(state.scores)
        ]
        assert margins(state) == pytest.approx(
            [w - max(worth[:seat] + worth[seat + 1 :]) for seat, w in enumerate(worth)]
        )
    assert seen == set(FEATURES)
