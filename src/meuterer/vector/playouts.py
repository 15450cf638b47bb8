"""Playouts on the batch engine: whole games, many in lockstep, with uniformly random legal
decisions (:func:`random_playouts`, what ``meuterer simulate`` plays by default) or between
the bots that play over a batch (:func:`agent_playouts`: random, greedy, the learned
policy; ``meuterer simulate --vector``).

>>> from meuterer.vector.playouts import random_playouts
>>> random_playouts(3, players=3, batch=2, seed=1).scores.shape
(3, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import attrs
import numpy as np
import numpy.typing as npt

from meuterer.errors import SetupError
from meuterer.rules import Rules
from meuterer.vector.arrays import IntArray, win_shares
from meuterer.vector.engine import _DECIDING, VectorGame

__all__ = ["BATCHED_AGENTS", "Playouts", "agent_playouts", "random_playouts"]

BATCHED_AGENTS: Final = ("random", "greedy", "policy")
"""The agents :func:`agent_playouts` plays over a batch."""


@attrs.frozen
class Playouts:
    """What :func:`random_playouts` or :func:`agent_playouts` played: each game's final
    scores and win shares (the ``win`` utility: 1 shared by the best), in the order the
    games ended, and how many decisions were taken; of :func:`agent_playouts`, also which
    of its agents sat in each seat of each game (``seating``)."""

    scores: IntArray
    wins: npt.NDArray[np.float64]
    decisions: int
    seating: IntArray | None = None


def random_playouts(
    games: int,
    players: int = 4,
    rules: Rules | None = None,
    *,
    batch: int = 4096,
    seed: int | None = None,
    first_captain: int = 0,
) -> Playouts:
    """Play ``games`` whole games with uniformly random legal decisions (and chance drawn
    with its probabilities), ``batch`` at a time in lockstep, each finished game replaced
    by a new one while more are wanted.

    >>> played = random_playouts(10, players=3, batch=4, seed=1)
    >>> played.scores.shape, played.wins.sum(), played.decisions > 10 * 100
    ((10, 3), np.float64(10.0), True)
    """
    return _playouts(games, players, rules, batch, seed, first_captain, None, True)


def agent_playouts(
    games: int,
    agents: Sequence[str],
    players: int = 4,
    rules: Rules | None = None,
    *,
    rotate: bool = True,
    batch: int = 4096,
    seed: int | None = None,
    first_captain: int = 0,
) -> Playouts:
    """Play ``games`` whole games between ``agents``, one per seat, each ``"random"``,
    ``"greedy"`` (:class:`~meuterer.vector.greedy.BatchGreedy`: the greedy bot's moves) or
    ``"policy"`` (:class:`~meuterer.vector.policy.BatchPolicyAgent`: the learned policy's),
    ``batch`` at a time in lockstep, as :func:`random_playouts`. With ``rotate`` agent ``k``
    sits in seat ``(k + i) % players`` in game ``i`` (as :func:`meuterer.tournament.seating`
    seats them), else in seat ``k``; ``seating`` says where each sat.

    >>> played = agent_playouts(8, ["greedy", "random", "random"], players=3, batch=4, seed=2)
    >>> played.seating.shape, sorted(played.seating[0].tolist())
    ((8, 3), [0, 1, 2])
    >>> greedy_seat = played.seating == 0
    >>> bool(played.scores[greedy_seat].mean() > played.scores[~greedy_seat].mean())
    True
    """
    if len(agents) != players or any(name not in BATCHED_AGENTS for name in agents):
        raise SetupError(f"name one agent per seat ({players}), each of {', '.join(BATCHED_AGENTS)}: got {agents!r}")
    return _playouts(games, players, rules, batch, seed, first_captain, tuple(agents), rotate)


def _playouts(
    games: int,
    players: int,
    rules: Rules | None,
    batch: int,
    seed: int | None,
    first_captain: int,
    agents: tuple[str, ...] | None,
    rotate: bool,
) -> Playouts:
    """The loop of both: random decisions, overwritten where a batched bot of ``agents``
    (``None``: random players only, no seating kept) is to act."""
    if type(games) is not int or games < 0:
        raise ValueError(f"games must be a non-negative whole number, got {games!r}")
    if type(batch) is not int or batch < 1:
        raise ValueError(f"batch must be a positive whole number, got {batch!r}")
    g = VectorGame(min(batch, max(games, 1)), players, rules, first_captain=first_captain, seed=seed)
    choosers = _choosers(agents or (), players, g.rules)
    names = np.array(agents or ("random",) * players)
    seat = np.arange(players)
    shift = 1 if rotate else 0

    def seated(index: IntArray) -> IntArray:
        # (len(index), players): the agent in each seat of games ``index``
        at: IntArray = (seat[None, :] - shift * index[:, None]) % players
        return at

    index = np.arange(g.batch)
    seating = seated(index)
    scores: list[IntArray] = []
    wins: list[npt.NDArray[np.float64]] = []
    seats: list[IntArray] = []
    done = 0
    started = g.batch
    decisions = 0
    live = np.ones(g.batch, dtype=np.bool_)
    while done < games:
        actions = g.random_actions()
        # the games at a decision (all live: a game not live is over), as random_actions grouped them
        group = g._step_groups()
        decisions += sum(group.size(code) for code in _DECIDING)
        if choosers:
            deciding = ~g.chance & live & ~g.terminal
            acting = names[seating[np.arange(g.batch), g.to_act]]
            for name, chooser in choosers.items():
                idx = np.flatnonzero(deciding & (acting == name))
                if len(idx):
                    actions[idx] = chooser(g, idx)
        g.step(actions, checked=False)
        over = g.terminal & live
        if over.any():
            final = g.scores[over]
            scores.append(final)
            wins.append(win_shares(final))
            seats.append(seating[over])
            done += int(over.sum())
            # start as many new games as are still wanted; the other slots stay finished
            again = np.flatnonzero(over)[: max(0, games - started)]
            live[over] = False
            if len(again):
                where = np.zeros(g.batch, dtype=np.bool_)
                where[again] = True
                g.reset(where)
                live[again] = True
                index[again] = started + np.arange(len(again))
                seating[again] = seated(index[again])
                started += len(again)
    kept = None if agents is None else np.zeros((0, players), np.int64)
    if not scores:
        return Playouts(np.zeros((0, players), np.int64), np.zeros((0, players)), 0, kept)
    if agents is not None:
        kept = np.concatenate(seats)[:games]
    return Playouts(np.concatenate(scores)[:games], np.concatenate(wins)[:games], decisions, kept)


def _choosers(agents: Sequence[str], players: int, rules: Rules) -> dict[str, Any]:
    """The batched bots of ``agents`` by name (random players need none)."""
    from meuterer.vector.greedy import BatchGreedy  # (here: the bots import the package this module opens)
    from meuterer.vector.policy import BatchPolicyAgent

    choosers: dict[str, Any] = {}
    if "greedy" in agents:
        choosers["greedy"] = BatchGreedy(rules)
    if "policy" in agents:
        choosers["policy"] = BatchPolicyAgent(players, rules)
    return choosers
