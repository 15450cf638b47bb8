"""Games between agents through the cursor (:class:`~meuterer.fast.FastGame`), for tournaments and simulations.

>>> from meuterer.agents import GreedyAgent, RandomAgent
>>> from meuterer.agents import play_game as reference_play_game
>>> agents = [GreedyAgent(), RandomAgent(), RandomAgent()]
>>> play_game(agents, seed=3) == reference_play_game(agents, seed=3)
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from meuterer.actions import Action
from meuterer.agents.base import Played, seeded
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
    *,
    hook: Callable[[Action, float | None, FastGame], None] | None = None,
) -> Played:
    """Exactly :func:`meuterer.agents.play_game` (the same actions and final state for the
    same agents and seed), played through a :class:`~meuterer.fast.FastGame`: seat ``i`` is played by ``agents[i]``,
    who sees only his view; chance and every agent draw from generators derived from ``seed``.

    ``hook(action, seconds, game)`` is called after every action with the agent's thinking
    time (``None`` for a chance draw) and the live game after it: read it, never change it.
    """
    chance, own = seeded(seed, len(agents))
    game = FastGame.new(len(agents), first_captain, rules)
    history: list[Action] = []
    clock = time.perf_counter
    while (seat := game.current_player) is not None:
        seconds: float | None = None
        if seat < 0:
            action = game.apply_chance(chance)
        else:
            seen, legal = view(game.to_state(), seat), game.legal_actions()
            started = clock()
            action = agents[seat].act(seen, legal, own[seat])
            seconds = clock() - started
            game.apply(action)
        history.append(action)
        if hook is not None:
            hook(action, seconds, game)
    return Played(tuple(history), game.to_state())
