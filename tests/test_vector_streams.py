"""Per-game streams of uniforms (``meuterer.vector.streams``)."""

from __future__ import annotations

import numpy as np
import pytest

from meuterer.vector.streams import GameStreams, splitmix64


def test_splitmix64_gives_the_reference_outputs() -> None:
    """SplitMix64 from seed 0: its published first three outputs."""
    state = np.arange(1, 4, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    assert [hex(int(x)) for x in splitmix64(state)] == ["0xe220a8397b1dcdaf", "0x6e789e6aa1b965f4", "0x6c45d188009454f"]


def test_a_game_draws_the_same_uniforms_whatever_the_others_draw() -> None:
    streams = GameStreams(3)
    games = np.arange(3)
    streams.start(games, np.array([11, 12, 11], dtype=np.uint64))
    first = [streams.uniforms(np.array([0]))[0] for _ in range(5)]
    interleaved = []
    for k in range(5):
        interleaved.append(streams.uniforms(np.array([1, 2]))[1])
        if k % 2:
            streams.uniforms(np.array([1]))
    assert first == interleaved
    streams.start(np.array([0]), np.array([11], dtype=np.uint64))  # a fresh stream starts over
    assert streams.uniforms(np.array([0]))[0] == first[0]


def test_uniforms_are_uniform_in_the_unit_interval() -> None:
    streams = GameStreams(1000)
    streams.start(np.arange(1000), np.arange(1000, dtype=np.uint64))
    u = np.concatenate([streams.uniforms(np.arange(1000)) for _ in range(100)])
    assert ((u >= 0) & (u < 1)).all()
    counts = np.histogram(u, bins=10, range=(0, 1))[0]
    assert abs(counts - 10_000).max() < 500  # about 5 standard deviations
    draw = streams.of(np.arange(1000))
    ranks = draw.integers(24, size=1000)
    assert ranks.min() == 0 and ranks.max() == 23


def test_a_sampler_asks_one_uniform_per_game() -> None:
    draw = GameStreams(4).of(np.arange(4))
    with pytest.raises(ValueError, match="one uniform per game"):
        draw.random(3)
