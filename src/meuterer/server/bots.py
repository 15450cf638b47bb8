"""The server's bots: a bounded spec, and a pool of worker processes that think for them.

A bot that searches (``ismcts``) thinks in another process, never on the server's event
loop: its table waits for the move, the others play on, and a slow bot cannot hold the
interpreter's lock the server needs. The quick bots (``random``, ``greedy``, ``policy``: well under a
millisecond a move) play inline, between two awaits. The server accepts search budgets up
to :data:`MAX_ITERATIONS` iterations a move (:func:`check_spec` refuses more), and a worker
gives a move at most :data:`MOVE_CPU_SECONDS` of CPU time: past it, the greedy bot's move is
played instead (:func:`think`).

A worker is given the bot's view of the game (``view(state, seat)``), nothing else; its
answer is an action's notation, which the table checks with the referee as it would a
player's.

>>> check_spec("ismcts:50").name, is_quick("greedy"), is_quick("ismcts:50")
('ismcts', True, False)
>>> check_spec(f"ismcts:{MAX_ITERATIONS + 1}")
Traceback (most recent call last):
...
meuterer.server.bots.BotSpecError: bot 'ismcts:401': this server's bots think at most 400 iterations a move (ismcts:400)
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager, suppress
from typing import Any, Final

import attrs

from meuterer.agents import Agent, make_agent
from meuterer.agents.greedy import GreedyAgent
from meuterer.agents.registry import AgentSpecError
from meuterer.rules import Rules
from meuterer.views import PlayerView

__all__ = [
    "MAX_ITERATIONS",
    "MOVE_CPU_SECONDS",
    "WORKER_NICENESS",
    "BotPool",
    "BotSpecError",
    "Thought",
    "check_spec",
    "is_quick",
    "think",
]

MAX_ITERATIONS: Final = 400
"""The largest search budget a server's bot may have (``ismcts:400``): 0.43 s of CPU for an
average move, 1.2 s for the longest of 80 (measured on the development machine)."""
MOVE_CPU_SECONDS: Final = 2.0
"""The CPU time a worker gives one move before it plays the greedy bot's move instead."""
QUICK: Final = frozenset({"random", "greedy", "policy"})
"""The bots that play inline: well under a millisecond a move."""


class BotSpecError(AgentSpecError):
    """A bot spec the server refuses: its search budget is over :data:`MAX_ITERATIONS`."""


def check_spec(spec: str, players: int | None = None, rules: Rules | None = None) -> Agent:
    """The agent ``spec`` makes, if the server accepts it (else :class:`BotSpecError`, or the
    registry's :class:`~meuterer.agents.registry.AgentSpecError` for a bad spec). With
    ``players``, an agent that plays only some games (it has a ``check(players, rules)``
    method, as the learned ``policy`` does) is asked whether it plays this one; it raises
    its own :class:`~meuterer.errors.SetupError` if not.

    >>> check_spec("policy", 3, Rules())
    Traceback (most recent call last):
    ...
    meuterer.agents.policy.PolicyRulesError: the policy 'policy-v2' plays 4-player games only; use greedy or ismcts
    """
    agent = make_agent(spec)
    check = getattr(agent, "check", None)
    if players is not None and callable(check):
        check(players, Rules() if rules is None else rules)
    iterations = getattr(agent, "iterations", None)
    if isinstance(iterations, int) and iterations > MAX_ITERATIONS:
        raise BotSpecError(
            f"bot {spec!r}: this server's bots think at most {MAX_ITERATIONS} iterations a move "
            f"(ismcts:{MAX_ITERATIONS})"
        )
    return agent


@functools.lru_cache(maxsize=256)
def is_quick(spec: str) -> bool:
    """Whether the bot ``spec`` plays inline (a quick bot) rather than in a worker."""
    return make_agent(spec).name in QUICK


@attrs.frozen
class Thought:
    """A worker's answer: the action's notation, the CPU seconds it took, and whether the
    budget ran out (the greedy bot's move was played instead)."""

    action: str
    cpu_seconds: float
    over_budget: bool = False


class _OverBudget(Exception):
    pass


def _over_budget(signum: int, frame: object) -> None:
    raise _OverBudget


@contextmanager
def _cpu_budget(seconds: float) -> Iterator[None]:
    """Raise :class:`_OverBudget` in this (main) thread once the process has used ``seconds``
    more CPU time (``ITIMER_PROF``; where there is no such timer the budget is not enforced)."""
    import threading

    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:  # pragma: no cover - Windows, or a worker thread
        yield
        return
    previous = signal.signal(signal.SIGPROF, _over_budget)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


_AGENTS: dict[str, Agent] = {}


def think(spec: str, v: PlayerView, seed: int, cpu_seconds: float = MOVE_CPU_SECONDS) -> Thought:
    """The move of the bot ``spec`` in view ``v`` (drawing its chances from ``seed``), in at
    most ``cpu_seconds`` of CPU time: past it, the greedy bot's move. Runs in a worker.

    >>> from meuterer.game import Game
    >>> from meuterer.engine import apply, is_chance_node, sample_chance
    >>> from meuterer.views import view
    >>> state = Game.new(3).state
    >>> while is_chance_node(state):
    ...     state = apply(state, sample_chance(state, random.Random(1)))
    >>> v = view(state, state.to_act)
    >>> think("ismcts:5", v, seed=7).action in [str(a) for a in v.legal_actions()]
    True
    >>> think("ismcts:400", v, seed=7, cpu_seconds=0.001).over_budget
    True
    """
    agent = _AGENTS.get(spec)
    if agent is None:
        agent = _AGENTS[spec] = make_agent(spec)
    rng = random.Random(seed)
    legal = v.legal_actions()
    start = time.process_time()
    over = False
    try:
        with _cpu_budget(cpu_seconds):
            action = agent.act(v, legal, rng)
    except _OverBudget:
        over = True
        action = GreedyAgent().act(v, legal, rng)
    return Thought(str(action), time.process_time() - start, over)


WORKER_NICENESS: Final = 10
"""How much lower than the server's the workers' CPU priority is (``os.nice``): when the
cores are busy, the event loop that answers the players runs first and the bots think with
what is left. A move's budget is CPU time, so a bot plays the same moves either way."""


def _follow(parent: int) -> None:
    """In a worker: yield the CPU to the server (:data:`WORKER_NICENESS`), and exit as soon as
    the server (``parent``) is gone, even killed with SIGKILL (a worker blocked waiting for
    work would otherwise outlive it)."""
    import threading

    with suppress(OSError):  # (a system that refuses: the same priority as the server)
        os.nice(WORKER_NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="follow-the-server", daemon=True).start()


def _workers() -> int:
    """Worker processes by default: one core is left to the server's event loop."""
    return max(1, (os.cpu_count() or 2) - 1)


class BotPool:
    """The worker processes that think for the searching bots, started on first use.

    ``workers``: how many (default: the cores less one, at least one); ``executor``: any
    :class:`concurrent.futures.Executor` instead (a test's). Each table asks for one move at a
    time, so the pool serves the tables in turn: none waits for another's whole game.
    """

    def __init__(
        self, workers: int | None = None, cpu_seconds: float = MOVE_CPU_SECONDS, executor: Executor | None = None
    ) -> None:
        self.workers = workers or _workers()
        self.cpu_seconds = cpu_seconds
        self._executor = executor
        self.moves = 0
        self.over_budget = 0

    def executor(self) -> Executor:
        if self._executor is None:
            # spawn: a fresh interpreter per worker, not a fork of the server's threads and loop
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_follow, initargs=(os.getpid(),)
            )
        return self._executor

    async def think(self, spec: str, v: PlayerView, seed: int) -> Thought:
        """The move of bot ``spec`` in view ``v``, thought in a worker."""
        loop = asyncio.get_running_loop()
        try:
            thought: Thought = await loop.run_in_executor(self.executor(), think, spec, v, seed, self.cpu_seconds)
        except Exception:  # a worker died (or the spec cannot be made there): the greedy bot's move
            logging.getLogger("meuterer.server").exception("bot %r could not think; the greedy bot plays", spec)
            if isinstance(self._executor, ProcessPoolExecutor):
                self.close()  # a broken pool is started afresh on the next move
            thought = Thought(str(GreedyAgent().act(v, v.legal_actions(), random.Random(seed))), 0.0, True)
        self.moves += 1
        self.over_budget += thought.over_budget
        return thought

    def close(self) -> None:
        """Stop the workers (a move being thought is abandoned)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def stats(self) -> dict[str, Any]:
        """Moves thought, how many ran out of budget, and the limits."""
        return {
            "workers": self.workers,
            "moves": self.moves,
            "over_budget": self.over_budget,
            "max_iterations": MAX_ITERATIONS,
            "move_cpu_seconds": self.cpu_seconds,
        }
