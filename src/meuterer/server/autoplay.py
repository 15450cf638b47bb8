"""The moves a table makes by itself: the dealer's draws and its bots' moves.

:class:`Autopilot` knows which bot plays a seat (the seat's own, or the stand-in that
plays for a human who left or ran out of time) and plays from a state up to the next
human decision, drawing from the table's secret source.

>>> from meuterer.engine import new_game
>>> from meuterer.server.autoplay import Autopilot
>>> from meuterer.server.seats import Seat
>>> seats = [Seat(bot="random"), Seat(bot="greedy"), Seat(name="ann")]
>>> pilot = Autopilot("greedy")
>>> pilot.spec(seats, 1), pilot.spec(seats, 2)
('greedy', None)
>>> actions = pilot.play(new_game(3), seats, [], search=True)
>>> len(actions) > 0
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from meuterer.actions import Action
from meuterer.agents import Agent, make_agent
from meuterer.engine import apply, current_player, is_chance_node, is_terminal, sample_chance
from meuterer.server.bots import is_quick
from meuterer.server.seats import Seat
from meuterer.state import State
from meuterer.views import view

__all__ = ["AUTO_CHUNK", "SECRET", "Autopilot"]

SECRET: Final = random.SystemRandom()
"""The dealer's source of chance: the operating system's randomness, never seeded."""

AUTO_CHUNK: Final = 64
"""Most actions the table makes by itself in one proposal when it leaves searching bots to
a worker (``search=False``): the server's event loop gets a turn between two chunks."""


class Autopilot:
    """The bots of one table (``stand_in_bot``: the spec of the bot that plays for a human
    seat's player while he is away), each made once per seat and spec."""

    def __init__(self, stand_in_bot: str) -> None:
        self.stand_in_bot = stand_in_bot
        self._agents: dict[int, tuple[str, Agent]] = {}

    def spec(self, seats: Sequence[Seat], seat: int) -> str | None:
        """The spec of the bot that plays ``seat`` now (its own, or the stand-in's), if any."""
        held = seats[seat]
        return held.bot if held.bot is not None else self.stand_in_bot if held.stand_in else None

    def to_move(self, state: State, seats: Sequence[Seat], started: bool) -> tuple[int, str] | None:
        """The seat whose bot (its own or a stand-in) the game waits for, and the bot's spec."""
        if not started or is_terminal(state) or is_chance_node(state):
            return None
        p = current_player(state)
        spec = None if p is None else self.spec(seats, p)
        return None if p is None or spec is None else (p, spec)

    def play(self, state: State, seats: Sequence[Seat], actions: list[Action], search: bool) -> list[Action]:
        """``actions`` (which led to ``state``) followed by the draws and bot moves up to the
        next human decision (``search=False``: up to a searching bot's too, and at most
        :data:`AUTO_CHUNK` actions in all)."""
        while not is_terminal(state) and (search or len(actions) < AUTO_CHUNK):
            if is_chance_node(state):
                action = sample_chance(state, SECRET)
            else:
                p = current_player(state)
                assert p is not None
                spec = self.spec(seats, p)
                if spec is None or not (search or is_quick(spec)):
                    break
                v = view(state, p)
                action = self.agent(seats, p).act(v, v.legal_actions(), SECRET)
            actions.append(action)
            state = apply(state, action)
        return actions

    def agent(self, seats: Sequence[Seat], seat: int) -> Agent:
        """The agent that plays ``seat`` now (made anew when its spec changes)."""
        spec = self.spec(seats, seat) or self.stand_in_bot
        known = self._agents.get(seat)
        if known is None or known[0] != spec:
            known = (spec, make_agent(spec, seed=SECRET.getrandbits(63)))
            self._agents[seat] = known
        return known[1]
