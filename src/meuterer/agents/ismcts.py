"""Information-set Monte Carlo tree search over determinisations of the agent's view.

:class:`ISMCTSAgent` runs single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012):
every iteration draws a complete state consistent with the agent's view
(:func:`meuterer.views.sample_state`), walks one tree shared by all determinisations,
choosing among the actions legal in this determinisation by UCB (each child counts how
often it was available), adds one node, and finishes the round with a rollout policy.
Determinisations are played on the reference engine, through a
:class:`meuterer.fast.FastGame` cursor (a snapshot moved by the reference's step table).

To stay affordable the search looks no further than the end of the current round: a
rollout stops once phase 5 (scoring) is over. Each seat is then worth its points plus what
it takes into the next round (:data:`HORIZON`: the captain cards, the loadmaster's extra
cards, the cards kept in hand), and every seat maximises its worth minus the best other
seat's. The loadmaster's discard, after scoring, is left to the greedy rules; so is every
choice with one legal action.

With ``rollout="policy"`` the learned policy (``meuterer.agents.policy``, numpy needed)
guides the tree: each node's actions get its probabilities as priors, and the tree chooses
by PUCT instead of UCB; the rollouts stay greedy. Such a search plays what the policy
plays: 4 players under ``Rules()``.

With ``opponents="model"`` the tree holds the agent's own decisions only: the other seats
play by the rollout policy in the tree as in the rollouts (a model of them, not a search
over their choices made in a determinisation whose cards they could not see), so every
iteration goes to the agent's own choices.

>>> from meuterer.agents import GreedyAgent, ISMCTSAgent, play_game
>>> _, final = play_game([ISMCTSAgent(iterations=20), GreedyAgent(), GreedyAgent()], seed=2)
>>> len(final.scores)
3
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, get_args

from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sell
from meuterer.cards import CARDS, GOODS, Card, Role
from meuterer.fast.engine import FastGame
from meuterer.rules import Rules
from meuterer.state import Phase, State, Step
from meuterer.views import PlayerView, sample_state, view

from .greedy import GreedyAgent

if TYPE_CHECKING:
    from .policy import PolicyAgent

Rollout = Literal["greedy", "random", "quick", "policy"]
Opponents = Literal["search", "model"]

_SCALE = 10.0
"""Margins are divided by this before they enter the UCB formula."""

PRIOR_WEIGHT = 1.0
"""The PUCT constant of a search guided by the policy (on margins divided by 10 VP)."""

FEATURES = ("captain", "loadmaster", "support", "sellable", "unsellable")
"""What a seat takes from a round into the next, as :func:`horizon_features` counts it: the
captain cards (1 or 0), the loadmaster role (1 or 0: three extra cards to choose from), and
the cards in hand once the face-down ones are back: support cards, goods one of next round's
islands buys, other goods."""

HORIZON: dict[int, tuple[float, ...]] = {
    3: (-0.71, 1.44, -0.01, -0.15, -0.83),
    4: (-0.27, 1.44, -0.11, -0.18, -0.69),
}
"""By player count, the worth in VP of each of :data:`FEATURES` at the end of a round (not
the last): what a seat holding it scored in the rest of the game, beyond a seat without it,
fitted by least squares over 3,000 greedy self-play games (``scripts/fit_horizon.py``).
Holding the captain cards or goods costs points later (the mate's offer, the mutinies;
fewer new cards drawn); the loadmaster's choice of cards gains. Greedy 3-player games
almost never take the loadmaster, so 3 players borrow the 4-player value; the pirate card
(never in those games) counts nothing."""


def horizon_features(game: State, seat: int) -> list[float]:
    """``seat``'s :data:`FEATURES` in state ``game`` (read at the end of a round: after
    phase 5 the face-down cards are back in the hands and next round's islands are active).

    >>> import meuterer
    >>> horizon_features(meuterer.new_game(), 0)
    [1.0, 0.0, 0.0, 0.0, 0.0]
    """
    islands = game.rules.islands
    active = [islands[game.ring[pos]] for pos in game.active]
    hand = game.hands[seat]
    sellable = unsellable = 0
    for card in GOODS:
        if hand[card]:
            if any(island.buys_card(card) for island in active):
                sellable += hand[card]
            else:
                unsellable += hand[card]
    return [
        float(seat == game.captain),
        float(game.roles[seat] is Role.LOADMASTER),
        float(hand[Card.SUPPORT]),
        float(sellable),
        float(unsellable),
    ]


def _worth(game: State) -> list[float]:
    """Each seat's points, plus what it takes into the next round (:data:`HORIZON`) unless
    the game is over."""
    if game.step is Step.GAME_OVER:
        return [float(score) for score in game.scores]
    weights = HORIZON[game.players]
    return [
        score + sum(w * x for w, x in zip(weights, horizon_features(game, seat), strict=True))
        for seat, score in enumerate(game.scores)
    ]


def _margins(game: State) -> list[float]:
    worth = _worth(game)
    result = []
    for seat, mine in enumerate(worth):
        rest = worth[:seat] + worth[seat + 1 :]
        result.append(mine - max(rest))
    return result


class _Node:
    """A tree node: the statistics of the action leading to it, from its actor's side, and
    (in a search guided by the policy) that action's prior probability."""

    __slots__ = ("available", "children", "prior", "seat", "total", "visits")

    def __init__(self, seat: int, prior: float = 0.0) -> None:
        self.seat = seat
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.prior = prior
        self.children: dict[Action, _Node] = {}


def margins(state: State) -> list[float]:
    """Each seat's worth over the best other seat's, in VP: its points, plus what it takes
    into the next round (:data:`HORIZON`) unless the game is over.

    >>> import meuterer
    >>> _, final = meuterer.random_game(seed=4, players=3)
    >>> margins(final) == [s - max(final.scores[:i] + final.scores[i + 1 :]) for i, s in enumerate(final.scores)]
    True
    """
    return _margins(state)


class ISMCTSAgent:
    """Single-observer ISMCTS with round-long rollouts.

    ``iterations`` determinisations per decision; ``seed`` is mixed into the generator
    the game hands to :meth:`act`, so a game is reproducible from its own seed whatever
    else the agent has played; ``exploration`` is the UCB constant (on margins divided by
    10 VP); ``rollout`` is ``"greedy"`` (every seat follows :class:`GreedyAgent` on its
    own view of the determinisation), ``"random"``, or ``"quick"`` (a few greedy rules read
    straight off the state: many more iterations in the same time, weaker ones), or
    ``"policy"``: the search guided by the learned policy
    (``meuterer.agents.policy.PolicyAgent``, numpy needed). Guided, every node's actions
    get the policy's probabilities on the acting seat's view of the determinisation in
    which the node is first met, and the tree chooses by PUCT (``prior_weight`` is its
    constant, on margins divided by 10 VP): untried actions in the order of their prior,
    then each action's mean value plus its prior, scaled by how often it was available
    over how often it was tried. The rollouts stay greedy (the policy's own rollouts were
    weaker for their time, as ``docs/bots.md`` reports). The policy plays 4-player games
    under ``Rules()`` only; a guided search refuses any other (:meth:`check`).
    ``opponents``: ``"search"`` (the tree branches on every seat's decisions, each seat
    maximising its own margin) or ``"model"`` (it branches on the agent's own decisions
    only; the others play by the rollout policy, greedy for ``"policy"``).
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int = 50,
        seed: int | None = None,
        exploration: float = 1.5,
        rollout: Rollout = "greedy",
        prior_weight: float = PRIOR_WEIGHT,
        opponents: Opponents = "search",
    ) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be positive, got {iterations}")
        if rollout not in get_args(Rollout):
            raise ValueError(f"rollout is one of {', '.join(map(repr, get_args(Rollout)))}, got {rollout!r}")
        if prior_weight < 0:
            raise ValueError(f"prior_weight must not be negative, got {prior_weight}")
        if opponents not in get_args(Opponents):
            raise ValueError(f"opponents is one of {', '.join(map(repr, get_args(Opponents)))}, got {opponents!r}")
        self.opponents = opponents
        self.iterations = iterations
        self.seed = seed
        self.exploration = exploration
        self.rollout = rollout
        self._greedy = GreedyAgent()
        self.prior_weight = prior_weight
        self._guide: PolicyAgent | None = None
        if rollout == "policy":
            from .policy import PolicyAgent

            self._guide = PolicyAgent()

    def __repr__(self) -> str:
        return (
            f"ISMCTSAgent(iterations={self.iterations}, seed={self.seed}, rollout={self.rollout!r}, "
            f"opponents={self.opponents!r})"
        )

    def check(self, players: int, rules: Rules) -> None:
        """Raise ``PolicyRulesError`` if the search is guided by the policy
        (``rollout="policy"``) and the policy was not trained for ``players`` seats under
        ``rules``; any other search plays every game."""
        if self._guide is not None:
            self._guide.check(players, rules)

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The root action visited most by the search."""
        self.check(view.players, view.rules)
        if len(legal) == 1 or isinstance(legal[0], Discard):
            return self._greedy.act(view, legal, rng)
        if self.seed is not None:
            rng = random.Random(rng.getrandbits(64) ^ self.seed)
        root = self.search(view, rng)
        best = max(root.children.items(), key=lambda item: (item[1].visits, item[1].total))
        return best[0]

    def search(self, v: PlayerView, rng: random.Random) -> _Node:
        """Run the iterations from ``v``; returns the root, whose children are ``v``'s actions.

        Each determinisation is played on a :class:`meuterer.fast.FastGame` cursor."""
        me = v.player
        assert me is not None
        root = _Node(me)
        round_ = v.round
        modelled = self.opponents == "model"
        for _ in range(self.iterations):
            game = FastGame(sample_state(v, rng))
            node = root
            path: list[_Node] = []
            while game.state.round == round_ and game.state.phase <= _SCORING:
                if game.is_chance_node():
                    game.apply_chance(rng)
                    continue
                actions = game.legal_actions()
                if modelled and game.state.to_act != me:
                    game.apply_at(self._rollout_choice(game.state, actions, rng))
                    continue
                if self._guide is not None:
                    index = self._puct(node, game.state, actions)
                else:
                    index = self._ucb(node, game.state.to_act, actions, rng)
                node = node.children[actions[index]]
                path.append(node)
                game.apply_at(index)
                if node.visits == 0:
                    break
            result = self.simulate(game, round_, rng)
            for node in path:
                node.visits += 1
                node.total += result[node.seat]
        return root

    def _ucb(self, node: _Node, seat: int, actions: Sequence[Action], rng: random.Random) -> int:
        """The index of the action to follow from ``node``: an untried one at random, else
        the best by UCB (each child counting how often it was available)."""
        children = node.children
        untried = [i for i, a in enumerate(actions) if a not in children]
        if untried:
            index = untried[rng.randrange(len(untried))]
            children[actions[index]] = _Node(seat)
            return index
        c = self.exploration
        best_score = -math.inf
        chosen = 0
        for index, action in enumerate(actions):
            child = children[action]
            child.available += 1
            score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
            if score > best_score:
                best_score, chosen = score, index
        return chosen

    def _puct(self, node: _Node, game: State, actions: Sequence[Action]) -> int:
        """The index of the action to follow from ``node`` by PUCT: each child's mean value
        (an untried one's: the mean of its tried siblings) plus the policy's prior
        probability, scaled by how often the child was available over how often it was
        tried. The actions first met here get their priors from the acting seat's view of
        this determinisation."""
        children = node.children
        if any(a not in children for a in actions):
            assert self._guide is not None
            seat = game.to_act
            priors = self._guide.probabilities(view(game, seat), actions)
            for action, prior in zip(actions, priors, strict=True):
                if action not in children:
                    children[action] = _Node(seat, prior)
        tried = [children[a] for a in actions if children[a].visits]
        first = sum(c.total for c in tried) / sum(c.visits for c in tried) if tried else 0.0
        c = self.prior_weight
        best_score = -math.inf
        chosen = 0
        for index, action in enumerate(actions):
            child = children[action]
            child.available += 1
            mean = child.total / child.visits if child.visits else first
            score = mean + c * child.prior * math.sqrt(child.available) / (1 + child.visits)
            if score > best_score:
                best_score, chosen = score, index
        return chosen

    def simulate(self, game: FastGame | State, round_: int, rng: random.Random) -> list[float]:
        """Play on with the rollout policy to the horizon; each seat's margin / 10 VP
        (``margins``). ``game`` (a reference state: a cursor is made) moves on to the horizon."""
        if isinstance(game, State):
            game = FastGame(game)
        while game.state.round == round_ and game.state.phase <= _SCORING:
            if game.is_chance_node():
                game.apply_chance(rng)
                continue
            game.apply_at(self._rollout_choice(game.state, game.legal_actions(), rng))
        return [m / _SCALE for m in _margins(game.state)]

    def _rollout_choice(self, state: State, actions: Sequence[Action], rng: random.Random) -> int:
        """The index in ``actions`` the rollout policy chooses in ``state``."""
        if len(actions) == 1:
            return 0
        if self.rollout == "quick":
            return _quick(state, actions, rng)
        if self.rollout == "random":
            return rng.randrange(len(actions))
        return actions.index(self._greedy.act(view(state, state.to_act), actions, rng))


_SCORING = Phase.SCORING
"""The search horizon: phase 5 of the current round."""


def _quick(game: State, actions: Sequence[Action], rng: random.Random) -> int:
    """The ``"quick"`` rollout policy, a few of the greedy rules read straight off the
    state: offer by one's supports; play towards a majority in a good the active islands
    buy (passing now and then); a strong hand mutinies, a big display trades; sell the
    most cards one can; otherwise choose uniformly."""
    first = actions[0]
    p = game.to_act
    if isinstance(first, Play | Pass):
        hand = game.hands[p]
        islands = [game.island(pos) for pos in game.active]
        wanted = [any(island.buys_card(card) for island in islands) for card in CARDS]
        face_up = game.face_up[p]
        best, card = 0, -1
        for k in GOODS:
            if hand[k] and wanted[k] and hand[k] + face_up[k] > best:
                best, card = hand[k] + face_up[k], k
        if card >= 0 and rng.random() < 0.85:
            return next(i for i, a in enumerate(actions) if isinstance(a, Play) and a.card == card)
        if card < 0 and len(actions) > 1 and rng.random() < 0.25:
            return rng.randrange(len(actions) - 1)
        return len(actions) - 1  # pass
    if isinstance(first, Sell):
        sold = [sum(sale.count for sale in action.sales) for action in actions if isinstance(action, Sell)]
        return max(range(len(sold)), key=sold.__getitem__)
    if isinstance(first, ChooseRole):
        roles = [a.role for a in actions if isinstance(a, ChooseRole)]
        if Role.MUTINEER in roles and game.face_down[p][Card.SUPPORT] >= 2:
            return roles.index(Role.MUTINEER)
        if Role.MERCHANT in roles and sum(game.face_up[p][:5]) >= 3:
            return roles.index(Role.MERCHANT)
    if isinstance(first, Offer):
        supports = game.hands[p][Card.SUPPORT]
        return min(len(actions) - 1, 2 if supports == 0 else 1 if supports == 1 else 0)
    return rng.randrange(len(actions))
