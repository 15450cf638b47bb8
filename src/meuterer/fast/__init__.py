"""The fast engine: a mutable engine for hot loops, proven equal to the reference.

:mod:`meuterer.fast.engine` holds the engine (:class:`FastGame`, :func:`random_game`):
its data layout and its loop, applying the rule functions of ``meuterer.phases``;
nothing in the reference imports it. :mod:`meuterer.fast.play` plays agents, who see only
their views, on it (:func:`play_game`), with the same results as
:func:`meuterer.agents.play_game`.

>>> import meuterer
>>> from meuterer import fast
>>> fast.random_game(seed=7) == meuterer.random_game(seed=7)
True
"""

from meuterer.fast.engine import CHANCE, FastGame, random_game
from meuterer.fast.play import play_game

__all__ = ["CHANCE", "FastGame", "play_game", "random_game"]
