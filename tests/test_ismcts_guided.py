"""ISMCTS guided by the learned policy (``ismcts:N:policy``): a spec like the others, legal
and reproducible play, the policy's prior in the tree, and the policy's refusal of the games
it was not trained for."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import meuterer
from meuterer import State
from meuterer.actions import Discard
from meuterer.agents import Agent, GreedyAgent, ISMCTSAgent, Move, make_agent, play_game
from meuterer.agents.ismcts import _Node
from meuterer.agents.registry import AgentSpecError, agent_label
from meuterer.errors import SetupError
from meuterer.views import view

pytest.importorskip("numpy")

from meuterer.agents.policy import PolicyAgent, PolicyRulesError


def decisions(games: int, every: int, players: int = 4, rules: meuterer.Rules | None = None) -> Iterator[State]:
    """Every ``every``-th state of seeded random games where a seat chooses among several
    actions before scoring is over (what the search decides)."""
    rules = rules or meuterer.Rules()
    count = 0
    for seed in range(games):
        actions, _ = meuterer.random_game(seed=seed, players=players, rules=rules)
        state = meuterer.new_game(players, rules=rules)
        for action in actions:
            legal = [] if meuterer.is_chance_node(state) else meuterer.legal_actions(state)
            if len(legal) > 1 and not isinstance(legal[0], Discard) and state.phase <= meuterer.Phase.SCORING:
                count += 1
                if count % every == 0:
                    yield state
            state = meuterer.apply(state, action)


def test_the_spec_makes_a_guided_search() -> None:
    agent = make_agent(" ISMCTS:12:Policy ", seed=4)
    assert isinstance(agent, ISMCTSAgent)
    assert (agent.iterations, agent.rollout, agent.seed) == (12, "policy", 4)
    assert agent_label("ismcts:12:policy") == "ismcts:12:policy"
    assert repr(agent) == "ISMCTSAgent(iterations=12, seed=4, rollout='policy', opponents='search')"
    with pytest.raises(AgentSpecError, match="the rollout is greedy, random or policy, not 'policies'"):
        make_agent("ismcts:12:policies")
    modelled = make_agent("ismcts:12:policy:model")
    assert isinstance(modelled, ISMCTSAgent) and modelled.opponents == "model"
    assert agent_label("ismcts:12:policy:model") == "ismcts:12:policy:model"
    with pytest.raises(AgentSpecError, match="the opponents are search or model, not 'greedy'"):
        make_agent("ismcts:12:policy:greedy")


def test_a_spec_names_every_rollout_of_the_agent_but_quick() -> None:
    """The registry writes the rollouts out (reading a spec imports no agent): the agent's own
    list, less ``quick`` (the cheap rollout kept for benchmarks, not offered as a spec)."""
    from typing import get_args

    from meuterer.agents.ismcts import Rollout
    from meuterer.agents.registry import _ROLLOUTS

    assert set(_ROLLOUTS) == set(get_args(Rollout)) - {"quick"}
    with pytest.raises(ValueError, match="rollout is one of 'greedy', 'random', 'quick', 'policy', got 'clever'"):
        ISMCTSAgent(rollout="clever")  # type: ignore[arg-type]


def test_a_spec_names_every_way_of_treating_the_opponents() -> None:
    from typing import get_args

    from meuterer.agents.ismcts import Opponents
    from meuterer.agents.registry import _OPPONENTS

    assert set(_OPPONENTS) == set(get_args(Opponents))
    with pytest.raises(ValueError, match="opponents is one of 'search', 'model', got 'ignored'"):
        ISMCTSAgent(opponents="ignored")  # type: ignore[arg-type]


def _seats(node: _Node) -> set[int]:
    """The seats of every node below ``node``."""
    found: set[int] = set()
    for child in node.children.values():
        found |= {child.seat} | _seats(child)
    return found


@pytest.mark.parametrize("rollout", ["policy", "greedy"])
def test_with_modelled_opponents_the_tree_holds_only_the_agents_own_decisions(rollout: str) -> None:
    """``opponents="model"``: the other seats move by the rollout policy inside the tree, so
    every node below the root is one of the agent's decisions; searched over (the default),
    the others' decisions are nodes too. The same budget reaches deeper into one's own."""
    deeper = 0
    for index, state in enumerate(decisions(3, 7)):
        if state.phase > meuterer.Phase.MUTINY:  # (few decisions of others left in the round)
            continue
        mine = view(state, state.to_act)
        modelled = ISMCTSAgent(iterations=30, rollout=rollout, opponents="model")  # type: ignore[arg-type]
        searched = ISMCTSAgent(iterations=30, rollout=rollout)  # type: ignore[arg-type]
        tree = modelled.search(mine, random.Random(index))
        assert _seats(tree) == {state.to_act}
        assert len(_seats(searched.search(mine, random.Random(index)))) > 1
        deeper += _depth(tree) > 1
    assert deeper >= 3


def _depth(node: _Node) -> int:
    return 1 + max((_depth(child) for child in node.children.values()), default=0)


@pytest.mark.parametrize("opponents", ["search", "model"])
def test_it_plays_only_legal_moves_in_a_four_player_game_and_again_the_same(opponents: str) -> None:
    def game() -> tuple[list[Move], tuple[int, ...]]:
        moves: list[Move] = []
        agents: list[Agent] = [
            GreedyAgent(),
            ISMCTSAgent(iterations=4, rollout="policy", seed=9, opponents=opponents),  # type: ignore[arg-type]
            GreedyAgent(),
            GreedyAgent(),
        ]
        _, final = play_game(agents, seed=11, hook=moves.append)
        return moves, final.scores

    moves, scores = game()
    mine = [m for m in moves if not isinstance(m.action, meuterer.Draw) and m.action.player == 1]
    assert len(mine) > 20
    for move in mine:
        assert move.action in meuterer.legal_actions(move.before)
    again, scores_again = game()
    assert [m.action for m in again] == [m.action for m in moves] and scores_again == scores


@pytest.mark.parametrize(
    ("players", "rules", "words"),
    [(3, meuterer.Rules(), "4-player games only"), (4, meuterer.Rules(pirates=True), "does not play")],
)
def test_it_refuses_the_games_the_policy_was_not_trained_for(players: int, rules: meuterer.Rules, words: str) -> None:
    agent = ISMCTSAgent(iterations=3, rollout="policy")
    with pytest.raises(PolicyRulesError, match=words):
        agent.check(players, rules)
    state = next(decisions(1, 1, players, rules))
    with pytest.raises(PolicyRulesError, match=words) as refused:
        agent.act(view(state, state.to_act), meuterer.legal_actions(state), random.Random(1))
    assert isinstance(refused.value, SetupError)
    with pytest.raises(PolicyRulesError, match=words):
        play_game([agent, *[GreedyAgent() for _ in range(players - 1)]], seed=2, rules=rules)
    # The other searches play every game.
    ISMCTSAgent(iterations=3).check(players, rules)


def test_the_server_and_meuterer_play_ask_it_before_the_game() -> None:
    from meuterer.cli.play import make_bots

    with pytest.raises(PolicyRulesError, match="4-player games only"):
        make_bots("ismcts:5:policy", 3, 0, seed=1, rules=meuterer.Rules())
    assert isinstance(make_bots("ismcts:5:policy", 4, 0, seed=1, rules=meuterer.Rules())[2][1], ISMCTSAgent)
    pytest.importorskip("starlette")
    from meuterer.server.bots import MAX_ITERATIONS, BotSpecError, check_spec, is_quick

    assert not is_quick("ismcts:40:policy")
    assert isinstance(check_spec("ismcts:40:policy", 4, meuterer.Rules()), ISMCTSAgent)
    with pytest.raises(PolicyRulesError):
        check_spec("ismcts:40:policy", 4, meuterer.Rules(pirates=True))
    with pytest.raises(BotSpecError):
        check_spec(f"ismcts:{MAX_ITERATIONS + 1}:policy", 4, meuterer.Rules())


def test_one_iteration_follows_the_policy_prior() -> None:
    # With one iteration the only root child visited is the one the prior ranks first: the
    # policy's own move. Without the prior it would be an untried action drawn at random.
    policy = PolicyAgent()
    agent = ISMCTSAgent(iterations=1, rollout="policy")
    plain = ISMCTSAgent(iterations=1)
    differs = 0
    for index, state in enumerate(decisions(2, 5)):
        mine, legal = view(state, state.to_act), meuterer.legal_actions(state)
        expected = policy.act(mine, legal, random.Random(index))
        assert agent.act(mine, legal, random.Random(index)) == expected
        differs += plain.act(mine, legal, random.Random(index)) != expected
    assert differs >= 5


def test_the_prior_weight_steers_the_visits() -> None:
    # The same priors, but with weight 0 they no longer steer the visits.
    state = next(decisions(1, 3))
    mine = view(state, state.to_act)
    weighted = ISMCTSAgent(iterations=20, rollout="policy").search(mine, random.Random(2))
    flat = ISMCTSAgent(iterations=20, rollout="policy", prior_weight=0.0).search(mine, random.Random(2))
    assert [c.prior for c in flat.children.values()] == [c.prior for c in weighted.children.values()]
    assert [c.visits for c in flat.children.values()] != [c.visits for c in weighted.children.values()]


def test_every_node_of_the_tree_holds_its_seats_priors() -> None:
    policy = PolicyAgent()
    agent = ISMCTSAgent(iterations=30, rollout="policy")
    state = next(decisions(1, 7))
    mine, legal = view(state, state.to_act), meuterer.legal_actions(state)
    root = agent.search(mine, random.Random(5))
    assert list(root.children) == list(legal)
    expected = policy.probabilities(mine, legal)
    assert [child.prior for child in root.children.values()] == pytest.approx(expected)
    # the most likely action is searched first, and more than the least likely
    ranked = sorted(root.children.values(), key=lambda child: child.prior)
    assert ranked[-1].visits > ranked[0].visits
    inner: list[_Node] = []
    todo = [child for child in root.children.values() if child.children]
    while todo:
        node = todo.pop()
        inner.append(node)
        todo.extend(child for child in node.children.values() if child.children)
    assert inner, "the search went below the root"
    # Each node's actions have the priors of the view they were first met in (another
    # determinisation may show the acting seat other actions: then they sum to more than 1).
    sums = []
    for node in inner:
        priors = [child.prior for child in node.children.values()]
        assert all(0 < p <= 1 for p in priors)
        sums.append(sum(priors))
    assert min(sums) == pytest.approx(1)
