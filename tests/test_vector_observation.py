"""The batch encoder of the vector engine's observations: exactly ``Layout.encode_values``
of every row, whatever the batch size (blocks of games), the dtype or the values (looked up
in its table, or computed past it)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from meuterer import Rules
from meuterer.vector.observation import Encoder
from meuterer.views import Layout, PlayerView, observation_layout


def _expected(layout: Layout[PlayerView], vectors: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float32]:
    rows = [layout.encode_values(row.tolist()) for row in vectors]
    return np.array(rows, dtype=np.float32).reshape(len(vectors), layout.encoded_size)


def _vectors(layout: Layout[PlayerView], b: int, seed: int) -> npt.NDArray[np.int32]:
    """(b, size) random vectors within the layout's bounds, as observations() lays them out
    (a transposed view of an entries-by-games array)."""
    low, high = np.array(layout.low), np.array(layout.high)
    rng = np.random.default_rng(seed)
    entries = rng.integers(low[:, None], high[:, None] + 1, size=(len(low), b)).astype(np.int32)
    vectors: npt.NDArray[np.int32] = entries.T
    return vectors


@pytest.mark.parametrize(("players", "rules"), [(4, Rules()), (3, Rules(pirates=True, ring="shuffled"))])
def test_every_batch_size_and_dtype_is_the_layouts_encoding(players: int, rules: Rules) -> None:
    layout = observation_layout(players, rules)
    encoder = Encoder(layout)
    block = Encoder.BLOCK
    # sizes around the blocks, in an order that reuses the work arrays of earlier sizes
    for seed, b in enumerate([block + 1, 1, 0, block, 2 * block + 5, 7, block + 1, block - 1, 7]):
        vectors = _vectors(layout, b, seed)
        expected = _expected(layout, vectors)
        cases: list[tuple[npt.NDArray[np.signedinteger[Any]], npt.NDArray[np.float32]]]
        cases = [(vectors, expected), (np.ascontiguousarray(vectors), expected), (vectors.astype(np.int64), expected)]
        cases.append((vectors[::-1], expected[::-1]))  # rows in any order, strided
        for given, want in cases:
            got = encoder(given)
            assert got.dtype == np.float32 and got.flags.c_contiguous and got.shape == (b, layout.encoded_size)
            assert got.tobytes() == np.ascontiguousarray(want).tobytes()


def test_quantities_past_the_table_are_computed() -> None:
    # Values beyond low + SPAN - 1 (or below low) are not in the table: the whole batch is
    # then computed, with the same rounding.
    layout = observation_layout(4)
    encoder = Encoder(layout)
    quantities = np.flatnonzero(~np.array(layout.categorical))
    low = np.array(layout.low)[quantities]
    for shift in (Encoder.SPAN, Encoder.SPAN - 1, 1000, -1, -Encoder.SPAN):
        vectors = np.ascontiguousarray(_vectors(layout, 300, 7))
        vectors[5, quantities] = low + shift
        vectors[-1, quantities[-1]] = low[-1] + shift
        got = encoder(vectors)
        assert got.tobytes() == _expected(layout, vectors).tobytes()
        assert got[5, encoder._quantity_at[0]] == np.float32(shift * encoder._scale[0])
