"""Streams of uniforms of each game's own: a batch's games drawing their chance (or their
random players' choices) from streams keyed per game, so that what a game draws depends on
its key and on nothing else in the batch (not its lane, not the other games, not the batch's
size).

Uniform ``k`` (from 0) of the stream keyed ``K`` is SplitMix64's ``k``-th output seeded
with ``K``, its top 53 bits as a float in [0, 1): a counter-based generator, so each game
needs only its key and how many uniforms it has drawn.

>>> streams = GameStreams(3)
>>> streams.start(np.array([0, 1, 2]), np.array([7, 7, 8], dtype=np.uint64))
>>> first = streams.uniforms(np.array([0, 1, 2]))
>>> bool(first[0] == first[1] != first[2]), bool(((0 <= first) & (first < 1)).all())
(True, True)
>>> later = streams.uniforms(np.array([1]))  # game 1 draws on; game 0 is where it was
>>> bool(streams.uniforms(np.array([0]))[0] == later[0])
True
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from meuterer.vector.arrays import FloatArray, IntArray

__all__ = ["GameStreams", "GamesDraw", "splitmix64"]

U64Array = npt.NDArray[np.uint64]
_GAMMA: Final = np.uint64(0x9E3779B97F4A7C15)
_MIX1: Final = np.uint64(0xBF58476D1CE4E5B9)
_MIX2: Final = np.uint64(0x94D049BB133111EB)


def splitmix64(state: U64Array) -> U64Array:
    """SplitMix64's output for each of its states ``state`` (arithmetic modulo 2**64).

    >>> hex(int(splitmix64(np.array([0x9E3779B97F4A7C15], dtype=np.uint64))[0]))  # its first output from seed 0
    '0xe220a8397b1dcdaf'
    """
    z = (state ^ (state >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    out: U64Array = z ^ (z >> np.uint64(31))
    return out


class GameStreams:
    """One stream of uniforms per game of a batch of ``batch`` games: :meth:`start` gives
    games their keys, :meth:`uniforms` draws the next uniform of each of some games."""

    def __init__(self, batch: int) -> None:
        self.keys: U64Array = np.zeros(batch, dtype=np.uint64)
        self.drawn: U64Array = np.zeros(batch, dtype=np.uint64)
        """How many uniforms each game has drawn."""

    def start(self, games: IntArray, keys: U64Array) -> None:
        """Give the games ``games`` fresh streams, keyed ``keys`` (64-bit integers)."""
        self.keys[games] = keys
        self.drawn[games] = 0

    def uniforms(self, games: IntArray) -> FloatArray:
        """The next uniform in [0, 1) of each of the games ``games`` (each once)."""
        self.drawn[games] += np.uint64(1)
        bits = splitmix64(self.keys[games] + self.drawn[games] * _GAMMA)
        out: FloatArray = (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53
        return out

    def of(self, games: IntArray) -> GamesDraw:
        """What a chance sampler draws from for the games ``games`` (the part of
        ``numpy.random.Generator`` the samplers use: one uniform per game)."""
        return GamesDraw(self, games)


class GamesDraw:
    """The draws of a sampler for some games (:meth:`GameStreams.of`): ``random`` and
    ``integers`` as ``numpy.random.Generator`` has them, one value per game, each from its
    game's stream."""

    def __init__(self, streams: GameStreams, games: IntArray) -> None:
        self._streams, self._games = streams, games

    def random(self, size: int) -> FloatArray:
        """A uniform in [0, 1) per game (``size``: how many games, as the samplers call it)."""
        if size != len(self._games):
            raise ValueError(f"one uniform per game: {len(self._games)} games, asked for {size}")
        return self._streams.uniforms(self._games)

    def integers(self, high: int, size: int) -> IntArray:
        """A uniform integer in ``range(high)`` per game."""
        out: IntArray = (self.random(size) * high).astype(np.int64)
        return out
