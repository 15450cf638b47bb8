"""The turn's clock as the pages show it: whose decision the table waits for and how many
seconds he has left before a stand-in bot plays for him (public: everyone sees whose turn
it is). A table without a turn limit, or waiting for no person, has no clock.

>>> from meuterer.server.table import Seat, Table
>>> now = [100.0]
>>> table = Table("c", players=3, seats=[Seat(), Seat(bot="greedy"), Seat(bot="greedy")],
...               turn_seconds=60.0, clock=lambda: now[0])
>>> turn_clock(table)  # nobody sits at seat 0 yet: the game has not started
{'turn': None}
>>> _ = table.join(0, "ann")
>>> table.commit(table.propose_auto())
>>> now[0] += 15.5
>>> turn_clock(table)
{'turn': {'seat': 0, 'left': 44.5}}
"""

from __future__ import annotations

import math
from typing import Any

from meuterer.server.table import Table

__all__ = ["turn_clock"]


def turn_clock(table: Table) -> dict[str, Any]:
    """``{"turn": {"seat": p, "left": seconds}}`` while the table waits for the person at seat
    ``p`` and his time is limited, else ``{"turn": None}``."""
    seat = table.waiting_for()
    if seat is None or math.isinf(table.turn_seconds):
        return {"turn": None}
    left = max(0.0, table.turn_seconds - (table.clock() - table.turn_started))
    return {"turn": {"seat": seat, "left": round(left, 1)}}
