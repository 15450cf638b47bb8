"""A cursor over the reference engine, for loops that move one game on and on.

:mod:`meuterer.fast.engine` holds :class:`FastGame`, a reference :class:`~meuterer.State`
moved by the machine's own step table (no rule of its own; nothing in the reference
imports it); :func:`random_game` is :func:`meuterer.random_game`. :mod:`meuterer.fast.play`
plays agents, who see only their views, through it (:func:`play_game`, with a hook on the
live game), with the same results as :func:`meuterer.agents.play_game`;
:mod:`meuterer.fast.observation` packs observation vectors straight off a state.

>>> import meuterer
>>> from meuterer import fast
>>> fast.random_game(seed=7) == meuterer.random_game(seed=7)
True
"""

from meuterer.fast.engine import CHANCE, FastGame, random_game
from meuterer.fast.play import play_game

__all__ = ["CHANCE", "FastGame", "play_game", "random_game"]
