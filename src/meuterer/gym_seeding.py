"""Gymnasium's generators made when first read, for :mod:`meuterer.gym`: making a NumPy
generator costs as much as several steps of the game, and most episodes never draw from
the environment's or its action space's.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding


class SeededWhenRead:
    """Gymnasium's ``_np_random`` made when first read: a seeded reset (or ``seed``) keeps
    the seed in ``_np_seed``, and the generator is made from it on the first read of
    ``np_random`` (or ``_np_random``, as Gymnasium's checker reads it). Making a NumPy
    generator (a SeedSequence, a PCG64) costs as much as several steps of the game, and
    most episodes never draw from it; nothing can draw from it before it is read, so it is
    the generator seeding would have made, in the same state."""

    _np_seed: int | None = None
    _np_generator: np.random.Generator | None = None

    @property
    def _np_random(self) -> np.random.Generator | None:
        seed = self._np_seed
        if seed is not None:
            self._np_seed = None
            self._np_generator, _ = seeding.np_random(seed)
        return self._np_generator

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        self._np_seed = None
        self._np_generator = value


class Actions(SeededWhenRead, spaces.Discrete):  # type: ignore[misc]  # a property for its attribute
    """``Discrete(n)`` whose :meth:`seed` with an int keeps it and makes the generator from
    it when ``np_random`` is first read (the same generator, in the same state, as
    ``Discrete.seed`` makes at once): the environment seeds its action space at every
    seeded reset, and few ever sample from it.

    >>> space, plain = Actions(5), spaces.Discrete(5)
    >>> space.seed(3) == plain.seed(3), space == plain
    (True, True)
    >>> [int(space.sample()) for _ in range(6)] == [int(plain.sample()) for _ in range(6)]
    True
    """

    def seed(self, seed: int | None = None) -> int:
        """As ``Space.seed``: ``seed``'s generator (made when first read), or a random one for ``None``."""
        if type(seed) is int and seed >= 0:
            self._np_seed = seed
            return seed  # a SeedSequence's entropy is its int seed
        return super().seed(seed)
