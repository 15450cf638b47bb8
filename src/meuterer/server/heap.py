"""Short pauses of the cyclic garbage collector in a server that holds many games.

A table keeps every snapshot of its game (a :class:`~meuterer.game.Game` keeps one per
action, for take-backs and for each seat's log), so a server with fifty games under way
holds about 10^5 objects with 10^6 references between them. They are freed by reference
counting when a table is archived, but CPython's cyclic collector walks all of them in
each full collection: measured in the soak (``benchmarks/bench_soak.py``), a pause of 0.1
to 0.7 s about every 25 s, felt by every player of the server at once.

:class:`Heap` keeps those pauses short. Every :data:`SETTLE_SECONDS` it collects what is
new (the objects made since it last did: 10 to 50 ms in the soak) and moves what survives
to the permanent generation (:func:`gc.freeze`), which collections skip. Garbage whose
reference cycles run through such old objects (a closed WebSocket connection is such a
cycle, with its compressor's buffers) is found by the full collection it
makes every :data:`FULL_SECONDS` (after :func:`gc.unfreeze`), so it is held that long at
most: with five minutes, the soak's server grew by 140 MB before its first full
collection; with one minute the full collections come 2 to 3 times less often than
CPython's own and the memory levels off (+18 MB over the soak's last eight minutes).
``meuterer serve`` tends its heap; :func:`~meuterer.server.app.create_app` does only when
asked (a test process keeps its collector as it is).

>>> times = iter([0.0, 5.0, 30.0, 60.0])
>>> heap = Heap(clock=lambda: next(times))
>>> heap.tend(), heap.tend(), heap.tend()
(None, 'settled', 'full')
>>> import gc; gc.unfreeze()
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Final, Literal

__all__ = ["FULL_SECONDS", "SETTLE_SECONDS", "Heap"]

SETTLE_SECONDS: Final = 10.0
"""How often the new survivors are collected and set aside (frozen)."""
FULL_SECONDS: Final = 60.0
"""How often everything is collected, the frozen objects included."""


class Heap:
    """The server's collector policy (see the module's text); :meth:`tend` is called often
    (the server's ticker calls it every second) and does its work when it is due."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        now = clock()
        self._settled = now
        self._full = now

    def tend(self) -> Literal["settled", "full"] | None:
        """Collect and freeze the new survivors, or everything, when due; what was done."""
        now = self._clock()
        if now - self._full >= FULL_SECONDS:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self._full = self._settled = now
            return "full"
        if now - self._settled >= SETTLE_SECONDS:
            gc.collect()  # skips the frozen objects: only what was made since the last time
            gc.freeze()
            self._settled = now
            return "settled"
        return None
