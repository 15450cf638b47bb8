"""The agent protocol, the random agent, and the one game loop that shows each agent only its view.

An agent may explain its moves: besides ``act``, it may define ``decide`` returning a
:class:`Decision` (the action and a short reason); :func:`choose` asks for either.
:func:`play_game` is the loop every program uses (tournaments too); its ``hook`` sees
each :class:`Move` as it happens.

>>> from meuterer.agents import GreedyAgent, RandomAgent, play_game
>>> seen = []
>>> actions, final = play_game([GreedyAgent(), RandomAgent()] * 2, seed=5, hook=seen.append, reasons=True)
>>> len(seen) == len(actions), final.scores == seen[-1].after.scores
(True, True)
>>> [move.reason for move in seen if move.reason and move.action.player == 0][0]
'offers 0: the likelier a mutiny, the more it offers, so that a mate sides with it'
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import attrs

from meuterer.actions import Action
from meuterer.engine import apply, current_player, is_chance_node, legal_actions, new_game, sample_chance
from meuterer.rules import Rules
from meuterer.state import State
from meuterer.views import PlayerView, view


@runtime_checkable
class Agent(Protocol):
    """A player. ``act`` gets the agent's own view, the legal actions (never empty) and
    a random generator, and returns one of the legal actions."""

    name: str

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Choose one of ``legal``."""
        ...


@attrs.frozen
class Decision:
    """An action and, if the agent gives one, the short reason for it."""

    action: Action
    reason: str | None = None


def choose(agent: Agent, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Decision:
    """The agent's move with its reason: from ``agent.decide`` if it has one, else ``act``
    (no reason). Both draw from ``rng`` alike, so a game is the same either way."""
    decide: Callable[[PlayerView, Sequence[Action], random.Random], Decision] | None = getattr(agent, "decide", None)
    if decide is not None:
        return decide(view, legal, rng)
    return Decision(agent.act(view, legal, rng))


class RandomAgent:
    """Uniform over the legal actions."""

    name = "random"

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """A legal action chosen uniformly at random."""
        return legal[rng.randrange(len(legal))]


@attrs.frozen
class Move:
    """One action of a game as :func:`play_game`'s hook sees it."""

    before: State
    action: Action
    after: State
    seconds: float | None = None
    """The agent's thinking time; ``None`` for a chance draw."""
    reason: str | None = None
    """The agent's reason for its move, if it gave one."""


class Played(NamedTuple):
    """What :func:`play_game` returns: every action and the final state, in the order of
    :func:`meuterer.random_game`."""

    actions: tuple[Action, ...]
    final: State


def seeded(seed: int | None, seats: int) -> tuple[random.Random, list[random.Random]]:
    """The generators a game played from ``seed`` draws from: chance's, then one per seat
    (every game loop seeds them this way, so the same seed plays the same game anywhere).

    >>> chance, own = seeded(7, 3)
    >>> len(own), chance.random() == seeded(7, 3)[0].random()
    (3, True)
    """
    rng = random.Random(seed)
    chance = random.Random(rng.getrandbits(64))
    return chance, [random.Random(rng.getrandbits(64)) for _ in range(seats)]


def play_game(
    agents: Sequence[Agent],
    seed: int | None = None,
    first_captain: int = 0,
    rules: Rules | None = None,
    *,
    hook: Callable[[Move], None] | None = None,
    reasons: bool = False,
) -> Played:
    """Play one game, seat ``i`` played by ``agents[i]``; chance and every agent draw from
    generators derived from ``seed``. Returns ``(actions, final)`` like
    :func:`meuterer.random_game`; ``hook`` is called after every action with a :class:`Move`,
    which holds the agent's reason when ``reasons`` is true (agents that give them are asked
    through :func:`choose`; the game is the same either way).

    >>> actions, final = play_game([RandomAgent()] * 3, seed=1)
    >>> final.step.name, len(actions) > 0
    ('GAME_OVER', True)
    """
    chance, own = seeded(seed, len(agents))
    state = new_game(len(agents), first_captain, rules)
    history: list[Action] = []
    clock = time.perf_counter
    while (seat := current_player(state)) is not None:
        seconds: float | None = None
        reason: str | None = None
        if is_chance_node(state):
            action = sample_chance(state, chance)
        elif hook is None:
            action = agents[seat].act(view(state, seat), legal_actions(state), own[seat])
        else:
            start = clock()
            if reasons:
                decision = choose(agents[seat], view(state, seat), legal_actions(state), own[seat])
                action, reason = decision.action, decision.reason
            else:
                action = agents[seat].act(view(state, seat), legal_actions(state), own[seat])
            seconds = clock() - start
        history.append(action)
        before, state = state, apply(state, action)
        if hook is not None:
            hook(Move(before, action, state, seconds, reason))
    return Played(tuple(history), state)
