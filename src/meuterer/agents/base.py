"""The agent protocol, the random agent, and a game loop that shows each agent only its view."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

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


class RandomAgent:
    """Uniform over the legal actions."""

    name = "random"

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """A legal action chosen uniformly at random."""
        return legal[rng.randrange(len(legal))]


def play_game(
    agents: Sequence[Agent],
    seed: int | None = None,
    first_captain: int = 0,
    rules: Rules | None = None,
) -> tuple[State, tuple[Action, ...]]:
    """Play one game, seat ``i`` played by ``agents[i]``; chance and every agent draw from
    generators derived from ``seed``. Returns the final state and every action."""
    rng = random.Random(seed)
    chance = random.Random(rng.getrandbits(64))
    own = [random.Random(rng.getrandbits(64)) for _ in agents]
    state = new_game(len(agents), first_captain, rules)
    history: list[Action] = []
    while (seat := current_player(state)) is not None:
        if is_chance_node(state):
            action = sample_chance(state, chance)
        else:
            action = agents[seat].act(view(state, seat), legal_actions(state), own[seat])
        history.append(action)
        state = apply(state, action)
    return state, tuple(history)
