"""Random playouts on the batch engine: whole games with uniformly random legal decisions,
many in lockstep (what ``meuterer simulate`` plays by default).

>>> from meuterer.vector.playouts import random_playouts
>>> random_playouts(3, players=3, batch=2, seed=1).scores.shape
(3, 3)
"""

from __future__ import annotations

import attrs
import numpy as np
import numpy.typing as npt

from meuterer.rules import Rules
from meuterer.vector.arrays import IntArray, win_shares
from meuterer.vector.engine import _DECIDING, VectorGame

__all__ = ["Playouts", "random_playouts"]


@attrs.frozen
class Playouts:
    """What :func:`random_playouts` played: each game's final scores and win shares (the
    ``win`` utility: 1 shared by the best), in the order the games ended, and how many
    decisions were taken."""

    scores: IntArray
    wins: npt.NDArray[np.float64]
    decisions: int


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
    if type(games) is not int or games < 0:
        raise ValueError(f"games must be a non-negative whole number, got {games!r}")
    if type(batch) is not int or batch < 1:
        raise ValueError(f"batch must be a positive whole number, got {batch!r}")
    g = VectorGame(min(batch, max(games, 1)), players, rules, first_captain=first_captain, seed=seed)
    scores: list[IntArray] = []
    wins: list[npt.NDArray[np.float64]] = []
    done = 0
    started = g.batch
    decisions = 0
    live = np.ones(g.batch, dtype=np.bool_)
    while done < games:
        actions = g.random_actions()
        # the games at a decision (all live: a game not live is over), as random_actions grouped them
        group = g._step_groups()
        decisions += sum(group.size(code) for code in _DECIDING)
        g.step(actions, checked=False)
        over = g.terminal & live
        if over.any():
            final = g.scores[over]
            scores.append(final)
            wins.append(win_shares(final))
            done += int(over.sum())
            # start as many new games as are still wanted; the other slots stay finished
            again = np.flatnonzero(over)[: max(0, games - started)]
            live[over] = False
            if len(again):
                where = np.zeros(g.batch, dtype=np.bool_)
                where[again] = True
                g.reset(where)
                live[again] = True
                started += len(again)
    if not scores:
        return Playouts(np.zeros((0, players), np.int64), np.zeros((0, players)), 0)
    return Playouts(np.concatenate(scores)[:games], np.concatenate(wins)[:games], decisions)
