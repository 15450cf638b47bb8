"""Games between agents on the fast engine, for tournaments and simulations.

>>> from meuterer.agents import GreedyAgent, RandomAgent
>>> from meuterer.agents import play_game as reference_play_game
>>> agents = [GreedyAgent(), RandomAgent(), RandomAgent()]
>>> play_game(agents, seed=3) == reference_play_game(agents, seed=3)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from meuterer.actions import Action
from meuterer.agents.base import Played
from meuterer.fast.engine import FastGame
from meuterer.rules import Rules
from meuterer.views import view

if TYPE_CHECKING:
    from meuterer.agents.base import Agent


def play_game(
    agents: Sequence[Agent],
    seed: int | None = None,
    first_captain: int = 0,
    rules: Rules | None = None,
) -> Played:
    """Exactly :func:`meuterer.agents.play_game` (the same actions and final state for the
    same agents and seed), played on the fast engine: seat ``i`` is played by ``agents[i]``,
    who sees only his view; chance and every agent draw from generators derived from ``seed``."""
    rng = random.Random(seed)
    chance = random.Random(rng.getrandbits(64))
    own = [random.Random(rng.getrandbits(64)) for _ in agents]
    game = FastGame.new(len(agents), first_captain, rules)
    history: list[Action] = []
    while (seat := game.current_player) is not None:
        if seat < 0:
            action = game.apply_chance(chance)
        else:
            action = agents[seat].act(view(game.to_state(), seat), game.legal_actions(), own[seat])
            game.apply(action)
        history.append(action)
    return Played(tuple(history), game.to_state())
