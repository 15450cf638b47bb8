"""Thousands of games in lockstep: the game over a batch held as numpy arrays, and
environments on it (``pip install meuterer[vector]``).

- :class:`VectorGame`: the batched engine (fixed action ids, legal masks, chance per
  game, conversion to and from the reference :class:`~meuterer.state.State`);
- :func:`random_playouts`: mass simulation with random players;
- :func:`meuterer.vector.observation.observations`: every seat's observation vector, as the declared layout;
- :func:`meuterer.vector.env.init` / :func:`meuterer.vector.env.step`: a Pgx-style functional API;
- :class:`MeutererVectorEnv` (in :mod:`meuterer.vector.env`): a Gymnasium ``VectorEnv``.
"""

from meuterer.vector.engine import CHANCE, TERMINAL, VectorGame
from meuterer.vector.playouts import Playouts, random_playouts

__all__ = ["CHANCE", "TERMINAL", "Playouts", "VectorGame", "random_playouts"]
