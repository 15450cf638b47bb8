"""ISMCTS: every rollout policy plays legal, reproducible moves, the quick one sells the
most cards, and the horizon counts what each seat takes into the next round."""

from __future__ import annotations

import random

import pytest

import meuterer
from meuterer import Card, State
from meuterer.actions import Sell
from meuterer.agents import ISMCTSAgent
from meuterer.agents.ismcts import FEATURES, HORIZON, _quick, horizon_features, margins
from meuterer.cards import GOODS
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
        state = meuterer.new_game()
        for action in actions:
            legal = meuterer.legal_actions(state)
            if state.phase is meuterer.Phase.SCORING and len(legal) > 1:
                sold = [sum(sale.count for sale in a.sales) for a in legal if isinstance(a, Sell)]
                assert sold[_quick(state, legal, random.Random(0))] == max(sold)
                sells += 1
            state = meuterer.apply(state, action)
    assert sells > 10


def _round_ends(games: int) -> list[State]:
    """Each round's end but the last (phase 5 over) in seeded random games."""
    found: list[State] = []
    for seed in range(games):
        players = 3 + seed % 2
        actions, _ = meuterer.random_game(seed=seed, players=players)
        state = meuterer.new_game(players)
        for action in actions:
            state = meuterer.apply(state, action)
            fresh = not found or found[-1].round != state.round or found[-1].players != players
            if state.phase > meuterer.Phase.SCORING and not meuterer.is_terminal(state) and fresh:
                found.append(state)
    return found


def test_the_horizon_counts_what_each_seat_takes_into_the_next_round() -> None:
    ends = _round_ends(4)
    assert len(ends) > 25
    seen: set[str] = set()
    for state in ends:
        islands = [state.island(position) for position in state.active]
        for seat in range(state.players):
            hand = state.hands[seat]
            sellable = sum(hand[card] for card in GOODS if any(i.buys_card(card) for i in islands))
            expected = [
                float(seat == state.captain),
                float(state.roles[seat] is meuterer.Role.LOADMASTER),
                float(hand[Card.SUPPORT]),
                float(sellable),
                float(sum(hand[card] for card in GOODS) - sellable),
            ]
            assert horizon_features(state, seat) == expected
            seen.update(name for name, x in zip(FEATURES, expected, strict=True) if x)
        worth = [
            score + sum(w * x for w, x in zip(HORIZON[state.players], horizon_features(state, seat), strict=True))
            for seat, score in enumerate(state.scores)
        ]
        assert margins(state) == pytest.approx(
            [w - max(worth[:seat] + worth[seat + 1 :]) for seat, w in enumerate(worth)]
        )
    assert seen == set(FEATURES)
